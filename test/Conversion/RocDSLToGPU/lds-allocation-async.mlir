// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942 direct-copies=1" --canonicalize --cse | FileCheck %s

// A copy in flight keeps its buffer live until a wait retires every copy,
// even where nothing reads what it wrote (a pipeline's prefetch past the
// last step). Here the copies go straight to LDS (gfx942 direct-copies;
// cp.async on NVIDIA shares the allocator): the conversion before
// `async_wait {pending = 0}` may not take the tile's bytes (its scratch,
// the larger, at 0 and the tile at 16384: arena 24576, not 16384), the
// one after the drain may.
// CHECK-LABEL: gpu.module
// CHECK:       llvm.mlir.global internal @__rocdsl_lds_copy_in_flight() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<24576 x i8>
// CHECK-LABEL: gpu.func @copy_in_flight(
// CHECK:         llvm.getelementptr {{%.+}}[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         rocdl.raw.ptr.buffer.load.lds
// CHECK-NOT:     llvm.getelementptr {{%.+}}[{{[0-9]+}}] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK:         gpu.return
#l4 = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sh4 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#mfma4 = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#b4 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @copy_in_flight(%p: !rocdsl.ptr<bf16>, %q: !rocdsl.ptr<f32>, %x: f32, %m: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %tile = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #sh4>
  rocdsl.async_copy %p[%c0, %c0] strides [%c64] bounds [%m, %c64], %tile {vec = 8 : i32}
      : !rocdsl.ptr<bf16>, tensor<64x64xbf16, #l4> -> !rocdsl.lds<64x64xbf16, #sh4>
  rocdsl.async_commit
  %s = rocdsl.splat %x : f32 -> tensor<64x64xf32, #mfma4>
  %c = rocdsl.convert_layout %s : tensor<64x64xf32, #mfma4> -> tensor<64x64xf32, #b4>
  rocdsl.store %c, %q[%c0, %c0] strides [%c64] {vec = 4 : i32} : tensor<64x64xf32, #b4>, !rocdsl.ptr<f32>
  rocdsl.async_wait {pending = 0 : i32}
  rocdsl.barrier
  %t = rocdsl.splat %x : f32 -> tensor<64x64xf32, #mfma4>
  %d = rocdsl.convert_layout %t : tensor<64x64xf32, #mfma4> -> tensor<64x64xf32, #b4>
  rocdsl.store %d, %q[%c64, %c0] strides [%c64] {vec = 4 : i32} : tensor<64x64xf32, #b4>, !rocdsl.ptr<f32>
  rocdsl.return
}
