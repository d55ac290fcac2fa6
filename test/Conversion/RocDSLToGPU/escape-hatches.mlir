// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" | FileCheck %s
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx950" | FileCheck %s
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

// Escape hatches map one-to-one and survive canonicalization.
//
// GFX9 s_waitcnt immediate: vmcnt[3:0] = vm & 0xf, vmcnt_hi[15:14] = vm >> 4,
// expcnt[6:4] = 7 (never waited on), lgkmcnt[11:8]. An absent counter
// keeps its maximum (vmcnt 63, lgkmcnt 15), i.e. no wait.
//   vmcnt = 0                -> 0x0000 | 0x0070 | 0xf00          = 0x0f70 = 3952
//   lgkmcnt = 0              -> 0x000f | 0xc000 | 0x0070 | 0x000 = 0xc07f = 49279
//   vmcnt = 5, lgkmcnt = 3   -> 0x0005 | 0x0070 | 0x300          = 0x0375 = 885
//   vmcnt = 20 (0b01_0100)   -> 0x0004 | 0x4000 | 0x0070 | 0xf00 = 0x4f74 = 20340
//   vmcnt = 0, lgkmcnt = 0   -> 0x0070                           = 112

// CHECK-LABEL: gpu.func @hatches(
// CHECK-NEXT:    rocdl.s.waitcnt 3952
// CHECK-NEXT:    rocdl.s.waitcnt 49279
// CHECK-NEXT:    rocdl.s.waitcnt 885
// CHECK-NEXT:    rocdl.s.waitcnt 20340
// CHECK-NEXT:    rocdl.s.waitcnt 112
// CHECK-NEXT:    rocdl.sched.barrier 0
// CHECK-NEXT:    rocdl.sched.barrier 6
// CHECK-NEXT:    rocdl.sched.group.barrier 8, 1, 0
// CHECK-NEXT:    rocdl.sched.group.barrier 256, 2, 0
// CHECK-NEXT:    rocdl.sched.group.barrier 32, 1, 3
// CHECK-NEXT:    rocdl.s.setprio 1
// CHECK-NEXT:    rocdl.s.setprio 0
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    gpu.return
// CHECK-NOT:   rocdsl.
rocdsl.func @hatches(%p: !rocdsl.ptr<f32>) attributes {num_warps = 2 : i32} {
  rocdsl.wait {vmcnt = 0 : i32}
  rocdsl.wait {lgkmcnt = 0 : i32}
  rocdsl.wait {vmcnt = 5 : i32, lgkmcnt = 3 : i32}
  rocdsl.wait {vmcnt = 20 : i32}
  rocdsl.wait {vmcnt = 0 : i32, lgkmcnt = 0 : i32}
  rocdsl.sched_barrier
  rocdsl.sched_barrier {mask = 6 : i32}
  rocdsl.sched_group_barrier {mask = 8 : i32, size = 1 : i32}
  rocdsl.sched_group_barrier {mask = 256 : i32, size = 2 : i32, sync_id = 0 : i32}
  rocdsl.sched_group_barrier {mask = 32 : i32, size = 1 : i32, sync_id = 3 : i32}
  rocdsl.set_priority {priority = 1 : i32}
  rocdsl.set_priority {priority = 0 : i32}
  rocdsl.barrier
  rocdsl.return
}
