// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=sm_90" --canonicalize --cse | FileCheck %s

// mma.sync operands read from swizzled shared memory with ldmatrix: A
// (64x32, K contiguous) as 4 plain x4 reads per lane, B (32x64, N
// contiguous, pairs across the rows) as 4 .trans x4 reads; lane t
// addresses row t % 8 of matrix t / 8, the matrix origins chosen by
// selects. No element-wise shared loads remain.
// CHECK-LABEL: gpu.func @operands(
// CHECK-NOT:     llvm.load
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT:     llvm.load
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-NOT:     llvm.load
// CHECK:         nvvm.mma.sync
#mma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [2, 2]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
#sa = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#sb = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @operands(%pc: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %la = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #sa>
  %lb = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16, #sb>
  %x = rocdsl.local_load %la : !rocdsl.lds<64x32xbf16, #sa> -> tensor<64x32xbf16, #a>
  %y = rocdsl.local_load %lb : !rocdsl.lds<32x64xbf16, #sb> -> tensor<32x64xbf16, #b>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %d = rocdsl.dot %x, %y, %zero : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b> -> tensor<64x64xf32, #mma>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c64] : tensor<64x64xf32, #mma>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// Operands stored the other way round (A with M contiguous, B with K
// contiguous, as column-major inputs are staged): A's pairs now cross the
// rows (.trans), B's run along them (plain). A 16x16 A tile on one warp
// is one x4; a 16x8 B tile is two matrices, one x2.
// CHECK-LABEL: gpu.func @transposed_storage(
// CHECK:         nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK:         nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 2 : i32{{.*}} -> !llvm.struct<(i32, i32)>
// CHECK-NOT:     llvm.load
// CHECK:         nvvm.mma.sync
#mma1 = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [1, 1]>
#a1 = #rocdsl.dot_operand<opIdx = 0, parent = #mma1, kWidth = 2>
#b1 = #rocdsl.dot_operand<opIdx = 1, parent = #mma1, kWidth = 2>
#cm = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [0, 1]>
rocdsl.func @transposed_storage(%pc: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %la = rocdsl.local_alloc -> !rocdsl.lds<16x16xbf16, #cm>
  %lb = rocdsl.local_alloc -> !rocdsl.lds<16x8xbf16, #cm>
  %x = rocdsl.local_load %la : !rocdsl.lds<16x16xbf16, #cm> -> tensor<16x16xbf16, #a1>
  %y = rocdsl.local_load %lb : !rocdsl.lds<16x8xbf16, #cm> -> tensor<16x8xbf16, #b1>
  %zero = arith.constant dense<0.0> : tensor<16x8xf32, #mma1>
  %d = rocdsl.dot %x, %y, %zero : tensor<16x16xbf16, #a1>, tensor<16x8xbf16, #b1> -> tensor<16x8xf32, #mma1>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c8] : tensor<16x8xf32, #mma1>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// Where shared memory does not keep 16-byte rows together (a swizzle of
// 4-element groups) or the layout's registers are not ldmatrix's (a
// blocked tile), the reads stay element groups.
// CHECK-LABEL: gpu.func @not_ldmatrix(
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         llvm.load
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         gpu.return
#mma2 = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [2, 2]>
#b2 = #rocdsl.dot_operand<opIdx = 1, parent = #mma2, kWidth = 2>
#s4 = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>
#bl = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @not_ldmatrix(%p: !rocdsl.ptr<bf16>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %l = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16, #s4>
  %y = rocdsl.local_load %l : !rocdsl.lds<32x64xbf16, #s4> -> tensor<32x64xbf16, #b2>
  %z = rocdsl.local_load %l : !rocdsl.lds<32x64xbf16, #s4> -> tensor<32x64xbf16, #bl>
  %w = rocdsl.convert_layout %y : tensor<32x64xbf16, #b2> -> tensor<32x64xbf16, #bl>
  %s = arith.addf %z, %w : tensor<32x64xbf16, #bl>
  rocdsl.store %s, %p[%c0, %c0] strides [%c64] : tensor<32x64xbf16, #bl>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

// K^T read in place (attention's scores): keys stored by rows (64 keys x
// 32 head elements, the head dimension contiguous) and read transposed as
// the 32x64 B operand. In the exchanged view K (the head dimension) is
// contiguous, so the reads are plain (non-.trans) ldmatrix, the same as a
// column-major B tile: four x4 per lane, no element-wise shared loads.
// CHECK-LABEL: gpu.func @transposed_read(
// CHECK-NOT:     llvm.load
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-NOT:     llvm.load
// CHECK:         nvvm.mma.sync
#mma2 = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>
#a2 = #rocdsl.dot_operand<opIdx = 0, parent = #mma2, kWidth = 2>
#b2 = #rocdsl.dot_operand<opIdx = 1, parent = #mma2, kWidth = 2>
#rows = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
rocdsl.func @transposed_read(%pc: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %lq = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #rows>
  %lk = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #rows>
  %q = rocdsl.local_load %lq : !rocdsl.lds<64x32xbf16, #rows> -> tensor<64x32xbf16, #a2>
  %kt = rocdsl.local_load %lk {trans} : !rocdsl.lds<64x32xbf16, #rows> -> tensor<32x64xbf16, #b2>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma2>
  %d = rocdsl.dot %q, %kt, %zero : tensor<64x32xbf16, #a2>, tensor<32x64xbf16, #b2> -> tensor<64x64xf32, #mma2>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c64] : tensor<64x64xf32, #mma2>, !rocdsl.ptr<f32>
  rocdsl.return
}
