// The standard MLIR debugging flags work on the named pipeline: each pass
// of rocdsl-to-rocdl dumps its result, in pipeline order.
// RUN: rocdsl-opt %s --rocdsl-to-rocdl="chip=gfx950" --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s

// CHECK: IR Dump After Canonicalizer
// CHECK: IR Dump After ConvertRocDSLToGPUPass
// CHECK: gpu.func @double_it
// CHECK: IR Dump After RocDSLLowerSubgroupReducePass
// CHECK: IR Dump After SCFToControlFlowPass
// CHECK: IR Dump After GpuROCDLAttachTarget
// CHECK: #rocdl.target<O = 3, chip = "gfx950">
// CHECK: IR Dump After ConvertGpuOpsToROCDLOps
// CHECK: IR Dump After ReconcileUnrealizedCastsPass
// CHECK: llvm.func @double_it

#blk = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @double_it(%x: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #blk>
  %d = arith.addf %t, %t : tensor<256xf32, #blk>
  rocdsl.store %d, %x[%c0] {vec = 4 : i32} : tensor<256xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}
