// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx950" --canonicalize --cse | FileCheck %s

// On AMDGPU a masked access of which each lane holds one group (an
// elementwise kernel's block) is a global access at ptr + a 32-bit lane
// offset (origin included) behind a branch on the group's mask bit, with
// no buffer resource; with more groups per lane, or checked against
// bounds alone, it stays a buffer access.

#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#l8 = #rocdsl.blocked<sizePerThread = [8], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>

// CHECK-LABEL: gpu.func @one_group(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>, [[Y:%[^:]+]]: !llvm.ptr<1>, [[START:%[^:]+]]: i32, [[LIM:%[^:]+]]: i32, [[PAD:%[^:]+]]: f32)
// CHECK-NOT:     rocdl.make.buffer.rsrc
// CHECK:         [[ELEM:%.+]] = arith.addi [[START]], %{{.+}} : i32
// CHECK:         [[BIT:%.+]] = vector.extract %{{.+}}[0] : i1 from vector<4xi1>
// CHECK:         [[BYTES:%.+]] = arith.muli [[ELEM]], %{{.+}} : i32
// CHECK:         [[OFF64:%.+]] = arith.extui [[BYTES]] : i32 to i64
// CHECK:         [[PX:%.+]] = llvm.getelementptr [[X]][[[OFF64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK:         [[V:%.+]] = scf.if [[BIT]] -> (vector<4xf32>) {
// CHECK:           llvm.load [[PX]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:         } else {
// CHECK:           scf.yield %{{.+}} : vector<4xf32>
// CHECK:         }
// CHECK:         [[PY:%.+]] = llvm.getelementptr [[Y]][[[OFF64]]]
// CHECK:         scf.if [[BIT]] {
// CHECK:           llvm.store %{{.+}}, [[PY]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK:         }
// CHECK-NOT:     rocdl.raw.ptr.buffer
// CHECK:         gpu.return
rocdsl.func @one_group(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %start: i32, %lim: i32, %pad: f32) attributes {num_warps = 1 : i32} {
  %i = rocdsl.iota : tensor<256xi32, #l4>
  %s = rocdsl.splat %start : i32 -> tensor<256xi32, #l4>
  %p = arith.addi %i, %s : tensor<256xi32, #l4>
  %l = rocdsl.splat %lim : i32 -> tensor<256xi32, #l4>
  %m = arith.cmpi slt, %p, %l : tensor<256xi32, #l4>
  %t = rocdsl.load %x[%start] mask(%m : tensor<256xi1, #l4>) other(%pad : f32) {vec = 4 : i32, uniform_mask} : !rocdsl.ptr<f32> -> tensor<256xf32, #l4>
  rocdsl.store %t, %y[%start] mask(%m : tensor<256xi1, #l4>) {vec = 4 : i32, uniform_mask} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Two groups per lane: buffer accesses, invalid offsets redirected.
// CHECK-LABEL: gpu.func @two_groups(
// CHECK:         rocdl.make.buffer.rsrc
// CHECK-COUNT-2: rocdl.raw.ptr.buffer.load {{.*}} : vector<4xi32>
// CHECK-NOT:     scf.if
// CHECK:         gpu.return
rocdsl.func @two_groups(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %start: i32, %lim: i32) attributes {num_warps = 1 : i32} {
  %i = rocdsl.iota : tensor<512xi32, #l8>
  %s = rocdsl.splat %start : i32 -> tensor<512xi32, #l8>
  %p = arith.addi %i, %s : tensor<512xi32, #l8>
  %l = rocdsl.splat %lim : i32 -> tensor<512xi32, #l8>
  %m = arith.cmpi slt, %p, %l : tensor<512xi32, #l8>
  %t = rocdsl.load %x[%start] mask(%m : tensor<512xi1, #l8>) {vec = 4 : i32, uniform_mask} : !rocdsl.ptr<f32> -> tensor<512xf32, #l8>
  rocdsl.store %t, %y[%start] mask(%m : tensor<512xi1, #l8>) {vec = 4 : i32, uniform_mask} : tensor<512xf32, #l8>, !rocdsl.ptr<f32>
  rocdsl.return
}

// One group per lane checked against bounds alone: buffer accesses.
// CHECK-LABEL: gpu.func @bounds_only(
// CHECK:         rocdl.make.buffer.rsrc
// CHECK:         rocdl.raw.ptr.buffer.load {{.*}} : vector<4xi32>
// CHECK-NOT:     scf.if
// CHECK:         gpu.return
rocdsl.func @bounds_only(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %start: i32, %n: i32) attributes {num_warps = 1 : i32} {
  %t = rocdsl.load %x[%start] bounds [%n] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #l4>
  rocdsl.store %t, %y[%start] bounds [%n] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}
