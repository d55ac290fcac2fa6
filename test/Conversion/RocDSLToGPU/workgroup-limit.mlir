// RUN: not rocdsl-opt %s --convert-rocdsl-to-gpu=chip=gfx942 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not rocdsl-opt %s --convert-rocdsl-to-gpu=chip=gfx950 2>&1 | FileCheck %s --check-prefix=AMD950
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu=chip=sm_90 | FileCheck %s --check-prefix=NV

// 32 warps fill an NVIDIA thread block (1024 lanes); on AMD they would be
// 2048 lanes, past a workgroup's 16 waves: an error naming the limit.
// AMD: error: num_warps 32 of 64-lane waves is 2048 lanes; gfx942 runs at most 1024 per workgroup (num_warps 16)
// AMD950: error: num_warps 32 of 64-lane waves is 2048 lanes; gfx950 runs at most 1024 per workgroup (num_warps 16)
// NV: gpu.func @wide() kernel attributes {known_block_size = array<i32: 1024, 1, 1>}
rocdsl.func @wide() attributes {num_warps = 32 : i32} {
  rocdsl.return
}
