// RUN: rocdsl-opt %s | rocdsl-opt | FileCheck %s
// RUN: rocdsl-opt %s --mlir-print-op-generic | rocdsl-opt | FileCheck %s

// Checks that every layout attribute and the !rocdsl.ptr / !rocdsl.lds types print back exactly as written.

// CHECK-LABEL: func.func private @blocked(
// CHECK-SAME: tensor<1024xf32, #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>,
// CHECK-SAME: tensor<64x128xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>,
// CHECK-SAME: tensor<128x64xf16, #rocdsl.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 8], order = [0, 1]>>,
// CHECK-SAME: tensor<64x32xf32, #rocdsl.blocked<sizePerThread = [3, 5], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>>,
// CHECK-SAME: tensor<2x8x64xi8, #rocdsl.blocked<sizePerThread = [1, 1, 16], threadsPerWarp = [1, 16, 4], warpsPerCTA = [2, 2, 4], order = [2, 0, 1]>>)
func.func private @blocked(
    tensor<1024xf32, #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>,
    tensor<64x128xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>,
    tensor<128x64xf16, #rocdsl.blocked<sizePerThread = [8, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 8], order = [0, 1]>>,
    // A 32-lane (NVIDIA-style) wave and a non-power-of-two sizePerThread are accepted.
    tensor<64x32xf32, #rocdsl.blocked<sizePerThread = [3, 5], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>>,
    tensor<2x8x64xi8, #rocdsl.blocked<sizePerThread = [1, 1, 16], threadsPerWarp = [1, 16, 4], warpsPerCTA = [2, 2, 4], order = [2, 0, 1]>>)

// CHECK-LABEL: func.func private @slices(
// CHECK-SAME: tensor<64xf32, #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>,
// CHECK-SAME: tensor<128xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>,
// CHECK-SAME: tensor<8x64xi32, #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 1, 16], threadsPerWarp = [1, 16, 4], warpsPerCTA = [2, 2, 4], order = [2, 0, 1]>>>,
// CHECK-SAME: tensor<64xi32, #rocdsl.slice<dim = 0, parent = #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 1, 16], threadsPerWarp = [1, 16, 4], warpsPerCTA = [2, 2, 4], order = [2, 0, 1]>>>>,
// CHECK-SAME: tensor<2xi32, #rocdsl.slice<dim = 1, parent = #rocdsl.slice<dim = 2, parent = #rocdsl.blocked<sizePerThread = [1, 1, 16], threadsPerWarp = [1, 16, 4], warpsPerCTA = [2, 2, 4], order = [2, 0, 1]>>>>,
// CHECK-SAME: tensor<64xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>>,
// CHECK-SAME: tensor<32xbf16, #rocdsl.slice<dim = 0, parent = #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 4, instrShape = [16, 16, 32], warpsPerCTA = [4, 1]>, kWidth = 8>>>,
// CHECK-SAME: tensor<f32, #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>>)
func.func private @slices(
    tensor<64xf32, #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>,
    tensor<128xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>,
    tensor<8x64xi32, #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 1, 16], threadsPerWarp = [1, 16, 4], warpsPerCTA = [2, 2, 4], order = [2, 0, 1]>>>,
    // Nested slices: 3-D -> 2-D -> 1-D.
    tensor<64xi32, #rocdsl.slice<dim = 0, parent = #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 1, 16], threadsPerWarp = [1, 16, 4], warpsPerCTA = [2, 2, 4], order = [2, 0, 1]>>>>,
    tensor<2xi32, #rocdsl.slice<dim = 1, parent = #rocdsl.slice<dim = 2, parent = #rocdsl.blocked<sizePerThread = [1, 1, 16], threadsPerWarp = [1, 16, 4], warpsPerCTA = [2, 2, 4], order = [2, 0, 1]>>>>,
    // Slices of matrix-core layouts.
    tensor<64xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>>,
    tensor<32xbf16, #rocdsl.slice<dim = 0, parent = #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 4, instrShape = [16, 16, 32], warpsPerCTA = [4, 1]>, kWidth = 8>>>,
    // A slice of a 1-D layout is the (rank-0) layout of a uniform value.
    tensor<f32, #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>>)

// CHECK-LABEL: func.func private @mfma(
// CHECK-SAME: tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>,
// CHECK-SAME: tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [16, 16, 16], warpsPerCTA = [4, 1]>>,
// CHECK-SAME: tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 16], warpsPerCTA = [1, 4]>>,
// CHECK-SAME: tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [16, 16, 32], warpsPerCTA = [1, 1]>>,
// CHECK-SAME: tensor<128x128xf32, #rocdsl.mfma<version = 4, instrShape = [32, 32, 8], warpsPerCTA = [2, 4]>>,
// CHECK-SAME: tensor<128x128xf32, #rocdsl.mfma<version = 4, instrShape = [16, 16, 16], warpsPerCTA = [8, 2]>>,
// CHECK-SAME: tensor<128x128xf32, #rocdsl.mfma<version = 4, instrShape = [32, 32, 16], warpsPerCTA = [2, 2]>>,
// CHECK-SAME: tensor<128x128xf32, #rocdsl.mfma<version = 4, instrShape = [16, 16, 32], warpsPerCTA = [4, 1]>>)
func.func private @mfma(
    tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>,
    tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [16, 16, 16], warpsPerCTA = [4, 1]>>,
    tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 16], warpsPerCTA = [1, 4]>>,
    tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [16, 16, 32], warpsPerCTA = [1, 1]>>,
    tensor<128x128xf32, #rocdsl.mfma<version = 4, instrShape = [32, 32, 8], warpsPerCTA = [2, 4]>>,
    tensor<128x128xf32, #rocdsl.mfma<version = 4, instrShape = [16, 16, 16], warpsPerCTA = [8, 2]>>,
    tensor<128x128xf32, #rocdsl.mfma<version = 4, instrShape = [32, 32, 16], warpsPerCTA = [2, 2]>>,
    tensor<128x128xf32, #rocdsl.mfma<version = 4, instrShape = [16, 16, 32], warpsPerCTA = [4, 1]>>)

// CHECK-LABEL: func.func private @dot_operand(
// CHECK-SAME: tensor<64x16xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>>,
// CHECK-SAME: tensor<16x64xbf16, #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 8>>,
// CHECK-SAME: tensor<64x32xf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [16, 16, 16], warpsPerCTA = [4, 1]>, kWidth = 4>>,
// CHECK-SAME: tensor<64x64xf8E4M3FNUZ, #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 3, instrShape = [16, 16, 32], warpsPerCTA = [4, 1]>, kWidth = 8>>,
// CHECK-SAME: tensor<128x64xf8E4M3FN, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 4, instrShape = [32, 32, 16], warpsPerCTA = [2, 2]>, kWidth = 16>>)
func.func private @dot_operand(
    tensor<64x16xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>>,
    tensor<16x64xbf16, #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 8>>,
    tensor<64x32xf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [16, 16, 16], warpsPerCTA = [4, 1]>, kWidth = 4>>,
    tensor<64x64xf8E4M3FNUZ, #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 3, instrShape = [16, 16, 32], warpsPerCTA = [4, 1]>, kWidth = 8>>,
    tensor<128x64xf8E4M3FN, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 4, instrShape = [32, 32, 16], warpsPerCTA = [2, 2]>, kWidth = 16>>)

// Standalone attributes (not used as an encoding), including #rocdsl.shared.
// CHECK-LABEL: func.func private @standalone()
// CHECK-SAME: attributes {
// CHECK-SAME: blocked = #rocdsl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 8], warpsPerCTA = [16, 1], order = [0, 1]>
// CHECK-SAME: dot = #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 4, instrShape = [16, 16, 16], warpsPerCTA = [2, 2]>, kWidth = 8>
// CHECK-SAME: kinds = [#rocdsl<reduce_kind add>, #rocdsl<reduce_kind mul>, #rocdsl<reduce_kind max>, #rocdsl<reduce_kind min>]
// CHECK-SAME: mfma = #rocdsl.mfma<version = 4, instrShape = [16, 16, 16], warpsPerCTA = [2, 2]>
// CHECK-SAME: shared1d = #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
// CHECK-SAME: shared2d = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
// CHECK-SAME: shared3d = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 16, order = [2, 0, 1]>
// CHECK-SAME: slice = #rocdsl.slice<dim = 1, parent = #rocdsl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 8], warpsPerCTA = [16, 1], order = [0, 1]>>
func.func private @standalone() attributes {
  blocked = #rocdsl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 8], warpsPerCTA = [16, 1], order = [0, 1]>,
  slice = #rocdsl.slice<dim = 1, parent = #rocdsl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 8], warpsPerCTA = [16, 1], order = [0, 1]>>,
  mfma = #rocdsl.mfma<version = 4, instrShape = [16, 16, 16], warpsPerCTA = [2, 2]>,
  dot = #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 4, instrShape = [16, 16, 16], warpsPerCTA = [2, 2]>, kWidth = 8>,
  shared1d = #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>,
  shared2d = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>,
  shared3d = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 16, order = [2, 0, 1]>,
  kinds = [#rocdsl<reduce_kind add>, #rocdsl<reduce_kind mul>, #rocdsl<reduce_kind max>, #rocdsl<reduce_kind min>]
}

// CHECK-LABEL: func.func private @pointers(
// CHECK-SAME: !rocdsl.ptr<f32>, !rocdsl.ptr<bf16>, !rocdsl.ptr<f16>, !rocdsl.ptr<f64>, !rocdsl.ptr<i8>, !rocdsl.ptr<i32>, !rocdsl.ptr<i1>, !rocdsl.ptr<f8E4M3FNUZ>, !rocdsl.ptr<f8E5M2>, !rocdsl.ptr<!rocdsl.ptr<f32>>)
func.func private @pointers(!rocdsl.ptr<f32>, !rocdsl.ptr<bf16>, !rocdsl.ptr<f16>, !rocdsl.ptr<f64>,
                            !rocdsl.ptr<i8>, !rocdsl.ptr<i32>, !rocdsl.ptr<i1>,
                            !rocdsl.ptr<f8E4M3FNUZ>, !rocdsl.ptr<f8E5M2>,
                            !rocdsl.ptr<!rocdsl.ptr<f32>>)

// CHECK-LABEL: func.func private @lds_tiles(
// CHECK-SAME: !rocdsl.lds<256xf32, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>>,
// CHECK-SAME: !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>,
// CHECK-SAME: !rocdsl.lds<32x128xf16, #rocdsl.shared<vec = 4, perPhase = 2, maxPhase = 4, order = [0, 1]>>,
// CHECK-SAME: !rocdsl.lds<2x16x64xf8E4M3FNUZ, #rocdsl.shared<vec = 16, perPhase = 1, maxPhase = 16, order = [2, 1, 0]>>,
// CHECK-SAME: !rocdsl.lds<1x1xi32, #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>)
func.func private @lds_tiles(
    !rocdsl.lds<256xf32, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>>,
    !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>,
    !rocdsl.lds<32x128xf16, #rocdsl.shared<vec = 4, perPhase = 2, maxPhase = 4, order = [0, 1]>>,
    !rocdsl.lds<2x16x64xf8E4M3FNUZ, #rocdsl.shared<vec = 16, perPhase = 1, maxPhase = 16, order = [2, 1, 0]>>,
    !rocdsl.lds<1x1xi32, #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>)

// Aliases are resolved: the printed form spells the attribute out.
#blk = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#sh = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>
// CHECK-LABEL: func.func private @aliases(
// CHECK-SAME: tensor<16x32xf32, #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>>,
// CHECK-SAME: tensor<32xf32, #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>>>,
// CHECK-SAME: !rocdsl.lds<16x32xf32, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>>)
func.func private @aliases(tensor<16x32xf32, #blk>, tensor<32xf32, #rocdsl.slice<dim = 0, parent = #blk>>,
                           !rocdsl.lds<16x32xf32, #sh>)
