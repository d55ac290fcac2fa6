// rocdsl.wait is a hard s_waitcnt the backend keeps where it was written:
// the backend alone would wait for vmcnt(1) before the first use, the
// explicit vmcnt(0) (fenced by rocdsl.sched_barrier) wins, on both chips.
// RUN: rocdsl-compile %s --chip gfx942 --emit asm -o - | FileCheck %s --check-prefixes=COMMON,GFX942
// RUN: rocdsl-compile %s --chip gfx950 --emit asm -o - | FileCheck %s --check-prefixes=COMMON,GFX950

// GFX942:       .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// GFX950:       .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// COMMON-LABEL: two_loads:
// COMMON:       buffer_load_dwordx4
// COMMON:       buffer_load_dwordx4
// COMMON-NOT:   s_waitcnt vmcnt(1)
// COMMON:       s_waitcnt vmcnt(0)
// COMMON-NEXT:  v_pk_mul_f32
// COMMON-NOT:   s_waitcnt vmcnt
// COMMON:       v_pk_add_f32
// COMMON:       buffer_store_dwordx4

#blk = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @two_loads(%a: !rocdsl.ptr<f32>, %b: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %ta = rocdsl.load %a[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #blk>
  %tb = rocdsl.load %b[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #blk>
  rocdsl.wait {vmcnt = 0 : i32}
  rocdsl.sched_barrier
  %sq = arith.mulf %ta, %ta : tensor<256xf32, #blk>
  %s = arith.addf %sq, %tb : tensor<256xf32, #blk>
  rocdsl.store %s, %y[%c0] {vec = 4 : i32} : tensor<256xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}
