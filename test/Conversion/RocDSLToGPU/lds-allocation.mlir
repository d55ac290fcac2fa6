// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

// One LDS arena per kernel. Two tiles used inside a loop are live across
// all of it and get disjoint bytes (the larger, 8192, first at 0; the other
// at 8192); the conversion after the loop reuses their bytes from offset 0,
// so the arena is the larger of 8192 + 4096 and the scratch's 16384, not
// their sum.
// CHECK-LABEL: gpu.module
// CHECK:       llvm.mlir.global internal @__rocdsl_lds_loop_then_epilogue() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16384 x i8>
// CHECK-NOT:   addr_space = 3
// CHECK-LABEL: gpu.func @loop_then_epilogue(
// CHECK-DAG:     [[ARENA:%.+]] = llvm.mlir.addressof @__rocdsl_lds_loop_then_epilogue : !llvm.ptr<3>
// CHECK-DAG:     llvm.getelementptr [[ARENA]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT:     llvm.getelementptr [[ARENA]][{{[0-9]+}}] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         scf.for
// CHECK:         gpu.return
#l = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sh = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#b = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @loop_then_epilogue(%p: !rocdsl.ptr<bf16>, %q: !rocdsl.ptr<f32>, %x: f32, %n: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %big = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #sh>
  %small = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16, #sh>
  %t = rocdsl.load %p[%c0, %c0] strides [%c64] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<64x64xbf16, #l>
  %u = rocdsl.load %p[%c0, %c0] strides [%c64] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<32x64xbf16, #l>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %t) -> (tensor<64x64xbf16, #l>) : i32 {
    rocdsl.local_store %acc, %big : tensor<64x64xbf16, #l>, !rocdsl.lds<64x64xbf16, #sh>
    rocdsl.local_store %u, %small : tensor<32x64xbf16, #l>, !rocdsl.lds<32x64xbf16, #sh>
    %v = rocdsl.local_load %big : !rocdsl.lds<64x64xbf16, #sh> -> tensor<64x64xbf16, #l>
    scf.yield %v : tensor<64x64xbf16, #l>
  }
  %w = rocdsl.local_load %small : !rocdsl.lds<32x64xbf16, #sh> -> tensor<32x64xbf16, #l>
  rocdsl.store %w, %p[%c0, %c0] strides [%c64] {vec = 8 : i32} : tensor<32x64xbf16, #l>, !rocdsl.ptr<bf16>
  rocdsl.store %r, %p[%c0, %c0] strides [%c64] {vec = 8 : i32} : tensor<64x64xbf16, #l>, !rocdsl.ptr<bf16>
  %s = rocdsl.splat %x : f32 -> tensor<64x64xf32, #mfma>
  %c = rocdsl.convert_layout %s : tensor<64x64xf32, #mfma> -> tensor<64x64xf32, #b>
  rocdsl.store %c, %q[%c0, %c0] strides [%c64] {vec = 4 : i32} : tensor<64x64xf32, #b>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// A conversion inside the loop that uses a tile runs while the tile is
// live (the next iteration reads the tile again), so the two get disjoint
// bytes: the scratch (larger) at 0, the tile at 16384; arena 20480.
// CHECK-LABEL: gpu.module
// CHECK:       llvm.mlir.global internal @__rocdsl_lds_conversion_in_loop() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<20480 x i8>
// CHECK-LABEL: gpu.func @conversion_in_loop(
// CHECK:         llvm.getelementptr {{%.+}}[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         scf.for
// CHECK-NOT:     llvm.getelementptr {{%.+}}[{{[0-9]+}}] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         gpu.return
#l2 = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sh2 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#mfma2 = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#b2 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @conversion_in_loop(%p: !rocdsl.ptr<bf16>, %q: !rocdsl.ptr<f32>, %x: f32, %n: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %tile = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16, #sh2>
  %u = rocdsl.load %p[%c0, %c0] strides [%c64] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<32x64xbf16, #l2>
  rocdsl.local_store %u, %tile : tensor<32x64xbf16, #l2>, !rocdsl.lds<32x64xbf16, #sh2>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %s = rocdsl.splat %x : f32 -> tensor<64x64xf32, #mfma2>
    %c = rocdsl.convert_layout %s : tensor<64x64xf32, #mfma2> -> tensor<64x64xf32, #b2>
    rocdsl.store %c, %q[%c0, %c0] strides [%c64] {vec = 4 : i32} : tensor<64x64xf32, #b2>, !rocdsl.ptr<f32>
    %w = rocdsl.local_load %tile : !rocdsl.lds<32x64xbf16, #sh2> -> tensor<32x64xbf16, #l2>
    rocdsl.store %w, %p[%c0, %c0] strides [%c64] {vec = 8 : i32} : tensor<32x64xbf16, #l2>, !rocdsl.ptr<bf16>
  }
  rocdsl.return
}

// -----

// Two buffers of one stack: buffer i starts i * 2048 elements (4096 bytes)
// after the stack's slot, and the stack (8192 bytes) is live wherever one
// of its buffers is used, here across the loop: the scratch of the
// conversion after it reuses its bytes (arena 16384, not 8192 + 16384).
// CHECK-LABEL: gpu.module
// CHECK:       llvm.mlir.global internal @__rocdsl_lds_double_buffer() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16384 x i8>
// CHECK-LABEL: gpu.func @double_buffer(
// CHECK:         scf.for [[I:%[a-z0-9_]+]] =
// CHECK:           [[SLOT:%.+]] = arith.remui [[I]], %{{.+}} : i32
// CHECK:           [[OFF:%.+]] = arith.muli [[SLOT]], %c2048_i32 : i32
// CHECK:           llvm.getelementptr %{{.+}}[[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
// CHECK:         gpu.return
#l3 = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#stack = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>
#one = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#mfma3 = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#b3 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @double_buffer(%p: !rocdsl.ptr<bf16>, %q: !rocdsl.ptr<f32>, %x: f32, %n: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %bufs = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #stack>
  %t = rocdsl.load %p[%c0, %c0] strides [%c32] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<64x32xbf16, #l3>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %t) -> (tensor<64x32xbf16, #l3>) : i32 {
    %slot = arith.remui %i, %c2 : i32
    %buf = rocdsl.local_index %bufs[%slot] : !rocdsl.lds<2x64x32xbf16, #stack> -> !rocdsl.lds<64x32xbf16, #one>
    rocdsl.local_store %acc, %buf : tensor<64x32xbf16, #l3>, !rocdsl.lds<64x32xbf16, #one>
    %v = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #one> -> tensor<64x32xbf16, #l3>
    scf.yield %v : tensor<64x32xbf16, #l3>
  }
  rocdsl.store %r, %p[%c0, %c0] strides [%c32] {vec = 8 : i32} : tensor<64x32xbf16, #l3>, !rocdsl.ptr<bf16>
  %s = rocdsl.splat %x : f32 -> tensor<64x64xf32, #mfma3>
  %c = rocdsl.convert_layout %s : tensor<64x64xf32, #mfma3> -> tensor<64x64xf32, #b3>
  rocdsl.store %c, %q[%c0, %c0] strides [%c64] {vec = 4 : i32} : tensor<64x64xf32, #b3>, !rocdsl.ptr<f32>
  rocdsl.return
}
