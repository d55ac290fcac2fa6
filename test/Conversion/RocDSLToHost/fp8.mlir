// RUN: rocdsl-opt %s --verify-diagnostics --convert-rocdsl-to-host

// 8-bit floats have no host lowering: one clear error, not an abort in the
// LLVM translation (found by the IR fuzzer on the fp8 LDS test input).
#l = #rocdsl.blocked<sizePerThread = [16], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @fp8(%p: !rocdsl.ptr<f8E4M3FNUZ>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{8-bit float '!rocdsl.ptr<f8E4M3FNUZ>' has no host lowering (run it on gfx942 or gfx950, or convert to f16/bf16 first)}}
  %t = rocdsl.load %p[%c0] : !rocdsl.ptr<f8E4M3FNUZ> -> tensor<1024xf8E4M3FNUZ, #l>
  rocdsl.store %t, %p[%c0] : tensor<1024xf8E4M3FNUZ, #l>, !rocdsl.ptr<f8E4M3FNUZ>
  rocdsl.return
}
