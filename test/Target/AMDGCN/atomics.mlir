// RUN: rocdsl-compile %s --chip=gfx942 --emit=asm | FileCheck %s
// RUN: rocdsl-compile %s --chip=gfx950 --emit=asm | FileCheck %s
// RUN: rocdsl-compile %s --chip=gfx942 --emit=asm -o %t.942.s && rocdsl-isa-check %t.942.s
// RUN: rocdsl-compile %s --chip=gfx950 --emit=asm -o %t.950.s && rocdsl-isa-check %t.950.s

// Float adds are the hardware's global_atomic_add_f32 (the updates say
// they touch no fine-grained or remote memory), never a compare-and-swap
// loop. The program's update is released by a write-back of L2 with every
// earlier access of the wave complete (buffer_wbl2 sc1, vmcnt(0)) before
// the barrier, returns its value (sc0), and is acquired by invalidating
// the caches (buffer_inv sc1) before any later load.
#b = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [2, 1], order = [1, 0]>
#c = #rocdsl.slice<dim = 0, parent = #b>

// CHECK-LABEL: column_sums:
// CHECK-NOT:     cmpswap
// CHECK:         global_atomic_add_f32 v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}]{{$}}
// CHECK-NOT:     cmpswap
// CHECK:         buffer_wbl2 sc1
// CHECK-NEXT:    s_waitcnt vmcnt(0)
// CHECK-NEXT:    s_barrier
// CHECK:         global_atomic_add v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}] sc0
// CHECK-NEXT:    s_waitcnt vmcnt(0)
// CHECK-NEXT:    buffer_inv sc1
// CHECK:         s_barrier
// CHECK:         buffer_inv sc1
// CHECK:         buffer_load_dword
// CHECK-NOT:     cmpswap
// CHECK:         s_endpgm
rocdsl.func @column_sums(%x: !rocdsl.ptr<f32>, %acc: !rocdsl.ptr<f32>, %count: !rocdsl.ptr<i32>, %out: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%n] bounds [%n, %n] : !rocdsl.ptr<f32> -> tensor<8x64xf32, #b>
  %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<8x64xf32, #b> -> tensor<64xf32, #c>
  rocdsl.atomic_add %s, %acc[%c0] bounds [%n] : tensor<64xf32, #c>, !rocdsl.ptr<f32>
  %old = rocdsl.program_atomic add %count[%c0], %c1 : !rocdsl.ptr<i32>
  %last = arith.cmpi eq, %old, %c0 : i32
  %m = rocdsl.splat %last : i1 -> tensor<64xi1, #c>
  %sum = rocdsl.load %acc[%c0] bounds [%n] mask(%m : tensor<64xi1, #c>) : !rocdsl.ptr<f32> -> tensor<64xf32, #c>
  rocdsl.store %sum, %out[%c0] bounds [%n] mask(%m : tensor<64xi1, #c>) : tensor<64xf32, #c>, !rocdsl.ptr<f32>
  rocdsl.return
}
