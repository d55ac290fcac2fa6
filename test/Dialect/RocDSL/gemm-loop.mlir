// RUN: rocdsl-opt %s | rocdsl-opt | FileCheck %s
// RUN: rocdsl-opt %s --mlir-print-op-generic | rocdsl-opt | FileCheck %s

// Checks that a pipelined GEMM tile loop (global -> LDS -> dot_operand -> rocdsl.dot, explicit waits) parses, verifies and round-trips.

// 128x128 tile, K step 32, bf16 inputs, f32 MFMA accumulator carried by scf.for.

#blkA = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blkB = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blkC = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
#shA = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]>
#shB = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>

// CHECK-LABEL: rocdsl.func @gemm_tile(
// CHECK-SAME: [[A:%.+]]: !rocdsl.ptr<bf16> {rocdsl.noalias}, [[B:%.+]]: !rocdsl.ptr<bf16> {rocdsl.noalias}, [[C:%.+]]: !rocdsl.ptr<f32> {rocdsl.noalias},
// CHECK-SAME: [[M:%.+]]: i32, [[N:%.+]]: i32, [[K:%.+]]: i32)
// CHECK-SAME: attributes {num_warps = 4 : i32, waves_per_eu = 2 : i32}
//
// CHECK: [[PIDM:%.+]] = rocdsl.program_id x : i32
// CHECK: [[PIDN:%.+]] = rocdsl.program_id y : i32
// CHECK: [[ROW0:%.+]] = arith.muli [[PIDM]], {{%.+}} : i32
// CHECK: [[COL0:%.+]] = arith.muli [[PIDN]], {{%.+}} : i32
// CHECK: [[ZERO:%.+]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>
// CHECK: [[LDSA:%.+]] = rocdsl.local_alloc -> !rocdsl.lds<128x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]>>
// CHECK: [[LDSB:%.+]] = rocdsl.local_alloc -> !rocdsl.lds<32x128xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
//
// Prologue: the first K block is fetched before the loop.
// CHECK: [[A0:%.+]] = rocdsl.load [[A]][[[ROW0]], [[C0:%.+]]] strides[[[K]]] bounds[[[M]], [[K]]] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<128x32xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: [[B0:%.+]] = rocdsl.load [[B]][[[C0]], [[COL0]]] strides[[[N]]] bounds[[[K]], [[N]]] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<32x128xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
//
// CHECK: [[RES:%.+]]:3 = scf.for [[KK:%.+]] = [[C0]] to [[K]] step [[C32:%.+]] iter_args([[ACC:%.+]] = [[ZERO]], [[ACUR:%.+]] = [[A0]], [[BCUR:%.+]] = [[B0]]) -> (tensor<128x128xf32, #rocdsl.mfma<{{.*}}>>, tensor<128x32xbf16, #rocdsl.blocked<{{.*}}>>, tensor<32x128xbf16, #rocdsl.blocked<{{.*}}>>) : i32 {
// CHECK-NEXT: rocdsl.wait {vmcnt = 0 : i32}
// CHECK-NEXT: rocdsl.barrier
// CHECK-NEXT: rocdsl.local_store [[ACUR]], [[LDSA]] : tensor<128x32xbf16, {{.*}}>, !rocdsl.lds<128x32xbf16,
// CHECK-NEXT: rocdsl.local_store [[BCUR]], [[LDSB]] : tensor<32x128xbf16, {{.*}}>, !rocdsl.lds<32x128xbf16,
// CHECK-NEXT: [[KN:%.+]] = arith.addi [[KK]], [[C32]] : i32
// CHECK-NEXT: [[ANXT:%.+]] = rocdsl.load [[A]][[[ROW0]], [[KN]]] strides[[[K]]] bounds[[[M]], [[K]]] {vec = 8 : i32}
// CHECK-NEXT: [[BNXT:%.+]] = rocdsl.load [[B]][[[KN]], [[COL0]]] strides[[[N]]] bounds[[[K]], [[N]]] {vec = 8 : i32}
// CHECK-NEXT: rocdsl.barrier
// CHECK-NEXT: [[AD:%.+]] = rocdsl.local_load [[LDSA]] : !rocdsl.lds<128x32xbf16, {{.*}}> -> tensor<128x32xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>>
// CHECK-NEXT: [[BD:%.+]] = rocdsl.local_load [[LDSB]] : !rocdsl.lds<32x128xbf16, {{.*}}> -> tensor<32x128xbf16, #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>>
// CHECK-NEXT: rocdsl.wait {lgkmcnt = 0 : i32}
// CHECK-NEXT: rocdsl.sched_barrier
// CHECK-NEXT: [[ACC2:%.+]] = rocdsl.dot [[AD]], [[BD]], [[ACC]] : tensor<128x32xbf16, #rocdsl.dot_operand<opIdx = 0, {{.*}}>>, tensor<32x128xbf16, #rocdsl.dot_operand<opIdx = 1, {{.*}}>> -> tensor<128x128xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>
// CHECK-NEXT: rocdsl.sched_barrier {mask = 6 : i32}
// CHECK-NEXT: scf.yield [[ACC2]], [[ANXT]], [[BNXT]] :
// CHECK-NEXT: }
//
// Epilogue: only the accumulator is used after the loop.
// CHECK-NEXT: [[OUT:%.+]] = rocdsl.convert_layout [[RES]]#0 : tensor<128x128xf32, #rocdsl.mfma<{{.*}}>> -> tensor<128x128xf32, #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK-NEXT: rocdsl.store [[OUT]], [[C]][[[ROW0]], [[COL0]]] strides[[[N]]] bounds[[[M]], [[N]]] {vec = 4 : i32} : tensor<128x128xf32, #rocdsl.blocked<{{.*}}>>, !rocdsl.ptr<f32>
// CHECK-NEXT: rocdsl.return
rocdsl.func @gemm_tile(%A: !rocdsl.ptr<bf16> {rocdsl.noalias}, %B: !rocdsl.ptr<bf16> {rocdsl.noalias},
                       %C: !rocdsl.ptr<f32> {rocdsl.noalias}, %M: i32, %N: i32, %K: i32)
    attributes {num_warps = 4 : i32, waves_per_eu = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %pid_m = rocdsl.program_id x : i32
  %pid_n = rocdsl.program_id y : i32
  %row0 = arith.muli %pid_m, %c128 : i32
  %col0 = arith.muli %pid_n, %c128 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mfma>
  %ldsA = rocdsl.local_alloc -> !rocdsl.lds<128x32xbf16, #shA>
  %ldsB = rocdsl.local_alloc -> !rocdsl.lds<32x128xbf16, #shB>

  // Prologue.
  %a0 = rocdsl.load %A[%row0, %c0] strides [%K] bounds [%M, %K] {vec = 8 : i32}
      : !rocdsl.ptr<bf16> -> tensor<128x32xbf16, #blkA>
  %b0 = rocdsl.load %B[%c0, %col0] strides [%N] bounds [%K, %N] {vec = 8 : i32}
      : !rocdsl.ptr<bf16> -> tensor<32x128xbf16, #blkB>

  %res:3 = scf.for %k = %c0 to %K step %c32
      iter_args(%acc = %zero, %a_cur = %a0, %b_cur = %b0)
      -> (tensor<128x128xf32, #mfma>, tensor<128x32xbf16, #blkA>, tensor<32x128xbf16, #blkB>) : i32 {
    // The tiles prefetched last iteration must have landed, and every wave
    // must be done reading LDS, before LDS is overwritten.
    rocdsl.wait {vmcnt = 0 : i32}
    rocdsl.barrier
    rocdsl.local_store %a_cur, %ldsA : tensor<128x32xbf16, #blkA>, !rocdsl.lds<128x32xbf16, #shA>
    rocdsl.local_store %b_cur, %ldsB : tensor<32x128xbf16, #blkB>, !rocdsl.lds<32x128xbf16, #shB>
    // Prefetch the next K block; the bounds make the one past K read zeros.
    %k_next = arith.addi %k, %c32 : i32
    %a_next = rocdsl.load %A[%row0, %k_next] strides [%K] bounds [%M, %K] {vec = 8 : i32}
        : !rocdsl.ptr<bf16> -> tensor<128x32xbf16, #blkA>
    %b_next = rocdsl.load %B[%k_next, %col0] strides [%N] bounds [%K, %N] {vec = 8 : i32}
        : !rocdsl.ptr<bf16> -> tensor<32x128xbf16, #blkB>
    rocdsl.barrier
    %a_op = rocdsl.local_load %ldsA : !rocdsl.lds<128x32xbf16, #shA> -> tensor<128x32xbf16, #dotA>
    %b_op = rocdsl.local_load %ldsB : !rocdsl.lds<32x128xbf16, #shB> -> tensor<32x128xbf16, #dotB>
    rocdsl.wait {lgkmcnt = 0 : i32}
    rocdsl.sched_barrier
    %acc_next = rocdsl.dot %a_op, %b_op, %acc
        : tensor<128x32xbf16, #dotA>, tensor<32x128xbf16, #dotB> -> tensor<128x128xf32, #mfma>
    // Let VALU and memory instructions (mask 6) move around the dot tail.
    rocdsl.sched_barrier {mask = 6 : i32}
    scf.yield %acc_next, %a_next, %b_next
        : tensor<128x128xf32, #mfma>, tensor<128x32xbf16, #blkA>, tensor<32x128xbf16, #blkB>
  }

  %out = rocdsl.convert_layout %res#0 : tensor<128x128xf32, #mfma> -> tensor<128x128xf32, #blkC>
  rocdsl.store %out, %C[%row0, %col0] strides [%N] bounds [%M, %N] {vec = 4 : i32}
      : tensor<128x128xf32, #blkC>, !rocdsl.ptr<f32>
  rocdsl.return
}
