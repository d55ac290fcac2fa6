// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu=chip=sm_90 | FileCheck %s --check-prefix=NV
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu=chip=gfx942 | FileCheck %s --check-prefix=AMD
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu=chip=gfx950 | FileCheck %s --check-prefix=AMD

// rocdsl.min_programs_per_cu (workgroups that should share one CU or SM)
// becomes NVIDIA's nvvm.minctasm, which ptxas meets by limiting registers;
// AMD takes occupancy hints through waves_per_eu, so the hint is dropped
// there, and a kernel without it gets no attribute on either target.
// NV:       gpu.func @hinted() kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.minctasm = 2 : i32}
// NV:       gpu.func @plain() kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// AMD:      gpu.func @hinted() kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// AMD-NOT:  min_programs
// AMD-NOT:  minctasm
// AMD:      gpu.func @plain() kernel attributes {known_block_size = array<i32: 256, 1, 1>}
rocdsl.func @hinted() attributes {num_warps = 4 : i32, rocdsl.min_programs_per_cu = 2 : i32} {
  rocdsl.return
}
rocdsl.func @plain() attributes {num_warps = 4 : i32} {
  rocdsl.return
}
