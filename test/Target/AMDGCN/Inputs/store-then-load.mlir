// A loop that stores a 128-bit group and at once reloads the memory it
// stored to: LLVM gives the reload the registers the store's data is still
// read from (a load is a writer too, and LLVM protects only against VALU
// writes), the case the wide-store hazard scan exists for.
#blk = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @store_then_load(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %nn = arith.index_cast %n : i32 to index
  %c256 = arith.constant 256 : i32
  %pid = rocdsl.program_id x : i32
  %start = arith.muli %pid, %c256 : i32
  %t = rocdsl.load %x[%start] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #blk>
  %r = scf.for %i = %i0 to %nn step %i1 iter_args(%acc = %t) -> (tensor<256xf32, #blk>) {
    %d = arith.mulf %acc, %acc : tensor<256xf32, #blk>
    rocdsl.store %d, %y[%start] {vec = 4 : i32} : tensor<256xf32, #blk>, !rocdsl.ptr<f32>
    %u = rocdsl.load %y[%start] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #blk>
    scf.yield %u : tensor<256xf32, #blk>
  }
  rocdsl.store %r, %x[%start] {vec = 4 : i32} : tensor<256xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}
