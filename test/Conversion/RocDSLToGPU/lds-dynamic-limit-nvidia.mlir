// RUN: not rocdsl-opt %s --convert-rocdsl-to-gpu="chip=sm_90" 2>&1 | FileCheck %s

// 256 KiB of LDS: more than even the 227 KiB a block on sm_90 may opt in
// to (lds-dynamic-nvidia.mlir), one clear error.
// CHECK: error: kernels need 262144 bytes of shared memory (LDS) for reductions, LDS tiles and layout conversions, more than the 232448 bytes sm_90 offers
#s = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @too_big() attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<1024x128xbf16, #s>
  rocdsl.return
}
