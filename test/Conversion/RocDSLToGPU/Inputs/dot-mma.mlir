// The NVIDIA form of dot-32x32x8.mlir: mma.sync.aligned.m16n8k16 on 4
// warps of 32 lanes, otherwise the same kernel.
#la = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#lb = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [2, 2]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
rocdsl.func @gemm_tile_mma(%pa: !rocdsl.ptr<bf16>, %pb: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %px = rocdsl.program_id x : i32
  %py = rocdsl.program_id y : i32
  %m0 = arith.muli %px, %c64 : i32
  %n0 = arith.muli %py, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %x = rocdsl.load %pa[%m0, %k] strides [%K] bounds [%M, %K] : !rocdsl.ptr<bf16> -> tensor<64x32xbf16, #la>
    %y = rocdsl.load %pb[%k, %n0] strides [%N] bounds [%K, %N] : !rocdsl.ptr<bf16> -> tensor<32x64xbf16, #lb>
    %a = rocdsl.convert_layout %x : tensor<64x32xbf16, #la> -> tensor<64x32xbf16, #a>
    %b = rocdsl.convert_layout %y : tensor<32x64xbf16, #lb> -> tensor<32x64xbf16, #b>
    %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  rocdsl.store %acc, %pc[%m0, %n0] strides [%N] bounds [%M, %N] : tensor<64x64xf32, #mma>, !rocdsl.ptr<f32>
  rocdsl.return
}
