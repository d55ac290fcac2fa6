// A 16x16x32 fp8 dot, FP8 standing for the element type (the RUN lines
// substitute each chip's formats).
#mfma = #rocdsl.mfma<version = 3, instrShape = [16, 16, 32], warpsPerCTA = [1, 1]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 8>
#b = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 8>
rocdsl.func @fp8(%pa: !rocdsl.ptr<FP8>, %pb: !rocdsl.ptr<FP8>, %pc: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %a = rocdsl.load %pa[%c0, %c0] strides [%c32] {vec = 8 : i32} : !rocdsl.ptr<FP8> -> tensor<16x32xFP8, #a>
  %b = rocdsl.load %pb[%c0, %c0] strides [%c16] : !rocdsl.ptr<FP8> -> tensor<32x16xFP8, #b>
  %z = arith.constant dense<0.0> : tensor<16x16xf32, #mfma>
  %d = rocdsl.dot %a, %b, %z : tensor<16x32xFP8, #a>, tensor<32x16xFP8, #b> -> tensor<16x16xf32, #mfma>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c16] : tensor<16x16xf32, #mfma>, !rocdsl.ptr<f32>
  rocdsl.return
}
