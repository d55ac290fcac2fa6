// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s --check-prefix=SOFF
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" | FileCheck %s --check-prefix=SOFF
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx950" | FileCheck %s --check-prefix=SOFF

// Vectorized global accesses: one 128-bit raw buffer access per group of
// `vec` elements. The buffer resource starts at the kernel's pointer; the
// uniform origin (program id, kernel arguments) is added to each lane's
// 32-bit VGPR offset (no 64-bit add per access); soffset is always the
// constant 0 (the hazard-free store form). No store anywhere may have a
// non-constant soffset, before or after canonicalization:
// SOFF-NOT: rocdl.raw.ptr.buffer.store {{[^,]+}}, {{[^,]+}}, {{[^,]+}}, %{{[^c]}}
// SOFF-NOT: rocdl.raw.ptr.buffer.load {{[^,]+}}, {{[^,]+}}, %{{[^c]}}

#rows = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]>
#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>

// 4x1024 bf16, one row per wave, vec = 8 (8 x 16 bits = vector<4xi32>),
// two groups per lane at columns lane*8 and lane*8 + 512.
// CHECK-LABEL: gpu.func @vec8_bf16(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>, [[Y:%[^:]+]]: !llvm.ptr<1>, [[COL:%[^:]+]]: i32, [[N:%[^:]+]]: i32)
// CHECK-DAG:     [[C512:%.+]] = arith.constant 512 : i32
// CHECK-DAG:     [[C2:%.+]] = arith.constant 2 : i32
// CHECK-DAG:     [[C8:%.+]] = arith.constant 8 : i32
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant 0 : i32
// CHECK-DAG:     [[STRIDE:%.+]] = arith.constant 0 : i16
// CHECK-DAG:     [[NUMREC:%.+]] = arith.constant 2147483647 : i64
// CHECK-DAG:     [[FLAGS:%.+]] = arith.constant 159744 : i32
// CHECK:         [[BID:%.+]] = gpu.block_id x
// CHECK-NEXT:    [[ROW:%.+]] = arith.index_castui [[BID]] : index to i32
// CHECK-NEXT:    [[XR:%.+]] = rocdl.make.buffer.rsrc [[X]], [[STRIDE]], [[NUMREC]], [[FLAGS]] : <1> to <8>
// CHECK:         [[WAVE:%.+]] = arith.divui
// CHECK:         [[LCOL:%.+]] = arith.muli %{{.+}}, [[C8]] : i32
// CHECK-NEXT:    [[GROW:%.+]] = arith.addi [[ROW]], [[WAVE]] : i32
// CHECK-NEXT:    [[ROWOFF:%.+]] = arith.muli [[GROW]], [[N]] : i32
// CHECK-NEXT:    [[GCOL0:%.+]] = arith.addi [[COL]], [[LCOL]] : i32
// CHECK-NEXT:    [[E0:%.+]] = arith.addi [[ROWOFF]], [[GCOL0]] : i32
// CHECK-NEXT:    [[V0:%.+]] = arith.muli [[E0]], [[C2]] : i32
// CHECK-NEXT:    [[LCOL1:%.+]] = arith.addi [[LCOL]], [[C512]] : i32
// CHECK-NEXT:    [[GCOL1:%.+]] = arith.addi [[COL]], [[LCOL1]] : i32
// CHECK-NEXT:    [[E1:%.+]] = arith.addi [[ROWOFF]], [[GCOL1]] : i32
// CHECK-NEXT:    [[V1:%.+]] = arith.muli [[E1]], [[C2]] : i32
// CHECK-NEXT:    [[L0:%.+]] = rocdl.raw.ptr.buffer.load [[XR]], [[V0]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK-NEXT:    [[G0:%.+]] = llvm.bitcast [[L0]] : vector<4xi32> to vector<8xbf16>
// CHECK-NEXT:    [[A0:%.+]] = vector.extract [[G0]][0] : bf16 from vector<8xbf16>
// CHECK-COUNT-7: vector.extract [[G0]]
// CHECK-NEXT:    [[L1:%.+]] = rocdl.raw.ptr.buffer.load [[XR]], [[V1]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK-NEXT:    [[G1:%.+]] = llvm.bitcast [[L1]] : vector<4xi32> to vector<8xbf16>
// CHECK-COUNT-8: vector.extract [[G1]]
// CHECK-NEXT:    [[T:%.+]] = vector.from_elements [[A0]], {{.*}} : vector<16xbf16>
// CHECK-NEXT:    [[YR:%.+]] = rocdl.make.buffer.rsrc [[Y]], [[STRIDE]], [[NUMREC]], [[FLAGS]] : <1> to <8>
// CHECK-NEXT:    [[P0:%.+]] = vector.shuffle [[T]], [[T]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xbf16>, vector<16xbf16>
// CHECK-NEXT:    [[D0:%.+]] = llvm.bitcast [[P0]] : vector<8xbf16> to vector<4xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[D0]], [[YR]], [[V0]], [[ZERO]], [[ZERO]] : vector<4xi32>
// Groups are stored in order (see elementwise.mlir).
// CHECK-NEXT:    rocdl.sched.barrier 0
// CHECK-NEXT:    [[P1:%.+]] = vector.shuffle [[T]], [[T]] [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xbf16>, vector<16xbf16>
// CHECK-NEXT:    [[D1:%.+]] = llvm.bitcast [[P1]] : vector<8xbf16> to vector<4xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[D1]], [[YR]], [[V1]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK-NEXT:    gpu.return
rocdsl.func @vec8_bf16(%x: !rocdsl.ptr<bf16>, %y: !rocdsl.ptr<bf16>, %col: i32, %n: i32) attributes {num_warps = 4 : i32} {
  %row = rocdsl.program_id x : i32
  %t = rocdsl.load %x[%row, %col] strides [%n] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<4x1024xbf16, #rows>
  rocdsl.store %t, %y[%row, %col] strides [%n] {vec = 8 : i32} : tensor<4x1024xbf16, #rows>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// 512xf32, 4 per lane, vec = 4 (4 x 32 bits = vector<4xi32>): byte offsets
// (off + lane*4)*4 and (off + lane*4 + 256)*4.
// CHECK-LABEL: gpu.func @vec4_f32(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>, [[Y:%[^:]+]]: !llvm.ptr<1>, [[OFF:%[^:]+]]: i32)
// CHECK-DAG:     [[C256:%.+]] = arith.constant 256 : i32
// CHECK-DAG:     [[C4:%.+]] = arith.constant 4 : i32
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant 0 : i32
// CHECK:         [[XR:%.+]] = rocdl.make.buffer.rsrc [[X]], {{.*}} : <1> to <8>
// CHECK:         [[TID:%.+]] = arith.index_castui %{{.+}} : index to i32
// CHECK-NEXT:    [[LANE:%.+]] = arith.remui [[TID]], %{{.+}} : i32
// CHECK-NEXT:    [[E0:%.+]] = arith.muli [[LANE]], [[C4]] : i32
// CHECK-NEXT:    [[G0:%.+]] = arith.addi [[OFF]], [[E0]] : i32
// CHECK-NEXT:    [[V0:%.+]] = arith.muli [[G0]], [[C4]] : i32
// CHECK-NEXT:    [[E1:%.+]] = arith.addi [[E0]], [[C256]] : i32
// CHECK-NEXT:    [[G1:%.+]] = arith.addi [[OFF]], [[E1]] : i32
// CHECK-NEXT:    [[V1:%.+]] = arith.muli [[G1]], [[C4]] : i32
// CHECK-NEXT:    [[L0:%.+]] = rocdl.raw.ptr.buffer.load [[XR]], [[V0]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK-NEXT:    llvm.bitcast [[L0]] : vector<4xi32> to vector<4xf32>
// CHECK:         [[L1:%.+]] = rocdl.raw.ptr.buffer.load [[XR]], [[V1]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK-NEXT:    llvm.bitcast [[L1]] : vector<4xi32> to vector<4xf32>
// CHECK:         [[T:%.+]] = vector.from_elements {{.*}} : vector<8xf32>
// CHECK-NEXT:    [[U:%.+]] = arith.addf [[T]], [[T]] : vector<8xf32>
// CHECK-NEXT:    [[YR:%.+]] = rocdl.make.buffer.rsrc [[Y]], {{.*}} : <1> to <8>
// CHECK-NEXT:    [[P0:%.+]] = vector.shuffle [[U]], [[U]] [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT:    [[D0:%.+]] = llvm.bitcast [[P0]] : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[D0]], [[YR]], [[V0]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK-NEXT:    rocdl.sched.barrier 0
// CHECK-NEXT:    [[P1:%.+]] = vector.shuffle [[U]], [[U]] [4, 5, 6, 7] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT:    [[D1:%.+]] = llvm.bitcast [[P1]] : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[D1]], [[YR]], [[V1]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK-NEXT:    gpu.return
rocdsl.func @vec4_f32(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %off: i32) attributes {num_warps = 1 : i32} {
  %t = rocdsl.load %x[%off] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<512xf32, #l4>
  %u = arith.addf %t, %t : tensor<512xf32, #l4>
  rocdsl.store %u, %y[%off] {vec = 4 : i32} : tensor<512xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// A constant zero origin folds away: the resource is made on the argument
// itself.
// CHECK-LABEL: gpu.func @zero_origin(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>)
// CHECK-NOT:     llvm.getelementptr
// CHECK:         [[XR:%.+]] = rocdl.make.buffer.rsrc [[X]],
// CHECK:         rocdl.raw.ptr.buffer.store %{{.+}}, [[XR]], %{{.+}}, [[ZERO:%c0_i32[_0-9]*]], [[ZERO]] : vector<4xi32>
rocdsl.func @zero_origin(%x: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #l4>
  %u = arith.mulf %t, %t : tensor<256xf32, #l4>
  rocdsl.store %u, %x[%c0] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}
