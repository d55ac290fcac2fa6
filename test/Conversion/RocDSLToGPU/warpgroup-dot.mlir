// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=sm_90a" --canonicalize --cse | FileCheck %s
// RUN: not rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=sm_90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90

// A 128x64 and B as two 64-column panels (K x N, N fastest) on one warp
// group: per 64-row block of M (two here) one wgmma m64n128k16 per 16 of
// K, both operands from descriptors: 128-byte swizzle (bit 62), SBO 1024
// bytes (64 << 32); A's LBO unused (1 << 16), B's one panel, 8192 bytes
// (512 << 16). The group is committed and waited for (0 pending) before
// the result is used, and the barrier before the products is preceded by
// the proxy fence that makes shared-memory writes visible to the matrix
// unit. Both tiles sit on 1024-byte boundaries.
// CHECK-LABEL: llvm.mlir.global internal @__rocdsl_lds_panels(){{.*}}alignment = 1024
// CHECK-LABEL: gpu.func @panels(
// CHECK-DAG:     %[[DESC_A:.*]] = arith.constant 4611686293305360384 : i64
// CHECK-DAG:     %[[DESC_B:.*]] = arith.constant 4611686293338849280 : i64
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    gpu.barrier
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>] : !llvm.struct<(f32, f32,
// CHECK-NOT:     nvvm.wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
#mma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>
#sa = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
rocdsl.func @panels(%pc: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %la = rocdsl.local_alloc -> !rocdsl.lds<128x64xbf16, #sa>
  %lb = rocdsl.local_alloc -> !rocdsl.lds<2x64x64xbf16, #sb>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
  rocdsl.barrier
  %d = rocdsl.warpgroup_dot %la, %lb, %zero : !rocdsl.lds<128x64xbf16, #sa>, !rocdsl.lds<2x64x64xbf16, #sb>, tensor<128x128xf32, #mma>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c128] : tensor<128x128xf32, #mma>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// Two warp groups (8 warps stacked along M), B stored N x K (K fastest,
// the same descriptor as A), f16, N = 64: one wgmma m64n64k16 per 16 of K
// each. The second group's rows start 64 rows (8192 bytes) further.
// CHECK-LABEL: gpu.func @two_groups(
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-NOT:     nvvm.wgmma.mma_async
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// SM90: error: rocdsl.warpgroup_dot needs warpgroup MMA (wgmma, sm_90a); sm_90 has none
#mma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [8, 1]>
#s = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @two_groups(%pc: !rocdsl.ptr<f32>) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %la = rocdsl.local_alloc -> !rocdsl.lds<128x64xf16, #s>
  %lb = rocdsl.local_alloc -> !rocdsl.lds<64x64xf16, #s>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %d = rocdsl.warpgroup_dot %la, %lb, %zero : !rocdsl.lds<128x64xf16, #s>, !rocdsl.lds<64x64xf16, #s>, tensor<128x64xf32, #mma>
  rocdsl.store %d, %pc[%c0, %c0] strides [%c64] : tensor<128x64xf32, #mma>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// Products left in flight (pending = 1) across a loop: each step's group is
// committed and waited down to one pending (the step before's products
// done, this step's still running), the accumulator goes straight into the
// next step's wgmma, and after the loop rocdsl.warpgroup_wait waits for
// the last one with every accumulator register an operand of the wait (32
// outputs tied to 32 inputs), so the store reads them only after it.
// CHECK-LABEL: gpu.func @in_flight(
// CHECK:         scf.for
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:   nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT:       nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           scf.yield
// CHECK:         llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,{{(=f,)+}}0,1,2,{{([0-9]+,)+}}31" {{.*}} -> !llvm.struct<(f32,
// CHECK:         llvm.store
// SM90: error: rocdsl.warpgroup_wait needs warpgroup MMA (wgmma, sm_90a); sm_90 has none
#mma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>
#s = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @in_flight(%pc: !rocdsl.ptr<f32>, %steps: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %la = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #s>
  %lb = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #s>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  rocdsl.barrier
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %d = rocdsl.warpgroup_dot %la, %lb, %a {pending = 1 : i32} : !rocdsl.lds<64x64xbf16, #s>, !rocdsl.lds<64x64xbf16, #s>, tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  %done = rocdsl.warpgroup_wait %acc : tensor<64x64xf32, #mma>
  rocdsl.store %done, %pc[%c0, %c0] strides [%c64] : tensor<64x64xf32, #mma>, !rocdsl.ptr<f32>
  rocdsl.return
}
