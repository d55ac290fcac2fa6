// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s
// RUN: sed -e 's/threadsPerWarp = \[64\]/threadsPerWarp = [32]/' -e 's/tensor<512x/tensor<256x/g' %s | rocdsl-opt --convert-rocdsl-to-gpu=chip=sm_90 --canonicalize --cse | FileCheck %s

// A tile comparison marked rocdsl.constancy (by rocdsl-infer-vector-width)
// compares once per aligned run a lane holds and repeats the result.

#l8 = #rocdsl.blocked<sizePerThread = [8], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>

// Runs of 4 over a lane's 8 entries: entries 0 and 4 compare.
// CHECK-LABEL: gpu.func @runs_of_four(
// CHECK:         [[L:%.+]] = vector.shuffle [[IDX:%.+]], [[IDX]] [0, 4] : vector<8xi32>, vector<8xi32>
// CHECK:         [[C:%.+]] = arith.cmpi slt, [[L]], %{{.*}} : vector<2xi32>
// CHECK:         [[M:%.+]] = vector.shuffle [[C]], [[C]] [0, 0, 0, 0, 1, 1, 1, 1] : vector<2xi1>, vector<2xi1>
// CHECK:         arith.select [[M]]
rocdsl.func @runs_of_four(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota : tensor<512xi32, #l8>
  %nn = rocdsl.splat %n : i32 -> tensor<512xi32, #l8>
  %m = arith.cmpi slt, %i, %nn {rocdsl.constancy = 4 : i32} : tensor<512xi32, #l8>
  %t = rocdsl.load %x[%c0] : !rocdsl.ptr<f32> -> tensor<512xf32, #l8>
  %z = arith.constant dense<0.0> : tensor<512xf32, #l8>
  %s = arith.select %m, %t, %z : tensor<512xi1, #l8>, tensor<512xf32, #l8>
  rocdsl.store %s, %y[%c0] : tensor<512xf32, #l8>, !rocdsl.ptr<f32>
  rocdsl.return
}

// A run longer than the lane's contiguous entries is cut to them: one
// compare for the lane's 8.
// CHECK-LABEL: gpu.func @run_longer_than_lane(
// CHECK:         arith.cmpi slt, %{{.*}}, %{{.*}} : vector<1xi32>
// CHECK:         vector.shuffle %{{.*}}, %{{.*}} [0, 0, 0, 0, 0, 0, 0, 0] : vector<1xi1>, vector<1xi1>
rocdsl.func @run_longer_than_lane(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota : tensor<512xi32, #l8>
  %nn = rocdsl.splat %n : i32 -> tensor<512xi32, #l8>
  %m = arith.cmpi slt, %i, %nn {rocdsl.constancy = 64 : i32} : tensor<512xi32, #l8>
  %t = rocdsl.load %x[%c0] : !rocdsl.ptr<f32> -> tensor<512xf32, #l8>
  %z = arith.constant dense<0.0> : tensor<512xf32, #l8>
  %s = arith.select %m, %t, %z : tensor<512xi1, #l8>, tensor<512xf32, #l8>
  rocdsl.store %s, %y[%c0] : tensor<512xf32, #l8>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Without the attribute: one compare per entry.
// CHECK-LABEL: gpu.func @unmarked(
// CHECK-NOT:     vector.shuffle
// CHECK:         arith.cmpi slt, %{{.*}}, %{{.*}} : vector<8xi32>
rocdsl.func @unmarked(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota : tensor<512xi32, #l8>
  %nn = rocdsl.splat %n : i32 -> tensor<512xi32, #l8>
  %m = arith.cmpi slt, %i, %nn : tensor<512xi32, #l8>
  %t = rocdsl.load %x[%c0] : !rocdsl.ptr<f32> -> tensor<512xf32, #l8>
  %z = arith.constant dense<0.0> : tensor<512xf32, #l8>
  %s = arith.select %m, %t, %z : tensor<512xi1, #l8>, tensor<512xf32, #l8>
  rocdsl.store %s, %y[%c0] : tensor<512xf32, #l8>, !rocdsl.ptr<f32>
  rocdsl.return
}
