// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=sm_90" --canonicalize --cse | FileCheck %s
// RUN: rocdsl-compile %s --chip=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX

// NVIDIA: the same updates in NVPTX's device scope ("device": PTX .gpu).
// A tile's adds are `red` (inline assembly; LLVM's NVPTX would emit `atom`,
// which returns the old value nobody reads). The fences around lane 0's
// update are explicit: LLVM 22 emits a relaxed atom for an acq_rel
// atomicrmw. Only lane 0 fences: bar.sync before its release fence and
// after its acquire fence carries them to every lane (PTX fences are
// cumulative), so no lane fences outside the lane-0 branch.
#b = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]>
#c = #rocdsl.slice<dim = 0, parent = #b>

// CHECK-LABEL: gpu.func @column_sums
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "red.relaxed.gpu.global.add.f32 [$0], $1;", "l,f,~{memory}" %{{.*}}, %{{.*}} : (i64, f32) -> ()
// CHECK-NOT:     llvm.atomicrmw fadd
// CHECK-NOT:     llvm.fence
// CHECK:         gpu.barrier
// CHECK-NEXT:    arith.cmpi eq
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      llvm.fence syncscope("device") release
// CHECK-NEXT:      llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") acq_rel
// CHECK-NEXT:      llvm.fence syncscope("device") acquire
// CHECK:         gpu.barrier
// CHECK-NEXT:    llvm.load
// CHECK-NOT:     llvm.fence
// CHECK:         gpu.return
// PTX:           red.relaxed.gpu.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// PTX-NOT:       atom.global.add.f32
// PTX-NOT:       fence
// PTX:           bar.sync 0;
// PTX-NOT:       fence
// PTX:           fence.acq_rel.gpu;
// PTX-NEXT:      atom.global.add.u32
// PTX-NEXT:      fence.acq_rel.gpu;
// PTX:           bar.sync 0;
// PTX-NOT:       fence
// PTX:           ret;
rocdsl.func @column_sums(%x: !rocdsl.ptr<f32>, %acc: !rocdsl.ptr<f32>, %count: !rocdsl.ptr<i32>, %out: !rocdsl.ptr<i32>, %n: i32) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%n] bounds [%n, %n] : !rocdsl.ptr<f32> -> tensor<4x64xf32, #b>
  %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<4x64xf32, #b> -> tensor<64xf32, #c>
  rocdsl.atomic_add %s, %acc[%c0] bounds [%n] : tensor<64xf32, #c>, !rocdsl.ptr<f32>
  %old = rocdsl.program_atomic add %count[%c0], %c1 : !rocdsl.ptr<i32>
  %o = rocdsl.splat %old : i32 -> tensor<64xi32, #c>
  rocdsl.store %o, %out[%c0] : tensor<64xi32, #c>, !rocdsl.ptr<i32>
  rocdsl.return
}

// `relaxed`: no fence anywhere, a relaxed atomic, still lane 0 only and the
// old value to every lane through LDS.
// CHECK-LABEL: gpu.func @reset
// CHECK-NOT:     llvm.fence
// CHECK:         gpu.barrier
// CHECK:         scf.if
// CHECK-NEXT:      llvm.atomicrmw xchg %{{.*}}, %{{.*}} syncscope("device") monotonic
// CHECK-NOT:     llvm.fence
// CHECK:         gpu.barrier
// CHECK-NOT:     llvm.fence
// CHECK:         gpu.return
#r = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]>
rocdsl.func @reset(%count: !rocdsl.ptr<i32>, %out: !rocdsl.ptr<i32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %old = rocdsl.program_atomic xchg relaxed %count[%c0], %c0 : !rocdsl.ptr<i32>
  %t = rocdsl.splat %old : i32 -> tensor<64xi32, #r>
  rocdsl.store %t, %out[%c0] : tensor<64xi32, #r>, !rocdsl.ptr<i32>
  rocdsl.return
}
