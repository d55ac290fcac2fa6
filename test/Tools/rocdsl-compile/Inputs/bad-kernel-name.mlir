// A kernel name MLIR takes but no assembler does (a space).
rocdsl.func @"my kernel"(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  rocdsl.return
}
