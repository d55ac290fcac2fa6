// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx950" --canonicalize --cse | FileCheck %s --check-prefix=GFX950
// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s --check-prefix=GFX942

// A row-major B operand (32x64, N contiguous in LDS, K across the rows) of
// v_mfma_f32_32x32x8_bf16 on 4 waves (2 x 2): each lane holds four K-
// consecutive elements of one column, neighbouring lanes neighbouring
// columns. gfx950 reads each such fragment with one ds_read_b64_tr_b16 (one
// per K block of 8 of the wave's 32 x 32 operand: 4, each 4 x 16 block a
// read of 16 lanes) and no 16-bit loads; gfx942 has no transposing read
// and reads the elements one by one. (A, K contiguous, is read with plain
// 8-byte loads on both.)
// GFX950-LABEL: gpu.func @row_major_b(
// GFX950-NOT:     llvm.load
// GFX950-COUNT-4: rocdl.ds.read.tr16.b64 {{.*}} : <3> -> vector<4xbf16>
// GFX950-NOT:     {{rocdl.ds.read.tr16.b64|llvm.load .* -> bf16$}}
// GFX950:         amdgpu.mfma 32x32x8
// GFX942-LABEL: gpu.func @row_major_b(
// GFX942-NOT:     rocdl.ds.read.tr16.b64
// GFX942:         llvm.load {{.*}} : !llvm.ptr<3> -> bf16
// GFX942:         amdgpu.mfma 32x32x8
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
#sa = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @row_major_b(%pc: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %la = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #sa>
  %lb = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16, #sb>
  %y = rocdsl.local_load %lb : !rocdsl.lds<32x64xbf16, #sb> -> tensor<32x64xbf16, #b>
  %x = rocdsl.local_load %la : !rocdsl.lds<64x32xbf16, #sa> -> tensor<64x32xbf16, #a>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mfma>
  %d = rocdsl.dot %x, %y, %zero : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b> -> tensor<64x64xf32, #mfma>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c64] : tensor<64x64xf32, #mfma>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// K contiguous in LDS (a column-major B): the lanes' four elements lie
// along the rows, no transposing read applies on either chip.
// GFX950-LABEL: gpu.func @k_contiguous_b(
// GFX950-NOT:     rocdl.ds.read.tr16.b64
// GFX950:         amdgpu.mfma
// GFX942-LABEL: gpu.func @k_contiguous_b(
// GFX942-NOT:     rocdl.ds.read.tr16.b64
// GFX942:         amdgpu.mfma
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
#sa = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sk = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]>
rocdsl.func @k_contiguous_b(%pc: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %la = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #sa>
  %lb = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16, #sk>
  %y = rocdsl.local_load %lb : !rocdsl.lds<32x64xbf16, #sk> -> tensor<32x64xbf16, #b>
  %x = rocdsl.local_load %la : !rocdsl.lds<64x32xbf16, #sa> -> tensor<64x32xbf16, #a>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mfma>
  %d = rocdsl.dot %x, %y, %zero : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b> -> tensor<64x64xf32, #mfma>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c64] : tensor<64x64xf32, #mfma>, !rocdsl.ptr<f32>
  rocdsl.return
}
