// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" | FileCheck %s --check-prefix=AMD
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=sm_90" | FileCheck %s --check-prefix=NV
// RUN: not rocdsl-opt %s --convert-rocdsl-to-host 2>&1 | FileCheck %s --check-prefix=HOST

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
