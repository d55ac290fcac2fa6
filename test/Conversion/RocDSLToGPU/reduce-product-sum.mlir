// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

// A sum of products the kernel lets contract (arith.mulf fastmath<contract>,
// the Python DSL's default on GPUs) is accumulated in four chains of
// contract adds, so that LLVM fuses each product into an fma; any other
// sum stays a balanced tree of plain adds.

#l8 = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [1, 0]>

// CHECK-LABEL: gpu.func @sum_of_squares(
// CHECK:         [[P:%.+]] = arith.mulf [[T:%.+]], [[T]] fastmath<contract> : vector<8xf32>
// CHECK-NEXT:    [[P0:%.+]] = vector.extract [[P]][0]
// CHECK-NEXT:    [[P1:%.+]] = vector.extract [[P]][1]
// CHECK-NEXT:    [[P2:%.+]] = vector.extract [[P]][2]
// CHECK-NEXT:    [[P3:%.+]] = vector.extract [[P]][3]
// CHECK-NEXT:    [[P4:%.+]] = vector.extract [[P]][4]
// CHECK-NEXT:    [[P5:%.+]] = vector.extract [[P]][5]
// CHECK-NEXT:    [[P6:%.+]] = vector.extract [[P]][6]
// CHECK-NEXT:    [[P7:%.+]] = vector.extract [[P]][7]
// Chains 0..3 take elements i, i + 4.
// CHECK-NEXT:    [[C0:%.+]] = arith.addf [[P0]], [[P4]] fastmath<contract> : f32
// CHECK-NEXT:    [[C1:%.+]] = arith.addf [[P1]], [[P5]] fastmath<contract> : f32
// CHECK-NEXT:    [[C2:%.+]] = arith.addf [[P2]], [[P6]] fastmath<contract> : f32
// CHECK-NEXT:    [[C3:%.+]] = arith.addf [[P3]], [[P7]] fastmath<contract> : f32
// CHECK-NEXT:    [[C01:%.+]] = arith.addf [[C0]], [[C1]] fastmath<contract> : f32
// CHECK-NEXT:    [[C23:%.+]] = arith.addf [[C2]], [[C3]] fastmath<contract> : f32
// CHECK-NEXT:    [[S:%.+]] = arith.addf [[C01]], [[C23]] fastmath<contract> : f32
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
