// RUN: rocdsl-opt %s --split-input-file --verify-diagnostics --convert-rocdsl-to-gpu="chip=gfx942"
// RUN: grep -v expected- %s | not rocdsl-opt --split-input-file --convert-rocdsl-to-gpu="chip=gfx1100" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: grep -v expected- %s | not rocdsl-opt --split-input-file --convert-rocdsl-to-gpu="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP90A

// Constructs without a GPU lowering fail with one clear error (the first
// problem found), not a generic "failed to legalize".

// Any chip other than gfx94x/gfx95x is rejected before anything else, once
// per input chunk, and no converted IR is printed. (expected-* lines are
// stripped for these runs, so the diagnostics checked are only the chip's.)
// CHIP-COUNT-4: error: unsupported chip 'gfx1100' (supported: gfx942, gfx950, sm_90, sm_90a)
// CHIP-NOT:     error:
// CHIP-NOT:     gpu.module
// CHIP90A:      error: unsupported chip 'gfx90a' (supported: gfx942, gfx950, sm_90, sm_90a)

#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#l2 = #rocdsl.blocked<sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @convert(%p: !rocdsl.ptr<f32>, %a: f32) attributes {num_warps = 1 : i32} {
  %t = rocdsl.splat %a : f32 -> tensor<256xf32, #l4>
  // expected-error @below {{'rocdsl.convert_layout' has no GPU lowering yet (matrix-core and LDS lowering is not implemented)}}
  %u = rocdsl.convert_layout %t : tensor<256xf32, #l4> -> tensor<256xf32, #l2>
  rocdsl.return
}

// -----

#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#sh = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [0]>
rocdsl.func @alloc(%p: !rocdsl.ptr<f32>, %a: f32) attributes {num_warps = 1 : i32} {
  %t = rocdsl.splat %a : f32 -> tensor<256xf32, #l4>
  // expected-error @below {{'rocdsl.local_alloc' has no GPU lowering yet (matrix-core and LDS lowering is not implemented)}}
  %l = rocdsl.local_alloc %t : tensor<256xf32, #l4> -> !rocdsl.lds<256xf32, #sh>
  %u = rocdsl.local_load %l : !rocdsl.lds<256xf32, #sh> -> tensor<256xf32, #l4>
  rocdsl.return
}

// -----

// rocdsl.dot: its operands can only come from ops producing matrix-core
// tiles, and the walk reports the first of those, so the error names the
// operand's layout rather than the dot itself.
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [1, 1]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
rocdsl.func @dot(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  // expected-error @below {{tile 'tensor<32x8xf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [1, 1]>, kWidth = 4>>' uses a matrix-core layout, which has no register lowering yet}}
  %a = arith.constant dense<1.0> : tensor<32x8xf16, #a>
  %b = arith.constant dense<1.0> : tensor<8x32xf16, #b>
  %c = arith.constant dense<0.0> : tensor<32x32xf32, #mfma>
  %d = rocdsl.dot %a, %b, %c : tensor<32x8xf16, #a>, tensor<8x32xf16, #b> -> tensor<32x32xf32, #mfma>
  rocdsl.return
}

// -----

// 384 is neither a multiple of the 256-element repetition of #l4 nor
// smaller than it.
#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @ragged(%p: !rocdsl.ptr<f32>, %a: f32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{tile 'tensor<384xf32, #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>>' has no register lowering: the layout must be #rocdsl.blocked (or a slice of it) and each dimension a multiple of the layout's repetition or smaller than it}}
  %t = rocdsl.splat %a : f32 -> tensor<384xf32, #l4>
  rocdsl.store %t, %p[%c0] {vec = 4 : i32} : tensor<384xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}
