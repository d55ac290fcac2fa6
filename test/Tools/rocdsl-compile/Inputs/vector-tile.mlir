#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [1, 1]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
rocdsl.func @k(%x: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %one = arith.constant 1.0 : bf16
  %zero = arith.constant 0.0 : f32
  %a = rocdsl.splat %one : bf16 -> tensor<32x8xbf16, #a>
  %b = rocdsl.splat %one : bf16 -> tensor<8x32xbf16, #b>
  %c = rocdsl.splat %zero : f32 -> tensor<32x32xf32, #mfma>
  %d = rocdsl.dot %a, %b, %c : tensor<32x8xbf16, #a>, tensor<8x32xbf16, #b> -> tensor<32x32xf32, #mfma>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  rocdsl.store %d, %x[%c0, %c0] strides [%c32] : tensor<32x32xf32, #mfma>, !rocdsl.ptr<f32>
  rocdsl.return
}
