// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

// An LDS tile with the XOR swizzle: each lane's 8 bf16 stay together (one
// 128-bit access, ds_write_b128/ds_read_b128), their group index is XORed
// with the row's phase, and the write sits between two barriers.
// CHECK-LABEL: gpu.module
// CHECK:       llvm.mlir.global internal @__rocdsl_lds_swizzled() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x i8>
// CHECK-LABEL: gpu.func @swizzled(
// CHECK:         [[LDS:%.+]] = llvm.mlir.addressof @__rocdsl_lds_swizzled : !llvm.ptr<3>
// CHECK:         [[T:%.+]] = llvm.bitcast %{{.+}} : vector<4xi32> to vector<8xbf16>
// CHECK-NEXT:    gpu.barrier
// CHECK:         [[SW:%.+]] = arith.xori [[GROUP:%.+]], [[PHASE:%.+]] : i32
// CHECK:         [[P:%.+]] = llvm.getelementptr [[LDS]][{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
// CHECK-NEXT:    llvm.store [[T]], [[P]] {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    llvm.load [[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
#l = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#sh = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @swizzled(%p: !rocdsl.ptr<bf16>, %q: !rocdsl.ptr<bf16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %t = rocdsl.load %p[%c0, %c0] strides [%c64] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<8x64xbf16, #l>
  %s = rocdsl.local_alloc %t : tensor<8x64xbf16, #l> -> !rocdsl.lds<8x64xbf16, #sh>
  %u = rocdsl.local_load %s : !rocdsl.lds<8x64xbf16, #sh> -> tensor<8x64xbf16, #l>
  rocdsl.store %u, %q[%c0, %c0] strides [%c64] {vec = 8 : i32} : tensor<8x64xbf16, #l>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

// Two layouts that place every element in the same register of the same
// lane (the order of a unit dimension does not matter): no LDS, no barrier.
// CHECK-LABEL: gpu.module
// CHECK-NOT:   llvm.mlir.global
// CHECK-LABEL: gpu.func @free_conversion(
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
#r = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [1, 0]>
#c = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [0, 1]>
rocdsl.func @free_conversion(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %t = rocdsl.load %p[%c0, %c0] strides [%c256] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<1x256xf32, #r>
  %u = rocdsl.convert_layout %t : tensor<1x256xf32, #r> -> tensor<1x256xf32, #c>
  rocdsl.store %u, %p[%c0, %c0] strides [%c256] : tensor<1x256xf32, #c>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// A conversion that moves data goes through LDS scratch in the kernel's
// arena; two conversions at different times share it (64x64 f32 = 16384
// bytes, not the sum of both): barrier, write in the source layout, barrier, read in the target.
// CHECK-LABEL: gpu.module
// CHECK:       llvm.mlir.global internal @__rocdsl_lds_two_conversions() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16384 x i8>
// CHECK-NOT:   llvm.mlir.global
// CHECK-LABEL: gpu.func @two_conversions(
// CHECK:         gpu.barrier
// CHECK:         llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK:         gpu.barrier
// CHECK:         llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:         gpu.barrier
// CHECK:         gpu.barrier
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#b = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @two_conversions(%p: !rocdsl.ptr<f32>, %x: f32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %t = rocdsl.splat %x : f32 -> tensor<64x64xf32, #mfma>
  %u = rocdsl.convert_layout %t : tensor<64x64xf32, #mfma> -> tensor<64x64xf32, #b>
  %s = rocdsl.splat %x : f32 -> tensor<32x64xf32, #mfma>
  %v = rocdsl.convert_layout %s : tensor<32x64xf32, #mfma> -> tensor<32x64xf32, #b>
  rocdsl.store %u, %p[%c0, %c0] strides [%c64] {vec = 4 : i32} : tensor<64x64xf32, #b>, !rocdsl.ptr<f32>
  rocdsl.store %v, %p[%c0, %c0] strides [%c64] {vec = 4 : i32} : tensor<32x64xf32, #b>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// Consecutive local_stores with only global loads and arithmetic between
// them share their barriers: one before the first write, one after the
// last. A read between two stores keeps both stores' barriers.
// CHECK-LABEL: gpu.func @shared_barriers(
// CHECK:         gpu.barrier
// CHECK-NOT:     gpu.barrier
// CHECK:         llvm.store {{.*}} !llvm.ptr<3>
// CHECK-NOT:     gpu.barrier
// CHECK:         rocdl.raw.ptr.buffer.load
// CHECK-NOT:     gpu.barrier
// CHECK:         llvm.store {{.*}} !llvm.ptr<3>
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    llvm.load {{.*}} : !llvm.ptr<3>
// CHECK-NEXT:    gpu.barrier
// CHECK:         llvm.store {{.*}} !llvm.ptr<3>
// CHECK-NEXT:    gpu.barrier
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
#l1 = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#sh1 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @shared_barriers(%p: !rocdsl.ptr<bf16>, %q: !rocdsl.ptr<bf16>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %a = rocdsl.local_alloc -> !rocdsl.lds<8x64xbf16, #sh1>
  %b = rocdsl.local_alloc -> !rocdsl.lds<8x64xbf16, #sh1>
  %t = rocdsl.load %p[%c0, %c0] strides [%c64] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<8x64xbf16, #l1>
  rocdsl.local_store %t, %a : tensor<8x64xbf16, #l1>, !rocdsl.lds<8x64xbf16, #sh1>
  %t2 = rocdsl.load %q[%c0, %c0] strides [%c64] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<8x64xbf16, #l1>
  %t3 = arith.addf %t2, %t2 : tensor<8x64xbf16, #l1>
  rocdsl.local_store %t3, %b : tensor<8x64xbf16, #l1>, !rocdsl.lds<8x64xbf16, #sh1>
  %u = rocdsl.local_load %a : !rocdsl.lds<8x64xbf16, #sh1> -> tensor<8x64xbf16, #l1>
  rocdsl.local_store %u, %b : tensor<8x64xbf16, #l1>, !rocdsl.lds<8x64xbf16, #sh1>
  %v = rocdsl.local_load %b : !rocdsl.lds<8x64xbf16, #sh1> -> tensor<8x64xbf16, #l1>
  rocdsl.store %v, %q[%c0, %c0] strides [%c64] {vec = 8 : i32} : tensor<8x64xbf16, #l1>, !rocdsl.ptr<bf16>
  rocdsl.return
}
