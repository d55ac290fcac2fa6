// The CDNA4 form of dot-32x32x8.mlir: v_mfma_f32_16x16x32_bf16 with 8 K
// elements per lane (gfx950 only), otherwise the same kernel.
#la = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#lb = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 4, instrShape = [16, 16, 32], warpsPerCTA = [2, 2]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 8>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 8>
rocdsl.func @gemm_tile_cdna4(%pa: !rocdsl.ptr<bf16>, %pb: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %px = rocdsl.program_id x : i32
  %py = rocdsl.program_id y : i32
  %m0 = arith.muli %px, %c64 : i32
  %n0 = arith.muli %py, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mfma>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero) -> (tensor<64x64xf32, #mfma>) : i32 {
    %x = rocdsl.load %pa[%m0, %k] strides [%K] bounds [%M, %K] : !rocdsl.ptr<bf16> -> tensor<64x32xbf16, #la>
    %y = rocdsl.load %pb[%k, %n0] strides [%N] bounds [%K, %N] : !rocdsl.ptr<bf16> -> tensor<32x64xbf16, #lb>
    %a = rocdsl.convert_layout %x : tensor<64x32xbf16, #la> -> tensor<64x32xbf16, #a>
    %b = rocdsl.convert_layout %y : tensor<32x64xbf16, #lb> -> tensor<32x64xbf16, #b>
    %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b> -> tensor<64x64xf32, #mfma>
    scf.yield %d : tensor<64x64xf32, #mfma>
  }
  rocdsl.store %acc, %pc[%m0, %n0] strides [%N] bounds [%M, %N] : tensor<64x64xf32, #mfma>, !rocdsl.ptr<f32>
  rocdsl.return
}
