// RUN: rocdsl-opt %s --rocdsl-infer-vector-width --split-input-file | FileCheck %s

// The softmax a user writes (no vec) with the launch's facts: 16-byte
// aligned pointers, N divisible by 16. Layout: 8 consecutive bf16 per lane.
#l = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: rocdsl.func @masked_rows
rocdsl.func @masked_rows(%x: !rocdsl.ptr<bf16> {rocdsl.alignment = 16 : i32},
                         %y: !rocdsl.ptr<bf16> {rocdsl.alignment = 16 : i32},
                         %M: i32, %N: i32 {rocdsl.divisibility = 16 : i32})
    attributes {num_warps = 4 : i32} {
  %c4 = arith.constant 4 : i32
  %c0 = arith.constant 0 : i32
  %pid = rocdsl.program_id x : i32
  %row = arith.muli %pid, %c4 : i32
  %cols = rocdsl.iota : tensor<1024xi32, #rocdsl.slice<dim = 0, parent = #l>>
  %n = rocdsl.splat %N : i32 -> tensor<1024xi32, #rocdsl.slice<dim = 0, parent = #l>>
  // The mask is constant over aligned runs of 16 columns: the comparison
  // says so, for the lowering to compare once per run.
  // CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} {rocdsl.constancy = 16 : i32}
  %valid = arith.cmpi slt, %cols, %n : tensor<1024xi32, #rocdsl.slice<dim = 0, parent = #l>>
  %v2 = rocdsl.expand_dims %valid {axis = 0 : i32} : tensor<1024xi1, #rocdsl.slice<dim = 0, parent = #l>> -> tensor<1x1024xi1, #l>
  %m = rocdsl.broadcast %v2 : tensor<1x1024xi1, #l> -> tensor<4x1024xi1, #l>
  // CHECK: rocdsl.load {{.*}} {uniform_mask, vec = 8 : i32}
  %t = rocdsl.load %x[%row, %c0] strides [%N] bounds [%M, %N] mask(%m : tensor<4x1024xi1, #l>) : !rocdsl.ptr<bf16> -> tensor<4x1024xbf16, #l>
  // CHECK: rocdsl.store {{.*}} {uniform_mask, vec = 8 : i32}
  rocdsl.store %t, %y[%row, %c0] strides [%N] bounds [%M, %N] mask(%m : tensor<4x1024xi1, #l>) : tensor<4x1024xbf16, #l>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

// Without the facts nothing is provable: the generic, element-wide access
// stays (an unaligned view, or an N like 1000 that is only divisible by 8,
// must never get a wider one than it allows).
#l = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: rocdsl.func @no_facts
rocdsl.func @no_facts(%x: !rocdsl.ptr<bf16>, %y: !rocdsl.ptr<bf16> {rocdsl.alignment = 16 : i32},
                      %M: i32, %N: i32, %K: i32 {rocdsl.divisibility = 8 : i32})
    attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  // Unaligned pointer, unknown stride and bound: element-wide.
  // CHECK: rocdsl.load %arg0
  // CHECK-NOT: vec
  // CHECK-SAME: -> tensor<4x1024xbf16
  %t = rocdsl.load %x[%c0, %c0] strides [%N] bounds [%M, %N] : !rocdsl.ptr<bf16> -> tensor<4x1024xbf16, #l>
  // Aligned pointer, stride and bound divisible by 8 only: 8 x bf16.
  // CHECK: rocdsl.store {{.*}} {vec = 8 : i32}
  rocdsl.store %t, %y[%c0, %c0] strides [%K] bounds [%M, %K] : tensor<4x1024xbf16, #l>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

// Each fact caps the width: a bound divisible by 2, an origin offset by an
// odd constant, a mask that changes inside a group, f32's 128-bit limit,
// and the author's explicit vec (1 included), which is kept.
#l = #rocdsl.blocked<sizePerThread = [8], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: rocdsl.func @caps
rocdsl.func @caps(%x: !rocdsl.ptr<f16> {rocdsl.alignment = 16 : i32},
                  %f: !rocdsl.ptr<f32> {rocdsl.alignment = 16 : i32},
                  %N: i32 {rocdsl.divisibility = 16 : i32},
                  %B: i32 {rocdsl.divisibility = 2 : i32})
    attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %c2048 = arith.constant 2048 : i32
  %pid = rocdsl.program_id x : i32
  %start = arith.muli %pid, %c2048 : i32
  // CHECK: rocdsl.load {{.*}} {vec = 2 : i32} : !rocdsl.ptr<f16>
  %a = rocdsl.load %x[%start] bounds [%B] : !rocdsl.ptr<f16> -> tensor<2048xf16, #l>
  %odd = arith.addi %start, %c3 : i32
  // CHECK: rocdsl.load %{{.*}}[%{{.*}}] bounds[%{{.*}}] : !rocdsl.ptr<f16>
  %b = rocdsl.load %x[%odd] bounds [%N] : !rocdsl.ptr<f16> -> tensor<2048xf16, #l>
  // iota + 3 < N changes value inside groups of 8 (at N - 3).
  %i = rocdsl.iota : tensor<2048xi32, #l>
  %s3 = rocdsl.splat %c3 : i32 -> tensor<2048xi32, #l>
  %shifted = arith.addi %i, %s3 : tensor<2048xi32, #l>
  %n = rocdsl.splat %N : i32 -> tensor<2048xi32, #l>
  // CHECK: arith.cmpi slt
  // CHECK-NOT: rocdsl.constancy
  // CHECK-SAME: tensor<2048xi32
  %m = arith.cmpi slt, %shifted, %n : tensor<2048xi32, #l>
  // CHECK: rocdsl.load {{.*}} mask({{.*}}>>) : !rocdsl.ptr<f16>
  %c = rocdsl.load %x[%start] bounds [%N] mask(%m : tensor<2048xi1, #l>) : !rocdsl.ptr<f16> -> tensor<2048xf16, #l>
  // iota + start < N with start a multiple of 2048: uniform over 8.
  %s = rocdsl.splat %start : i32 -> tensor<2048xi32, #l>
  %idx = arith.addi %i, %s : tensor<2048xi32, #l>
  // CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} {rocdsl.constancy = 16 : i32}
  %m2 = arith.cmpi slt, %idx, %n : tensor<2048xi32, #l>
  // CHECK: rocdsl.load {{.*}} {uniform_mask, vec = 8 : i32} : !rocdsl.ptr<f16>
  %d = rocdsl.load %x[%start] bounds [%N] mask(%m2 : tensor<2048xi1, #l>) : !rocdsl.ptr<f16> -> tensor<2048xf16, #l>
  // CHECK: rocdsl.load {{.*}} {vec = 4 : i32} : !rocdsl.ptr<f32>
  %e = rocdsl.load %f[%start] bounds [%N] : !rocdsl.ptr<f32> -> tensor<2048xf32, #l>
  // CHECK: rocdsl.load {{.*}} {vec = 1 : i32} : !rocdsl.ptr<f16>
  %g = rocdsl.load %x[%start] bounds [%N] {vec = 1 : i32} : !rocdsl.ptr<f16> -> tensor<2048xf16, #l>
  rocdsl.return
}

// -----

// A K loop's induction variable is divisible by what divides its lower
// bound and its step: a K tile at column k (from 0 by 32) of 16-byte
// aligned rows of a K divisible by 16 takes 128-bit accesses; the same
// loop from 3 takes none.
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: rocdsl.func @loop_induction_variable
rocdsl.func @loop_induction_variable(%a: !rocdsl.ptr<bf16> {rocdsl.alignment = 16 : i32},
                                     %M: i32, %K: i32 {rocdsl.divisibility = 16 : i32})
    attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %c32 = arith.constant 32 : i32
  scf.for %k = %c0 to %K step %c32 : i32 {
    // CHECK: rocdsl.load {{.*}} {vec = 8 : i32} : !rocdsl.ptr<bf16>
    %t = rocdsl.load %a[%c0, %k] strides [%K] bounds [%M, %K] : !rocdsl.ptr<bf16> -> tensor<64x32xbf16, #blk>
    rocdsl.store %t, %a[%c0, %k] strides [%K] bounds [%M, %K] : tensor<64x32xbf16, #blk>, !rocdsl.ptr<bf16>
  }
  scf.for %k = %c3 to %K step %c32 : i32 {
    // CHECK: rocdsl.load %{{[^{]*}} : !rocdsl.ptr<bf16> -> tensor<64x32xbf16
    %t = rocdsl.load %a[%c0, %k] strides [%K] bounds [%M, %K] : !rocdsl.ptr<bf16> -> tensor<64x32xbf16, #blk>
    rocdsl.store %t, %a[%c0, %k] strides [%K] bounds [%M, %K] : tensor<64x32xbf16, #blk>, !rocdsl.ptr<bf16>
  }
  rocdsl.return
}
