// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=sm_90a" --verify-diagnostics
// RUN: not rocdsl-opt %s --split-input-file --convert-rocdsl-to-host -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST

// The allocator aligns only the tiles it sees warpgroup_dot read: an
// operand that passes through anything but local_index is refused.
// HOST: error: rocdsl.warpgroup_dot needs warpgroup MMA (wgmma, sm_90a); the host has none (use rocdsl.dot)
#mma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>
#s = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @through_if(%pc: !rocdsl.ptr<f32>, %flag: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %la = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #s>
  %lb = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #s>
  %cond = arith.cmpi eq, %flag, %c0 : i32
  %pick = scf.if %cond -> !rocdsl.lds<64x64xbf16, #s> {
    scf.yield %la : !rocdsl.lds<64x64xbf16, #s>
  } else {
    scf.yield %lb : !rocdsl.lds<64x64xbf16, #s>
  }
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  // expected-error @+1 {{rocdsl.warpgroup_dot operand b must come straight from rocdsl.local_alloc (through rocdsl.local_index)}}
  %d = rocdsl.warpgroup_dot %la, %pick, %zero : !rocdsl.lds<64x64xbf16, #s>, !rocdsl.lds<64x64xbf16, #s>, tensor<64x64xf32, #mma>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c64] : tensor<64x64xf32, #mma>, !rocdsl.ptr<f32>
  rocdsl.return
}
