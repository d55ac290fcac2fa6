//===- AttentionBackward.cpp - FlashAttention-2 backward programs ---------===//
//
// With P = exp(S - lse) recomputed from Q, K and the forward's lse (S the
// scaled, capped scores) and delta = rowsum(dO * O):
//   dV = P^T dO      dP = dO V^T      dS = P * (dP - delta) [* (1 - t^2)]
//   dQ = scale dS K  dK = scale dS^T Q
// (t = tanh of the soft cap, whose derivative scales dS). Two kinds of
// program share the launch, neither waiting for the other:
// - key programs (first, the longer ones) own BN keys of one key/value
//   head, keep K and V as the first operands of S^T = K Q^T and dP^T =
//   V dO^T, and walk the query steps of each query head of the group,
//   accumulating dK and dV in registers;
// - query programs own BM queries of one query head, keep Q and dO as the
//   first operands of S = Q K^T and dP = dO V^T, and walk the key steps,
//   accumulating dQ.
// Both read delta = rowsum(dO * O), one fp32 a query row, from the
// preprocessing launch before (attention_bwd_delta,
// AttentionBackwardDelta.cpp); there is no workspace and no atomic: the
// result does not depend on scheduling. On sm_90a the same programs run
// on warpgroup MMA (AttentionBackwardWarpgroup.cpp), where with dq_atomic
// the key programs also add dQ into an fp32 scratch and there are no query
// programs.
//
//===----------------------------------------------------------------------===//
#include "AttentionBackwardBuilder.h"

#include "common/MatrixTiles.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

/// A key program: dK and dV of BN keys from `k0` of key/value head
/// `kvHead` of batch entry `batch`.
static void buildKeyProgram(AttentionBackwardBuilder &bb, const Sequences &seq,
                            Scalar k0, Scalar batch, Scalar kvHead) {
  KernelBuilder &kb = bb.kb;
  const AttentionConfig &c = bb.c;
  HeadRows kView = getHeadRows(kb, c, seq, batch, kvHead, false, c.d);
  HeadRows vView = getHeadRows(kb, c, seq, batch, kvHead, false, c.dv);
  Tile keys = bb.firstOperand(bb.loadRows("k", kView, k0, c.bn));
  Tile values = bb.firstOperand(bb.loadRows("v", vView, k0, c.bn));
  AttentionBackwardBuilder::RowsBothWays qTiles = bb.rowsBothWays(c.step, c.d);
  AttentionBackwardBuilder::RowsBothWays doTiles = bb.rowsBothWays(c.step, c.dv);

  AttentionBackwardBuilder::KeyBounds bounds = bb.keyBounds(seq);
  std::optional<Scalar> lower = bounds.lower, upper = bounds.upper;
  StepRuns runs = getStepRuns(kb, k0, c.bn, seq.qLength, c.step, lower, upper);
  Tile keyRows = kb.iota(c.bn, bb.rowLayout) + k0;
  Tile zeroS = kb.zeros({c.bn, c.step}, bb.acc, DType::F32);
  auto cols = [&](Tile t) {
    return t.expandDims(0).broadcastTo({c.bn, c.step});
  };

  SmallVector<Tile> grads = bb.sumOverGroup(
      seq, batch, kvHead,
      [&](const AttentionBackwardBuilder::QueryHead &h,
          ArrayRef<Tile> headGrads) -> SmallVector<Tile> {
        const HeadRows &qView = h.q, &oView = h.out, &lseView = h.lse;
        auto step = [&](bool masked) {
          return [&, masked](Scalar m0,
                             ArrayRef<Tile> carried) -> SmallVector<Tile> {
            Tile dk = carried[0], dv = carried[1];
            Tile queries = bb.loadRows("q", qView, m0, c.step);
            Tile dout = bb.loadRows("dout", oView, m0, c.step);
            Tile lse2 = bb.loadLseLog2(lseView, m0, c.step, bb.colLayout);
            Tile delta = bb.loadDelta(lseView, m0, c.step, bb.colLayout);
            qTiles.store(queries);
            doTiles.store(dout);
            Tile sT = kb.dot(keys, qTiles.loadTransposed(bb.opB), zeroS);
            Tile dpT = kb.dot(values, doTiles.loadTransposed(bb.opB), zeroS);
            std::optional<Tile> seen;
            if (masked)
              seen =
                  visiblePairs(kb, keyRows, kb.iota(c.step, bb.colLayout) + m0,
                               seq.qLength, lower, upper);
            auto [pT, dsT] =
                bb.probabilitiesAndGrad(sT, dpT, cols(lse2), cols(delta), seen);
            // (One op per statement: argument evaluation order must not
            // change the kernel.)
            Tile pOperand = pT.to(c.dtype).convertTo(bb.opA);
            Tile doRows = doTiles.loadRows(bb.opB);
            dv = kb.dot(pOperand, doRows, dv);
            Tile dsOperand = dsT.to(c.dtype).convertTo(bb.opA);
            Tile qRows = qTiles.loadRows(bb.opB);
            dk = kb.dot(dsOperand, qRows, dk);
            return {dk, dv};
          };
        };
        return walkStepRuns(
            kb, runs, c.step, headGrads, lower.has_value(),
            upper || c.sq % c.step || c.varlen(),
            [&](bool masked, Scalar m0, ArrayRef<Tile> carried) {
              return step(masked)(m0, carried);
            });
      });
  storeHeadRows(kb, c, grads[0] * bb.scale, kb.ptrArg("dk"), kView, k0);
  storeHeadRows(kb, c, grads[1], kb.ptrArg("dv"), vView, k0);
}

/// A query program: dQ of BM queries from `q0` of query head `head` of
/// batch entry `batch`.
static void buildQueryProgram(AttentionBackwardBuilder &bb, const Sequences &seq,
                              Scalar q0, Scalar batch, Scalar head) {
  KernelBuilder &kb = bb.kb;
  const AttentionConfig &c = bb.c;
  Scalar kvHead = head / kb.i32(c.hq / c.hkv);
  HeadRows qView = getHeadRows(kb, c, seq, batch, head, true, c.d);
  HeadRows oView = getHeadRows(kb, c, seq, batch, head, true, c.dv);
  HeadRows kView = getHeadRows(kb, c, seq, batch, kvHead, false, c.d);
  HeadRows vView = getHeadRows(kb, c, seq, batch, kvHead, false, c.dv);
  HeadRows lseView = getLseRows(kb, c, seq, batch, head);
  Tile queries = bb.firstOperand(bb.loadRows("q", qView, q0, c.bm));
  Tile dout = bb.firstOperand(bb.loadRows("dout", oView, q0, c.bm));
  auto rows = [&](Tile t) {
    return t.expandDims(1).broadcastTo({c.bm, c.step});
  };
  Tile lse2 = rows(bb.loadLseLog2(lseView, q0, c.bm, bb.rowLayout));
  Tile delta = rows(bb.loadDelta(lseView, q0, c.bm, bb.rowLayout));
  AttentionBackwardBuilder::RowsBothWays kTiles = bb.rowsBothWays(c.step, c.d);
  LdsTile vT = bb.ldsTile(c.dv, c.step, /*colMajor=*/true, /*kFast=*/true);

  StepRuns runs =
      getStepRuns(kb, q0, c.bm, seq.kLength, c.step, seq.lower, seq.upper);
  Tile queryRows = kb.iota(c.bm, bb.rowLayout) + q0;
  Tile zeroS = kb.zeros({c.bm, c.step}, bb.acc, DType::F32);
  auto step = [&](bool masked) {
    return [&, masked](Scalar n0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
      Tile keys = bb.loadRows("k", kView, n0, c.step);
      Tile values = bb.loadRows("v", vView, n0, c.step);
      kTiles.store(keys);
      AttentionBackwardBuilder::storeTransposed(vT, values);
      Tile s = kb.dot(queries, kTiles.loadTransposed(bb.opB), zeroS);
      Tile dp = kb.dot(dout, vT.load(bb.opB), zeroS);
      std::optional<Tile> seen;
      if (masked)
        seen = visiblePairs(kb, queryRows, kb.iota(c.step, bb.colLayout) + n0,
                            seq.kLength, seq.lower, seq.upper);
      Tile ds = bb.probabilitiesAndGrad(s, dp, lse2, delta, seen).second;
      Tile dsOperand = ds.to(c.dtype).convertTo(bb.opA);
      Tile kRows = kTiles.loadRows(bb.opB);
      return {kb.dot(dsOperand, kRows, carried[0])};
    };
  };
  SmallVector<Tile> dq = walkStepRuns(
      kb, runs, c.step, {kb.zeros({c.bm, c.d}, bb.acc, DType::F32)},
      seq.lower.has_value(), seq.upper || c.sk % c.step || c.varlen(),
      [&](bool masked, Scalar n0, ArrayRef<Tile> carried) {
        return step(masked)(n0, carried);
      });
  storeHeadRows(kb, c, dq[0] * bb.scale, kb.ptrArg("dq"), qView, q0);
}

static int64_t keyPrograms(const AttentionConfig &c) {
  return llvm::divideCeil(c.sk, c.bn) * c.batch * c.hkv;
}

static int64_t queryPrograms(const AttentionConfig &c) {
  return c.dqAtomic ? 0 : llvm::divideCeil(c.sq, c.bm) * c.batch * c.hq;
}

int64_t mlir::rocdsl::backwardPrograms(const AttentionConfig &c) {
  return keyPrograms(c) + queryPrograms(c);
}

OwningOpRef<ModuleOp>
mlir::rocdsl::buildAttentionBackward(MLIRContext *ctx,
                                     const AttentionConfig &c) {
  SmallVector<ArgSpec> args = {
      ArgSpec::ptr("q", c.dtype),    ArgSpec::ptr("k", c.dtype),
      ArgSpec::ptr("v", c.dtype),    ArgSpec::ptr("dout", c.dtype),
      ArgSpec::ptr("lse", DType::F32), ArgSpec::ptr("delta", DType::F32),
      ArgSpec::ptr("dq", c.dtype),   ArgSpec::ptr("dk", c.dtype),
      ArgSpec::ptr("dv", c.dtype)};
  appendSequenceArgSpecs(c, args);
  if (c.dqAtomic)
    args.append({ArgSpec::ptr("dq_accum", DType::F32),
                 ArgSpec::ptr("dq_count", DType::I32)});
  args.push_back(ArgSpec::scalar("scale", DType::F32));
  KernelBuilder kb(ctx, "attention_bwd", unsigned(c.warps), args);
  kb.allowContraction();
  AttentionBackwardBuilder bb(kb, c);
  Scalar pid = kb.programId(0);
  int64_t keyTiles = llvm::divideCeil(c.sk, c.bn);
  int64_t queryTiles = llvm::divideCeil(c.sq, c.bm);
  // Key program `pid`: key tile and, over B * Hkv, its key/value head.
  auto keyProgram = [&] {
    Scalar tile = kb.rem(pid, kb.i32(keyTiles));
    Scalar kvHeads = pid / kb.i32(keyTiles);
    Scalar k0 = tile * c.bn;
    Scalar batch = kvHeads / kb.i32(c.hkv);
    Scalar kvHead = kb.rem(kvHeads, kb.i32(c.hkv));
    Sequences seq = getSequences(kb, c, batch);
    // Every key program, past its sequence's keys or not, writes its share
    // of the dq rows no key program adds into.
    if (c.dqAtomic)
      clearUnvisitedQueries(bb, seq, batch, kvHead, tile, keyTiles);
    withinSequence(kb, c, k0, seq.kLength, [&] {
      if (c.wgmma)
        buildWarpgroupKeyProgram(bb, seq, k0, batch, kvHead);
      else
        buildKeyProgram(bb, seq, k0, batch, kvHead);
    });
  };
  // With dq_atomic the grid is the key programs alone, the first tiles
  // (under a causal mask the longest walks) first.
  if (c.dqAtomic) {
    keyProgram();
    return kb.finish();
  }
  // Program order: the key programs, head after head, then the query
  // programs. Two longest-walk-first orders measured slower on an H100
  // (B2 H16 S4096 D128 bf16, causal: 235 TFLOP/s in this order; 195 with
  // every head's key and query tiles interleaved, L2's working set then
  // being every head's rows; 199 with each key/value head's key and query
  // tiles together; benchmarks/results/attention-backward-h100-2026-12-06-*).
  Scalar nKey = kb.i32(keyPrograms(c));
  kb.ifThenElse(
      kb.compare(Cmp::LT, pid, nKey), keyProgram,
      [&] {
        Scalar id = pid - nKey;
        Scalar q0 = kb.rem(id, kb.i32(queryTiles)) * c.bm;
        Scalar heads = id / kb.i32(queryTiles); // over B * Hq
        Scalar batch = heads / kb.i32(c.hq);
        Sequences seq = getSequences(kb, c, batch);
        withinSequence(kb, c, q0, seq.qLength, [&] {
          Scalar head = kb.rem(heads, kb.i32(c.hq));
          if (c.wgmma)
            buildWarpgroupQueryProgram(bb, seq, q0, batch, head);
          else
            buildQueryProgram(bb, seq, q0, batch, head);
        });
      });
  return kb.finish();
}

LaunchPlan mlir::rocdsl::planAttentionBackward(const AttentionConfig &c) {
  std::vector<int64_t> qShape = attentionShape(c, true, c.d),
                       oShape = attentionShape(c, true, c.dv),
                       kShape = attentionShape(c, false, c.d),
                       vShape = attentionShape(c, false, c.dv);
  DType t = c.dtype;
  LaunchPlan plan;
  plan.kernelName = "attention_bwd";
  plan.args = {
      attentionTensorArg("q", t, qShape, false),
      attentionTensorArg("k", t, kShape, false),
      attentionTensorArg("v", t, vShape, false),
      attentionTensorArg("dout", t, oShape, false),
      attentionTensorArg("lse", DType::F32, attentionLseShape(c), false),
      attentionTensorArg("delta", DType::F32, attentionLseShape(c), false),
      attentionTensorArg("dq", t, qShape, true),
      attentionTensorArg("dk", t, kShape, true),
      attentionTensorArg("dv", t, vShape, true)};
  appendSequenceArgs(c, plan.args);
  if (c.dqAtomic) {
    ArgSignature accum = attentionTensorArg("dq_accum", DType::F32, qShape,
                                            true);
    ArgSignature count = ArgSignature::tensor(
        "dq_count", DType::I32, {queryBlockCounts(c)}, 4, true);
    accum.zeroScratch = count.zeroScratch = true;
    plan.args.push_back(accum);
    plan.args.push_back(count);
  }
  plan.args.push_back(attentionScaleArg());
  plan.grid[0] = uint32_t(backwardPrograms(c));
  return plan;
}
