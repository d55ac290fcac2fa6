// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx942 direct-copies=1" --canonicalize --cse | FileCheck %s --check-prefixes=CHECK,FOUR,MARKED,COUNTED4
// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx950 direct-copies=1" --canonicalize --cse | FileCheck %s --check-prefixes=CHECK,ONE,MARKED,COUNTED1
// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx942 direct-copies=1 waits=llvm" --canonicalize --cse | FileCheck %s --check-prefixes=CHECK,FOUR,DRAINED
// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx942 direct-copies=1 waits=weakened-for-testing" --canonicalize --cse | FileCheck %s --check-prefixes=CHECK,FOUR,MARKED,WEAKENED
// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx950 direct-copies=1" | FileCheck %s --check-prefix=NOFENCE
// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx942 direct-copies=1 waits=llvm" | FileCheck %s --check-prefix=KEPT
// RUN: not rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=gfx942 direct-copies=1 waits=sometimes" 2>&1 | FileCheck %s --check-prefix=BADMODE

// Two groups of one 64x32 bf16 copy each (4 KiB, 4 waves). gfx942 loads
// 4 bytes a lane (4 loads a wave and copy), gfx950 16 bytes (1 load), into
// consecutive LDS runs of 256 / 1024 bytes a load. A commit is the mark
// `s_waitcnt expcnt(6)` (0xD06F = 53103). `pending = 1` keeps the newest
// group in flight and says so in its expcnt: vmcnt(4) expcnt(1) on gfx942
// (0xF14 = 3860), vmcnt(1) expcnt(1) on gfx950 (0xF11 = 3857); `pending =
// 0` drains, vmcnt(0) expcnt(0) (0xF00 = 3840). With waits=llvm there are
// no marks: commits vanish and every wait is a plain vmcnt(0) (0xF70 =
// 3952). The test hook waits=weakened-for-testing makes one wait (the
// first in a loop, else the first) one looser: here vmcnt(5) (3861).
// Planned waits are fenced by sched_barrier 0 and follow an s_nop (which
// keeps a commit mark from merging into them). LDS reads are declared not
// to alias the copies in flight. A barrier waits for this wave's LDS
// accesses (lgkmcnt(0), 0xC07F = 49279) and releases at wavefront scope:
// a workgroup release would make LLVM drain every direct copy in flight
// (vmcnt(0)) before it, the copies the planned waits keep running.
// A kernel whose copies go through registers (@masked) keeps gpu.barrier,
// and so does every kernel whose waits drain (waits=llvm, or groups of
// different sizes as in @conditional_copy): only a plan says which copies
// may run on past a barrier.
// KEPT-LABEL:   gpu.func @two_groups(
// KEPT:         gpu.barrier
// KEPT-NOT:     rocdl.s.barrier
// NOFENCE-LABEL: gpu.func @two_groups(
// NOFENCE-NOT:  gpu.barrier
// NOFENCE-NOT:  syncscope("workgroup") release
// NOFENCE-LABEL: gpu.func @masked(
// NOFENCE:      gpu.barrier
// NOFENCE-LABEL: gpu.func @conditional_copy(
// NOFENCE:      gpu.barrier
// NOFENCE-LABEL: gpu.func @many_pending(
// BADMODE: unknown waits mode 'sometimes' (expected explicit, llvm or weakened-for-testing)
// CHECK-LABEL: gpu.func @two_groups(
// FOUR-COUNT-4:  rocdl.raw.ptr.buffer.load.lds %{{.*}}, %{{.*}}, %c4_i32, {{.*}} {alias_scopes = [#[[SCOPE:.*]]]}
// ONE:          rocdl.raw.ptr.buffer.load.lds %{{.*}}, %{{.*}}, %c16_i32, {{.*}} {alias_scopes = [#[[SCOPE:.*]]]}
// MARKED:       rocdl.s.waitcnt 53103
// FOUR-COUNT-4:  rocdl.raw.ptr.buffer.load.lds
// ONE:          rocdl.raw.ptr.buffer.load.lds
// CHECK-NOT:    rocdl.raw.ptr.buffer.load.lds
// MARKED:       rocdl.s.waitcnt 53103
// CHECK:        rocdl.sched.barrier 0
// MARKED-NEXT:  rocdl.s.nop 0
// COUNTED4-NEXT: rocdl.s.waitcnt 3860
// COUNTED1-NEXT: rocdl.s.waitcnt 3857
// DRAINED-NEXT: rocdl.s.waitcnt 3952
// WEAKENED-NEXT: rocdl.s.waitcnt 3861
// CHECK-NEXT:   rocdl.sched.barrier 0
// MARKED-NEXT:  rocdl.s.waitcnt 49279
// MARKED-NEXT:  llvm.fence syncscope("wavefront") release
// MARKED-NEXT:  rocdl.s.barrier
// MARKED-NEXT:  llvm.fence syncscope("workgroup") acquire
// DRAINED-NEXT: gpu.barrier
// CHECK:        llvm.load {{.*}}noalias_scopes = [#[[SCOPE]]]
// CHECK:        rocdl.sched.barrier 0
// MARKED-NEXT:  rocdl.s.nop 0
// MARKED-NEXT:  rocdl.s.waitcnt 3840
// DRAINED-NEXT: rocdl.s.waitcnt 3952
// CHECK-NEXT:   rocdl.sched.barrier 0
// CHECK:        gpu.return
// DRAINED-NOT:  rocdl.s.waitcnt 53103
#blocked = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#s3 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
rocdsl.func @two_groups(%pa: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<bf16>, %m: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %stack = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #s3>
  %buf0 = rocdsl.local_index %stack[%c0] : !rocdsl.lds<2x64x32xbf16, #s3> -> !rocdsl.lds<64x32xbf16, #s2>
  %buf1 = rocdsl.local_index %stack[%c1] : !rocdsl.lds<2x64x32xbf16, #s3> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_copy %pa[%c0, %c0] strides [%c32] bounds [%m, %c32], %buf0 {vec = 8 : i32}
      : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #blocked> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_commit
  rocdsl.async_copy %pa[%c64, %c0] strides [%c32] bounds [%m, %c32], %buf1 {vec = 8 : i32}
      : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #blocked> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_commit
  rocdsl.async_wait {pending = 1 : i32}
  rocdsl.barrier
  %x = rocdsl.local_load %buf0 : !rocdsl.lds<64x32xbf16, #s2> -> tensor<64x32xbf16, #blocked>
  rocdsl.store %x, %pc[%c0, %c0] strides [%c32] {vec = 8 : i32} : tensor<64x32xbf16, #blocked>, !rocdsl.ptr<bf16>
  rocdsl.async_wait {pending = 0 : i32}
  rocdsl.barrier
  %y = rocdsl.local_load %buf1 : !rocdsl.lds<64x32xbf16, #s2> -> tensor<64x32xbf16, #blocked>
  rocdsl.store %y, %pc[%c64, %c0] strides [%c32] {vec = 8 : i32} : tensor<64x32xbf16, #blocked>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

// A masked copy cannot go straight to LDS (the mask is per element): every
// copy of the kernel goes through registers, and waits leave nothing.
// CHECK-LABEL: gpu.func @masked(
// CHECK-NOT:    rocdl.raw.ptr.buffer.load.lds
// CHECK-NOT:    rocdl.s.waitcnt
// CHECK:        gpu.return
#blocked = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
rocdsl.func @masked(%pa: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<bf16>, %x0: bf16) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.splat %x0 : bf16 -> tensor<64x32xbf16, #blocked>
  %mask = arith.cmpf olt, %t, %t : tensor<64x32xbf16, #blocked>
  %c32 = arith.constant 32 : i32
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_copy %pa[%c0, %c0] strides [%c32] mask(%mask : tensor<64x32xi1, #blocked>), %buf {vec = 8 : i32}
      : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #blocked> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_commit
  rocdsl.async_wait {pending = 0 : i32}
  rocdsl.barrier
  %x = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #s2> -> tensor<64x32xbf16, #blocked>
  rocdsl.store %x, %pc[%c0, %c0] strides [%c32] {vec = 8 : i32} : tensor<64x32xbf16, #blocked>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

// A copy under a branch may not be issued: its group could be short of
// loads, so no count can be planned and every wait drains with no plan
// mark (vmcnt(0), 0xF70 = 3952), commits included (nothing); the test
// hook leaves such a kernel alone. The copies stay direct.
// CHECK-LABEL: gpu.func @conditional_copy(
// CHECK:        rocdl.raw.ptr.buffer.load.lds
// CHECK-NOT:    rocdl.s.waitcnt 53103
// CHECK:        rocdl.sched.barrier 0
// CHECK-NEXT:   rocdl.s.waitcnt 3952
// CHECK-NEXT:   rocdl.sched.barrier 0
#blocked = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#s3 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
rocdsl.func @conditional_copy(%pa: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<bf16>, %m: i32, %flag: i1) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %stack = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #s3>
  %buf0 = rocdsl.local_index %stack[%c0] : !rocdsl.lds<2x64x32xbf16, #s3> -> !rocdsl.lds<64x32xbf16, #s2>
  %buf1 = rocdsl.local_index %stack[%c1] : !rocdsl.lds<2x64x32xbf16, #s3> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_copy %pa[%c0, %c0] strides [%c32] bounds [%m, %c32], %buf0 {vec = 8 : i32}
      : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #blocked> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_commit
  scf.if %flag {
    rocdsl.async_copy %pa[%c64, %c0] strides [%c32] bounds [%m, %c32], %buf1 {vec = 8 : i32}
        : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #blocked> -> !rocdsl.lds<64x32xbf16, #s2>
  }
  rocdsl.async_commit
  rocdsl.async_wait {pending = 1 : i32}
  rocdsl.barrier
  %x = rocdsl.local_load %buf0 : !rocdsl.lds<64x32xbf16, #s2> -> tensor<64x32xbf16, #blocked>
  rocdsl.store %x, %pc[%c0, %c0] strides [%c32] {vec = 8 : i32} : tensor<64x32xbf16, #blocked>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

// A wait that leaves more groups running than a plan mark can name (at
// most 5) is planned as a drain: vmcnt(0) expcnt(0) (0xF00 = 3840).
// CHECK-LABEL:  gpu.func @many_pending(
// COUNTED4:      rocdl.sched.barrier 0
// COUNTED4-NEXT: rocdl.s.nop 0
// COUNTED4-NEXT: rocdl.s.waitcnt 3840
// COUNTED1:      rocdl.sched.barrier 0
// COUNTED1-NEXT: rocdl.s.nop 0
// COUNTED1-NEXT: rocdl.s.waitcnt 3840
#blocked = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
rocdsl.func @many_pending(%pa: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<bf16>, %m: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_copy %pa[%c0, %c0] strides [%c32] bounds [%m, %c32], %buf {vec = 8 : i32}
      : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #blocked> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_commit
  rocdsl.async_wait {pending = 6 : i32}
  rocdsl.async_wait {pending = 0 : i32}
  rocdsl.barrier
  %x = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #s2> -> tensor<64x32xbf16, #blocked>
  rocdsl.store %x, %pc[%c0, %c0] strides [%c32] {vec = 8 : i32} : tensor<64x32xbf16, #blocked>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

// An unswizzled LDS layout goes direct at the chip's widest width too.
// CHECK-LABEL: gpu.func @unswizzled(
// FOUR:         rocdl.raw.ptr.buffer.load.lds %{{.*}}, %{{.*}}, %c4_i32,
// ONE:          rocdl.raw.ptr.buffer.load.lds %{{.*}}, %{{.*}}, %c16_i32,
#blocked = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#plain = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]>
rocdsl.func @unswizzled(%pa: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<bf16>, %m: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #plain>
  rocdsl.async_copy %pa[%c0, %c0] strides [%c32] bounds [%m, %c32], %buf {vec = 8 : i32}
      : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #blocked> -> !rocdsl.lds<64x32xbf16, #plain>
  rocdsl.async_commit
  rocdsl.async_wait {pending = 0 : i32}
  rocdsl.barrier
  %x = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #plain> -> tensor<64x32xbf16, #blocked>
  rocdsl.store %x, %pc[%c0, %c0] strides [%c32] {vec = 8 : i32} : tensor<64x32xbf16, #blocked>, !rocdsl.ptr<bf16>
  rocdsl.return
}
