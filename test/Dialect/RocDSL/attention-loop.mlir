// RUN: rocdsl-opt %s | rocdsl-opt | FileCheck %s
// RUN: rocdsl-opt %s --mlir-print-op-generic | rocdsl-opt | FileCheck %s

// Checks that an online-softmax attention forward loop (m, l, O carried by scf.for) parses, verifies and round-trips.

// FlashAttention-2 style tile: 128 query rows, head dim 64, 32 keys per step;
// m and l are row slices of the MFMA layout, O is in the MFMA layout.
//
// The dialect has no transpose (local_load/local_store keep the tile shape),
// so K is read from a head-dim-major copy Kt[bh * 64 + d, key].

#blkQ = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blkK = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [4, 1]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
#row = #rocdsl.slice<dim = 1, parent = #mfma>
#col = #rocdsl.slice<dim = 0, parent = #mfma>
#shQ = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#shK = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// CHECK-LABEL: rocdsl.func @attention_fwd(
// CHECK-SAME: [[Q:%.+]]: !rocdsl.ptr<bf16>, [[KT:%.+]]: !rocdsl.ptr<bf16>, [[V:%.+]]: !rocdsl.ptr<bf16>, [[O:%.+]]: !rocdsl.ptr<bf16>, [[SEQ:%.+]]: i32, [[SCALE:%.+]]: f32)
// CHECK-SAME: attributes {num_warps = 4 : i32}
//
// Q is loaded once and kept in the A-operand layout.
// CHECK: [[QBLK:%.+]] = rocdsl.load [[Q]][[[QROW:%.+]], [[C0:%.+]]] strides[[[C64:%.+]]] bounds[[[QEND:%.+]], [[C64]]] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<128x64xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: [[QLDS:%.+]] = rocdsl.local_alloc [[QBLK]] : tensor<128x64xbf16, {{.*}}> -> !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
// CHECK: rocdsl.barrier
// CHECK: [[QOP:%.+]] = rocdsl.local_load [[QLDS]] : !rocdsl.lds<128x64xbf16, {{.*}}> -> tensor<128x64xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [4, 1]>, kWidth = 4>>
//
// CHECK-DAG: [[MINIT:%.+]] = arith.constant dense<0xFF800000> : tensor<128xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [4, 1]>>>
// CHECK-DAG: [[LINIT:%.+]] = arith.constant dense<0.000000e+00> : tensor<128xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.mfma<{{.*}}>>>
// CHECK-DAG: [[OINIT:%.+]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [4, 1]>>
// CHECK-DAG: [[SZERO:%.+]] = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #rocdsl.mfma<{{.*}}>>
// CHECK-DAG: [[KLDS:%.+]] = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
// CHECK-DAG: [[VLDS:%.+]] = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16, #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
//
// CHECK: [[LOOP:%.+]]:3 = scf.for [[START:%.+]] = [[C0]] to [[SEQ]] step [[C32:%.+]] iter_args([[MI:%.+]] = [[MINIT]], [[LI:%.+]] = [[LINIT]], [[ACC:%.+]] = [[OINIT]]) -> (tensor<128xf32, #rocdsl.slice<dim = 1, {{.*}}>>, tensor<128xf32, #rocdsl.slice<dim = 1, {{.*}}>>, tensor<128x64xf32, #rocdsl.mfma<{{.*}}>>) : i32 {
// CHECK: [[KTILE:%.+]] = rocdsl.load [[KT]][{{%.+}}, [[START]]] strides[[[SEQ]]] bounds[{{%.+}}, [[SEQ]]] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<64x32xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: [[VTILE:%.+]] = rocdsl.load [[V]][{{%.+}}, [[C0]]] strides[[[C64]]] bounds[[[QEND]], [[C64]]] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<32x64xbf16,
// CHECK: rocdsl.wait {vmcnt = 0 : i32}
// CHECK: rocdsl.local_store [[KTILE]], [[KLDS]]
// CHECK: rocdsl.local_store [[VTILE]], [[VLDS]]
// CHECK: rocdsl.barrier
// CHECK: [[KOP:%.+]] = rocdsl.local_load [[KLDS]] : !rocdsl.lds<64x32xbf16, {{.*}}> -> tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 1,
//
// S = Q K^T, scaled.
// CHECK: [[S:%.+]] = rocdsl.dot [[QOP]], [[KOP]], [[SZERO]] : tensor<128x64xbf16, #rocdsl.dot_operand<opIdx = 0, {{.*}}>>, tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 1, {{.*}}>> -> tensor<128x32xf32, #rocdsl.mfma<{{.*}}>>
// CHECK: [[SCALES:%.+]] = rocdsl.splat [[SCALE]] : f32 -> tensor<128x32xf32,
// CHECK: [[SS:%.+]] = arith.mulf [[S]], [[SCALES]]
//
// Ragged edge: keys at or past SEQ are masked to -inf.
// CHECK: [[IOTA:%.+]] = rocdsl.iota : tensor<32xi32, #rocdsl.slice<dim = 0, parent = #rocdsl.mfma<{{.*}}>>>
// CHECK: [[IOTA2:%.+]] = rocdsl.expand_dims [[IOTA]] {axis = 0 : i32} : tensor<32xi32, {{.*}}> -> tensor<1x32xi32, #rocdsl.mfma<{{.*}}>>
// CHECK: [[IOTAB:%.+]] = rocdsl.broadcast [[IOTA2]] : tensor<1x32xi32, {{.*}}> -> tensor<128x32xi32,
// CHECK: [[STARTS:%.+]] = rocdsl.splat [[START]] : i32 -> tensor<128x32xi32,
// CHECK: [[KEYS:%.+]] = arith.addi [[IOTAB]], [[STARTS]]
// CHECK: [[SEQS:%.+]] = rocdsl.splat [[SEQ]] : i32 -> tensor<128x32xi32,
// CHECK: [[VALID:%.+]] = arith.cmpi slt, [[KEYS]], [[SEQS]] : tensor<128x32xi32,
// CHECK: [[SM:%.+]] = arith.select [[VALID]], [[SS]], {{%.+}} : tensor<128x32xi1, {{.*}}>, tensor<128x32xf32,
//
// Online softmax update.
// CHECK: [[MIJ:%.+]] = rocdsl.reduce max [[SM]] {axis = 1 : i32} : tensor<128x32xf32, #rocdsl.mfma<{{.*}}>> -> tensor<128xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.mfma<{{.*}}>>>
// CHECK: [[MNEW:%.+]] = arith.maximumf [[MI]], [[MIJ]] : tensor<128xf32,
// CHECK: [[MDIFF:%.+]] = arith.subf [[MI]], [[MNEW]] : tensor<128xf32,
// CHECK: [[ALPHA:%.+]] = math.exp [[MDIFF]] : tensor<128xf32,
// CHECK: [[MNEW2:%.+]] = rocdsl.expand_dims [[MNEW]] {axis = 1 : i32} : tensor<128xf32, #rocdsl.slice<dim = 1, {{.*}}>> -> tensor<128x1xf32, #rocdsl.mfma<{{.*}}>>
// CHECK: [[MNEWB:%.+]] = rocdsl.broadcast [[MNEW2]] : tensor<128x1xf32, {{.*}}> -> tensor<128x32xf32,
// CHECK: [[SSUB:%.+]] = arith.subf [[SM]], [[MNEWB]] : tensor<128x32xf32,
// CHECK: [[P:%.+]] = math.exp [[SSUB]] : tensor<128x32xf32,
// CHECK: [[LIJ:%.+]] = rocdsl.reduce add [[P]] {axis = 1 : i32} : tensor<128x32xf32, {{.*}}> -> tensor<128xf32,
// CHECK: [[LSCALED:%.+]] = arith.mulf [[LI]], [[ALPHA]] : tensor<128xf32,
// CHECK: [[LNEW:%.+]] = arith.addf [[LSCALED]], [[LIJ]] : tensor<128xf32,
// CHECK: [[ALPHA2:%.+]] = rocdsl.expand_dims [[ALPHA]] {axis = 1 : i32}
// CHECK: [[ALPHAB:%.+]] = rocdsl.broadcast [[ALPHA2]] : tensor<128x1xf32, {{.*}}> -> tensor<128x64xf32,
// CHECK: [[ACCS:%.+]] = arith.mulf [[ACC]], [[ALPHAB]] : tensor<128x64xf32,
//
// O = P V + O * alpha.
// CHECK: [[PBF:%.+]] = arith.truncf [[P]] : tensor<128x32xf32, #rocdsl.mfma<{{.*}}>> to tensor<128x32xbf16, #rocdsl.mfma<{{.*}}>>
// CHECK: [[POP:%.+]] = rocdsl.convert_layout [[PBF]] : tensor<128x32xbf16, #rocdsl.mfma<{{.*}}>> -> tensor<128x32xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [4, 1]>, kWidth = 4>>
// CHECK: [[VOP:%.+]] = rocdsl.local_load [[VLDS]] : !rocdsl.lds<32x64xbf16, {{.*}}> -> tensor<32x64xbf16, #rocdsl.dot_operand<opIdx = 1,
// CHECK: rocdsl.wait {lgkmcnt = 0 : i32}
// CHECK: [[ACCNEW:%.+]] = rocdsl.dot [[POP]], [[VOP]], [[ACCS]] : tensor<128x32xbf16, #rocdsl.dot_operand<opIdx = 0, {{.*}}>>, tensor<32x64xbf16, #rocdsl.dot_operand<opIdx = 1, {{.*}}>> -> tensor<128x64xf32, #rocdsl.mfma<{{.*}}>>
// CHECK: rocdsl.barrier
// CHECK-NEXT: scf.yield [[MNEW]], [[LNEW]], [[ACCNEW]] :
// CHECK-NEXT: }
//
// Epilogue: O / l, cast, store.
// CHECK: [[L2:%.+]] = rocdsl.expand_dims [[LOOP]]#1 {axis = 1 : i32}
// CHECK: [[LB:%.+]] = rocdsl.broadcast [[L2]] : tensor<128x1xf32, {{.*}}> -> tensor<128x64xf32,
// CHECK: [[OUT:%.+]] = arith.divf [[LOOP]]#2, [[LB]] : tensor<128x64xf32,
// CHECK: [[OUTBF:%.+]] = arith.truncf [[OUT]]
// CHECK: [[OUTBLK:%.+]] = rocdsl.convert_layout [[OUTBF]] : tensor<128x64xbf16, #rocdsl.mfma<{{.*}}>> -> tensor<128x64xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: rocdsl.store [[OUTBLK]], [[O]][[[QROW]], [[C0]]] strides[[[C64]]] bounds[[[QEND]], [[C64]]] {vec = 8 : i32} : tensor<128x64xbf16, {{.*}}>, !rocdsl.ptr<bf16>
// CHECK-NEXT: rocdsl.return
rocdsl.func @attention_fwd(%Q: !rocdsl.ptr<bf16>, %Kt: !rocdsl.ptr<bf16>, %V: !rocdsl.ptr<bf16>,
                           %O: !rocdsl.ptr<bf16>, %seq: i32, %scale: f32)
    attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = rocdsl.program_id x : i32      // query block
  %bh = rocdsl.program_id y : i32       // batch * heads
  // Rows of this (batch, head) in Q, V and O are [bh * seq, (bh + 1) * seq).
  %head_row = arith.muli %bh, %seq : i32
  %q_off = arith.muli %pid, %c128 : i32
  %q_row = arith.addi %head_row, %q_off : i32
  %q_end = arith.addi %head_row, %seq : i32
  // Rows of Kt for this head are [bh * 64, bh * 64 + 64).
  %kt_row = arith.muli %bh, %c64 : i32
  %kt_end = arith.addi %kt_row, %c64 : i32

  %q_blk = rocdsl.load %Q[%q_row, %c0] strides [%c64] bounds [%q_end, %c64] {vec = 8 : i32}
      : !rocdsl.ptr<bf16> -> tensor<128x64xbf16, #blkQ>
  %q_lds = rocdsl.local_alloc %q_blk : tensor<128x64xbf16, #blkQ> -> !rocdsl.lds<128x64xbf16, #shQ>
  rocdsl.barrier
  %q_op = rocdsl.local_load %q_lds : !rocdsl.lds<128x64xbf16, #shQ> -> tensor<128x64xbf16, #dotA>

  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
  %l_init = arith.constant dense<0.0> : tensor<128xf32, #row>
  %o_init = arith.constant dense<0.0> : tensor<128x64xf32, #mfma>
  %s_zero = arith.constant dense<0.0> : tensor<128x32xf32, #mfma>
  %neg_inf = arith.constant dense<0xFF800000> : tensor<128x32xf32, #mfma>
  %k_lds = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #shK>
  %v_lds = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16, #shK>

  %loop:3 = scf.for %start = %c0 to %seq step %c32
      iter_args(%m_i = %m_init, %l_i = %l_init, %acc = %o_init)
      -> (tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x64xf32, #mfma>) : i32 {
    %kv_row = arith.addi %head_row, %start : i32
    %kt = rocdsl.load %Kt[%kt_row, %start] strides [%seq] bounds [%kt_end, %seq] {vec = 8 : i32}
        : !rocdsl.ptr<bf16> -> tensor<64x32xbf16, #blkK>
    %v = rocdsl.load %V[%kv_row, %c0] strides [%c64] bounds [%q_end, %c64] {vec = 8 : i32}
        : !rocdsl.ptr<bf16> -> tensor<32x64xbf16, #blkQ>
    rocdsl.wait {vmcnt = 0 : i32}
    rocdsl.local_store %kt, %k_lds : tensor<64x32xbf16, #blkK>, !rocdsl.lds<64x32xbf16, #shK>
    rocdsl.local_store %v, %v_lds : tensor<32x64xbf16, #blkQ>, !rocdsl.lds<32x64xbf16, #shK>
    rocdsl.barrier
    %k_op = rocdsl.local_load %k_lds : !rocdsl.lds<64x32xbf16, #shK> -> tensor<64x32xbf16, #dotB>

    // S = Q K^T * scale
    %s = rocdsl.dot %q_op, %k_op, %s_zero
        : tensor<128x64xbf16, #dotA>, tensor<64x32xbf16, #dotB> -> tensor<128x32xf32, #mfma>
    %scale_t = rocdsl.splat %scale : f32 -> tensor<128x32xf32, #mfma>
    %s_scaled = arith.mulf %s, %scale_t : tensor<128x32xf32, #mfma>

    // Mask keys past the end of the sequence.
    %cols = rocdsl.iota : tensor<32xi32, #col>
    %cols2 = rocdsl.expand_dims %cols {axis = 0 : i32} : tensor<32xi32, #col> -> tensor<1x32xi32, #mfma>
    %cols_b = rocdsl.broadcast %cols2 : tensor<1x32xi32, #mfma> -> tensor<128x32xi32, #mfma>
    %start_t = rocdsl.splat %start : i32 -> tensor<128x32xi32, #mfma>
    %keys = arith.addi %cols_b, %start_t : tensor<128x32xi32, #mfma>
    %seq_t = rocdsl.splat %seq : i32 -> tensor<128x32xi32, #mfma>
    %valid = arith.cmpi slt, %keys, %seq_t : tensor<128x32xi32, #mfma>
    %s_masked = arith.select %valid, %s_scaled, %neg_inf : tensor<128x32xi1, #mfma>, tensor<128x32xf32, #mfma>

    // m_new = max(m_i, rowmax(S)); alpha = exp(m_i - m_new); P = exp(S - m_new)
    %m_ij = rocdsl.reduce max %s_masked {axis = 1 : i32} : tensor<128x32xf32, #mfma> -> tensor<128xf32, #row>
    %m_new = arith.maximumf %m_i, %m_ij : tensor<128xf32, #row>
    %m_diff = arith.subf %m_i, %m_new : tensor<128xf32, #row>
    %alpha = math.exp %m_diff : tensor<128xf32, #row>
    %m_new2 = rocdsl.expand_dims %m_new {axis = 1 : i32} : tensor<128xf32, #row> -> tensor<128x1xf32, #mfma>
    %m_new_b = rocdsl.broadcast %m_new2 : tensor<128x1xf32, #mfma> -> tensor<128x32xf32, #mfma>
    %s_sub = arith.subf %s_masked, %m_new_b : tensor<128x32xf32, #mfma>
    %p = math.exp %s_sub : tensor<128x32xf32, #mfma>

    // l_new = l_i * alpha + rowsum(P); O = O * alpha
    %l_ij = rocdsl.reduce add %p {axis = 1 : i32} : tensor<128x32xf32, #mfma> -> tensor<128xf32, #row>
    %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32, #row>
    %l_new = arith.addf %l_scaled, %l_ij : tensor<128xf32, #row>
    %alpha2 = rocdsl.expand_dims %alpha {axis = 1 : i32} : tensor<128xf32, #row> -> tensor<128x1xf32, #mfma>
    %alpha_b = rocdsl.broadcast %alpha2 : tensor<128x1xf32, #mfma> -> tensor<128x64xf32, #mfma>
    %acc_scaled = arith.mulf %acc, %alpha_b : tensor<128x64xf32, #mfma>

    // O = P V + O * alpha
    %p_bf = arith.truncf %p : tensor<128x32xf32, #mfma> to tensor<128x32xbf16, #mfma>
    %p_op = rocdsl.convert_layout %p_bf : tensor<128x32xbf16, #mfma> -> tensor<128x32xbf16, #dotA>
    %v_op = rocdsl.local_load %v_lds : !rocdsl.lds<32x64xbf16, #shK> -> tensor<32x64xbf16, #dotB>
    rocdsl.wait {lgkmcnt = 0 : i32}
    %acc_new = rocdsl.dot %p_op, %v_op, %acc_scaled
        : tensor<128x32xbf16, #dotA>, tensor<32x64xbf16, #dotB> -> tensor<128x64xf32, #mfma>
    // Every wave is done reading K and V before the next step overwrites them.
    rocdsl.barrier
    scf.yield %m_new, %l_new, %acc_new : tensor<128xf32, #row>, tensor<128xf32, #row>, tensor<128x64xf32, #mfma>
  }

  %l2 = rocdsl.expand_dims %loop#1 {axis = 1 : i32} : tensor<128xf32, #row> -> tensor<128x1xf32, #mfma>
  %l_b = rocdsl.broadcast %l2 : tensor<128x1xf32, #mfma> -> tensor<128x64xf32, #mfma>
  %out = arith.divf %loop#2, %l_b : tensor<128x64xf32, #mfma>
  %out_bf = arith.truncf %out : tensor<128x64xf32, #mfma> to tensor<128x64xbf16, #mfma>
  %out_blk = rocdsl.convert_layout %out_bf : tensor<128x64xbf16, #mfma> -> tensor<128x64xbf16, #blkQ>
  rocdsl.store %out_blk, %O[%q_row, %c0] strides [%c64] bounds [%q_end, %c64] {vec = 8 : i32}
      : tensor<128x64xbf16, #blkQ>, !rocdsl.ptr<bf16>
  rocdsl.return
}
