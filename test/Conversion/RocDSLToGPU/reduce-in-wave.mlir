// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s --check-prefix=NOLDS

// Reductions whose axis is split across lanes only (one wave along the
// axis): four chains over the lane's own entries and a tree of them, then one
// gpu.subgroup_reduce over the lanes that split the axis. No LDS and no
// barrier anywhere in this file:
// NOLDS-NOT: llvm.mlir.global
// NOLDS-NOT: llvm.mlir.addressof
// NOLDS-NOT: gpu.barrier
// NOLDS-NOT: rocdsl.reduce

#w64 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]>
#w32 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 32], warpsPerCTA = [1, 1], order = [1, 0]>
#col16 = #rocdsl.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>

// Row sum of 4x256: each wave owns one row, 64 lanes x 4 entries along it.
// CHECK-LABEL: gpu.func @row_add_full_wave(
// CHECK:         [[RAW:%.+]] = rocdl.raw.ptr.buffer.load
// CHECK-NEXT:    [[T:%.+]] = llvm.bitcast [[RAW]] : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:    [[E0:%.+]] = vector.extract [[T]][0] : f32 from vector<4xf32>
// CHECK-NEXT:    [[E1:%.+]] = vector.extract [[T]][1] : f32 from vector<4xf32>
// CHECK-NEXT:    [[E2:%.+]] = vector.extract [[T]][2] : f32 from vector<4xf32>
// CHECK-NEXT:    [[E3:%.+]] = vector.extract [[T]][3] : f32 from vector<4xf32>
// CHECK-NEXT:    [[S02:%.+]] = arith.addf [[E0]], [[E2]] : f32
// CHECK-NEXT:    [[S13:%.+]] = arith.addf [[E1]], [[E3]] : f32
// CHECK-NEXT:    [[S:%.+]] = arith.addf [[S02]], [[S13]] : f32
// CHECK-NEXT:    [[R:%.+]] = gpu.subgroup_reduce add [[S]] uniform : (f32) -> f32
// CHECK-NEXT:    [[RV:%.+]] = vector.broadcast [[R]] : f32 to vector<1xf32>
// CHECK:         [[D:%.+]] = llvm.bitcast [[RV]] : vector<1xf32> to i32
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[D]],
rocdsl.func @row_add_full_wave(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%c256] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<4x256xf32, #w64>
  %s = rocdsl.reduce add %t {axis = 1 : i32} : tensor<4x256xf32, #w64> -> tensor<4xf32, #rocdsl.slice<dim = 1, parent = #w64>>
  rocdsl.store %s, %y[%c0] : tensor<4xf32, #rocdsl.slice<dim = 1, parent = #w64>>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Row max of 2x128 with 32 lanes per row: a clustered subgroup reduce of 32
// lanes; max on floats is maximumf.
// CHECK-LABEL: gpu.func @row_max_32_lanes(
// CHECK:         [[T:%.+]] = llvm.bitcast %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:    [[E0:%.+]] = vector.extract [[T]][0] : f32 from vector<4xf32>
// CHECK-NEXT:    [[E1:%.+]] = vector.extract [[T]][1] : f32 from vector<4xf32>
// CHECK-NEXT:    [[E2:%.+]] = vector.extract [[T]][2] : f32 from vector<4xf32>
// CHECK-NEXT:    [[E3:%.+]] = vector.extract [[T]][3] : f32 from vector<4xf32>
// CHECK-NEXT:    [[M02:%.+]] = arith.maximumf [[E0]], [[E2]] : f32
// CHECK-NEXT:    [[M13:%.+]] = arith.maximumf [[E1]], [[E3]] : f32
// CHECK-NEXT:    [[M:%.+]] = arith.maximumf [[M02]], [[M13]] : f32
// CHECK-NEXT:    [[R:%.+]] = gpu.subgroup_reduce maximumf [[M]] uniform cluster(size = 32) : (f32) -> f32
// CHECK-NEXT:    vector.broadcast [[R]] : f32 to vector<1xf32>
rocdsl.func @row_max_32_lanes(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%c128] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<2x128xf32, #w32>
  %s = rocdsl.reduce max %t {axis = 1 : i32} : tensor<2x128xf32, #w32> -> tensor<2xf32, #rocdsl.slice<dim = 1, parent = #w32>>
  rocdsl.store %s, %y[%c0] : tensor<2xf32, #rocdsl.slice<dim = 1, parent = #w32>>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Column sum of 16x4 where lanes are numbered along the columns first: the
// 16 lanes of a column are 4 apart -> cluster(size = 16, stride = 4). One
// entry per lane, so no in-lane ops.
// CHECK-LABEL: gpu.func @col_add_strided(
// CHECK:         [[T:%.+]] = llvm.bitcast %{{.+}} : i32 to vector<1xf32>
// CHECK-NEXT:    [[E:%.+]] = vector.extract [[T]][0] : f32 from vector<1xf32>
// CHECK-NEXT:    [[R:%.+]] = gpu.subgroup_reduce add [[E]] uniform cluster(size = 16, stride = 4) : (f32) -> f32
// CHECK-NEXT:    vector.broadcast [[R]] : f32 to vector<1xf32>
rocdsl.func @col_add_strided(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%c4] : !rocdsl.ptr<f32> -> tensor<16x4xf32, #col16>
  %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<16x4xf32, #col16> -> tensor<4xf32, #rocdsl.slice<dim = 0, parent = #col16>>
  rocdsl.store %s, %y[%c0] : tensor<4xf32, #rocdsl.slice<dim = 0, parent = #col16>>, !rocdsl.ptr<f32>
  rocdsl.return
}

// 1-D max of 512 elements in one wave: 8 entries per lane (two groups of
// 4) combined in four chains (entries i and i + 4), a tree of the chains,
// then a full-wave reduce to a uniform scalar.
// CHECK-LABEL: gpu.func @max_to_scalar(
// CHECK:         [[A:%.+]] = llvm.bitcast %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:    [[A0:%.+]] = vector.extract [[A]][0]
// CHECK-NEXT:    [[A1:%.+]] = vector.extract [[A]][1]
// CHECK-NEXT:    [[A2:%.+]] = vector.extract [[A]][2]
// CHECK-NEXT:    [[A3:%.+]] = vector.extract [[A]][3]
// CHECK:         [[B:%.+]] = llvm.bitcast %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:    [[B0:%.+]] = vector.extract [[B]][0]
// CHECK-NEXT:    [[B1:%.+]] = vector.extract [[B]][1]
// CHECK-NEXT:    [[B2:%.+]] = vector.extract [[B]][2]
// CHECK-NEXT:    [[B3:%.+]] = vector.extract [[B]][3]
// CHECK-NEXT:    [[M0:%.+]] = arith.maximumf [[A0]], [[B0]] : f32
// CHECK-NEXT:    [[M1:%.+]] = arith.maximumf [[A1]], [[B1]] : f32
// CHECK-NEXT:    [[M2:%.+]] = arith.maximumf [[A2]], [[B2]] : f32
// CHECK-NEXT:    [[M3:%.+]] = arith.maximumf [[A3]], [[B3]] : f32
// CHECK-NEXT:    [[M02:%.+]] = arith.maximumf [[M0]], [[M2]] : f32
// CHECK-NEXT:    [[M13:%.+]] = arith.maximumf [[M1]], [[M3]] : f32
// CHECK-NEXT:    [[M:%.+]] = arith.maximumf [[M02]], [[M13]] : f32
// CHECK-NEXT:    [[R:%.+]] = gpu.subgroup_reduce maximumf [[M]] uniform : (f32) -> f32
// CHECK:         vector.broadcast [[R]] : f32 to vector<4xf32>
rocdsl.func @max_to_scalar(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<512xf32, #l4>
  %s = rocdsl.reduce max %t {axis = 0 : i32} : tensor<512xf32, #l4> -> f32
  %st = rocdsl.splat %s : f32 -> tensor<512xf32, #l4>
  rocdsl.store %st, %y[%c0] {vec = 4 : i32} : tensor<512xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// A 128-element tile in a 256-element layout: lanes 32..63 hold copies,
// which are replaced by the identity (-inf for max) before combining.
// CHECK-LABEL: gpu.func @max_wrapped(
// CHECK-DAG:     [[NEGINF:%.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     [[C128:%.+]] = arith.constant 128 : i32
// CHECK-DAG:     [[C4:%.+]] = arith.constant 4 : i32
// CHECK:         [[BASE:%.+]] = arith.muli %{{.+}}, [[C4]] : i32
// CHECK:         [[T:%.+]] = llvm.bitcast %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:    [[E0:%.+]] = vector.extract [[T]][0] : f32 from vector<4xf32>
// CHECK-NEXT:    [[IN0:%.+]] = arith.cmpi ult, [[BASE]], [[C128]] : i32
// CHECK-NEXT:    [[V0:%.+]] = arith.select [[IN0]], [[E0]], [[NEGINF]] : f32
// CHECK:         [[V1:%.+]] = arith.select %{{.+}}, %{{.+}}, [[NEGINF]] : f32
// CHECK:         [[V2:%.+]] = arith.select %{{.+}}, %{{.+}}, [[NEGINF]] : f32
// CHECK:         [[V3:%.+]] = arith.select %{{.+}}, %{{.+}}, [[NEGINF]] : f32
// CHECK-NEXT:    [[M02:%.+]] = arith.maximumf [[V0]], [[V2]] : f32
// CHECK-NEXT:    [[M13:%.+]] = arith.maximumf [[V1]], [[V3]] : f32
// CHECK-NEXT:    [[M:%.+]] = arith.maximumf [[M02]], [[M13]] : f32
// CHECK-NEXT:    gpu.subgroup_reduce maximumf [[M]] uniform : (f32) -> f32
rocdsl.func @max_wrapped(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<128xf32, #l4>
  %s = rocdsl.reduce max %t {axis = 0 : i32} : tensor<128xf32, #l4> -> f32
  %st = rocdsl.splat %s : f32 -> tensor<128xf32, #l4>
  rocdsl.store %st, %y[%c0] {vec = 4 : i32} : tensor<128xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Integer add: addi in the lane, subgroup add across lanes.
// CHECK-LABEL: gpu.func @int_add(
// CHECK:         [[S01:%.+]] = arith.addi %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    [[S23:%.+]] = arith.addi %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    [[S:%.+]] = arith.addi [[S01]], [[S23]] : i32
// CHECK-NEXT:    gpu.subgroup_reduce add [[S]] uniform : (i32) -> i32
rocdsl.func @int_add(%x: !rocdsl.ptr<i32>, %y: !rocdsl.ptr<i32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<i32> -> tensor<256xi32, #l4>
  %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<256xi32, #l4> -> i32
  %st = rocdsl.splat %s : i32 -> tensor<256xi32, #l4>
  rocdsl.store %st, %y[%c0] {vec = 4 : i32} : tensor<256xi32, #l4>, !rocdsl.ptr<i32>
  rocdsl.return
}
