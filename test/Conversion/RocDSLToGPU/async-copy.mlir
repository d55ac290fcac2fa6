// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-gpu="chip=sm_90" --canonicalize --cse | FileCheck %s --check-prefix=NV
// (AMDGPU and the host: async-copy-amd.mlir.)

// A 64x32 bf16 tile copied into a double-buffered LDS stack, then read:
// on sm_90 each lane issues its two 16-byte groups as cp.async.cg, with
// the zero-fill size chosen by the bounds (no branch); commit and wait are
// cp.async's own, and the only barrier is the author's.
// NV-LABEL:   gpu.func @double_buffered(
// NV-NOT:       scf.if
// NV-COUNT-2:   nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// NV-NOT:       nvvm.cp.async.shared.global
// NV:           nvvm.cp.async.commit.group
// NV-NEXT:      nvvm.cp.async.wait.group 0
// NV-NEXT:      gpu.barrier
// NV-NOT:       gpu.barrier
// NV:           nvvm.ldmatrix
#blocked = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [2, 2]>
#a = #rocdsl.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#s3 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
rocdsl.func @double_buffered(%pa: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<bf16>, %m: i32, %i: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %stack = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #s3>
  %buf = rocdsl.local_index %stack[%i] : !rocdsl.lds<2x64x32xbf16, #s3> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_copy %pa[%c0, %c0] strides [%c32] bounds [%m, %c32], %buf {vec = 8 : i32}
      : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #blocked> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.async_commit
  rocdsl.async_wait {pending = 0 : i32}
  rocdsl.barrier
  %x = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #s2> -> tensor<64x32xbf16, #a>
  rocdsl.store %x, %pc[%c0, %c0] strides [%c32] : tensor<64x32xbf16, #a>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

// Groups of 4 and 8 bytes use cp.async.ca (.cg takes 16 bytes only); a
// group of one 16-bit element, below cp.async's 4 bytes, makes the copy a
// guarded load and a shared store of the register tile.
// NV-LABEL:   gpu.func @narrow_groups(
// NV-COUNT-2:   nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache = ca
// NV-NOT:       nvvm.cp.async.shared.global
// NV:           llvm.store {{.*}} : vector<4xbf16>, !llvm.ptr<3>
// NV:           nvvm.cp.async.wait.group 1
#b4 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#s2 = #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>
rocdsl.func @narrow_groups(%pa: !rocdsl.ptr<bf16>, %pc: !rocdsl.ptr<bf16>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %buf = rocdsl.local_alloc -> !rocdsl.lds<32x32xbf16, #s2>
  rocdsl.async_copy %pa[%c0, %c0] strides [%c32], %buf {vec = 4 : i32}
      : !rocdsl.ptr<bf16>, tensor<32x32xbf16, #b4> -> !rocdsl.lds<32x32xbf16, #s2>
  rocdsl.async_commit
  %buf2 = rocdsl.local_alloc -> !rocdsl.lds<32x32xbf16, #s2>
  rocdsl.async_copy %pa[%c0, %c0] strides [%c32], %buf2 {vec = 1 : i32}
      : !rocdsl.ptr<bf16>, tensor<32x32xbf16, #b4> -> !rocdsl.lds<32x32xbf16, #s2>
  rocdsl.async_commit
  rocdsl.async_wait {pending = 1 : i32}
  rocdsl.barrier
  %x = rocdsl.local_load %buf : !rocdsl.lds<32x32xbf16, #s2> -> tensor<32x32xbf16, #b4>
  rocdsl.store %x, %pc[%c0, %c0] strides [%c32] : tensor<32x32xbf16, #b4>, !rocdsl.ptr<bf16>
  rocdsl.return
}
