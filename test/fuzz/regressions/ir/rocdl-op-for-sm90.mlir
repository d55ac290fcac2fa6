rocdsl.func @raw(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  rocdl.sched.barrier 0
  rocdsl.return
}
