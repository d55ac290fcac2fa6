// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s
// RUN: sed -e 's/threadsPerWarp = \[64\]/threadsPerWarp = [32]/' -e 's/num_warps = 16/num_warps = 32/' -e 's/warpsPerCTA = \[16\]/warpsPerCTA = [32]/' %s | rocdsl-opt --convert-rocdsl-to-gpu=chip=sm_90 --canonicalize --cse | FileCheck %s --check-prefix=NV

// From 16 waves along the axis, a cross-wave reduce combines the waves'
// partials with one in-wave reduce: after the barrier, lane l loads wave
// l's partial (lanes past the last wave take the identity) and a full-wave
// subgroup_reduce gives every lane the total, instead of every lane loading
// and combining all 16 partials.

#l = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [16], order = [0]>

// CHECK-LABEL: gpu.func @sum_16_waves(
// CHECK:         gpu.subgroup_reduce add
// CHECK:         llvm.store
// CHECK-NEXT:    gpu.barrier
// CHECK:         [[READS:%.+]] = arith.cmpi ult, [[LANE:%.+]], %c16_i32 : i32
// CHECK-NEXT:    [[SRC:%.+]] = arith.select [[READS]], [[LANE]], %c0_i32 : i32
// CHECK:         [[P:%.+]] = llvm.load
// CHECK-NEXT:    [[V:%.+]] = arith.select [[READS]], [[P]], %cst{{.*}} : f32
// CHECK-NEXT:    [[S:%.+]] = gpu.subgroup_reduce add [[V]] uniform : (f32) -> f32
// CHECK-NOT:     llvm.load
// CHECK:         gpu.return
// NV-LABEL: gpu.func @sum_16_waves(
// NV:         arith.cmpi ult, %{{.*}}, %c32_i32 : i32
// NV:         llvm.load
// NV-NOT:     llvm.load
// NV:         gpu.return
rocdsl.func @sum_16_waves(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<4096xf32, #l>
  %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<4096xf32, #l> -> f32
  %st = rocdsl.splat %s : f32 -> tensor<4096xf32, #l>
  rocdsl.store %st, %y[%c0] {vec = 4 : i32} : tensor<4096xf32, #l>, !rocdsl.ptr<f32>
  rocdsl.return
}
