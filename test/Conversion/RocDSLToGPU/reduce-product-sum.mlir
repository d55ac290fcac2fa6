// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

// A sum of products the kernel lets contract (arith.mulf fastmath<contract>,
// the Python DSL's default on GPUs) is accumulated from the product's
// operands in four chains of math.fma (each chain starts with one
// multiply), then a tree of the chains; any other sum stays a balanced
// tree of plain adds over the products.

#l8 = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @sum_of_squares(
// CHECK-NOT:     vector<8xf32>
// CHECK:         [[M0:%.+]] = arith.mulf [[X0:%.+]], [[X0]] fastmath<contract> : f32
// CHECK-NEXT:    [[M1:%.+]] = arith.mulf [[X1:%.+]], [[X1]] fastmath<contract> : f32
// CHECK-NEXT:    [[M2:%.+]] = arith.mulf [[X2:%.+]], [[X2]] fastmath<contract> : f32
// CHECK-NEXT:    [[M3:%.+]] = arith.mulf [[X3:%.+]], [[X3]] fastmath<contract> : f32
// Chains 0..3 take elements i, i + 4.
// CHECK-NEXT:    [[C0:%.+]] = math.fma [[X4:%.+]], [[X4]], [[M0]] : f32
// CHECK-NEXT:    [[C1:%.+]] = math.fma [[X5:%.+]], [[X5]], [[M1]] : f32
// CHECK-NEXT:    [[C2:%.+]] = math.fma [[X6:%.+]], [[X6]], [[M2]] : f32
// CHECK-NEXT:    [[C3:%.+]] = math.fma [[X7:%.+]], [[X7]], [[M3]] : f32
// The tree pairs chain i with chain i + 2 (adjacent pairs pack into
// v_pk_add_f32 without moves).
// CHECK-NEXT:    [[C02:%.+]] = arith.addf [[C0]], [[C2]] fastmath<contract> : f32
// CHECK-NEXT:    [[C13:%.+]] = arith.addf [[C1]], [[C3]] fastmath<contract> : f32
// CHECK-NEXT:    [[S:%.+]] = arith.addf [[C02]], [[C13]] fastmath<contract> : f32
// CHECK-NEXT:    gpu.subgroup_reduce add [[S]] uniform
rocdsl.func @sum_of_squares(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%c0] : !rocdsl.ptr<f32> -> tensor<1x512xf32, #l8>
  %p = arith.mulf %t, %t fastmath<contract> : tensor<1x512xf32, #l8>
  %s = rocdsl.reduce add %p {axis = 1 : i32} : tensor<1x512xf32, #l8> -> tensor<1xf32, #rocdsl.slice<dim = 1, parent = #l8>>
  rocdsl.store %s, %y[%c0] : tensor<1xf32, #rocdsl.slice<dim = 1, parent = #l8>>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Products without contract: the tree of plain adds.
// CHECK-LABEL: gpu.func @plain_products(
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT:     fastmath<contract>
// CHECK:         gpu.subgroup_reduce add
rocdsl.func @plain_products(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%c0] : !rocdsl.ptr<f32> -> tensor<1x512xf32, #l8>
  %p = arith.mulf %t, %t : tensor<1x512xf32, #l8>
  %s = rocdsl.reduce add %p {axis = 1 : i32} : tensor<1x512xf32, #l8> -> tensor<1xf32, #rocdsl.slice<dim = 1, parent = #l8>>
  rocdsl.store %s, %y[%c0] : tensor<1xf32, #rocdsl.slice<dim = 1, parent = #l8>>, !rocdsl.ptr<f32>
  rocdsl.return
}

// A max of products is not a sum: no chains.
// CHECK-LABEL: gpu.func @max_of_products(
// CHECK-NOT:     arith.addf
// CHECK:         arith.maximumf
rocdsl.func @max_of_products(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%c0] : !rocdsl.ptr<f32> -> tensor<1x512xf32, #l8>
  %p = arith.mulf %t, %t fastmath<contract> : tensor<1x512xf32, #l8>
  %s = rocdsl.reduce max %p {axis = 1 : i32} : tensor<1x512xf32, #l8> -> tensor<1xf32, #rocdsl.slice<dim = 1, parent = #l8>>
  rocdsl.store %s, %y[%c0] : tensor<1xf32, #rocdsl.slice<dim = 1, parent = #l8>>, !rocdsl.ptr<f32>
  rocdsl.return
}
