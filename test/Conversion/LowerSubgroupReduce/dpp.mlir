// RUN: rocdsl-opt %s --pass-pipeline='builtin.module(gpu.module(rocdsl-lower-subgroup-reduce{chip=gfx942}))' | FileCheck %s --check-prefixes=CHECK,GFX942
// RUN: rocdsl-opt %s --pass-pipeline='builtin.module(gpu.module(rocdsl-lower-subgroup-reduce{chip=gfx950}))' | FileCheck %s --check-prefixes=CHECK,GFX950
// RUN: rocdsl-opt %s --pass-pipeline='builtin.module(gpu.module(rocdsl-lower-subgroup-reduce{chip=gfx942}))' | FileCheck %s --check-prefix=NOSG
// RUN: rocdsl-opt %s --pass-pipeline='builtin.module(gpu.module(rocdsl-lower-subgroup-reduce{chip=gfx950}))' | FileCheck %s --check-prefix=NOSG

// Nothing is left for a later pass, and nothing goes through memory:
// NOSG-NOT: gpu.subgroup_reduce
// NOSG-NOT: memref.
// NOSG-NOT: llvm.load

// gpu.subgroup_reduce on 32-bit floats over a wave of 64 lanes, and over
// clusters of 16, become DPP cross-lane moves combined with the reduction's
// arith op: quad_perm [1,0,3,2] and [2,3,0,1] (pairs, quads),
// row_half_mirror (8 lanes), row_mirror (16 lanes); for a whole wave then
// row_bcast_15 into rows 1 and 3 (row_mask 0b1010), row_bcast_31 into the
// upper half, and a readlane of lane 63 to make the result uniform.
// (The functions return the results so that none is dead.)

// CHECK-LABEL: gpu.func @add_wave(
// CHECK-SAME:      [[X:%[^:]+]]: f32)
// CHECK-DAG:     [[C63:%.+]] = arith.constant 63 : i32
// CHECK:         [[D0:%.+]] = amdgpu.dpp [[X]] [[X]] quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[A0:%.+]] = arith.addf [[X]], [[D0]] : f32
// CHECK-NEXT:    [[D1:%.+]] = amdgpu.dpp [[A0]] [[A0]] quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32]) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[A1:%.+]] = arith.addf [[A0]], [[D1]] : f32
// CHECK-NEXT:    [[D2:%.+]] = amdgpu.dpp [[A1]] [[A1]] row_half_mirror(unit) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[A2:%.+]] = arith.addf [[A1]], [[D2]] : f32
// CHECK-NEXT:    [[D3:%.+]] = amdgpu.dpp [[A2]] [[A2]] row_mirror(unit) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[A3:%.+]] = arith.addf [[A2]], [[D3]] : f32
// On both chips the wave-level steps are row broadcasts plus readlane
// (no v_permlane32_swap on gfx950 either).
// GFX942-NEXT:   [[D4:%.+]] = amdgpu.dpp [[A3]] [[A3]] row_bcast_15(unit) {row_mask = 10 : i32} : f32
// GFX950-NEXT:   [[D4:%.+]] = amdgpu.dpp [[A3]] [[A3]] row_bcast_15(unit) {row_mask = 10 : i32} : f32
// CHECK-NEXT:    [[A4:%.+]] = arith.addf [[A3]], [[D4]] : f32
// GFX942-NEXT:   [[D5:%.+]] = amdgpu.dpp [[A4]] [[A4]] row_bcast_31(unit) {bound_ctrl = true} : f32
// GFX950-NEXT:   [[D5:%.+]] = amdgpu.dpp [[A4]] [[A4]] row_bcast_31(unit) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[A5:%.+]] = arith.addf [[D5]], [[A4]] : f32
// CHECK-NEXT:    [[R:%.+]] = rocdl.readlane [[A5]], [[C63]] : (f32, i32) -> f32
// CHECK-NEXT:    gpu.return [[R]] : f32
gpu.module @m {
  gpu.func @add_wave(%x: f32) -> f32 {
    %r = gpu.subgroup_reduce add %x uniform : (f32) -> f32
    gpu.return %r : f32
  }

// CHECK-LABEL: gpu.func @max_wave(
// CHECK-SAME:      [[X:%[^:]+]]: f32)
// CHECK:         [[D0:%.+]] = amdgpu.dpp [[X]] [[X]] quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[M0:%.+]] = arith.maximumf [[X]], [[D0]] : f32
// CHECK-NEXT:    [[D1:%.+]] = amdgpu.dpp [[M0]] [[M0]] quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32])
// CHECK-NEXT:    [[M1:%.+]] = arith.maximumf [[M0]], [[D1]] : f32
// CHECK-NEXT:    [[D2:%.+]] = amdgpu.dpp [[M1]] [[M1]] row_half_mirror(unit)
// CHECK-NEXT:    [[M2:%.+]] = arith.maximumf [[M1]], [[D2]] : f32
// CHECK-NEXT:    [[D3:%.+]] = amdgpu.dpp [[M2]] [[M2]] row_mirror(unit)
// CHECK-NEXT:    [[M3:%.+]] = arith.maximumf [[M2]], [[D3]] : f32
// CHECK-NEXT:    [[D4:%.+]] = amdgpu.dpp [[M3]] [[M3]] row_bcast_15(unit) {row_mask = 10 : i32} : f32
// CHECK-NEXT:    [[M4:%.+]] = arith.maximumf [[M3]], [[D4]] : f32
// CHECK-NEXT:    [[D5:%.+]] = amdgpu.dpp [[M4]] [[M4]] row_bcast_31(unit)
// CHECK-NEXT:    [[M5:%.+]] = arith.maximumf [[D5]], [[M4]] : f32
// CHECK-NEXT:    [[R:%.+]] = rocdl.readlane [[M5]], %{{.+}} : (f32, i32) -> f32
// CHECK-NEXT:    gpu.return [[R]] : f32
  gpu.func @max_wave(%x: f32) -> f32 {
    %r = gpu.subgroup_reduce maximumf %x uniform : (f32) -> f32
    gpu.return %r : f32
  }

// A cluster of 16 lanes is one DPP row: four steps, no broadcast, no
// readlane.
// CHECK-LABEL: gpu.func @cluster16(
// CHECK-SAME:      [[X:%[^:]+]]: f32, [[Y:%[^:]+]]: f32)
// CHECK:         [[D0:%.+]] = amdgpu.dpp [[X]] [[X]] quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[A0:%.+]] = arith.addf [[X]], [[D0]] : f32
// CHECK-NEXT:    [[D1:%.+]] = amdgpu.dpp [[A0]] [[A0]] quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32]) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[A1:%.+]] = arith.addf [[A0]], [[D1]] : f32
// CHECK-NEXT:    [[D2:%.+]] = amdgpu.dpp [[A1]] [[A1]] row_half_mirror(unit) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[A2:%.+]] = arith.addf [[A1]], [[D2]] : f32
// CHECK-NEXT:    [[D3:%.+]] = amdgpu.dpp [[A2]] [[A2]] row_mirror(unit) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[SUM:%.+]] = arith.addf [[A2]], [[D3]] : f32
// CHECK-NEXT:    [[E0:%.+]] = amdgpu.dpp [[Y]] [[Y]] quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[B0:%.+]] = arith.maximumf [[Y]], [[E0]] : f32
// CHECK-NEXT:    [[E1:%.+]] = amdgpu.dpp [[B0]] [[B0]] quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32]) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[B1:%.+]] = arith.maximumf [[B0]], [[E1]] : f32
// CHECK-NEXT:    [[E2:%.+]] = amdgpu.dpp [[B1]] [[B1]] row_half_mirror(unit) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[B2:%.+]] = arith.maximumf [[B1]], [[E2]] : f32
// CHECK-NEXT:    [[E3:%.+]] = amdgpu.dpp [[B2]] [[B2]] row_mirror(unit) {bound_ctrl = true} : f32
// CHECK-NEXT:    [[MAX:%.+]] = arith.maximumf [[B2]], [[E3]] : f32
// CHECK-NEXT:    gpu.return [[SUM]], [[MAX]] : f32, f32
  gpu.func @cluster16(%x: f32, %y: f32) -> (f32, f32) {
    %s = gpu.subgroup_reduce add %x uniform cluster(size = 16) : (f32) -> f32
    %m = gpu.subgroup_reduce maximumf %y uniform cluster(size = 16) : (f32) -> f32
    gpu.return %s, %m : f32, f32
  }

// A strided cluster (the column reductions of convert-rocdsl-to-gpu) is not
// a DPP pattern: it becomes xor butterflies over the lane stride, still
// register-only.
// CHECK-LABEL: gpu.func @strided(
// CHECK-SAME:      [[X:%[^:]+]]: f32)
// CHECK-DAG:     [[C16:%.+]] = arith.constant 16 : i32
// CHECK-DAG:     [[C32:%.+]] = arith.constant 32 : i32
// CHECK-DAG:     [[C64:%.+]] = arith.constant 64 : i32
// CHECK:         [[S0:%.+]], %{{.+}} = gpu.shuffle xor [[X]], [[C16]], [[C64]] : f32
// CHECK-NEXT:    [[A0:%.+]] = arith.addf [[X]], [[S0]] : f32
// CHECK-NEXT:    [[S1:%.+]], %{{.+}} = gpu.shuffle xor [[A0]], [[C32]], [[C64]] : f32
// CHECK-NEXT:    [[A1:%.+]] = arith.addf [[A0]], [[S1]] : f32
// CHECK-NEXT:    gpu.return [[A1]] : f32
  gpu.func @strided(%x: f32) -> f32 {
    %r = gpu.subgroup_reduce add %x uniform cluster(size = 4, stride = 16) : (f32) -> f32
    gpu.return %r : f32
  }
}
