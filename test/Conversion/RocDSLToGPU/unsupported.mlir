// RUN: rocdsl-opt %s --split-input-file --verify-diagnostics --convert-rocdsl-to-gpu="chip=gfx942"
// RUN: grep -v expected- %s | not rocdsl-opt --split-input-file --convert-rocdsl-to-gpu="chip=gfx1100" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: grep -v expected- %s | not rocdsl-opt --split-input-file --convert-rocdsl-to-gpu="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP90A
// RUN: not rocdsl-opt %S/Inputs/dot-32x32x8.mlir --convert-rocdsl-to-gpu="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not rocdsl-opt %S/Inputs/dot-mma.mlir --convert-rocdsl-to-gpu="chip=gfx942" 2>&1 | FileCheck %s --check-prefix=MMA942

// Constructs without a lowering for the chip fail with one clear error
// (the first problem found), not a generic "failed to legalize".

// Any chip other than gfx94x/gfx95x is rejected before anything else, once
// per input chunk, and no converted IR is printed. (expected-* lines are
// stripped for these runs, so the diagnostics checked are only the chip's.)
// CHIP-COUNT-6: error: unsupported chip 'gfx1100' (supported: gfx942, gfx950, sm_90, sm_90a)
// CHIP-NOT:     error:
// CHIP-NOT:     gpu.module
// CHIP90A:      error: unsupported chip 'gfx90a' (supported: gfx942, gfx950, sm_90, sm_90a)

// Matrix layouts of the other vendor: the error names the chip's own
// instructions.
// SM90: error: rocdsl.dot with a #rocdsl.mfma layout runs on AMD matrix cores; sm_90 has no MFMA (its matrix instructions: mma.sync.aligned.m16n8k16.row.col.f32.bf16, mma.sync.aligned.m16n8k16.row.col.f32.f16)
// MMA942: error: rocdsl.dot with a #rocdsl.mma layout runs on NVIDIA tensor cores; gfx942 has MFMA (its matrix instructions: v_mfma_f32_32x32x8_bf16, v_mfma_f32_32x32x8_f16,

// CDNA4's 16x16x32 bf16 layout on gfx942 (CDNA3).
#mfma = #rocdsl.mfma<version = 4, instrShape = [16, 16, 32], warpsPerCTA = [1, 1]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 8>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 8>
rocdsl.func @dot_v4(%p: !rocdsl.ptr<f32>, %x: bf16, %z: f32) attributes {num_warps = 1 : i32} {
  %a = rocdsl.splat %x : bf16 -> tensor<16x32xbf16, #a>
  %b = rocdsl.splat %x : bf16 -> tensor<32x16xbf16, #b>
  %c = rocdsl.splat %z : f32 -> tensor<16x16xf32, #mfma>
  // expected-error @below {{#rocdsl.mfma<version = 4> needs a newer matrix core than gfx942's (version 3)}}
  %d = rocdsl.dot %a, %b, %c : tensor<16x32xbf16, #a>, tensor<32x16xbf16, #b> -> tensor<16x16xf32, #mfma>
  rocdsl.return
}

// -----

// A shape the chip has, but not for this operand type: gfx942's 16x16x32
// takes fp8 only.
#mfma = #rocdsl.mfma<version = 3, instrShape = [16, 16, 32], warpsPerCTA = [1, 1]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 8>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 8>
rocdsl.func @dot_type(%p: !rocdsl.ptr<f32>, %x: f16, %z: f32) attributes {num_warps = 1 : i32} {
  %a = rocdsl.splat %x : f16 -> tensor<16x32xf16, #a>
  %b = rocdsl.splat %x : f16 -> tensor<32x16xf16, #b>
  %c = rocdsl.splat %z : f32 -> tensor<16x16xf32, #mfma>
  // expected-error @below {{gfx942 has no 16x16x32 matrix instruction for 'f16' operands; its f16 instructions: v_mfma_f32_32x32x8_f16, v_mfma_f32_16x16x16_f16}}
  %d = rocdsl.dot %a, %b, %c : tensor<16x32xf16, #a>, tensor<32x16xf16, #b> -> tensor<16x16xf32, #mfma>
  rocdsl.return
}

// -----

// OCP fp8 (gfx950's format) on gfx942, which has the FNUZ formats only.
#mfma = #rocdsl.mfma<version = 3, instrShape = [16, 16, 32], warpsPerCTA = [1, 1]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 8>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 8>
rocdsl.func @dot_fp8(%p: !rocdsl.ptr<f32>, %x: f8E4M3FN, %z: f32) attributes {num_warps = 1 : i32} {
  %a = rocdsl.splat %x : f8E4M3FN -> tensor<16x32xf8E4M3FN, #a>
  %b = rocdsl.splat %x : f8E4M3FN -> tensor<32x16xf8E4M3FN, #b>
  %c = rocdsl.splat %z : f32 -> tensor<16x16xf32, #mfma>
  // expected-error @below {{gfx942 has no 16x16x32 matrix instruction for 'f8E4M3FN' operands; its f8E4M3FN instructions: none}}
  %d = rocdsl.dot %a, %b, %c : tensor<16x32xf8E4M3FN, #a>, tensor<32x16xf8E4M3FN, #b> -> tensor<16x16xf32, #mfma>
  rocdsl.return
}

// -----

// An XOR swizzle whose phases do not fit the row (8 columns / vec 4 = 2
// groups, 4 phases).
#l = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [32, 2], warpsPerCTA = [1, 1], order = [1, 0]>
#sh = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 4, order = [1, 0]>
rocdsl.func @swizzle(%p: !rocdsl.ptr<f32>, %a: f32) attributes {num_warps = 1 : i32} {
  %t = rocdsl.splat %a : f32 -> tensor<32x8xf32, #l>
  // expected-error @below {{LDS tile '!rocdsl.lds<32x8xf32, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 4, order = [1, 0]>>': the XOR swizzle of #rocdsl.shared<vec = 4, maxPhase = 4> needs a power-of-two maxPhase and a fastest dimension that is a multiple of vec * maxPhase (16), got 8}}
  %s = rocdsl.local_alloc %t : tensor<32x8xf32, #l> -> !rocdsl.lds<32x8xf32, #sh>
  rocdsl.return
}

// -----

// A matrix-core tile neither a multiple of the instruction nor a divisor.
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [1, 1]>
rocdsl.func @mfma_small(%p: !rocdsl.ptr<f32>, %a: f32) attributes {num_warps = 1 : i32} {
  // expected-error @below {{tile 'tensor<48x32xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [1, 1]>>' does not fit its matrix-core layout: M and N must be multiples of instruction x waves or divide it; K a multiple of kWidth x 64 / M}}
  %t = rocdsl.splat %a : f32 -> tensor<48x32xf32, #mfma>
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
