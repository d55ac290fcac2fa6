// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s
// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-host | FileCheck %s --check-prefix=HOST

// Into the swapped layout (getTransposedLayout): each lane keeps its
// registers (here even in the same order, so nothing at all is emitted);
// no LDS, no barrier.
// CHECK-LABEL: gpu.module
// CHECK-NOT:   llvm.mlir.global
// CHECK-LABEL: gpu.func @free(
// CHECK:         [[T:%.+]] = vector.from_elements {{.*}} : vector<8xf32>
// CHECK-NOT:     gpu.barrier
// CHECK-NOT:     llvm.store
// CHECK:         vector.shuffle [[T]], [[T]] [0]
// CHECK-NOT:     gpu.barrier
// HOST-LABEL:  func.func @free(
// HOST:          vector.transpose %{{.+}}, [1, 0] : vector<2x256xf32> to vector<256x2xf32>
#r = #rocdsl.blocked<sizePerThread = [2, 4], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [1, 0]>
#rt = #rocdsl.blocked<sizePerThread = [4, 2], threadsPerWarp = [64, 1], warpsPerCTA = [1, 1], order = [0, 1]>
rocdsl.func @free(%p: !rocdsl.ptr<f32>, %q: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c256 = arith.constant 256 : i32
  %t = rocdsl.load %p[%c0, %c0] strides [%c256] : !rocdsl.ptr<f32> -> tensor<2x256xf32, #r>
  %u = rocdsl.trans %t : tensor<2x256xf32, #r> -> tensor<256x2xf32, #rt>
  rocdsl.store %u, %q[%c0, %c0] strides [%c2] : tensor<256x2xf32, #rt>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// Into any other layout: written in the source layout to LDS scratch in
// the kernel's arena (row-major), read back as element (j, i).
// CHECK-LABEL: gpu.module
// CHECK:       llvm.mlir.global internal @__rocdsl_lds_staged() {{.*}} : !llvm.array<8192 x i8>
// CHECK-LABEL: gpu.func @staged(
// CHECK:         gpu.barrier
// CHECK:         llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<3>
// CHECK:         gpu.barrier
// CHECK:         llvm.load {{.*}} : !llvm.ptr<3> -> f32
#a = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 32], warpsPerCTA = [2, 1], order = [1, 0]>
rocdsl.func @staged(%p: !rocdsl.ptr<f32>, %q: !rocdsl.ptr<f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c128 = arith.constant 128 : i32
  %t = rocdsl.load %p[%c0, %c0] strides [%c128] : !rocdsl.ptr<f32> -> tensor<16x128xf32, #a>
  %u = rocdsl.trans %t : tensor<16x128xf32, #a> -> tensor<128x16xf32, #a>
  rocdsl.store %u, %q[%c0, %c0] strides [%c16] : tensor<128x16xf32, #a>, !rocdsl.ptr<f32>
  rocdsl.return
}
