// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

// Reductions whose axis is split across waves: in-lane tree, subgroup
// reduce, then every wave writes its partial per result element to an LDS
// array of its own (waves along the axis x result elements), a barrier, and
// every lane loads and combines the partials of its result elements. A
// second barrier protects the slots only where the same reduce can run
// again before another barrier: in a loop with no other cross-wave reduce
// in its block (@loop_one below; @loop_two and the reduces outside loops
// have none).

// One LDS array per reduction, at the top of the gpu.module (inserted at the
// start, so the later reduction comes first).
// CHECK:       gpu.module @rocdsl_kernels {
// CHECK-COUNT-3: llvm.mlir.global internal @__rocdsl_reduce_lds_{{[0-9]+}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>
// CHECK-NEXT:    llvm.mlir.global internal @[[$LDS_GRID:__rocdsl_reduce_lds_[0-9]+]]() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>
// CHECK-NEXT:    llvm.mlir.global internal @[[$LDS_ROWS:__rocdsl_reduce_lds_[0-9]+]]() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x f32>
// CHECK-NEXT:    llvm.mlir.global internal @[[$LDS_1D:__rocdsl_reduce_lds_[0-9]+]]() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>
// CHECK-NOT:     llvm.mlir.global

#l4w = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
#b = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [1, 4], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #b>
#g = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [2, 2], order = [1, 0]>
#grow = #rocdsl.slice<dim = 1, parent = #g>

// 1-D sum over 4 waves to a scalar: array<4 x f32>, slot = wave index.
// CHECK-LABEL: gpu.func @sum_1d(
// CHECK-DAG:     [[LDS:%.+]] = llvm.mlir.addressof @[[$LDS_1D]] : !llvm.ptr<3>
// CHECK-DAG:     [[C4:%.+]] = arith.constant 4 : i32
// CHECK-DAG:     [[C64:%.+]] = arith.constant 64 : i32
// CHECK:         [[TID:%.+]] = arith.index_castui %{{.+}} : index to i32
// CHECK:         [[WAVE:%.+]] = arith.divui [[TID]], [[C64]] : i32
// CHECK:         [[T01:%.+]] = arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:    [[T23:%.+]] = arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:    [[S:%.+]] = arith.addf [[T01]], [[T23]] : f32
// CHECK-NEXT:    [[P:%.+]] = gpu.subgroup_reduce add [[S]] uniform : (f32) -> f32
// CHECK-NEXT:    [[SLOT:%.+]] = llvm.getelementptr [[LDS]][[[WAVE]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    llvm.store [[P]], [[SLOT]] : f32, !llvm.ptr<3>
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    [[P0:%.+]] = llvm.load [[LDS]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:    [[A1:%.+]] = llvm.getelementptr [[LDS]][1] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    [[P1:%.+]] = llvm.load [[A1]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:    [[A2:%.+]] = llvm.getelementptr [[LDS]][2] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    [[P2:%.+]] = llvm.load [[A2]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:    [[A3:%.+]] = llvm.getelementptr [[LDS]][3] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    [[P3:%.+]] = llvm.load [[A3]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:    [[S02:%.+]] = arith.addf [[P0]], [[P2]] : f32
// CHECK-NEXT:    [[S13:%.+]] = arith.addf [[P1]], [[P3]] : f32
// CHECK-NEXT:    [[SUM:%.+]] = arith.addf [[S02]], [[S13]] : f32
// CHECK-NEXT:    [[SPLAT:%.+]] = vector.broadcast [[SUM]] : f32 to vector<4xf32>
// CHECK:         llvm.bitcast [[SPLAT]] : vector<4xf32> to vector<4xi32>
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
rocdsl.func @sum_1d(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<1024xf32, #l4w>
  %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<1024xf32, #l4w> -> f32
  %st = rocdsl.splat %s : f32 -> tensor<1024xf32, #l4w>
  rocdsl.store %st, %y[%c0] {vec = 4 : i32} : tensor<1024xf32, #l4w>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Row max of 4x1024 with the 4 waves along the columns: each lane holds 4
// rows, so 4 partials per wave; array<4 waves x 4 rows = 16 x f32>, slot
// wave * 4 + row; row r reads slots r, r + 4, r + 8, r + 12.
// CHECK-LABEL: gpu.func @rows_max(
// CHECK-DAG:     [[LDS:%.+]] = llvm.mlir.addressof @[[$LDS_ROWS]] : !llvm.ptr<3>
// CHECK-DAG:     [[C4:%.+]] = arith.constant 4 : i32
// CHECK-DAG:     [[C64:%.+]] = arith.constant 64 : i32
// CHECK:         [[TID:%.+]] = arith.index_castui %{{.+}} : index to i32
// CHECK:         [[WAVE:%.+]] = arith.divui [[TID]], [[C64]] : i32
// CHECK:         [[R0:%.+]] = gpu.subgroup_reduce maximumf %{{.+}} uniform : (f32) -> f32
// CHECK:         [[R1:%.+]] = gpu.subgroup_reduce maximumf %{{.+}} uniform : (f32) -> f32
// CHECK:         [[R2:%.+]] = gpu.subgroup_reduce maximumf %{{.+}} uniform : (f32) -> f32
// CHECK:         [[R3:%.+]] = gpu.subgroup_reduce maximumf %{{.+}} uniform : (f32) -> f32
// CHECK-NEXT:    [[BASE:%.+]] = arith.muli [[WAVE]], [[C4]] : i32
// CHECK-NEXT:    [[G0:%.+]] = llvm.getelementptr [[LDS]][[[BASE]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    llvm.store [[R0]], [[G0]] : f32, !llvm.ptr<3>
// CHECK-NEXT:    [[I1:%.+]] = arith.addi [[BASE]], %c1_i32 : i32
// CHECK-NEXT:    [[G1:%.+]] = llvm.getelementptr [[LDS]][[[I1]]]
// CHECK-NEXT:    llvm.store [[R1]], [[G1]] : f32, !llvm.ptr<3>
// CHECK-NEXT:    [[I2:%.+]] = arith.addi [[BASE]], %c2_i32 : i32
// CHECK-NEXT:    [[G2:%.+]] = llvm.getelementptr [[LDS]][[[I2]]]
// CHECK-NEXT:    llvm.store [[R2]], [[G2]] : f32, !llvm.ptr<3>
// CHECK-NEXT:    [[I3:%.+]] = arith.addi [[BASE]], %c3_i32 : i32
// CHECK-NEXT:    [[G3:%.+]] = llvm.getelementptr [[LDS]][[[I3]]]
// CHECK-NEXT:    llvm.store [[R3]], [[G3]] : f32, !llvm.ptr<3>
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    [[L0:%.+]] = llvm.load [[LDS]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:    llvm.getelementptr [[LDS]][4]
// CHECK-NEXT:    [[L4:%.+]] = llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][8]
// CHECK-NEXT:    [[L8:%.+]] = llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][12]
// CHECK-NEXT:    [[L12:%.+]] = llvm.load
// CHECK-NEXT:    [[M0:%.+]] = arith.maximumf [[L0]], [[L8]] : f32
// CHECK-NEXT:    [[M1:%.+]] = arith.maximumf [[L4]], [[L12]] : f32
// CHECK-NEXT:    [[ROW0:%.+]] = arith.maximumf [[M0]], [[M1]] : f32
// CHECK-NEXT:    llvm.getelementptr [[LDS]][1]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][5]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][9]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][13]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    [[ROW1:%.+]] = arith.maximumf
// CHECK-NEXT:    llvm.getelementptr [[LDS]][2]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][6]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][10]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][14]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    [[ROW2:%.+]] = arith.maximumf
// CHECK-NEXT:    llvm.getelementptr [[LDS]][3]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][7]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][11]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    llvm.getelementptr [[LDS]][15]
// CHECK-NEXT:    llvm.load
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    [[ROW3:%.+]] = arith.maximumf
// CHECK-NEXT:    vector.from_elements [[ROW0]], [[ROW1]], [[ROW2]], [[ROW3]] : vector<4xf32>
rocdsl.func @rows_max(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1024 = arith.constant 1024 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%c1024] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<4x1024xf32, #b>
  %s = rocdsl.reduce max %t {axis = 1 : i32} : tensor<4x1024xf32, #b> -> tensor<4xf32, #row>
  rocdsl.store %s, %y[%c0] : tensor<4xf32, #row>, !rocdsl.ptr<f32>
  rocdsl.return
}

// 2x2 waves, reducing along the columns: only 2 waves split the axis, the
// other 2 own different rows. array<2 waves x 2 rows = 4 x f32>, slot =
// (wave % 2) * 2 + row, with row = wave / 2; the lane reads row and row + 2.
// CHECK-LABEL: gpu.func @grid_sum(
// CHECK-DAG:     [[LDS:%.+]] = llvm.mlir.addressof @[[$LDS_GRID]] : !llvm.ptr<3>
// CHECK-DAG:     [[C2:%.+]] = arith.constant 2 : i32
// CHECK-DAG:     [[C64:%.+]] = arith.constant 64 : i32
// CHECK:         [[TID:%.+]] = arith.index_castui %{{.+}} : index to i32
// CHECK-NEXT:    [[W:%.+]] = arith.divui [[TID]], [[C64]] : i32
// CHECK-NEXT:    [[ROW:%.+]] = arith.divui [[W]], [[C2]] : i32
// CHECK:         [[WCOL:%.+]] = arith.remui [[W]], [[C2]] : i32
// CHECK:         [[P:%.+]] = gpu.subgroup_reduce add %{{.+}} uniform : (f32) -> f32
// CHECK-NEXT:    [[WB:%.+]] = arith.muli [[WCOL]], [[C2]] : i32
// CHECK-NEXT:    [[IDX:%.+]] = arith.addi [[WB]], [[ROW]] : i32
// CHECK-NEXT:    [[G:%.+]] = llvm.getelementptr [[LDS]][[[IDX]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    llvm.store [[P]], [[G]] : f32, !llvm.ptr<3>
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    [[G0:%.+]] = llvm.getelementptr [[LDS]][[[ROW]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    [[L0:%.+]] = llvm.load [[G0]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:    [[I1:%.+]] = arith.addi [[ROW]], [[C2]] : i32
// CHECK-NEXT:    [[G1:%.+]] = llvm.getelementptr [[LDS]][[[I1]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    [[L1:%.+]] = llvm.load [[G1]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:    [[SUM:%.+]] = arith.addf [[L0]], [[L1]] : f32
// CHECK-NEXT:    vector.broadcast [[SUM]] : f32 to vector<1xf32>
rocdsl.func @grid_sum(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%c512] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<2x512xf32, #g>
  %s = rocdsl.reduce add %t {axis = 1 : i32} : tensor<2x512xf32, #g> -> tensor<2xf32, #grow>
  rocdsl.store %s, %y[%c0] : tensor<2xf32, #grow>, !rocdsl.ptr<f32>
  rocdsl.return
}

// In a loop: a reduce alone in the body keeps its second barrier (the next
// iteration's write must wait for every wave's reads) ...
// CHECK-LABEL: gpu.func @loop_one(
// CHECK:         scf.for
// CHECK:           llvm.store
// CHECK-NEXT:      gpu.barrier
// CHECK-COUNT-4:   llvm.load
// CHECK:           gpu.barrier
// CHECK-NOT:       gpu.barrier
// CHECK:         gpu.return
rocdsl.func @loop_one(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<1024xf32, #l4w>
    %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<1024xf32, #l4w> -> f32
    %st = rocdsl.splat %s : f32 -> tensor<1024xf32, #l4w>
    rocdsl.store %st, %y[%c0] {vec = 4 : i32} : tensor<1024xf32, #l4w>, !rocdsl.ptr<f32>
  }
  rocdsl.return
}

// ... while two in one body need none: each one's first barrier separates
// the other's reads from its next write (RMSNorm's backward: sum of x^2 and
// of w*dy*x per row, two barriers per row instead of four).
// CHECK-LABEL: gpu.func @loop_two(
// CHECK:         scf.for
// CHECK:           gpu.subgroup_reduce add
// CHECK:           llvm.store
// CHECK-NEXT:      gpu.barrier
// CHECK-COUNT-4:   llvm.load
// CHECK-NOT:       gpu.barrier
// CHECK:           gpu.subgroup_reduce maximumf
// CHECK:           llvm.store
// CHECK-NEXT:      gpu.barrier
// CHECK-COUNT-4:   llvm.load
// CHECK-NOT:       gpu.barrier
// CHECK:         gpu.return
rocdsl.func @loop_two(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<1024xf32, #l4w>
    %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<1024xf32, #l4w> -> f32
    %m = rocdsl.reduce max %t {axis = 0 : i32} : tensor<1024xf32, #l4w> -> f32
    %p = arith.addf %s, %m : f32
    %st = rocdsl.splat %p : f32 -> tensor<1024xf32, #l4w>
    rocdsl.store %st, %y[%c0] {vec = 4 : i32} : tensor<1024xf32, #l4w>, !rocdsl.ptr<f32>
  }
  rocdsl.return
}
