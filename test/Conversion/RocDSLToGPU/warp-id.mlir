// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" | FileCheck %s --check-prefix=AMD
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=sm_90" | FileCheck %s --check-prefix=NV
// RUN: not rocdsl-opt %s --convert-rocdsl-to-host 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: rocdsl-compile %s --chip sm_90 --emit ptx -o - | FileCheck %s --check-prefix=PTX

// rocdsl.warp_id is the lane's thread index over the wave size (64 on
// AMDGPU, 32 on NVIDIA); a scalar, the same in every lane of a wave. A
// branch on it may hold a barrier: the gemm's ping-pong sends the upper
// half of the waves through one barrier more before its loop.
// AMD-LABEL: gpu.func @halves
// AMD: %[[T:.*]] = gpu.thread_id x
// AMD: %[[L:.*]] = arith.index_castui %[[T]] : index to i32
// AMD: %[[W:.*]] = arith.divui %[[L]], %{{.*}} : i32
// AMD: arith.cmpi sge, %[[W]], %{{.*}} : i32
// AMD: scf.if
// AMD-NEXT: gpu.barrier
// NV: %[[C:.*]] = arith.constant 32 : i32
// NV: %[[L:.*]] = arith.index_castui
// NV: arith.divui %[[L]], %[[C]]
// HOST: error: rocdsl.warp_id has no host meaning: the host runs a program as one thread
rocdsl.func @halves() attributes {num_warps = 8 : i32} {
  %w = rocdsl.warp_id : i32
  %c4 = arith.constant 4 : i32
  %upper = arith.cmpi sge, %w, %c4 : i32
  scf.if %upper {
    rocdsl.barrier
  }
  rocdsl.return
}

// The upper half's extra barrier meets the lower half's next one at a
// different op, so it is unaligned: on NVIDIA `barrier.sync 0` (no
// .aligned; an intrinsic call until LLVM IR), while the barrier every warp
// reaches together stays `bar.sync 0` (gpu.barrier). AMDGPU has one
// s_barrier for both.
// AMD-LABEL: gpu.func @phase_shifted
// AMD: scf.if
// AMD-NEXT: gpu.barrier
// AMD-NEXT: }
// AMD-NEXT: gpu.barrier
// AMD-NEXT: gpu.return
// NV-LABEL: gpu.func @phase_shifted
// NV: %[[ID:.*]] = llvm.mlir.constant(0 : i32) : i32
// NV: scf.if
// NV-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.all"(%[[ID]]) : (i32) -> ()
// NV-NEXT: }
// NV-NEXT: gpu.barrier
// NV-NEXT: gpu.return
// PTX-LABEL: .entry phase_shifted(
// PTX: bra
// PTX: barrier.sync 0;
// PTX: bar.sync 0;
// PTX-NEXT: ret;
rocdsl.func @phase_shifted() attributes {num_warps = 8 : i32} {
  %w = rocdsl.warp_id : i32
  %c4 = arith.constant 4 : i32
  %upper = arith.cmpi sge, %w, %c4 : i32
  scf.if %upper {
    rocdsl.barrier {unaligned}
  }
  rocdsl.barrier
  rocdsl.return
}
