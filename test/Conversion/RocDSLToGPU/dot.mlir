// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s
// RUN: rocdsl-opt %S/Inputs/dot-32x32x8.mlir --convert-rocdsl-to-gpu="chip=gfx950" --canonicalize --cse | FileCheck %s --check-prefix=LOOP

// A dot whose operands already sit in the instruction's registers (loaded
// straight into the dot_operand layouts): with kWidth 8 on a 16x16x16
// instruction (4 K per lane) each lane's 8 K elements feed two chained
// amdgpu.mfma, the first reading elements 0-3 and the second 4-7 of both
// A and B. A's 8 contiguous K elements are one 128-bit load.
// CHECK-LABEL: gpu.func @wide_kwidth(
// CHECK:         [[A:%.+]] = llvm.bitcast %{{.+}} : vector<4xi32> to vector<8xf16>
// CHECK:         [[B:%.+]] = vector.from_elements {{.*}} : vector<8xf16>
// CHECK:         [[A0:%.+]] = vector.shuffle [[A]], [[A]] [0, 1, 2, 3] : vector<8xf16>, vector<8xf16>
// CHECK-NEXT:    [[B0:%.+]] = vector.shuffle [[B]], [[B]] [0, 1, 2, 3] : vector<8xf16>, vector<8xf16>
// CHECK-NEXT:    [[D0:%.+]] = amdgpu.mfma 16x16x16 [[A0]] * [[B0]] + %{{.+}} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK-NEXT:    [[A1:%.+]] = vector.shuffle [[A]], [[A]] [4, 5, 6, 7] : vector<8xf16>, vector<8xf16>
// CHECK-NEXT:    [[B1:%.+]] = vector.shuffle [[B]], [[B]] [4, 5, 6, 7] : vector<8xf16>, vector<8xf16>
// CHECK-NEXT:    amdgpu.mfma 16x16x16 [[A1]] * [[B1]] + [[D0]] blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK-NOT:     amdgpu.mfma

// The K loop of Inputs/dot-32x32x8.mlir: the accumulator is carried as the
// lane's 16 f32 registers, four 32x32x8 instructions per step of 32.
// LOOP-LABEL: gpu.func @gemm_tile(
// LOOP:         scf.for {{.*}} iter_args([[ACC:%.+]] = %{{.+}}) -> (vector<16xf32>)
// LOOP:         [[D0:%.+]] = amdgpu.mfma 32x32x8 {{.*}} + [[ACC]] blgp = none : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// LOOP:         [[D1:%.+]] = amdgpu.mfma 32x32x8 {{.*}} + [[D0]]
// LOOP:         [[D2:%.+]] = amdgpu.mfma 32x32x8 {{.*}} + [[D1]]
// LOOP:         [[D3:%.+]] = amdgpu.mfma 32x32x8 {{.*}} + [[D2]]
// LOOP-NOT:     amdgpu.mfma
// LOOP:         scf.yield
#mfma = #rocdsl.mfma<version = 3, instrShape = [16, 16, 16], warpsPerCTA = [1, 1]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 8>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 8>
rocdsl.func @wide_kwidth(%pa: !rocdsl.ptr<f16>, %pb: !rocdsl.ptr<f16>, %pc: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %a = rocdsl.load %pa[%c0, %c0] strides [%c32] {vec = 8 : i32} : !rocdsl.ptr<f16> -> tensor<16x32xf16, #a>
  %b = rocdsl.load %pb[%c0, %c0] strides [%c16] : !rocdsl.ptr<f16> -> tensor<32x16xf16, #b>
  %z = arith.constant dense<0.0> : tensor<16x16xf32, #mfma>
  %d = rocdsl.dot %a, %b, %z : tensor<16x32xf16, #a>, tensor<32x16xf16, #b> -> tensor<16x16xf32, #mfma>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c16] : tensor<16x16xf32, #mfma>, !rocdsl.ptr<f32>
  rocdsl.return
}
