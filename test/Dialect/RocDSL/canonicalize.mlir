// RUN: rocdsl-opt %s --canonicalize --split-input-file | FileCheck %s

// Checks --canonicalize folding of splat/broadcast/expand_dims/convert_layout, and cases that must not fold.

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @broadcast_same_type(
// CHECK-SAME: [[X:%.+]]: tensor<64x128xf32,
// CHECK-NOT: rocdsl.broadcast
// CHECK: return [[X]] :
func.func @broadcast_same_type(%x: tensor<64x128xf32, #blk>) -> tensor<64x128xf32, #blk> {
  %b = rocdsl.broadcast %x : tensor<64x128xf32, #blk> -> tensor<64x128xf32, #blk>
  return %b : tensor<64x128xf32, #blk>
}

// CHECK-LABEL: func.func @broadcast_of_broadcast(
// CHECK-SAME: [[X:%.+]]: tensor<1x1xf32,
// CHECK-NEXT: [[B:%.+]] = rocdsl.broadcast [[X]] : tensor<1x1xf32, #rocdsl.blocked<{{.*}}>> -> tensor<64x128xf32, #rocdsl.blocked<{{.*}}>>
// CHECK-NOT: rocdsl.broadcast
// CHECK: return [[B]] :
func.func @broadcast_of_broadcast(%x: tensor<1x1xf32, #blk>) -> tensor<64x128xf32, #blk> {
  %b0 = rocdsl.broadcast %x : tensor<1x1xf32, #blk> -> tensor<64x1xf32, #blk>
  %b1 = rocdsl.broadcast %b0 : tensor<64x1xf32, #blk> -> tensor<64x128xf32, #blk>
  return %b1 : tensor<64x128xf32, #blk>
}

// Three broadcasts in a row collapse to one.
// CHECK-LABEL: func.func @broadcast_chain(
// CHECK-SAME: [[X:%.+]]: tensor<1x1xf32,
// CHECK-NEXT: [[B:%.+]] = rocdsl.broadcast [[X]] : tensor<1x1xf32, {{.*}}> -> tensor<64x128xf32,
// CHECK-NEXT: return [[B]] :
func.func @broadcast_chain(%x: tensor<1x1xf32, #blk>) -> tensor<64x128xf32, #blk> {
  %b0 = rocdsl.broadcast %x : tensor<1x1xf32, #blk> -> tensor<1x128xf32, #blk>
  %b1 = rocdsl.broadcast %b0 : tensor<1x128xf32, #blk> -> tensor<1x128xf32, #blk>
  %b2 = rocdsl.broadcast %b1 : tensor<1x128xf32, #blk> -> tensor<64x128xf32, #blk>
  return %b2 : tensor<64x128xf32, #blk>
}

// The intermediate broadcast stays when something else uses it.
// CHECK-LABEL: func.func @broadcast_of_broadcast_shared(
// CHECK-SAME: [[X:%.+]]: tensor<1x1xf32,
// CHECK-DAG: [[B0:%.+]] = rocdsl.broadcast [[X]] : tensor<1x1xf32, {{.*}}> -> tensor<64x1xf32,
// CHECK-DAG: [[B1:%.+]] = rocdsl.broadcast [[X]] : tensor<1x1xf32, {{.*}}> -> tensor<64x128xf32,
// CHECK: return [[B0]], [[B1]] :
func.func @broadcast_of_broadcast_shared(%x: tensor<1x1xf32, #blk>) -> (tensor<64x1xf32, #blk>, tensor<64x128xf32, #blk>) {
  %b0 = rocdsl.broadcast %x : tensor<1x1xf32, #blk> -> tensor<64x1xf32, #blk>
  %b1 = rocdsl.broadcast %b0 : tensor<64x1xf32, #blk> -> tensor<64x128xf32, #blk>
  return %b0, %b1 : tensor<64x1xf32, #blk>, tensor<64x128xf32, #blk>
}

// CHECK-LABEL: func.func @splat_of_constant()
// CHECK-DAG: [[F:%.+]] = arith.constant dense<2.500000e+00> : tensor<64x128xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-DAG: [[I:%.+]] = arith.constant dense<7> : tensor<64x128xi32, #rocdsl.blocked<{{.*}}>>
// CHECK-DAG: [[M:%.+]] = arith.constant dense<true> : tensor<64x128xi1, #rocdsl.blocked<{{.*}}>>
// CHECK-NOT: rocdsl.splat
// CHECK: return [[F]], [[I]], [[M]] :
func.func @splat_of_constant() -> (tensor<64x128xf32, #blk>, tensor<64x128xi32, #blk>, tensor<64x128xi1, #blk>) {
  %c = arith.constant 2.5 : f32
  %i = arith.constant 7 : i32
  %t = arith.constant true
  %s = rocdsl.splat %c : f32 -> tensor<64x128xf32, #blk>
  %si = rocdsl.splat %i : i32 -> tensor<64x128xi32, #blk>
  %st = rocdsl.splat %t : i1 -> tensor<64x128xi1, #blk>
  return %s, %si, %st : tensor<64x128xf32, #blk>, tensor<64x128xi32, #blk>, tensor<64x128xi1, #blk>
}

// CHECK-LABEL: func.func @splat_of_argument(
// CHECK-SAME: [[X:%.+]]: f32)
// CHECK-NEXT: [[S:%.+]] = rocdsl.splat [[X]] : f32 -> tensor<64x128xf32,
// CHECK-NEXT: return [[S]] :
func.func @splat_of_argument(%x: f32) -> tensor<64x128xf32, #blk> {
  %s = rocdsl.splat %x : f32 -> tensor<64x128xf32, #blk>
  return %s : tensor<64x128xf32, #blk>
}

// CHECK-LABEL: func.func @broadcast_of_splat_constant()
// CHECK-NEXT: [[C:%.+]] = arith.constant dense<1.000000e+00> : tensor<64x128xf32, #rocdsl.blocked<{{.*}}>>
// CHECK-NEXT: return [[C]] :
func.func @broadcast_of_splat_constant() -> tensor<64x128xf32, #blk> {
  %c = arith.constant dense<1.0> : tensor<64x1xf32, #blk>
  %b = rocdsl.broadcast %c : tensor<64x1xf32, #blk> -> tensor<64x128xf32, #blk>
  return %b : tensor<64x128xf32, #blk>
}

// A non-splat constant is not folded through a broadcast.
// CHECK-LABEL: func.func @broadcast_of_non_splat_constant()
// CHECK-NEXT: [[C:%.+]] = arith.constant dense<{{\[}}[0.000000e+00], [1.000000e+00]]> : tensor<2x1xf32,
// CHECK-NEXT: [[B:%.+]] = rocdsl.broadcast [[C]] : tensor<2x1xf32, {{.*}}> -> tensor<2x128xf32,
// CHECK-NEXT: return [[B]] :
func.func @broadcast_of_non_splat_constant() -> tensor<2x128xf32, #blk> {
  %c = arith.constant dense<[[0.0], [1.0]]> : tensor<2x1xf32, #blk>
  %b = rocdsl.broadcast %c : tensor<2x1xf32, #blk> -> tensor<2x128xf32, #blk>
  return %b : tensor<2x128xf32, #blk>
}

// CHECK-LABEL: func.func @broadcast_of_argument(
// CHECK-SAME: [[X:%.+]]: tensor<64x1xf32,
// CHECK-NEXT: [[B:%.+]] = rocdsl.broadcast [[X]] : tensor<64x1xf32, {{.*}}> -> tensor<64x128xf32,
// CHECK-NEXT: return [[B]] :
func.func @broadcast_of_argument(%x: tensor<64x1xf32, #blk>) -> tensor<64x128xf32, #blk> {
  %b = rocdsl.broadcast %x : tensor<64x1xf32, #blk> -> tensor<64x128xf32, #blk>
  return %b : tensor<64x128xf32, #blk>
}

// CHECK-LABEL: func.func @expand_dims_of_splat_constant()
// CHECK-NEXT: [[C:%.+]] = arith.constant dense<-3> : tensor<1x128xi32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: return [[C]] :
func.func @expand_dims_of_splat_constant() -> tensor<1x128xi32, #blk> {
  %c = arith.constant dense<-3> : tensor<128xi32, #rocdsl.slice<dim = 0, parent = #blk>>
  %e = rocdsl.expand_dims %c {axis = 0 : i32} : tensor<128xi32, #rocdsl.slice<dim = 0, parent = #blk>> -> tensor<1x128xi32, #blk>
  return %e : tensor<1x128xi32, #blk>
}

// CHECK-LABEL: func.func @expand_dims_of_argument(
// CHECK-SAME: [[X:%.+]]: tensor<64xf32,
// CHECK-NEXT: [[E:%.+]] = rocdsl.expand_dims [[X]] {axis = 1 : i32} : tensor<64xf32, {{.*}}> -> tensor<64x1xf32,
// CHECK-NEXT: return [[E]] :
func.func @expand_dims_of_argument(%x: tensor<64xf32, #rocdsl.slice<dim = 1, parent = #blk>>) -> tensor<64x1xf32, #blk> {
  %e = rocdsl.expand_dims %x {axis = 1 : i32} : tensor<64xf32, #rocdsl.slice<dim = 1, parent = #blk>> -> tensor<64x1xf32, #blk>
  return %e : tensor<64x1xf32, #blk>
}

// Splat -> expand_dims -> broadcast of a constant scalar is one constant.
// CHECK-LABEL: func.func @splat_expand_broadcast_chain()
// CHECK-NEXT: [[C:%.+]] = arith.constant dense<4.000000e+00> : tensor<64x128xf32, #rocdsl.blocked<{{.*}}>>
// CHECK-NEXT: return [[C]] :
func.func @splat_expand_broadcast_chain() -> tensor<64x128xf32, #blk> {
  %f = arith.constant 4.0 : f32
  %s = rocdsl.splat %f : f32 -> tensor<64xf32, #rocdsl.slice<dim = 1, parent = #blk>>
  %e = rocdsl.expand_dims %s {axis = 1 : i32} : tensor<64xf32, #rocdsl.slice<dim = 1, parent = #blk>> -> tensor<64x1xf32, #blk>
  %b = rocdsl.broadcast %e : tensor<64x1xf32, #blk> -> tensor<64x128xf32, #blk>
  return %b : tensor<64x128xf32, #blk>
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blk2 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>

// CHECK-LABEL: func.func @convert_layout_same_type(
// CHECK-SAME: [[X:%.+]]: tensor<64x64xf32,
// CHECK-NOT: rocdsl.convert_layout
// CHECK: return [[X]] :
func.func @convert_layout_same_type(%x: tensor<64x64xf32, #blk>) -> tensor<64x64xf32, #blk> {
  %c = rocdsl.convert_layout %x : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #blk>
  return %c : tensor<64x64xf32, #blk>
}

// CHECK-LABEL: func.func @convert_layout_of_splat_constant()
// CHECK-NEXT: [[C:%.+]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>
// CHECK-NEXT: return [[C]] :
func.func @convert_layout_of_splat_constant() -> tensor<64x64xf32, #mfma> {
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #blk>
  %c = rocdsl.convert_layout %z : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #mfma>
  return %c : tensor<64x64xf32, #mfma>
}

// CHECK-LABEL: func.func @convert_layout_chain(
// CHECK-SAME: [[X:%.+]]: tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8],
// CHECK-NEXT: [[C:%.+]] = rocdsl.convert_layout [[X]] : tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], {{.*}}>> -> tensor<64x64xf32, #rocdsl.mfma<{{.*}}>>
// CHECK-NEXT: return [[C]] :
func.func @convert_layout_chain(%x: tensor<64x64xf32, #blk>) -> tensor<64x64xf32, #mfma> {
  %a = rocdsl.convert_layout %x : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #blk2>
  %b = rocdsl.convert_layout %a : tensor<64x64xf32, #blk2> -> tensor<64x64xf32, #mfma>
  return %b : tensor<64x64xf32, #mfma>
}

// A round trip through another layout disappears entirely.
// CHECK-LABEL: func.func @convert_layout_round_trip(
// CHECK-SAME: [[X:%.+]]: tensor<64x64xf32,
// CHECK-NOT: rocdsl.convert_layout
// CHECK: return [[X]] :
func.func @convert_layout_round_trip(%x: tensor<64x64xf32, #blk>) -> tensor<64x64xf32, #blk> {
  %a = rocdsl.convert_layout %x : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #mfma>
  %b = rocdsl.convert_layout %a : tensor<64x64xf32, #mfma> -> tensor<64x64xf32, #blk>
  return %b : tensor<64x64xf32, #blk>
}

// Both conversions stay when the intermediate value has another user; the
// outer one is rewired to the original operand.
// CHECK-LABEL: func.func @convert_layout_chain_shared(
// CHECK-SAME: [[X:%.+]]: tensor<64x64xf32,
// CHECK-DAG: [[A:%.+]] = rocdsl.convert_layout [[X]] : tensor<64x64xf32, {{.*}}> -> tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 4],
// CHECK-DAG: [[B:%.+]] = rocdsl.convert_layout [[X]] : tensor<64x64xf32, {{.*}}> -> tensor<64x64xf32, #rocdsl.mfma<
// CHECK: return [[A]], [[B]] :
func.func @convert_layout_chain_shared(%x: tensor<64x64xf32, #blk>) -> (tensor<64x64xf32, #blk2>, tensor<64x64xf32, #mfma>) {
  %a = rocdsl.convert_layout %x : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #blk2>
  %b = rocdsl.convert_layout %a : tensor<64x64xf32, #blk2> -> tensor<64x64xf32, #mfma>
  return %a, %b : tensor<64x64xf32, #blk2>, tensor<64x64xf32, #mfma>
}

// CHECK-LABEL: func.func @convert_layout_of_argument(
// CHECK-SAME: [[X:%.+]]: tensor<64x64xf32,
// CHECK-NEXT: [[C:%.+]] = rocdsl.convert_layout [[X]] : tensor<64x64xf32, #rocdsl.blocked<{{.*}}>> -> tensor<64x64xf32, #rocdsl.mfma<{{.*}}>>
// CHECK-NEXT: return [[C]] :
func.func @convert_layout_of_argument(%x: tensor<64x64xf32, #blk>) -> tensor<64x64xf32, #mfma> {
  %c = rocdsl.convert_layout %x : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #mfma>
  return %c : tensor<64x64xf32, #mfma>
}

// CHECK-LABEL: func.func @convert_layout_of_non_splat_constant()
// CHECK-NEXT: [[C:%.+]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32, #rocdsl.blocked<
// CHECK-NEXT: [[V:%.+]] = rocdsl.convert_layout [[C]]
// CHECK-NEXT: return [[V]] :
func.func @convert_layout_of_non_splat_constant() -> tensor<1x2xf32, #blk2> {
  %c = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32, #blk>
  %v = rocdsl.convert_layout %c : tensor<1x2xf32, #blk> -> tensor<1x2xf32, #blk2>
  return %v : tensor<1x2xf32, #blk2>
}

// -----

// Inside a kernel: the folds apply to values feeding memory operations, and
// ops with memory effects are left alone.
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>

// CHECK-LABEL: rocdsl.func @in_kernel(
// CHECK-SAME: [[P:%.+]]: !rocdsl.ptr<f32>, [[S:%.+]]: f32)
// CHECK-DAG: [[ONE:%.+]] = arith.constant dense<1.000000e+00> : tensor<64x128xf32,
// CHECK-DAG: [[T:%.+]] = rocdsl.load [[P]]
// CHECK: [[SP:%.+]] = rocdsl.splat [[S]] : f32 -> tensor<64xf32,
// CHECK: [[E:%.+]] = rocdsl.expand_dims [[SP]]
// CHECK: [[B:%.+]] = rocdsl.broadcast [[E]]
// CHECK: [[SUM:%.+]] = arith.addf [[T]], [[ONE]]
// CHECK: [[PROD:%.+]] = arith.mulf [[SUM]], [[B]]
// CHECK: rocdsl.store [[PROD]], [[P]]
// CHECK-NOT: rocdsl.convert_layout
// CHECK: rocdsl.return
rocdsl.func @in_kernel(%p: !rocdsl.ptr<f32>, %s: f32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %one = arith.constant 1.0 : f32
  %t = rocdsl.load %p[%c0, %c0] strides [%c128] : !rocdsl.ptr<f32> -> tensor<64x128xf32, #blk>
  %os = rocdsl.splat %one : f32 -> tensor<64xf32, #row>
  %oe = rocdsl.expand_dims %os {axis = 1 : i32} : tensor<64xf32, #row> -> tensor<64x1xf32, #blk>
  %ob = rocdsl.broadcast %oe : tensor<64x1xf32, #blk> -> tensor<64x128xf32, #blk>
  %sp = rocdsl.splat %s : f32 -> tensor<64xf32, #row>
  %se = rocdsl.expand_dims %sp {axis = 1 : i32} : tensor<64xf32, #row> -> tensor<64x1xf32, #blk>
  %sb = rocdsl.broadcast %se : tensor<64x1xf32, #blk> -> tensor<64x128xf32, #blk>
  %sum = arith.addf %t, %ob : tensor<64x128xf32, #blk>
  %prod = arith.mulf %sum, %sb : tensor<64x128xf32, #blk>
  %same = rocdsl.convert_layout %prod : tensor<64x128xf32, #blk> -> tensor<64x128xf32, #blk>
  rocdsl.store %same, %p[%c0, %c0] strides [%c128] : tensor<64x128xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}
