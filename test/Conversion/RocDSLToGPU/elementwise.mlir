// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

// arith/math on tiles become the same ops on the per-lane vectors; the
// vector length is the number of tile elements each lane owns.

// tensor<256xf32> with sizePerThread 4 over 64 lanes and 1 wave: 256 / 64 =
// 4 entries per lane.
#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>

// CHECK-LABEL: gpu.func @f32_1d(
// CHECK-SAME:      [[P:%[^:]+]]: !llvm.ptr<1>, [[A:%[^:]+]]: f32, [[B:%[^:]+]]: f32)
// CHECK-DAG:     [[TWO:%.+]] = arith.constant dense<2.000000e+00> : vector<4xf32>
// CHECK-DAG:     [[TA:%.+]] = vector.broadcast [[A]] : f32 to vector<4xf32>
// CHECK-DAG:     [[TB:%.+]] = vector.broadcast [[B]] : f32 to vector<4xf32>
// CHECK:         [[S:%.+]] = arith.addf [[TA]], [[TB]] : vector<4xf32>
// CHECK-NEXT:    [[M:%.+]] = arith.mulf [[S]], [[TA]] : vector<4xf32>
// CHECK-NEXT:    [[D:%.+]] = arith.divf [[M]], [[TB]] : vector<4xf32>
// CHECK-NEXT:    [[E:%.+]] = math.exp [[D]] : vector<4xf32>
// CHECK-NEXT:    [[N:%.+]] = arith.negf [[E]] : vector<4xf32>
// CHECK-NEXT:    [[MX:%.+]] = arith.maximumf [[N]], [[TA]] : vector<4xf32>
// CHECK-NEXT:    [[R:%.+]] = arith.mulf [[MX]], [[TWO]] : vector<4xf32>
// CHECK-NEXT:    [[CMP:%.+]] = arith.cmpf ogt, [[R]], [[TA]] : vector<4xf32>
// CHECK-NEXT:    [[SEL:%.+]] = arith.select [[CMP]], [[R]], [[TB]] : vector<4xi1>, vector<4xf32>
// CHECK:         [[DATA:%.+]] = llvm.bitcast [[SEL]] : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[DATA]],
// CHECK-NOT:     tensor<
rocdsl.func @f32_1d(%p: !rocdsl.ptr<f32>, %a: f32, %b: f32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %ta = rocdsl.splat %a : f32 -> tensor<256xf32, #l4>
  %tb = rocdsl.splat %b : f32 -> tensor<256xf32, #l4>
  %s = arith.addf %ta, %tb : tensor<256xf32, #l4>
  %m = arith.mulf %s, %ta : tensor<256xf32, #l4>
  %d = arith.divf %m, %tb : tensor<256xf32, #l4>
  %e = math.exp %d : tensor<256xf32, #l4>
  %n = arith.negf %e : tensor<256xf32, #l4>
  %mx = arith.maximumf %n, %ta : tensor<256xf32, #l4>
  %two = arith.constant dense<2.0> : tensor<256xf32, #l4>
  %r = arith.mulf %mx, %two : tensor<256xf32, #l4>
  %cmp = arith.cmpf ogt, %r, %ta : tensor<256xf32, #l4>
  %sel = arith.select %cmp, %r, %tb : tensor<256xi1, #l4>, tensor<256xf32, #l4>
  rocdsl.store %sel, %p[%c0] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// tensor<4x1024xbf16> over 4 waves, one row per wave, 8 consecutive
// elements per lane: 1024 / (8 * 64) = 2 repetitions -> 16 entries per lane.
// extf/truncf change only the element type. The stored truncf is applied
// per stored group, just before its store, and the groups are kept in
// order by a scheduling barrier (one group's conversion live at a time).
#rows = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @bf16_2d(
// CHECK:         [[T:%.+]] = vector.from_elements {{.*}} : vector<16xbf16>
// CHECK-NEXT:    [[F:%.+]] = arith.extf [[T]] : vector<16xbf16> to vector<16xf32>
// CHECK-NEXT:    [[R:%.+]] = math.rsqrt [[F]] : vector<16xf32>
// CHECK-NEXT:    [[M:%.+]] = arith.mulf [[F]], [[R]] : vector<16xf32>
// CHECK-NOT:     vector<16xbf16>
// CHECK:         [[G0:%.+]] = vector.shuffle [[M]], [[M]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:    [[O0:%.+]] = arith.truncf [[G0]] : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT:    [[D0:%.+]] = llvm.bitcast [[O0]] : vector<8xbf16> to vector<4xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[D0]],
// CHECK-NEXT:    rocdl.sched.barrier 0
// CHECK-NEXT:    [[G1:%.+]] = vector.shuffle [[M]], [[M]] [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:    [[O1:%.+]] = arith.truncf [[G1]] : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT:    [[D1:%.+]] = llvm.bitcast [[O1]] : vector<8xbf16> to vector<4xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[D1]],
// CHECK-NEXT:    gpu.return
// CHECK-NOT:     tensor<
rocdsl.func @bf16_2d(%x: !rocdsl.ptr<bf16>, %y: !rocdsl.ptr<bf16>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1024 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%n] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<4x1024xbf16, #rows>
  %f = arith.extf %t : tensor<4x1024xbf16, #rows> to tensor<4x1024xf32, #rows>
  %r = math.rsqrt %f : tensor<4x1024xf32, #rows>
  %m = arith.mulf %f, %r : tensor<4x1024xf32, #rows>
  %o = arith.truncf %m : tensor<4x1024xf32, #rows> to tensor<4x1024xbf16, #rows>
  rocdsl.store %o, %y[%c0, %c0] strides [%n] {vec = 8 : i32} : tensor<4x1024xbf16, #rows>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// Other 4-wave layouts of the same 4x1024 tile:
// - 2x2 waves: rows 2 per repetition (2 entries), columns 8*64*2 = 1024
//   (8 entries) -> 16.
// - 4 waves along the columns: one row per repetition (4 entries); a
//   repetition covers 8*64*4 = 2048 columns > 1024, so the columns wrap and
//   each lane keeps its 8 -> 32 entries.
#grid = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [2, 2], order = [1, 0]>
#cols = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [1, 4], order = [1, 0]>

// CHECK-LABEL: gpu.func @bf16_layouts(
// CHECK-SAME:      [[P:%[^:]+]]: !llvm.ptr<1>, [[A:%[^:]+]]: bf16)
// CHECK-DAG:     [[G:%.+]] = vector.broadcast [[A]] : bf16 to vector<16xbf16>
// CHECK-DAG:     [[C:%.+]] = vector.broadcast [[A]] : bf16 to vector<32xbf16>
// CHECK-DAG:     arith.addf [[G]], [[G]] : vector<16xbf16>
// CHECK-DAG:     arith.mulf [[C]], [[C]] : vector<32xbf16>
rocdsl.func @bf16_layouts(%p: !rocdsl.ptr<bf16>, %a: bf16) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1024 : i32
  %g = rocdsl.splat %a : bf16 -> tensor<4x1024xbf16, #grid>
  %g2 = arith.addf %g, %g : tensor<4x1024xbf16, #grid>
  rocdsl.store %g2, %p[%c0, %c0] strides [%n] {vec = 8 : i32} : tensor<4x1024xbf16, #grid>, !rocdsl.ptr<bf16>
  %c = rocdsl.splat %a : bf16 -> tensor<4x1024xbf16, #cols>
  %c2 = arith.mulf %c, %c : tensor<4x1024xbf16, #cols>
  rocdsl.store %c2, %p[%c0, %c0] strides [%n] {vec = 8 : i32} : tensor<4x1024xbf16, #cols>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// Integer tiles, an integer splat constant, cmpi producing an i1 tile,
// select on it and sitofp.
// CHECK-LABEL: gpu.func @ints(
// CHECK-SAME:      [[P:%[^:]+]]: !llvm.ptr<1>, [[A:%[^:]+]]: i32)
// CHECK-DAG:     [[THREE:%.+]] = arith.constant dense<3> : vector<4xi32>
// CHECK-DAG:     [[TA:%.+]] = vector.broadcast [[A]] : i32 to vector<4xi32>
// CHECK:         [[IOTA:%.+]] = arith.addi %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK-NEXT:    [[S:%.+]] = arith.addi [[TA]], [[IOTA]] : vector<4xi32>
// CHECK-NEXT:    [[M:%.+]] = arith.muli [[S]], [[THREE]] : vector<4xi32>
// CHECK-NEXT:    [[LT:%.+]] = arith.cmpi slt, [[M]], [[TA]] : vector<4xi32>
// CHECK-NEXT:    [[SEL:%.+]] = arith.select [[LT]], [[M]], [[S]] : vector<4xi1>, vector<4xi32>
// CHECK-NEXT:    [[F:%.+]] = arith.sitofp [[SEL]] : vector<4xi32> to vector<4xf32>
// CHECK:         llvm.bitcast [[F]] : vector<4xf32> to vector<4xi32>
rocdsl.func @ints(%p: !rocdsl.ptr<f32>, %a: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %ta = rocdsl.splat %a : i32 -> tensor<256xi32, #l4>
  %i = rocdsl.iota : tensor<256xi32, #l4>
  %s = arith.addi %ta, %i : tensor<256xi32, #l4>
  %k = arith.constant dense<3> : tensor<256xi32, #l4>
  %m = arith.muli %s, %k : tensor<256xi32, #l4>
  %lt = arith.cmpi slt, %m, %ta : tensor<256xi32, #l4>
  %sel = arith.select %lt, %m, %s : tensor<256xi1, #l4>, tensor<256xi32, #l4>
  %f = arith.sitofp %sel : tensor<256xi32, #l4> to tensor<256xf32, #l4>
  rocdsl.store %f, %p[%c0] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Ops on scalars inside a kernel are left alone.
// CHECK-LABEL: gpu.func @scalars(
// CHECK-SAME:      [[A:%[^:]+]]: f32
// CHECK:         [[E:%.+]] = math.exp [[A]] : f32
// CHECK:         vector.broadcast [[E]] : f32 to vector<4xf32>
rocdsl.func @scalars(%a: f32, %p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %e = math.exp %a : f32
  %t = rocdsl.splat %e : f32 -> tensor<256xf32, #l4>
  rocdsl.store %t, %p[%c0] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// A conversion with a user besides the store is converted once, whole, and
// the store slices its result (converting again per group would do the
// work twice).
// CHECK-LABEL: gpu.func @bf16_shared_truncf(
// CHECK:         [[O:%.+]] = arith.truncf %{{.+}} : vector<16xf32> to vector<16xbf16>
// CHECK-NOT:     arith.truncf
// CHECK:         vector.shuffle [[O]], [[O]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xbf16>, vector<16xbf16>
// CHECK:         vector.shuffle [[O]], [[O]] [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xbf16>, vector<16xbf16>
// CHECK:         gpu.return
rocdsl.func @bf16_shared_truncf(%x: !rocdsl.ptr<bf16>, %y: !rocdsl.ptr<bf16>, %z: !rocdsl.ptr<bf16>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1024 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%n] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<4x1024xbf16, #rows>
  %f = arith.extf %t : tensor<4x1024xbf16, #rows> to tensor<4x1024xf32, #rows>
  %m = arith.mulf %f, %f : tensor<4x1024xf32, #rows>
  %o = arith.truncf %m : tensor<4x1024xf32, #rows> to tensor<4x1024xbf16, #rows>
  rocdsl.store %o, %y[%c0, %c0] strides [%n] {vec = 8 : i32} : tensor<4x1024xbf16, #rows>, !rocdsl.ptr<bf16>
  rocdsl.store %o, %z[%c0, %c0] strides [%n] {vec = 8 : i32} : tensor<4x1024xbf16, #rows>, !rocdsl.ptr<bf16>
  rocdsl.return
}
