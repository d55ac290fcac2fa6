// RUN: rocdsl-opt %s --convert-rocdsl-to-host | FileCheck %s

// dot on the host: operands widened to f32 in stack buffers allocated at the
// function's entry (not per loop iteration), then one loop over accumulator
// rows and one over k adding a[i, k] * b[k, :] in k order. The code does not
// grow with the tile (an unrolled contraction did: 4096 reductions here).
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#opA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#opB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>

// CHECK-LABEL: func.func @dot_in_loop
// CHECK-DAG:     memref.alloca() : memref<64x32xf32>
// CHECK-DAG:     memref.alloca() : memref<32x64xf32>
// CHECK-DAG:     memref.alloca() : memref<64x64xf32>
// CHECK:         scf.for
// CHECK-NOT:     memref.alloca
// CHECK:           arith.extf %{{.*}} : vector<64x32xbf16> to vector<64x32xf32>
// CHECK:           arith.extf %{{.*}} : vector<32x64xbf16> to vector<32x64xf32>
// CHECK:           %[[ROWS:.*]] = arith.constant 64 : index
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %[[ROWS]]
// CHECK:             %[[DEPTH:.*]] = arith.constant 32 : index
// CHECK:             scf.for %[[K:.*]] = %{{.*}} to %[[DEPTH]] {{.*}} -> (vector<64xf32>)
// CHECK:               %[[AIK:.*]] = memref.load %{{.*}}[%[[I]], %[[K]]] : memref<64x32xf32>
// CHECK-DAG:           %[[SPLAT:.*]] = vector.broadcast %[[AIK]] : f32 to vector<64xf32>
// CHECK-DAG:           %[[BROW:.*]] = vector.transfer_read %{{.*}}[%[[K]], %{{.*}}]
// CHECK:               %[[P:.*]] = arith.mulf %[[SPLAT]], %[[BROW]] : vector<64xf32>
// CHECK:               arith.addf %{{.*}}, %[[P]] : vector<64xf32>
// CHECK-NOT:     vector.contract
rocdsl.func @dot_in_loop(%pa: !rocdsl.ptr<bf16>, %pb: !rocdsl.ptr<bf16>,
                         %pc: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mfma>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %zero) -> (tensor<64x64xf32, #mfma>) : i32 {
    %a = rocdsl.load %pa[%c0, %c0] strides [%c32] : !rocdsl.ptr<bf16> -> tensor<64x32xbf16, #opA>
    %b = rocdsl.load %pb[%c0, %c0] strides [%c64] : !rocdsl.ptr<bf16> -> tensor<32x64xbf16, #opB>
    %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf32, #mfma>
    scf.yield %d : tensor<64x64xf32, #mfma>
  }
  rocdsl.store %acc, %pc[%c0, %c0] strides [%c64] : tensor<64x64xf32, #mfma>, !rocdsl.ptr<f32>
  rocdsl.return
}
