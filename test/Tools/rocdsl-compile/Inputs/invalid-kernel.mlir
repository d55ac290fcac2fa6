rocdsl.func @k(%x: !rocdsl.ptr<f32>) attributes {num_warps = 3 : i32} {
  rocdsl.return
}
