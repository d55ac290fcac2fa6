// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" | FileCheck %s --check-prefix=RAW

// expand_dims and broadcast never leave the lane: they re-index the lane's
// own entries with a vector.shuffle.
//
// #p: 2x2 per lane, 8x8 lanes, one wave -> one repetition is 16x16, so a
// 32x32 tile has 2x2 repetitions and each lane owns 4x4 = 16 entries,
// flattened with the column index fastest (order = [1, 0]): f = 4*i0 + i1.
//
// Row vector (slice dim 1, 32 rows): 4 entries, one per row index i0.
//   expand_dims axis 1 -> 32x1: the unit column wraps inside a 16-wide
//   repetition, so the lane keeps sizePerThread = 2 copies per row:
//   entries f = 2*i0 + i1 -> source i0: [0, 0, 1, 1, 2, 2, 3, 3].
//   broadcast 32x1 -> 32x32: f = 4*i0 + i1 -> source 2*i0 + 0:
//   [0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6].
// Column vector (slice dim 0, 32 columns): 4 entries, one per i1.
//   expand_dims axis 0 -> 1x32: 2 copies of the unit row, f = 4*i0 + i1 ->
//   source i1: [0, 1, 2, 3, 0, 1, 2, 3].
//   broadcast 1x32 -> 32x32: f = 4*i0 + i1 -> source 4*0 + i1:
//   [0, 1, 2, 3] four times.
#p = #rocdsl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #p>
#col = #rocdsl.slice<dim = 0, parent = #p>

// CHECK-LABEL: gpu.func @outer_sum(
// CHECK-DAG:     [[OFFS:%.+]] = arith.constant dense<[0, 1, 16, 17]> : vector<4xi32>
// CHECK:         [[R:%.+]] = arith.addi %{{.+}}, [[OFFS]] : vector<4xi32>
// CHECK:         [[C:%.+]] = arith.addi %{{.+}}, [[OFFS]] : vector<4xi32>
// CHECK-NEXT:    [[R2:%.+]] = vector.shuffle [[R]], [[R]] [0, 0, 1, 1, 2, 2, 3, 3] : vector<4xi32>, vector<4xi32>
// CHECK-NEXT:    [[C2:%.+]] = vector.shuffle [[C]], [[C]] [0, 1, 2, 3, 0, 1, 2, 3] : vector<4xi32>, vector<4xi32>
// CHECK-NEXT:    [[RB:%.+]] = vector.shuffle [[R2]], [[R2]] [0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6] : vector<8xi32>, vector<8xi32>
// CHECK-NEXT:    [[CB:%.+]] = vector.shuffle [[C2]], [[C2]] [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3] : vector<8xi32>, vector<8xi32>
// CHECK-NEXT:    [[S:%.+]] = arith.addi [[RB]], [[CB]] : vector<16xi32>
// CHECK:         vector.shuffle [[S]], [[S]] [0, 1] : vector<16xi32>, vector<16xi32>
// CHECK-NOT:     rocdsl.expand_dims
// CHECK-NOT:     rocdsl.broadcast
rocdsl.func @outer_sum(%y: !rocdsl.ptr<i32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r = rocdsl.iota : tensor<32xi32, #row>
  %c = rocdsl.iota : tensor<32xi32, #col>
  %r2 = rocdsl.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #row> -> tensor<32x1xi32, #p>
  %c2 = rocdsl.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #col> -> tensor<1x32xi32, #p>
  %rb = rocdsl.broadcast %r2 : tensor<32x1xi32, #p> -> tensor<32x32xi32, #p>
  %cb = rocdsl.broadcast %c2 : tensor<1x32xi32, #p> -> tensor<32x32xi32, #p>
  %s = arith.addi %rb, %cb : tensor<32x32xi32, #p>
  rocdsl.store %s, %y[%c0, %c0] strides [%c32] {vec = 2 : i32} : tensor<32x32xi32, #p>, !rocdsl.ptr<i32>
  rocdsl.return
}

// The same row vector with the rows fastest (order = [0, 1]): f = i0 + 4*i1.
//   expand_dims axis 1 -> 32x1 (4x2 entries): f -> source f % 4:
//   [0, 1, 2, 3, 0, 1, 2, 3].
//   broadcast -> 32x32 (4x4 entries): f -> source f % 4: [0, 1, 2, 3] x 4.
#q = #rocdsl.blocked<sizePerThread = [2, 2], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [0, 1]>
#qrow = #rocdsl.slice<dim = 1, parent = #q>

// CHECK-LABEL: gpu.func @rows_fastest(
// CHECK:         [[R:%.+]] = arith.addi %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK-NEXT:    [[R2:%.+]] = vector.shuffle [[R]], [[R]] [0, 1, 2, 3, 0, 1, 2, 3] : vector<4xi32>, vector<4xi32>
// CHECK-NEXT:    [[RB:%.+]] = vector.shuffle [[R2]], [[R2]] [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3] : vector<8xi32>, vector<8xi32>
// CHECK:         vector.shuffle [[RB]], [[RB]] [0] : vector<16xi32>, vector<16xi32>
rocdsl.func @rows_fastest(%y: !rocdsl.ptr<i32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r = rocdsl.iota : tensor<32xi32, #qrow>
  %r2 = rocdsl.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #qrow> -> tensor<32x1xi32, #q>
  %rb = rocdsl.broadcast %r2 : tensor<32x1xi32, #q> -> tensor<32x32xi32, #q>
  rocdsl.store %rb, %y[%c0, %c0] strides [%c32] : tensor<32x32xi32, #q>, !rocdsl.ptr<i32>
  rocdsl.return
}

// Reduction result brought back to the tile (the RMSNorm pattern): a
// 1-entry row vector expands to the 8 copies of a 1x1 tile (8 per lane in
// a 2048-wide repetition), then broadcasts to the 16 entries of 1x4096.
// (Checked before canonicalization, which folds shuffles of a splat.)
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [1, 4], order = [1, 0]>
#brow = #rocdsl.slice<dim = 1, parent = #blk>

// RAW-LABEL: gpu.func @rms_broadcast(
// RAW-SAME:      %{{[^:]+}}: !llvm.ptr<1>, [[A:%[^:]+]]: f32)
// RAW:         [[T:%.+]] = vector.from_elements {{.*}} : vector<16xf32>
// RAW-NEXT:    [[V:%.+]] = vector.broadcast [[A]] : f32 to vector<1xf32>
// RAW-NEXT:    [[V8:%.+]] = vector.shuffle [[V]], [[V]] [0, 0, 0, 0, 0, 0, 0, 0] : vector<1xf32>, vector<1xf32>
// RAW-NEXT:    [[V16:%.+]] = vector.shuffle [[V8]], [[V8]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<8xf32>, vector<8xf32>
// RAW-NEXT:    arith.mulf [[T]], [[V16]] : vector<16xf32>
rocdsl.func @rms_broadcast(%x: !rocdsl.ptr<f32>, %a: f32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 4096 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%n] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<1x4096xf32, #blk>
  %r = rocdsl.splat %a : f32 -> tensor<1xf32, #brow>
  %r2 = rocdsl.expand_dims %r {axis = 1 : i32} : tensor<1xf32, #brow> -> tensor<1x1xf32, #blk>
  %rb = rocdsl.broadcast %r2 : tensor<1x1xf32, #blk> -> tensor<1x4096xf32, #blk>
  %m = arith.mulf %t, %rb : tensor<1x4096xf32, #blk>
  rocdsl.store %m, %x[%c0, %c0] strides [%n] {vec = 4 : i32} : tensor<1x4096xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}
