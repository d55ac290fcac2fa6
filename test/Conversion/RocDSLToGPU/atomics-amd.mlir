// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

// rocdsl.atomic_add: one relaxed, device-wide atomicrmw per element, made
// only by the element's one holder. The column sums of a [8, 64] tile over
// 4 x 16 lanes and 2 waves along the rows are held by every lane of a
// column and both waves: lane bits 4-5 (mask 48) and wave bit 0 pick the
// copy that adds. AMDGPU marks each update as touching neither fine-grained
// nor remote memory, so LLVM emits global_atomic_add_f32 (not a
// compare-and-swap loop).
#b = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [2, 1], order = [1, 0]>
#c = #rocdsl.slice<dim = 0, parent = #b>
#r = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]>

// CHECK-LABEL: gpu.func @column_sums
// CHECK-DAG:     %[[C48:.*]] = arith.constant 48 : i32
// CHECK:         %[[LANEBITS:.*]] = arith.andi %{{.*}}, %[[C48]] : i32
// CHECK:         %[[LANE0:.*]] = arith.cmpi eq, %[[LANEBITS]], %{{.*}} : i32
// CHECK:         %[[HOLDS:.*]] = arith.andi %[[LANE0]], %{{.*}} : i1
// CHECK:         %[[GO:.*]] = arith.andi %{{.*}}, %[[HOLDS]] : i1
// CHECK:         scf.if %[[GO]]
// CHECK:           llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("agent") monotonic {alignment = 4 : i64, rocdl.no_fine_grained_memory, rocdl.no_remote_memory} : !llvm.ptr<1>, f32
// CHECK-COUNT-3:   llvm.atomicrmw fadd
// CHECK-NOT:       llvm.atomicrmw fadd
rocdsl.func @column_sums(%x: !rocdsl.ptr<f32>, %acc: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%n] bounds [%n, %n] : !rocdsl.ptr<f32> -> tensor<8x64xf32, #b>
  %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<8x64xf32, #b> -> tensor<64xf32, #c>
  rocdsl.atomic_add %s, %acc[%c0] bounds [%n] : tensor<64xf32, #c>, !rocdsl.ptr<f32>
  rocdsl.return
}

// A tile with no copies: no holder test, only the bound; i32 adds.
// CHECK-LABEL: gpu.func @counts
// CHECK-NOT:     arith.constant 48
// CHECK:         scf.if
// CHECK:           llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("agent") monotonic
rocdsl.func @counts(%h: !rocdsl.ptr<i32>, %n: i32) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %t = rocdsl.splat %one : i32 -> tensor<128xi32, #r>
  rocdsl.atomic_add %t, %h[%c0] bounds [%n] : tensor<128xi32, #r>, !rocdsl.ptr<i32>
  rocdsl.return
}

// rocdsl.program_atomic: every lane releases, a barrier, lane 0 releases,
// updates and acquires, the old value through LDS, a barrier, every lane
// acquires.
// CHECK-LABEL: gpu.func @arrive
// CHECK:         llvm.fence syncscope("agent") release
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.if
// CHECK-NEXT:      llvm.fence syncscope("agent") release
// CHECK-NEXT:      %[[OLD:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("agent") acq_rel
// CHECK-NEXT:      llvm.fence syncscope("agent") acquire
// CHECK-NEXT:      llvm.store %[[OLD]], %[[SLOT:.*]] : i32, !llvm.ptr<3>
// CHECK:         gpu.barrier
// CHECK-NEXT:    %[[GOT:.*]] = llvm.load %[[SLOT]] : !llvm.ptr<3> -> i32
// CHECK-NEXT:    llvm.fence syncscope("agent") acquire
// CHECK:         llvm.atomicrmw xchg
// CHECK:         llvm.atomicrmw max
rocdsl.func @arrive(%count: !rocdsl.ptr<i32>, %out: !rocdsl.ptr<i32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %old = rocdsl.program_atomic add %count[%c1], %c1 : !rocdsl.ptr<i32>
  %x = rocdsl.program_atomic xchg %count[%c0], %old : !rocdsl.ptr<i32>
  %m = rocdsl.program_atomic max %count[%c0], %x : !rocdsl.ptr<i32>
  %t = rocdsl.splat %m : i32 -> tensor<128xi32, #r>
  rocdsl.store %t, %out[%c0] : tensor<128xi32, #r>, !rocdsl.ptr<i32>
  rocdsl.return
}

// `relaxed` (a count's reset): no fence, a monotonic update by lane 0, the
// old value through LDS.
// CHECK-LABEL: gpu.func @reset
// CHECK-NOT:     llvm.fence
// CHECK:         scf.if
// CHECK-NEXT:      llvm.atomicrmw xchg %{{.*}}, %{{.*}} syncscope("agent") monotonic
// CHECK-NOT:     llvm.fence
// CHECK:         gpu.return
rocdsl.func @reset(%count: !rocdsl.ptr<i32>, %out: !rocdsl.ptr<i32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %old = rocdsl.program_atomic xchg relaxed %count[%c0], %c0 : !rocdsl.ptr<i32>
  %t = rocdsl.splat %old : i32 -> tensor<128xi32, #r>
  rocdsl.store %t, %out[%c0] : tensor<128xi32, #r>, !rocdsl.ptr<i32>
  rocdsl.return
}
