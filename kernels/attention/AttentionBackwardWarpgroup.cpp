//===- AttentionBackwardWarpgroup.cpp - the backward on warpgroup MMA -----===//
//
// The programs of AttentionBackward.cpp on sm_90a's warpgroup MMA, which
// reads both operands of every product from LDS in its 128-byte swizzle,
// 64 elements of K a tile (kWarpgroupBlock). A program's own rows (K and V
// of a key program, Q and dO of a query program) are stored there once as
// the first operands; the other side's rows arrive `step` = 64 at a time
// by asynchronous copies into two buffers, one step ahead, one barrier a
// step (as the forward's stages). Those rows are kept as 64 x 64 column
// blocks (copyColumnBlocks), which serve the same bytes as K-major second
// operands (their rows are the product's N) for S and dP and as panels of
// row-major second operands (their rows are the product's K) for the
// gradient products. P^T and dS^T (key program) or dS (query program) go
// through LDS between barriers to become first operands.
//
// A step's products are issued without waiting for one another; a wait
// for everything ends them before their results are read, so a step's
// barrier also ends every read of the buffer the copy after it refills.
//
// With dq_atomic there are no query programs: a key program also computes
// each step's dQ^T = K^T dS^T (M the head dimension, so the warp groups
// split it; K^T kept in LDS, dS^T already there for dK) and adds it into
// the fp32 scratch dq_accum. Every block of `step` queries has a count
// (dq_count) of the key programs that added into it; the one that brings
// it to the number of key programs whose walk visits the block (a closed
// form of the walk's bounds, visitors()) converts the block into dq and
// clears it. A program counts the step before's block while the step's
// gradient products run, so the count's fences find those adds long done.
//
//===----------------------------------------------------------------------===//
#include "AttentionBackwardBuilder.h"

#include "common/MatrixTiles.h"
#include "common/StagedWalk.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

namespace {
/// Two buffers of the streamed rows, one step of copies ahead.
constexpr unsigned kStages = 2;

/// acc + a * b over the K blocks of `a` ([n, M, 64]) and `b` ([n, N, 64]
/// K-major blocks): n chained products issued behind `inFlight` groups
/// already running, none waited for (each returns with every group issued
/// since still running), unless `waitAll`: then the last one waits for
/// everything. `inFlight` counts the groups issued.
Tile chainedDot(KernelBuilder &kb, LdsTile a, LdsTile b, Tile acc,
                unsigned &inFlight, bool waitAll) {
  int64_t n = a.getShape()[0];
  for (int64_t i = 0; i < n; ++i) {
    // wgmma.wait_group takes at most 7.
    inFlight = std::min(inFlight + 1, 7u);
    acc = kb.warpgroupDot(a.index(kb.i32(i)), b.index(kb.i32(i)), acc,
                          waitAll && i + 1 == n ? 0 : inFlight);
  }
  if (waitAll)
    inFlight = 0;
  return acc;
}
/// dq_atomic's side of a key program of batch entry `batch` whose walks
/// are bounded by `lower` and `upper` (keyBounds).
struct AtomicQueryGrad {
  AttentionBackwardBuilder &bb;
  const Sequences &seq;
  Scalar batch;
  std::optional<Scalar> lower, upper;

  /// The key programs whose walk visits the block of queries from `m0` (a
  /// multiple of step): tiles k with k BN < kLength whose getStepRuns
  /// [lo, hi) holds m0, i.e. k BN + lower < m0 + step and
  /// k BN + upper + BN > m0.
  Scalar visitors(Scalar m0) {
    KernelBuilder &kb = bb.kb;
    const AttentionConfig &c = bb.c;
    Scalar bn = kb.i32(c.bn), zero = kb.i32(0);
    Scalar hi = (seq.kLength + (c.bn - 1)) / bn;
    if (lower)
      hi = kb.min(hi, (kb.max(m0 + c.step - *lower, zero) + (c.bn - 1)) / bn);
    Scalar lo = zero;
    if (upper)
      lo = (kb.max(m0 - *upper - c.bn, kb.i32(-1)) + c.bn) / bn;
    return kb.max(hi - lo, zero);
  }

  Scalar countIndex(Scalar head, Scalar m0) {
    const AttentionConfig &c = bb.c;
    int64_t blocks = llvm::divideCeil(c.sq, c.step);
    return (batch * c.hq + head) * blocks + m0 / bb.kb.i32(c.step);
  }

  /// dQ^T ([D, step], unscaled) of the step from `m0` added into dq_accum.
  void add(Tile dqT, const HeadRows &q, Scalar m0) {
    KernelBuilder &kb = bb.kb;
    AccessOptions o;
    o.strides = {kb.i32(1), kb.i32(q.stride)};
    o.bounds = {q.column + bb.c.d, q.end};
    kb.atomicAdd(dqT, kb.ptrArg("dq_accum"), {q.column, q.first + m0}, o);
  }

  /// Counts this program's adds into the block from `m0`; the last of its
  /// visitors writes the block's dq and leaves its scratch zero.
  void arrive(Scalar head, const HeadRows &q, Scalar m0) {
    KernelBuilder &kb = bb.kb;
    const AttentionConfig &c = bb.c;
    Ptr count = kb.ptrArg("dq_count");
    Scalar index = countIndex(head, m0);
    Scalar expected = visitors(m0);
    Scalar before =
        kb.programAtomic(ProgramAtomicKind::Add, count, index, kb.i32(1));
    kb.ifThenElse(kb.compare(Cmp::EQ, before, expected - int64_t(1)), [&] {
      // 16 rows at a time: the step's products hold most registers.
      // dq_accum has q's shape, so q's view addresses its rows.
      constexpr int64_t kRows = 16;
      Ptr accum = kb.ptrArg("dq_accum");
      kb.forLoop(m0, m0 + c.step, kb.i32(kRows), {},
                 [&](Scalar row0, ArrayRef<Tile>) -> SmallVector<Tile> {
                   Tile sums =
                       loadHeadRows(kb, c, accum, q, row0, kRows, DType::F32);
                   storeHeadRows(kb, c, sums * bb.scale, kb.ptrArg("dq"), q,
                                 row0);
                   // Every lane's reads are in before any lane clears.
                   kb.barrier();
                   storeHeadRows(kb, c,
                                 kb.zeros({kRows, c.d}, sums.getLayout(),
                                          DType::F32),
                                 accum, q, row0, DType::F32);
                   return {};
                 });
      kb.programAtomic(ProgramAtomicKind::Xchg, count, index, kb.i32(0));
    });
  }

  /// dq = 0 for the blocks no key program visits (rows that see no key),
  /// the blocks from `first` `stride` apart of each head of `kvHead`'s
  /// group, so that the key programs share them.
  void clearUnvisited(Scalar kvHead, Scalar first, int64_t stride) {
    KernelBuilder &kb = bb.kb;
    const AttentionConfig &c = bb.c;
    Scalar blocks = (seq.qLength + (c.step - 1)) / kb.i32(c.step);
    Layout layout = kb.defaultLayout({c.step, c.d}, c.dtype, c.waveSize);
    kb.forLoop(
        kb.i32(0), kb.i32(c.hq / c.hkv), kb.i32(1), {},
        [&](Scalar g, ArrayRef<Tile>) -> SmallVector<Tile> {
          HeadRows q = bb.queryHead(seq, batch, kvHead, g).q;
          kb.forLoop(first, blocks, kb.i32(stride), {},
                     [&](Scalar block, ArrayRef<Tile>) -> SmallVector<Tile> {
                       Scalar m0 = block * c.step;
                       kb.ifThenElse(
                           kb.compare(Cmp::EQ, visitors(m0), kb.i32(0)), [&] {
                             storeHeadRows(kb, c,
                                           kb.zeros({c.step, c.d}, layout,
                                                    c.dtype),
                                           kb.ptrArg("dq"), q, m0);
                           });
                       return {};
                     });
          return {};
        });
  }
};
} // namespace

int64_t mlir::rocdsl::queryBlockCounts(const AttentionConfig &c) {
  return c.batch * c.hq * llvm::divideCeil(c.sq, c.step);
}

void mlir::rocdsl::clearUnvisitedQueries(AttentionBackwardBuilder &bb,
                                         const Sequences &seq, Scalar batch,
                                         Scalar kvHead, Scalar tile,
                                         int64_t tiles) {
  AttentionBackwardBuilder::KeyBounds bounds = bb.keyBounds(seq);
  AtomicQueryGrad{bb, seq, batch, bounds.lower, bounds.upper}.clearUnvisited(
      kvHead, tile, tiles);
}

void mlir::rocdsl::buildWarpgroupKeyProgram(AttentionBackwardBuilder &bb,
                                            const Sequences &seq, Scalar k0,
                                            Scalar batch, Scalar kvHead) {
  KernelBuilder &kb = bb.kb;
  const AttentionConfig &c = bb.c;
  int64_t step = c.step, dBlocks = c.d / kWarpgroupBlock,
          vBlocks = c.dv / kWarpgroupBlock;
  HeadRows kView = getHeadRows(kb, c, seq, batch, kvHead, false, c.d);
  HeadRows vView = getHeadRows(kb, c, seq, batch, kvHead, false, c.dv);
  LdsTile keys = allocWarpgroupTiles(kb, c, dBlocks, {c.bn, kWarpgroupBlock});
  LdsTile values =
      allocWarpgroupTiles(kb, c, vBlocks, {c.bn, kWarpgroupBlock});
  storeColumnBlocks(kb, c, kb.ptrArg("k"), kView, k0, keys);
  storeColumnBlocks(kb, c, kb.ptrArg("v"), vView, k0, values);
  LdsTile qStack = allocWarpgroupTiles(
      kb, c, kStages, {dBlocks, step, kWarpgroupBlock});
  LdsTile doStack = allocWarpgroupTiles(
      kb, c, kStages, {vBlocks, step, kWarpgroupBlock});
  LdsTile pT = allocWarpgroupTiles(kb, c, 1, {c.bn, kWarpgroupBlock});
  LdsTile dsT = allocWarpgroupTiles(kb, c, 1, {c.bn, kWarpgroupBlock});
  // dq_atomic: K^T, 64 keys a tile, the first operand of dQ^T = K^T dS^T.
  int64_t keyBlocks = c.bn / kWarpgroupBlock;
  LdsTile keysT;
  if (c.dqAtomic) {
    keysT = allocWarpgroupTiles(kb, c, keyBlocks, {c.d, kWarpgroupBlock});
    for (int64_t j = 0; j < keyBlocks; ++j)
      AttentionBackwardBuilder::storeTransposed(
          keysT.index(kb.i32(j)),
          loadHeadRows(kb, c, kb.ptrArg("k"), kView,
                       k0 + j * kWarpgroupBlock, kWarpgroupBlock));
  }

  AttentionBackwardBuilder::KeyBounds bounds = bb.keyBounds(seq);
  std::optional<Scalar> lower = bounds.lower, upper = bounds.upper;
  AtomicQueryGrad atomicGrad{bb, seq, batch, lower, upper};
  StepRuns runs = getStepRuns(kb, k0, c.bn, seq.qLength, step, lower, upper);
  Tile keyRows = kb.iota(c.bn, bb.rowLayout) + k0;
  Tile zeroS = kb.zeros({c.bn, step}, bb.acc, DType::F32);
  auto cols = [&](Tile t) { return t.expandDims(0).broadcastTo({c.bn, step}); };

  SmallVector<Tile> grads = bb.sumOverGroup(
      seq, batch, kvHead,
      [&](const AttentionBackwardBuilder::QueryHead &h,
          ArrayRef<Tile> headGrads) -> SmallVector<Tile> {
        const HeadRows &qView = h.q, &oView = h.out, &lseView = h.lse;
        HeadRows qWalk = boundedRows(kb, qView, runs.hi);
        HeadRows doWalk = boundedRows(kb, oView, runs.hi);
        auto copy = [&](Scalar m0, Scalar buffer) {
          copyColumnBlocks(kb, c, kb.ptrArg("q"), qWalk, m0,
                           qStack.index(buffer));
          copyColumnBlocks(kb, c, kb.ptrArg("dout"), doWalk, m0,
                           doStack.index(buffer));
        };
        StagedWalk walk{kb, runs.lo, kb.i32(step), kStages, copy};
        walk.prologue();
        auto body = [&](bool masked) {
          return [&, masked](Scalar m0,
                             ArrayRef<Tile> carried) -> SmallVector<Tile> {
            Tile dk = carried[0], dv = carried[1];
            Scalar buffer = walk.enter(m0);
            LdsTile queries = qStack.index(buffer);
            LdsTile dout = doStack.index(buffer);
            // The products run while the step's lse and delta are loaded.
            unsigned inFlight = 0;
            Tile sT = chainedDot(kb, keys, queries, zeroS, inFlight, false);
            Tile dpT = chainedDot(kb, values, dout, zeroS, inFlight, false);
            Tile lse2 = bb.loadLseLog2(lseView, m0, step, bb.colLayout);
            Tile delta = bb.loadDelta(lseView, m0, step, bb.colLayout);
            dpT = kb.warpgroupWait(dpT);
            sT = kb.warpgroupWait(sT);
            std::optional<Tile> seen;
            if (masked)
              seen = visiblePairs(kb, keyRows, kb.iota(step, bb.colLayout) + m0,
                                  seq.qLength, lower, upper);
            auto [p, ds] =
                bb.probabilitiesAndGrad(sT, dpT, cols(lse2), cols(delta), seen);
            // (One op per statement: argument evaluation order must not
            // change the kernel.)
            Tile pOperand = p.to(c.dtype);
            Tile dsOperand = ds.to(c.dtype);
            pT.index(kb.i32(0)).store(pOperand);
            dsT.index(kb.i32(0)).store(dsOperand);
            if (c.dqAtomic) {
              // dQ^T += K^T dS^T over the key blocks (dS^T's rows as
              // panels of the row-major second operand), then dV and dK;
              // while they run, the step before's block is counted.
              Tile dqT = kb.zeros({c.d, step}, bb.acc, DType::F32);
              unsigned pending = 0;
              for (int64_t j = 0; j < keyBlocks; ++j)
                dqT = kb.warpgroupDot(
                    keysT.index(kb.i32(j)),
                    dsT.view(kb.i32(j), {1, kWarpgroupBlock, step}), dqT,
                    ++pending);
              dv = kb.warpgroupDot(pT.index(kb.i32(0)), dout, dv, ++pending);
              dk = kb.warpgroupDot(dsT.index(kb.i32(0)), queries, dk,
                                   ++pending);
              kb.ifThenElse(kb.compare(Cmp::GT, m0, runs.lo), [&] {
                atomicGrad.arrive(h.head, h.q, m0 - step);
              });
              atomicGrad.add(kb.warpgroupWait(dqT, 2), h.q, m0);
              dk = kb.warpgroupWait(dk);
              return {dk, kb.warpgroupWait(dv)};
            }
            // dV += P^T dO and dK += dS^T Q: the streamed blocks as
            // panels of the row-major second operand.
            dv = kb.warpgroupDot(pT.index(kb.i32(0)), dout, dv, 1);
            dk = kb.warpgroupDot(dsT.index(kb.i32(0)), queries, dk, 0);
            // dK's wait ended dV's product too; the (free) wait says so,
            // so that dV leaves the step as a plain value whatever the
            // loops around it fold into.
            return {dk, kb.warpgroupWait(dv)};
          };
        };
        SmallVector<Tile> state = walkStepRuns(
            kb, runs, step, headGrads, lower.has_value(),
            upper || c.sq % step || c.varlen(),
            [&](bool masked, Scalar m0, ArrayRef<Tile> carried) {
              return body(masked)(m0, carried);
            });
        // The walk's last block is counted once its adds are in.
        if (c.dqAtomic)
          kb.ifThenElse(kb.compare(Cmp::GT, runs.hi, runs.lo), [&] {
            Scalar last =
                runs.lo + (runs.hi - runs.lo - int64_t(1)) / kb.i32(step) *
                              step;
            atomicGrad.arrive(h.head, h.q, last);
          });
        // The next head's prologue refills buffer 0.
        walk.drain();
        return state;
      });
  storeHeadRows(kb, c, grads[0] * bb.scale, kb.ptrArg("dk"), kView, k0);
  storeHeadRows(kb, c, grads[1], kb.ptrArg("dv"), vView, k0);
}

void mlir::rocdsl::buildWarpgroupQueryProgram(AttentionBackwardBuilder &bb,
                                              const Sequences &seq, Scalar q0,
                                              Scalar batch, Scalar head) {
  KernelBuilder &kb = bb.kb;
  const AttentionConfig &c = bb.c;
  int64_t step = c.step, dBlocks = c.d / kWarpgroupBlock,
          vBlocks = c.dv / kWarpgroupBlock;
  Scalar kvHead = head / kb.i32(c.hq / c.hkv);
  HeadRows qView = getHeadRows(kb, c, seq, batch, head, true, c.d);
  HeadRows oView = getHeadRows(kb, c, seq, batch, head, true, c.dv);
  HeadRows kView = getHeadRows(kb, c, seq, batch, kvHead, false, c.d);
  HeadRows vView = getHeadRows(kb, c, seq, batch, kvHead, false, c.dv);
  HeadRows lseView = getLseRows(kb, c, seq, batch, head);
  LdsTile queries = allocWarpgroupTiles(kb, c, dBlocks, {c.bm, kWarpgroupBlock});
  LdsTile dout = allocWarpgroupTiles(kb, c, vBlocks, {c.bm, kWarpgroupBlock});
  storeColumnBlocks(kb, c, kb.ptrArg("q"), qView, q0, queries);
  storeColumnBlocks(kb, c, kb.ptrArg("dout"), oView, q0, dout);
  auto rows = [&](Tile t) { return t.expandDims(1).broadcastTo({c.bm, step}); };
  Tile lse2 = rows(bb.loadLseLog2(lseView, q0, c.bm, bb.rowLayout));
  Tile delta = rows(bb.loadDelta(lseView, q0, c.bm, bb.rowLayout));
  LdsTile kStack = allocWarpgroupTiles(
      kb, c, kStages, {dBlocks, step, kWarpgroupBlock});
  LdsTile vStack = allocWarpgroupTiles(
      kb, c, kStages, {vBlocks, step, kWarpgroupBlock});
  LdsTile dsTile = allocWarpgroupTiles(kb, c, 1, {c.bm, kWarpgroupBlock});

  StepRuns runs =
      getStepRuns(kb, q0, c.bm, seq.kLength, step, seq.lower, seq.upper);
  HeadRows kWalk = boundedRows(kb, kView, runs.hi);
  HeadRows vWalk = boundedRows(kb, vView, runs.hi);
  auto copy = [&](Scalar n0, Scalar buffer) {
    copyColumnBlocks(kb, c, kb.ptrArg("k"), kWalk, n0, kStack.index(buffer));
    copyColumnBlocks(kb, c, kb.ptrArg("v"), vWalk, n0, vStack.index(buffer));
  };
  StagedWalk walk{kb, runs.lo, kb.i32(step), kStages, copy};
  walk.prologue();
  Tile queryRows = kb.iota(c.bm, bb.rowLayout) + q0;
  Tile zeroS = kb.zeros({c.bm, step}, bb.acc, DType::F32);
  auto body = [&](bool masked) {
    return [&, masked](Scalar n0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
      Scalar buffer = walk.enter(n0);
      LdsTile keys = kStack.index(buffer);
      unsigned inFlight = 0;
      Tile s = chainedDot(kb, queries, keys, zeroS, inFlight, false);
      Tile dp = chainedDot(kb, dout, vStack.index(buffer), zeroS, inFlight,
                           true);
      s = kb.warpgroupWait(s);
      std::optional<Tile> seen;
      if (masked)
        seen = visiblePairs(kb, queryRows, kb.iota(step, bb.colLayout) + n0,
                            seq.kLength, seq.lower, seq.upper);
      Tile ds = bb.probabilitiesAndGrad(s, dp, lse2, delta, seen).second;
      Tile dsOperand = ds.to(c.dtype);
      dsTile.index(kb.i32(0)).store(dsOperand);
      // dQ += dS K: the key blocks as panels of the row-major operand.
      return {kb.warpgroupDot(dsTile.index(kb.i32(0)), keys, carried[0], 0)};
    };
  };
  SmallVector<Tile> dq = walkStepRuns(
      kb, runs, step, {kb.zeros({c.bm, c.d}, bb.acc, DType::F32)},
      seq.lower.has_value(), seq.upper || c.sk % step || c.varlen(),
      [&](bool masked, Scalar n0, ArrayRef<Tile> carried) {
        return body(masked)(n0, carried);
      });
  walk.drain();
  storeHeadRows(kb, c, dq[0] * bb.scale, kb.ptrArg("dq"), qView, q0);
}
