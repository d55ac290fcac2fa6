rocdsl.func @raw(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  nvvm.barrier0
  rocdsl.return
}
