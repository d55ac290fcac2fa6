// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s --check-prefix=AMD
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx950" --canonicalize --cse | FileCheck %s --check-prefix=AMD
// RUN: rocdsl-opt %s --convert-rocdsl-to-host | FileCheck %s --check-prefix=HOST

// AMDGPU has no asynchronous copy yet: the copy is a buffer load and
// 128-bit LDS stores at the copy, with no barrier but the author's (the
// one before the read; a local_store would get a pair of its own), and
// commit and wait leave nothing. The host copies through registers into
// the indexed buffer.
// AMD-LABEL:  gpu.func @double_buffered(
// AMD-NOT:      gpu.barrier
// AMD:          rocdl.raw.ptr.buffer.load
// AMD-NOT:      gpu.barrier
// AMD:          llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<3>
// AMD-NEXT:     gpu.barrier
// AMD-NOT:      gpu.barrier
// AMD-NOT:      nvvm
// AMD-NOT:      rocdl.s.waitcnt
// AMD:          gpu.return
// HOST-LABEL: func.func @double_buffered(
// HOST:         memref.subview
// HOST:         vector.transfer_write
// HOST:         vector.transfer_read
// HOST:         return
#blocked = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
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
  %x = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #s2> -> tensor<64x32xbf16, #blocked>
  rocdsl.store %x, %pc[%c0, %c0] strides [%c32] {vec = 8 : i32} : tensor<64x32xbf16, #blocked>, !rocdsl.ptr<bf16>
  rocdsl.return
}
