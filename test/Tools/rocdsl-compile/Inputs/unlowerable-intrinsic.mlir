rocdsl.func @intrin(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %z = llvm.mlir.zero : !llvm.ptr
  llvm.call_intrinsic "llvm.clear_cache"(%z, %z) : (!llvm.ptr, !llvm.ptr) -> ()
  rocdsl.return
}
