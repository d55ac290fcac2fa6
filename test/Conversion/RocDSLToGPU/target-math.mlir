// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu=chip=gfx942 | FileCheck %s --check-prefixes=COMMON,AMD
// RUN: sed -e 's/threadsPerWarp = \[64\]/threadsPerWarp = [32]/' -e 's/tensor<128x/tensor<64x/g' %s | rocdsl-opt --convert-rocdsl-to-gpu=chip=sm_90 | FileCheck %s --check-prefixes=COMMON,NV

// Fast-math flags pick each target's approximations; ops without flags
// keep LLVM's accurate lowering.
#l = #rocdsl.blocked<sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
// COMMON-LABEL: gpu.func @math
rocdsl.func @math(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] : !rocdsl.ptr<f32> -> tensor<128xf32, #l>
  // exp {afn}: exp2 of x * log2(e) in hardware.
  // COMMON: arith.constant dense<1.44269502> : vector<2xf32>
  // COMMON: arith.mulf %{{.*}}, %{{.*}} fastmath<afn> : vector<2xf32>
  // AMD-COUNT-2: llvm.call_intrinsic "llvm.amdgcn.exp2"
  // NV-COUNT-2: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
  %a = math.exp %t fastmath<afn> : tensor<128xf32, #l>
  // Accurate exp is left to LLVM.
  // COMMON: math.exp %{{.*}} : vector<2xf32>
  %b = math.exp %a : tensor<128xf32, #l>
  // divf {arcp}: NVIDIA's full-range division; AMD keeps the op.
  // NV-COUNT-2: llvm.call_intrinsic "llvm.nvvm.div.full"
  // AMD: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : vector<2xf32>
  %c = arith.divf %b, %t fastmath<arcp> : tensor<128xf32, #l>
  // divf {afn} and plain divf stay for LLVM (approximate / IEEE).
  // COMMON: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : vector<2xf32>
  %d = arith.divf %c, %t fastmath<afn> : tensor<128xf32, #l>
  // COMMON: arith.divf %{{.*}}, %{{.*}} : vector<2xf32>
  %e = arith.divf %d, %t : tensor<128xf32, #l>
  // log2 {afn}: the hardware's log2 (no ocml or libdevice call); plain
  // log2 is left to LLVM.
  // AMD-COUNT-2: llvm.call_intrinsic "llvm.amdgcn.log"
  // NV-COUNT-2: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
  %f = math.log2 %e fastmath<afn> : tensor<128xf32, #l>
  // COMMON: math.log2 %{{.*}} : vector<2xf32>
  %g = math.log2 %f : tensor<128xf32, #l>
  rocdsl.store %g, %y[%c0] : tensor<128xf32, #l>, !rocdsl.ptr<f32>
  rocdsl.return
}
