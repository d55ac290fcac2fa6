rocdsl.func @intrin(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  llvm.call_intrinsic "llvm.x86.sse2.pause"() : () -> ()
  rocdsl.return
}
