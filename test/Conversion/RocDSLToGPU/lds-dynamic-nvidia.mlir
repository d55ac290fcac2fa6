// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=sm_90" | FileCheck %s
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx950" | FileCheck %s --check-prefix=GFX950

// 64 KiB of LDS: above a block's static 48 KiB on sm_90, so the arena is
// dynamic shared memory (external, unsized) and its size a constant the
// runtime reads from the PTX. gfx950 has 160 KiB of LDS: static there.
// CHECK:      llvm.mlir.global external @__rocdsl_lds_big() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK:      llvm.mlir.global external constant @__rocdsl_dynamic_shared_bytes_big(65536 : i32) {addr_space = 4 : i32, alignment = 4 : i64} : i32
// GFX950:     llvm.mlir.global internal @__rocdsl_lds_big() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<65536 x i8>
// GFX950-NOT: __rocdsl_dynamic_shared_bytes
#s = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @big() attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<256x128xbf16, #s>
  rocdsl.return
}

