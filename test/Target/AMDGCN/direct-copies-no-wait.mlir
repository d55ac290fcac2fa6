// RUN: rocdsl-compile %s --chip gfx942 --direct-copies --emit asm -o %t.942.s 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: rocdsl-compile %s --chip gfx950 --direct-copies --emit asm -o %t.950.s 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: FileCheck %s --check-prefix=ASM < %t.942.s
// RUN: FileCheck %s --check-prefix=ASM < %t.950.s
// RUN: rocdsl-isa-check --waits %t.942.s %t.950.s | FileCheck %s --check-prefix=PROVEN

// A kernel that reads what a direct copy wrote after a barrier but never
// waits for the copy breaks rocdsl.async_copy's contract. With planned
// waits a barrier lets copies run on (it no longer drains VMEM), so the
// check after code generation finds the barrier reached with the copy in
// flight; the kernel is compiled again with drained waits, whose barriers
// are LLVM's (vmcnt(0) before s_barrier), and that is what ships, with a
// warning that says why.
// LOG:   warning: kernel no_wait on gfx9{{42|50}}: the planned waits are not proven ({{[0-9]+}} finding(s), first: {{.*}}'s_barrier' touches LDS while 'buffer_load_dword{{.*}} lds'{{.*}}); recompiled with drained waits (waits=llvm)
// ASM:   buffer_load_dword{{.*}} lds
// ASM:   s_waitcnt vmcnt(0)
// ASM-NEXT: s_barrier
// ASM-NEXT: ds_read
// PROVEN-COUNT-2: : 0 wait violations
#blocked = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
rocdsl.func @no_wait(%pa: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<bf16>, %m: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_copy %pa[%c0, %c0] strides [%c32] bounds [%m, %c32], %buf {vec = 8 : i32}
      : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #blocked> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_commit
  rocdsl.barrier
  %t = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #s2> -> tensor<64x32xbf16, #blocked>
  rocdsl.store %t, %pc[%c0, %c0] strides [%c32] {vec = 8 : i32} : tensor<64x32xbf16, #blocked>, !rocdsl.ptr<bf16>
  rocdsl.return
}
