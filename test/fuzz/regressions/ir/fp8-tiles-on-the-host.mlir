// fp8 tiles through LDS (stored as bytes): a swizzled LDS tile read back in
// the MFMA operand layout, then converted back through the scratch.
#l = #rocdsl.blocked<sizePerThread = [1, 16], threadsPerWarp = [16, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [16, 16, 32], warpsPerCTA = [1, 1]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 8>
#sh = #rocdsl.shared<vec = 16, perPhase = 1, maxPhase = 4, order = [1, 0]>
rocdsl.func @fp8lds(%pa: !rocdsl.ptr<f8E4M3FNUZ>, %pc: !rocdsl.ptr<f8E4M3FNUZ>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %x = rocdsl.load %pa[%c0, %c0] strides [%c64] {vec = 16 : i32} : !rocdsl.ptr<f8E4M3FNUZ> -> tensor<16x64xf8E4M3FNUZ, #l>
  %s = rocdsl.local_alloc %x : tensor<16x64xf8E4M3FNUZ, #l> -> !rocdsl.lds<16x64xf8E4M3FNUZ, #sh>
  %y = rocdsl.local_load %s : !rocdsl.lds<16x64xf8E4M3FNUZ, #sh> -> tensor<16x64xf8E4M3FNUZ, #a>
  %z = rocdsl.convert_layout %y : tensor<16x64xf8E4M3FNUZ, #a> -> tensor<16x64xf8E4M3FNUZ, #l>
  rocdsl.store %z, %pc[%c0, %c0] strides [%c64] {vec = 16 : i32} : tensor<16x64xf8E4M3FNUZ, #l>, !rocdsl.ptr<f8E4M3FNUZ>
  rocdsl.return
}
