// copy.mlir inside three modules, each the only content of the one around it.
#blk = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [1, 0]>
module @a {
module @b {
module {
rocdsl.func @copy_rows(%src: !rocdsl.ptr<f32>, %dst: !rocdsl.ptr<f32>, %m: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 256 : i32
  %row = rocdsl.program_id x : i32
  %t = rocdsl.load %src[%row, %c0] strides [%n] bounds [%m, %n] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<1x256xf32, #blk>
  rocdsl.store %t, %dst[%row, %c0] strides [%n] bounds [%m, %n] {vec = 4 : i32} : tensor<1x256xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}
}}}
