// RUN: rocdsl-opt %s --split-input-file --rocdsl-pipeline-loops="chip=gfx942" 2>/dev/null | FileCheck %s
// RUN: rocdsl-opt %s --split-input-file --rocdsl-pipeline-loops="chip=gfx942" 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// RUN: rocdsl-opt %s --split-input-file --rocdsl-pipeline-loops="chip=gfx942" --canonicalize 2>/dev/null | FileCheck %s --check-prefix=CANON
// RUN: rocdsl-opt %s --split-input-file --rocdsl-pipeline-loops="chip=sm_90" 2>/dev/null | FileCheck %s --check-prefix=NV
// RUN: not rocdsl-opt %s --split-input-file --rocdsl-pipeline-loops="chip=gfx942" --rocdsl-pipeline-loops="chip=gfx900" 2>&1 | FileCheck %s --check-prefix=CHIP

// CHIP: rocdsl-pipeline-loops: unknown chip 'gfx900'

// A user's K loop: global loads converted to dot operands (the lowering
// would route them through LDS scratch), three stages. The prologue copies
// steps 0 and 1 into buffers 0 and 1 (one commit each); each iteration
// waits for all but the newest group, crosses one barrier, copies the step
// two ahead into the buffer read last iteration, commits, and reads buffer
// `slot`. A copy of a step past the end keeps its instructions but has
// every element out of bounds (first bound 0).
#blA = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#opA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#opB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
// CHECK-LABEL: rocdsl.func @three_stages
// A (K fastest) is swizzled in groups of what a lane reads (kWidth 4), B in
// 16-byte groups; each gets a leading buffer dimension.
// CHECK-DAG: %[[A:.*]] = rocdsl.local_alloc -> !rocdsl.lds<3x128x32xbf16, #rocdsl.shared<vec = 4, perPhase = 2, maxPhase = 8, order = [2, 1, 0]>>
// CHECK-DAG: %[[B:.*]] = rocdsl.local_alloc -> !rocdsl.lds<3x32x128xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
// CHECK-NOT: scf.for
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: %[[K0:.*]] = arith.addi
// CHECK: %[[A0:.*]] = rocdsl.local_index %[[A]][%{{.*}}]
// CHECK: %[[MB0:.*]] = arith.select %[[IN0]], %{{.*}}, %{{.*}} : i32
// CHECK: rocdsl.async_copy %{{.*}}[%{{.*}}, %[[K0]]] strides[%{{.*}}] bounds[%[[MB0]], %{{.*}}], %[[A0]] {vec = 8 : i32}
// CHECK: rocdsl.async_copy
// CHECK: rocdsl.async_commit
// CHECK-NOT: scf.for
// CHECK: rocdsl.async_copy
// CHECK: rocdsl.async_copy
// CHECK: rocdsl.async_commit
// The prologue's groups stay in flight into the loop, whose first wait
// retires the oldest, on both targets.
// CHECK-NOT: rocdsl.async_wait
// NV-LABEL: rocdsl.func @three_stages
// NV: rocdsl.async_commit
// NV-NOT: rocdsl.async_wait
// NV: scf.for
// NV-NEXT: rocdsl.async_wait {pending = 1 : i32}
// CHECK: scf.for %[[IV:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[SLOT:.*]] = %{{.*}}) -> ({{.*}}, i32)
// CHECK-NEXT: rocdsl.async_wait {pending = 1 : i32}
// CHECK-NEXT: rocdsl.barrier
// CHECK: arith.select
// CHECK: rocdsl.async_copy
// CHECK: rocdsl.async_copy
// CHECK: rocdsl.async_commit
// CHECK-DAG: %[[VA:.*]] = rocdsl.local_index %[[A]][%[[SLOT]]]
// CHECK-DAG: %[[VB:.*]] = rocdsl.local_index %[[B]][%[[SLOT]]]
// CHECK-DAG: rocdsl.local_load %[[VA]] {{.*}} -> tensor<128x32xbf16, #rocdsl.dot_operand<opIdx = 0
// CHECK-DAG: rocdsl.local_load %[[VB]] {{.*}} -> tensor<32x128xbf16, #rocdsl.dot_operand<opIdx = 1
// CHECK: rocdsl.dot
// CHECK-NOT: rocdsl.barrier
// CHECK-NOT: rocdsl.load
// CHECK: scf.yield
// CHECK-NOT: rocdsl.stages
rocdsl.func @three_stages(%a: !rocdsl.ptr<bf16>, %b: !rocdsl.ptr<bf16>, %c: !rocdsl.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %pid = rocdsl.program_id x : i32
  %m0 = arith.muli %pid, %c32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mfma>
  %r = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mfma>) : i32 {
    %at = rocdsl.load %a[%m0, %k] strides [%K] bounds [%M, %K] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<128x32xbf16, #blA>
    %bt = rocdsl.load %b[%k, %c0] strides [%N] bounds [%K, %N] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<32x128xbf16, #blB>
    %ao = rocdsl.convert_layout %at : tensor<128x32xbf16, #blA> -> tensor<128x32xbf16, #opA>
    %bo = rocdsl.convert_layout %bt : tensor<32x128xbf16, #blB> -> tensor<32x128xbf16, #opB>
    %d = rocdsl.dot %ao, %bo, %acc : tensor<128x32xbf16, #opA>, tensor<32x128xbf16, #opB> -> tensor<128x128xf32, #mfma>
    scf.yield %d : tensor<128x128xf32, #mfma>
  } {rocdsl.stages = 3 : i32}
  rocdsl.store %r, %c[%m0, %c0] strides [%N] bounds [%M, %N] : tensor<128x128xf32, #mfma>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// Two and four stages: N - 1 prologue groups, a wait leaving N - 2
// pending, N buffers. An explicit local_store into a tile only the loop
// uses is replaced the same way (the author's tile disappears), and the
// masked K tail (mask and other = 0) carries over to the copy.
#bl = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 1], order = [1, 0]>
#sh = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>
// CHECK-LABEL: rocdsl.func @two_and_four
// CHECK: rocdsl.local_alloc -> !rocdsl.lds<2x16x32xf16, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
// CHECK-COUNT-1: rocdsl.async_commit
// CHECK: scf.for
// CHECK-NEXT: rocdsl.async_wait {pending = 0 : i32}
// CHECK-NEXT: rocdsl.barrier
// CHECK: rocdsl.async_copy {{.*}} mask(%{{.*}} : tensor<16x32xi1, #{{.*}}>)
// CHECK-NOT: rocdsl.local_store
// CHECK: rocdsl.local_alloc -> !rocdsl.lds<4x16x32xf16, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
// CHECK-COUNT-3: rocdsl.async_commit
// CHECK: scf.for
// CHECK-NEXT: rocdsl.async_wait {pending = 2 : i32}
// CHECK-NEXT: rocdsl.barrier
// CHECK-NOT: rocdsl.local_alloc -> !rocdsl.lds<16x32xf16
rocdsl.func @two_and_four(%x: !rocdsl.ptr<f16>, %y: !rocdsl.ptr<f32>, %K: i32) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f16
  %init = arith.constant dense<0.0> : tensor<16x32xf32, #bl>
  %cols = rocdsl.iota : tensor<32xi32, #rocdsl.slice<dim = 0, parent = #bl>>
  %t2 = rocdsl.local_alloc -> !rocdsl.lds<16x32xf16, #sh>
  %r2 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %init) -> (tensor<16x32xf32, #bl>) : i32 {
    %ks = rocdsl.splat %k : i32 -> tensor<32xi32, #rocdsl.slice<dim = 0, parent = #bl>>
    %kk = arith.addi %cols, %ks : tensor<32xi32, #rocdsl.slice<dim = 0, parent = #bl>>
    %kn = rocdsl.splat %K : i32 -> tensor<32xi32, #rocdsl.slice<dim = 0, parent = #bl>>
    %in = arith.cmpi slt, %kk, %kn : tensor<32xi32, #rocdsl.slice<dim = 0, parent = #bl>>
    %in2 = rocdsl.expand_dims %in {axis = 0 : i32} : tensor<32xi1, #rocdsl.slice<dim = 0, parent = #bl>> -> tensor<1x32xi1, #bl>
    %m = rocdsl.broadcast %in2 : tensor<1x32xi1, #bl> -> tensor<16x32xi1, #bl>
    %t = rocdsl.load %x[%c0, %k] strides [%K] mask(%m : tensor<16x32xi1, #bl>) other(%zero : f16) : !rocdsl.ptr<f16> -> tensor<16x32xf16, #bl>
    rocdsl.local_store %t, %t2 : tensor<16x32xf16, #bl>, !rocdsl.lds<16x32xf16, #sh>
    %v = rocdsl.local_load %t2 : !rocdsl.lds<16x32xf16, #sh> -> tensor<16x32xf16, #bl>
    %w = arith.extf %v : tensor<16x32xf16, #bl> to tensor<16x32xf32, #bl>
    %s = arith.addf %acc, %w : tensor<16x32xf32, #bl>
    scf.yield %s : tensor<16x32xf32, #bl>
  } {rocdsl.stages = 2 : i32}
  %t4 = rocdsl.local_alloc -> !rocdsl.lds<16x32xf16, #sh>
  %r4 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %r2) -> (tensor<16x32xf32, #bl>) : i32 {
    %t = rocdsl.load %x[%c0, %k] strides [%K] bounds [%c32, %K] : !rocdsl.ptr<f16> -> tensor<16x32xf16, #bl>
    rocdsl.local_store %t, %t4 : tensor<16x32xf16, #bl>, !rocdsl.lds<16x32xf16, #sh>
    %v = rocdsl.local_load %t4 : !rocdsl.lds<16x32xf16, #sh> -> tensor<16x32xf16, #bl>
    %w = arith.extf %v : tensor<16x32xf16, #bl> to tensor<16x32xf32, #bl>
    %s = arith.addf %acc, %w : tensor<16x32xf32, #bl>
    scf.yield %s : tensor<16x32xf32, #bl>
  } {rocdsl.stages = 4 : i32}
  rocdsl.store %r4, %y[%c0, %c0] strides [%c32] : tensor<16x32xf32, #bl>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// Loops of one iteration and of none need no special case: every copy past
// the end is issued with its first bound 0 (here a load without bounds
// gets them), so canonicalization folds the guards of constant loops.
#bl = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 1], order = [1, 0]>
#sh = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>
// CANON-LABEL: rocdsl.func @one_and_zero_iterations
// One iteration, 3 stages: step 0 copied in bounds, step 1 with bound 0.
// CANON-DAG: %[[MAX:.*]] = arith.constant 2147483647 : i32
// CANON-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CANON: rocdsl.async_copy %{{.*}}[%{{.*}}, %{{.*}}] strides[%{{.*}}] bounds[%[[MAX]], %[[MAX]]]
// CANON: rocdsl.async_commit
// CANON: rocdsl.async_copy %{{.*}}[%{{.*}}, %{{.*}}] strides[%{{.*}}] bounds[%[[C0]], %[[MAX]]]
// CANON: rocdsl.async_commit
// Zero iterations: both prologue copies out of bounds, the loop gone.
// CANON: rocdsl.async_copy %{{.*}}[%{{.*}}, %{{.*}}] strides[%{{.*}}] bounds[%[[C0]], %[[MAX]]]
// CANON: rocdsl.async_copy %{{.*}}[%{{.*}}, %{{.*}}] strides[%{{.*}}] bounds[%[[C0]], %[[MAX]]]
rocdsl.func @one_and_zero_iterations(%x: !rocdsl.ptr<f16>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %init = arith.constant dense<0.0> : tensor<16x32xf32, #bl>
  %t1 = rocdsl.local_alloc -> !rocdsl.lds<16x32xf16, #sh>
  %r1 = scf.for %k = %c0 to %c32 step %c32 iter_args(%acc = %init) -> (tensor<16x32xf32, #bl>) : i32 {
    %t = rocdsl.load %x[%c0, %k] strides [%c32] : !rocdsl.ptr<f16> -> tensor<16x32xf16, #bl>
    rocdsl.local_store %t, %t1 : tensor<16x32xf16, #bl>, !rocdsl.lds<16x32xf16, #sh>
    %v = rocdsl.local_load %t1 : !rocdsl.lds<16x32xf16, #sh> -> tensor<16x32xf16, #bl>
    %w = arith.extf %v : tensor<16x32xf16, #bl> to tensor<16x32xf32, #bl>
    %s = arith.addf %acc, %w : tensor<16x32xf32, #bl>
    scf.yield %s : tensor<16x32xf32, #bl>
  } {rocdsl.stages = 3 : i32}
  %t0 = rocdsl.local_alloc -> !rocdsl.lds<16x32xf16, #sh>
  %r0 = scf.for %k = %c0 to %c0 step %c32 iter_args(%acc = %r1) -> (tensor<16x32xf32, #bl>) : i32 {
    %t = rocdsl.load %x[%c0, %k] strides [%c32] : !rocdsl.ptr<f16> -> tensor<16x32xf16, #bl>
    rocdsl.local_store %t, %t0 : tensor<16x32xf16, #bl>, !rocdsl.lds<16x32xf16, #sh>
    %v = rocdsl.local_load %t0 : !rocdsl.lds<16x32xf16, #sh> -> tensor<16x32xf16, #bl>
    %w = arith.extf %v : tensor<16x32xf16, #bl> to tensor<16x32xf32, #bl>
    %s = arith.addf %acc, %w : tensor<16x32xf32, #bl>
    scf.yield %s : tensor<16x32xf32, #bl>
  } {rocdsl.stages = 3 : i32}
  rocdsl.store %r0, %y[%c0, %c0] strides [%c32] : tensor<16x32xf32, #bl>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

// Loops that cannot be pipelined run as written; a loop that asked for
// stages says why (a warning on stderr), and the attribute is consumed.
#bl = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 1], order = [1, 0]>
#sh = #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>
// WARN-DAG: warning: loop at {{.*}}: 2 stages not applied: a load's address depends on a value carried by the loop
// WARN-DAG: warning: loop at {{.*}}: 2 stages not applied: the loop writes global memory
// WARN-DAG: warning: loop at {{.*}}: 2 stages not applied: a load's `other` is not zero (copies write zeros)
// WARN-DAG: warning: loop at {{.*}}: 3 stages not applied: 3 buffers of the tiles take 98304 bytes of LDS, more than the chip's 65536
// WARN-DAG: warning: loop at {{.*}}: 2 stages not applied: no global load feeds an LDS tile or a dot operand
// CHECK-LABEL: rocdsl.func @refused
// CHECK-NOT: rocdsl.async_copy
// CHECK-NOT: rocdsl.stages
rocdsl.func @refused(%x: !rocdsl.ptr<f16>, %y: !rocdsl.ptr<f32>, %K: i32) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %one = arith.constant 1.0 : f16
  %init = arith.constant dense<0.0> : tensor<16x32xf32, #bl>
  %ta = rocdsl.local_alloc -> !rocdsl.lds<16x32xf16, #sh>
  // The row comes from the loop's carried value.
  %ra:2 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %init, %row = %c0) -> (tensor<16x32xf32, #bl>, i32) : i32 {
    %t = rocdsl.load %x[%row, %k] strides [%K] : !rocdsl.ptr<f16> -> tensor<16x32xf16, #bl>
    rocdsl.local_store %t, %ta : tensor<16x32xf16, #bl>, !rocdsl.lds<16x32xf16, #sh>
    %v = rocdsl.local_load %ta : !rocdsl.lds<16x32xf16, #sh> -> tensor<16x32xf16, #bl>
    %w = arith.extf %v : tensor<16x32xf16, #bl> to tensor<16x32xf32, #bl>
    %s = arith.addf %acc, %w : tensor<16x32xf32, #bl>
    %next = arith.addi %row, %c32 : i32
    scf.yield %s, %next : tensor<16x32xf32, #bl>, i32
  } {rocdsl.stages = 2 : i32}
  // A store in the loop.
  %tb = rocdsl.local_alloc -> !rocdsl.lds<16x32xf16, #sh>
  %rb = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %ra#0) -> (tensor<16x32xf32, #bl>) : i32 {
    %t = rocdsl.load %x[%c0, %k] strides [%K] : !rocdsl.ptr<f16> -> tensor<16x32xf16, #bl>
    rocdsl.local_store %t, %tb : tensor<16x32xf16, #bl>, !rocdsl.lds<16x32xf16, #sh>
    %v = rocdsl.local_load %tb : !rocdsl.lds<16x32xf16, #sh> -> tensor<16x32xf16, #bl>
    %w = arith.extf %v : tensor<16x32xf16, #bl> to tensor<16x32xf32, #bl>
    rocdsl.store %w, %y[%c0, %k] strides [%K] : tensor<16x32xf32, #bl>, !rocdsl.ptr<f32>
    scf.yield %acc : tensor<16x32xf32, #bl>
  } {rocdsl.stages = 2 : i32}
  // A non-zero `other`.
  %tc = rocdsl.local_alloc -> !rocdsl.lds<16x32xf16, #sh>
  %rc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %rb) -> (tensor<16x32xf32, #bl>) : i32 {
    %t = rocdsl.load %x[%c0, %k] strides [%K] bounds [%c32, %K] other(%one : f16) : !rocdsl.ptr<f16> -> tensor<16x32xf16, #bl>
    rocdsl.local_store %t, %tc : tensor<16x32xf16, #bl>, !rocdsl.lds<16x32xf16, #sh>
    %v = rocdsl.local_load %tc : !rocdsl.lds<16x32xf16, #sh> -> tensor<16x32xf16, #bl>
    %w = arith.extf %v : tensor<16x32xf16, #bl> to tensor<16x32xf32, #bl>
    %s = arith.addf %acc, %w : tensor<16x32xf32, #bl>
    scf.yield %s : tensor<16x32xf32, #bl>
  } {rocdsl.stages = 2 : i32}
  // Three 256 x 64 f16 buffers are more than gfx942's 64 KiB.
  %td = rocdsl.local_alloc -> !rocdsl.lds<256x64xf16, #sh>
  %rd = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %rc) -> (tensor<16x32xf32, #bl>) : i32 {
    %t = rocdsl.load %x[%c0, %k] strides [%K] : !rocdsl.ptr<f16> -> tensor<256x64xf16, #bl>
    rocdsl.local_store %t, %td : tensor<256x64xf16, #bl>, !rocdsl.lds<256x64xf16, #sh>
    scf.yield %acc : tensor<16x32xf32, #bl>
  } {rocdsl.stages = 3 : i32}
  // Nothing to pipeline.
  %re = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %rd) -> (tensor<16x32xf32, #bl>) : i32 {
    %s = arith.addf %acc, %acc : tensor<16x32xf32, #bl>
    scf.yield %s : tensor<16x32xf32, #bl>
  } {rocdsl.stages = 2 : i32}
  rocdsl.store %re, %y[%c0, %c0] strides [%c32] : tensor<16x32xf32, #bl>, !rocdsl.ptr<f32>
  rocdsl.return
}
