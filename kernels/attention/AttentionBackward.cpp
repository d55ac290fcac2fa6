//===- AttentionBackward.cpp - FlashAttention-2 backward, one launch ------===//
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
// Both compute delta from O and dO where they need it, so there is no
// preprocessing launch, no workspace and no atomic: the result does not
// depend on scheduling.
//
//===----------------------------------------------------------------------===//
#include "Attention.h"

#include "common/MatrixTiles.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

namespace {
/// What both kinds of program build on: arguments, layouts, scale, the
/// access helpers.
struct BackwardBuilder {
  KernelBuilder &kb;
  const AttentionConfig &c;
  Layout acc, rowLayout, colLayout, opA, opB;
  Scalar scale, scaleLog2;
  std::optional<int64_t> lower, upper; // key - query, see Attention.h

  BackwardBuilder(KernelBuilder &kb, const AttentionConfig &c) : kb(kb), c(c) {
    acc = c.nvidia
              ? kb.mma({unsigned(c.warps), 1})
              : kb.mfma(c.matrixVersion, {c.instr[0], c.instr[1], c.instr[2]},
                        {unsigned(c.warps), 1});
    rowLayout = kb.slice(acc, 1);
    colLayout = kb.slice(acc, 0);
    unsigned kWidth = c.nvidia ? 2 : c.kWidth;
    opA = kb.dotOperand(0, acc, kWidth);
    opB = kb.dotOperand(1, acc, kWidth);
    // scale = 0 selects 1/sqrt(D). Without a row maximum to take, the
    // sign of the scale needs no care here.
    Scalar arg = kb.scalarArg("scale");
    scale = kb.select(kb.compare(Cmp::EQ, arg, kb.f32(0)),
                      kb.f32(1.0 / std::sqrt(double(c.d))), arg);
    scaleLog2 = scale * kb.f32(llvm::numbers::log2e);
    if (c.windowLeft >= 0)
      lower = c.offset() - c.windowLeft;
    if (c.rightBound() >= 0)
      upper = c.offset() + c.rightBound();
  }

  /// `rows` x `cols` of a head's [extent, cols] rows from `row0`, coalesced.
  Tile loadRows(StringRef name, Scalar first, int64_t extent, Scalar row0,
                int64_t rows, int64_t cols) {
    AccessOptions o;
    o.strides = {kb.i32(cols)};
    o.bounds = {first + extent, kb.i32(cols)};
    Layout layout = kb.defaultLayout({rows, cols}, c.dtype, c.waveSize);
    o.vec = accessWidth(cols, c.dtype, layout);
    return kb.load(kb.ptrArg(name), {first + row0, kb.i32(0)}, {rows, cols},
                   layout, o);
  }
  /// An accumulator `tile` of a head's rows from `row0`, rounded to the
  /// element type and stored through LDS in coalesced 128-bit accesses.
  void storeRows(Tile tile, StringRef name, Scalar first, int64_t extent,
                 Scalar row0) {
    int64_t rows = tile.getShape()[0], cols = tile.getShape()[1];
    AccessOptions o;
    o.strides = {kb.i32(cols)};
    o.bounds = {first + extent, kb.i32(cols)};
    Layout coalesced = kb.defaultLayout({rows, cols}, c.dtype, c.waveSize);
    o.vec = accessWidth(cols, c.dtype, coalesced);
    kb.store(tile.to(c.dtype).convertTo(coalesced), kb.ptrArg(name),
             {first + row0, kb.i32(0)}, o);
  }
  /// The `count` entries of a head's lse (in log2 units) from `row0`.
  Tile loadLseLog2(Scalar first, Scalar row0, int64_t count, Layout layout) {
    AccessOptions o;
    o.bounds = {first + c.sq};
    return kb.load(kb.ptrArg("lse"), {first + row0}, {count}, layout, o) *
           kb.f32(llvm::numbers::log2e);
  }
  /// delta = rowsum(dO * O) of `rows` queries from `row0`, in `layout` (a
  /// slice of the accumulator).
  Tile loadDelta(Scalar first, Scalar row0, int64_t rows, Layout layout) {
    Tile o = loadRows("out", first, c.sq, row0, rows, c.dv).to(DType::F32);
    Tile dout = loadRows("dout", first, c.sq, row0, rows, c.dv).to(DType::F32);
    return (o * dout).sum(1).convertTo(layout);
  }
  LdsTile ldsTile(int64_t rows, int64_t cols, bool colMajor, bool kFast) {
    return operandLdsTile(kb, rows, cols, c.dtype, colMajor, kFast, c.nvidia,
                          c.kWidth, c.ldsBanks);
  }
  /// A tile read once into the first operand's layout (through LDS).
  Tile firstOperand(Tile rows) {
    LdsTile staging = ldsTile(rows.getShape()[0], rows.getShape()[1],
                              /*colMajor=*/false, /*kFast=*/true);
    staging.store(rows);
    return staging.load(opA);
  }
  /// Stores `rows` ([n, d], d the reduction of a product with it as the
  /// second operand transposed) read back as that operand.
  static void storeTransposed(LdsTile tile, Tile rows) {
    tile.store(rows.transposed(getTransposedLayout(rows.getLayout())));
  }

  /// P (or P^T) and dS (or dS^T) of one step from the raw products S and
  /// dP, the lse and delta broadcast over them (`lse2`, `delta` full
  /// tiles), and the mask `seen` (null: everything seen).
  std::pair<Tile, Tile> probabilitiesAndGrad(Tile s, Tile dp, Tile lse2,
                                             Tile delta,
                                             std::optional<Tile> seen) {
    Tile scores = s * scaleLog2, t;
    if (c.softcap > 0) {
      auto capped = softcapScores(kb, s, scale, c.softcap);
      scores = capped.first * kb.f32(llvm::numbers::log2e);
      t = capped.second;
    }
    Tile p = (scores - lse2).exp2();
    if (seen)
      p = kb.select(*seen, p, kb.zeros(p.getShape(), acc, DType::F32));
    Tile ds = p * (dp - delta);
    if (c.softcap > 0)
      ds = ds * (kb.full(t.getShape(), acc, kb.f32(1)) - t * t);
    return {p, ds};
  }
};
} // namespace

/// A key program: dK and dV of BN keys of key/value head `kvHead` (over
/// B * Hkv) from `k0`.
static void buildKeyProgram(BackwardBuilder &bb, Scalar k0, Scalar kvHead) {
  KernelBuilder &kb = bb.kb;
  const AttentionConfig &c = bb.c;
  Scalar kFirst = kvHead * c.sk;
  Tile keys = bb.firstOperand(bb.loadRows("k", kFirst, c.sk, k0, c.bn, c.d));
  Tile values = bb.firstOperand(bb.loadRows("v", kFirst, c.sk, k0, c.bn, c.dv));
  LdsTile qT = bb.ldsTile(c.d, c.step, /*colMajor=*/true, /*kFast=*/true);
  LdsTile qN = bb.ldsTile(c.step, c.d, /*colMajor=*/false, /*kFast=*/false);
  LdsTile doT = bb.ldsTile(c.dv, c.step, /*colMajor=*/true, /*kFast=*/true);
  LdsTile doN = bb.ldsTile(c.step, c.dv, /*colMajor=*/false, /*kFast=*/false);

  // Rows are keys, columns queries: key j sees query i when
  // -upper <= i - j <= -lower.
  std::optional<int64_t> lower, upper;
  if (bb.upper)
    lower = -*bb.upper;
  if (bb.lower)
    upper = -*bb.lower;
  StepRuns runs = getStepRuns(kb, k0, c.bn, c.sq, c.step, lower, upper);
  Tile keyRows = kb.iota(c.bn, bb.rowLayout) + k0;
  Tile zeroS = kb.zeros({c.bn, c.step}, bb.acc, DType::F32);
  auto cols = [&](Tile t) {
    return t.expandDims(0).broadcastTo({c.bn, c.step});
  };

  Scalar group = kb.i32(c.hq / c.hkv);
  Scalar batch = kvHead / kb.i32(c.hkv);
  Scalar firstHead = batch * c.hq + kb.rem(kvHead, kb.i32(c.hkv)) * group;
  SmallVector<Tile> grads = {kb.zeros({c.bn, c.d}, bb.acc, DType::F32),
                             kb.zeros({c.bn, c.dv}, bb.acc, DType::F32)};
  grads = kb.forLoop(
      kb.i32(0), group, kb.i32(1), grads,
      [&](Scalar g, ArrayRef<Tile> headGrads) -> SmallVector<Tile> {
        Scalar qFirst = (firstHead + g) * c.sq;
        auto step = [&](bool masked) {
          return [&, masked](Scalar m0,
                             ArrayRef<Tile> carried) -> SmallVector<Tile> {
            Tile dk = carried[0], dv = carried[1];
            Tile queries = bb.loadRows("q", qFirst, c.sq, m0, c.step, c.d);
            Tile dout = bb.loadRows("dout", qFirst, c.sq, m0, c.step, c.dv);
            Tile lse2 = bb.loadLseLog2(qFirst, m0, c.step, bb.colLayout);
            Tile delta = bb.loadDelta(qFirst, m0, c.step, bb.colLayout);
            BackwardBuilder::storeTransposed(qT, queries);
            qN.store(queries);
            BackwardBuilder::storeTransposed(doT, dout);
            doN.store(dout);
            Tile sT = kb.dot(keys, qT.load(bb.opB), zeroS);
            Tile dpT = kb.dot(values, doT.load(bb.opB), zeroS);
            std::optional<Tile> seen;
            if (masked)
              seen =
                  visiblePairs(kb, keyRows, kb.iota(c.step, bb.colLayout) + m0,
                               c.sq, lower, upper);
            auto [pT, dsT] =
                bb.probabilitiesAndGrad(sT, dpT, cols(lse2), cols(delta), seen);
            dv = kb.dot(pT.to(c.dtype).convertTo(bb.opA), doN.load(bb.opB), dv);
            dk = kb.dot(dsT.to(c.dtype).convertTo(bb.opA), qN.load(bb.opB), dk);
            return {dk, dv};
          };
        };
        SmallVector<Tile> state(headGrads.begin(), headGrads.end());
        Scalar stepSize = kb.i32(c.step);
        if (lower)
          state = kb.forLoop(runs.lo, runs.mid0, stepSize, state, step(true));
        state = kb.forLoop(runs.mid0, runs.mid1, stepSize, state, step(false));
        if (upper || c.sq % c.step)
          state = kb.forLoop(runs.mid1, runs.hi, stepSize, state, step(true));
        return state;
      });
  bb.storeRows(grads[0] * bb.scale, "dk", kFirst, c.sk, k0);
  bb.storeRows(grads[1], "dv", kFirst, c.sk, k0);
}

/// A query program: dQ of BM queries of query head `bh` (over B * Hq)
/// from `q0`.
static void buildQueryProgram(BackwardBuilder &bb, Scalar q0, Scalar bh) {
  KernelBuilder &kb = bb.kb;
  const AttentionConfig &c = bb.c;
  Scalar batch = bh / kb.i32(c.hq);
  Scalar head = kb.rem(bh, kb.i32(c.hq));
  Scalar kvHead = batch * c.hkv + head / kb.i32(c.hq / c.hkv);
  Scalar qFirst = bh * c.sq, kFirst = kvHead * c.sk;
  Tile queries = bb.firstOperand(bb.loadRows("q", qFirst, c.sq, q0, c.bm, c.d));
  Tile dout =
      bb.firstOperand(bb.loadRows("dout", qFirst, c.sq, q0, c.bm, c.dv));
  auto rows = [&](Tile t) {
    return t.expandDims(1).broadcastTo({c.bm, c.step});
  };
  Tile lse2 = rows(bb.loadLseLog2(qFirst, q0, c.bm, bb.rowLayout));
  Tile delta = rows(bb.loadDelta(qFirst, q0, c.bm, bb.rowLayout));
  LdsTile kT = bb.ldsTile(c.d, c.step, /*colMajor=*/true, /*kFast=*/true);
  LdsTile kN = bb.ldsTile(c.step, c.d, /*colMajor=*/false, /*kFast=*/false);
  LdsTile vT = bb.ldsTile(c.dv, c.step, /*colMajor=*/true, /*kFast=*/true);

  StepRuns runs = getStepRuns(kb, q0, c.bm, c.sk, c.step, bb.lower, bb.upper);
  Tile queryRows = kb.iota(c.bm, bb.rowLayout) + q0;
  Tile zeroS = kb.zeros({c.bm, c.step}, bb.acc, DType::F32);
  auto step = [&](bool masked) {
    return [&, masked](Scalar n0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
      Tile keys = bb.loadRows("k", kFirst, c.sk, n0, c.step, c.d);
      Tile values = bb.loadRows("v", kFirst, c.sk, n0, c.step, c.dv);
      BackwardBuilder::storeTransposed(kT, keys);
      kN.store(keys);
      BackwardBuilder::storeTransposed(vT, values);
      Tile s = kb.dot(queries, kT.load(bb.opB), zeroS);
      Tile dp = kb.dot(dout, vT.load(bb.opB), zeroS);
      std::optional<Tile> seen;
      if (masked)
        seen = visiblePairs(kb, queryRows, kb.iota(c.step, bb.colLayout) + n0,
                            c.sk, bb.lower, bb.upper);
      Tile ds = bb.probabilitiesAndGrad(s, dp, lse2, delta, seen).second;
      return {kb.dot(ds.to(c.dtype).convertTo(bb.opA), kN.load(bb.opB),
                     carried[0])};
    };
  };
  SmallVector<Tile> dq = {kb.zeros({c.bm, c.d}, bb.acc, DType::F32)};
  Scalar stepSize = kb.i32(c.step);
  if (bb.lower)
    dq = kb.forLoop(runs.lo, runs.mid0, stepSize, dq, step(true));
  dq = kb.forLoop(runs.mid0, runs.mid1, stepSize, dq, step(false));
  if (bb.upper || c.sk % c.step)
    dq = kb.forLoop(runs.mid1, runs.hi, stepSize, dq, step(true));
  bb.storeRows(dq[0] * bb.scale, "dq", qFirst, c.sq, q0);
}

static int64_t keyPrograms(const AttentionConfig &c) {
  return llvm::divideCeil(c.sk, c.bn) * c.batch * c.hkv;
}

OwningOpRef<ModuleOp>
mlir::rocdsl::buildAttentionBackward(MLIRContext *ctx,
                                     const AttentionConfig &c) {
  KernelBuilder kb(
      ctx, "attention_bwd", unsigned(c.warps),
      {ArgSpec::ptr("q", c.dtype), ArgSpec::ptr("k", c.dtype),
       ArgSpec::ptr("v", c.dtype), ArgSpec::ptr("out", c.dtype),
       ArgSpec::ptr("dout", c.dtype), ArgSpec::ptr("lse", DType::F32),
       ArgSpec::ptr("dq", c.dtype), ArgSpec::ptr("dk", c.dtype),
       ArgSpec::ptr("dv", c.dtype), ArgSpec::scalar("scale", DType::F32)});
  kb.allowContraction();
  BackwardBuilder bb(kb, c);
  Scalar pid = kb.programId(0);
  Scalar nKey = kb.i32(keyPrograms(c));
  int64_t keyTiles = llvm::divideCeil(c.sk, c.bn);
  int64_t queryTiles = llvm::divideCeil(c.sq, c.bm);
  kb.ifThenElse(
      kb.compare(Cmp::LT, pid, nKey),
      [&] {
        Scalar tile = kb.rem(pid, kb.i32(keyTiles));
        buildKeyProgram(bb, tile * c.bn, pid / kb.i32(keyTiles));
      },
      [&] {
        Scalar id = pid - nKey;
        Scalar tile = kb.rem(id, kb.i32(queryTiles));
        buildQueryProgram(bb, tile * c.bm, id / kb.i32(queryTiles));
      });
  return kb.finish();
}

LaunchPlan mlir::rocdsl::planAttentionBackward(const AttentionConfig &c) {
  std::vector<int64_t> qShape = {c.batch, c.hq, c.sq, c.d},
                       oShape = {c.batch, c.hq, c.sq, c.dv},
                       kShape = {c.batch, c.hkv, c.sk, c.d},
                       vShape = {c.batch, c.hkv, c.sk, c.dv};
  DType t = c.dtype;
  LaunchPlan plan;
  plan.kernelName = "attention_bwd";
  plan.args = {
      attentionTensorArg("q", t, qShape, false),
      attentionTensorArg("k", t, kShape, false),
      attentionTensorArg("v", t, vShape, false),
      attentionTensorArg("out", t, oShape, false),
      attentionTensorArg("dout", t, oShape, false),
      attentionTensorArg("lse", DType::F32, {c.batch, c.hq, c.sq}, false),
      attentionTensorArg("dq", t, qShape, true),
      attentionTensorArg("dk", t, kShape, true),
      attentionTensorArg("dv", t, vShape, true),
      attentionScaleArg()};
  plan.grid[0] =
      uint32_t(keyPrograms(c) + llvm::divideCeil(c.sq, c.bm) * c.batch * c.hq);
  return plan;
}
