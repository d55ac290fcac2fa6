//===- AttentionForward.cpp - FlashAttention-2 forward --------------------===//
//
// One program computes BM query rows of one (batch, query head): Q is read
// once into the first product's operand layout; keys and values are walked
// in BN-key steps, only over the steps the mask leaves anything in. Each
// step forms S = Q K^T in the accumulator layout, scaled into log2 units
// (scale * log2(e), so the exponentials are the hardware's exp2), masked,
// and folds it into the running row maximum m, row sum l and output
// accumulator O with the online softmax:
//   m' = max(m, rowmax S)   a = 2^(m - m')   P = 2^(S - m')
//   l' = a l + rowsum P     O' = a O + P V
// The waves split the rows, so the row statistics never leave a wave. The
// epilogue divides by l and writes O and the natural-log log-sum-exp
// (m + log2 l) ln 2 for the backward.
//
//===----------------------------------------------------------------------===//
#include "Attention.h"

#include "common/MatrixTiles.h"
#include "common/StagedWalk.h"

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

OwningOpRef<ModuleOp>
mlir::rocdsl::buildAttentionForward(MLIRContext *ctx,
                                    const AttentionConfig &c) {
  SmallVector<ArgSpec> args = {
      ArgSpec::ptr("q", c.dtype), ArgSpec::ptr("k", c.dtype),
      ArgSpec::ptr("v", c.dtype), ArgSpec::ptr("out", c.dtype),
      ArgSpec::ptr("lse", DType::F32)};
  appendSequenceArgSpecs(c, args);
  args.push_back(ArgSpec::scalar("scale", DType::F32));
  KernelBuilder kb(ctx, "attention_fwd", unsigned(c.warps), args);
  // Scaled scores minus the row maximum, the rescaled row sums: fmas.
  kb.allowContraction();
  OpBuilder &b = kb.getBuilder();
  Location loc = kb.getLoc();

  // Program -> (query tile, batch entry, query head, key/value head). The
  // last query tiles first: under a causal mask theirs are the longest
  // walks, and the grid should not end on a few of them.
  Scalar q0 =
      (kb.i32(llvm::divideCeil(c.sq, c.bm) - 1) - kb.programId(0)) * c.bm;
  Scalar bh = kb.programId(1);
  Scalar batch = bh / kb.i32(c.hq);
  Scalar head = kb.rem(bh, kb.i32(c.hq));
  Scalar kvHead = head / kb.i32(c.hq / c.hkv);
  // This head's rows of this batch entry's sequences in the tensors.
  Sequences seq = getSequences(kb, c, batch);
  HeadRows qView = getHeadRows(kb, c, seq, batch, head, true, c.d);
  HeadRows outView = getHeadRows(kb, c, seq, batch, head, true, c.dv);
  HeadRows kView = getHeadRows(kb, c, seq, batch, kvHead, false, c.d);
  HeadRows vView = getHeadRows(kb, c, seq, batch, kvHead, false, c.dv);
  HeadRows lseView = getLseRows(kb, c, seq, batch, head);

  // scale = 0 selects 1/sqrt(D); either way folded with log2(e).
  Value scaleArg = kb.scalarArg("scale").getValue();
  Value isDefault = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          scaleArg, kb.f32(0).getValue());
  Scalar scale(&kb,
               arith::SelectOp::create(
                   b, loc, isDefault,
                   kb.f32(1.0 / std::sqrt(double(c.d))).getValue(), scaleArg));
  // A negative scale is folded into Q (negating bf16/f16 is exact), so
  // that the scale applied to the scores is positive: then the row maximum
  // of the raw scores gives that of the scaled ones, and each scaled score
  // minus the maximum is one fma.
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                         scale.getValue(), kb.f32(0).getValue());
  Scalar magnitude(&kb, arith::SelectOp::create(
                            b, loc, negative,
                            arith::NegFOp::create(b, loc, scale.getValue()),
                            scale.getValue()));
  Scalar scaleLog2 = magnitude * kb.f32(llvm::numbers::log2e);

  // Layouts: the accumulator (waves along the rows), its row and column
  // slices, the operands.
  Layout acc =
      c.nvidia ? kb.mma({unsigned(c.warps), 1})
               : kb.mfma(c.matrixVersion, {c.instr[0], c.instr[1], c.instr[2]},
                         {unsigned(c.warps), 1});
  Layout rowLayout = kb.slice(acc, 1), colLayout = kb.slice(acc, 0);
  unsigned kWidth = c.nvidia ? 2 : c.kWidth;
  Layout opA = kb.dotOperand(0, acc, kWidth);
  Layout opB = kb.dotOperand(1, acc, kWidth);

  // LDS tiles keep the head dimension (global memory's contiguous one)
  // fastest (operandLdsTile).
  auto ldsTile = [&](int64_t rows, int64_t cols, bool colMajor, bool kFast,
                     unsigned buffers = 0) {
    return operandLdsTile(kb, rows, cols, c.dtype, colMajor, kFast, c.nvidia,
                          c.kWidth, c.ldsBanks, c.ldsTransposeReads, buffers);
  };

  // The program's rows (past the end of a short packed sequence: none).
  auto body = [&] {
    Ptr kPtr = kb.ptrArg("k"), vPtr = kb.ptrArg("v");
    // Q, negated with a negative scale.
    auto signedQuery = [&](Tile t) {
      return kb.select(
          kb.full(t.getShape(), t.getLayout(), Scalar(&kb, negative)), -t, t);
    };
    Tile q;
    if (!c.wgmma) {
      LdsTile ldsQ = ldsTile(c.bm, c.d, /*colMajor=*/false, /*kFast=*/true);
      ldsQ.store(
          signedQuery(loadHeadRows(kb, c, kb.ptrArg("q"), qView, q0, c.bm)));
      q = ldsQ.load(opA);
    }
    // The key steps the mask leaves anything in: query i sees key j when
    // offset - window_left <= j - i <= offset + right.
    StepRuns runs =
        getStepRuns(kb, q0, c.bm, seq.kLength, c.bn, seq.lower, seq.upper);

    float negInf = -std::numeric_limits<float>::infinity();
    auto rowsOf = [&](Tile t, int64_t cols) {
      return t.expandDims(1).broadcastTo({c.bm, cols});
    };
    Tile queryRows = kb.iota(c.bm, rowLayout) + q0;
    Tile zeroS =
        kb.zeros({c.bm, c.wgmma ? kWarpgroupBlock : c.bn}, acc, DType::F32);
    // The online softmax of the step at key n0 over its raw scores, given
    // as blocks of consecutive key columns (one block for mma.sync and
    // MFMA; 64-key blocks for warpgroup MMA, whose second product takes P
    // 64 keys at a time): the new row maximum, the old sums' rescale
    // factor, the new row sum and each block's probabilities.
    struct SoftmaxStep {
      Tile mNext, alpha, lNext;
      SmallVector<Tile> p;
    };
    auto softmaxStep = [&](bool masked, Scalar n0, SmallVector<Tile> s,
                           Tile m, Tile l) {
      // The row statistics are kept in scaled log2 units. With a soft cap
      // the scores are capped (and scaled) first; without, the row maximum
      // is taken on the raw scores and each scaled score minus it is one
      // fma.
      Scalar factor = scaleLog2;
      if (c.softcap > 0) {
        for (Tile &block : s)
          block = softcapScores(kb, block, magnitude, c.softcap).first *
                  kb.f32(llvm::numbers::log2e);
        factor = kb.f32(1);
      }
      int64_t width = s.front().getShape()[1];
      if (masked)
        for (auto [i, block] : llvm::enumerate(s)) {
          Tile seen = visiblePairs(
              kb, queryRows, kb.iota(width, colLayout) + (n0 + int64_t(i) * width),
              seq.kLength, seq.lower, seq.upper);
          block = kb.select(seen, block,
                            kb.full({c.bm, width}, acc, kb.f32(negInf)));
        }
      Tile rowMax = s.front().max(1);
      for (Tile block : ArrayRef<Tile>(s).drop_front())
        rowMax = rowMax.maximum(block.max(1));
      SoftmaxStep out;
      out.mNext = m.maximum(rowMax * factor);
      // Rows that have seen no key yet keep m = -inf: subtract 0 instead,
      // so that their (all -inf) scores give 2^-inf = 0, not NaN. (Without
      // a mask every key is seen and the maximum is finite.)
      Tile mShift = out.mNext;
      if (masked) {
        Tile rowNegInf = kb.full({c.bm}, rowLayout, kb.f32(negInf));
        mShift = kb.select(out.mNext.compare(Cmp::EQ, rowNegInf),
                           kb.zeros({c.bm}, rowLayout, DType::F32), out.mNext);
      }
      out.alpha = (m - mShift).exp2();
      Tile rowSum;
      for (Tile block : s) {
        Tile p = (block * factor - rowsOf(mShift, width)).exp2();
        Tile blockSum = p.sum(1);
        rowSum = rowSum.getValue() ? rowSum + blockSum : blockSum;
        out.p.push_back(p);
      }
      out.lNext = l * out.alpha + rowSum;
      return out;
    };
    // The products and the online softmax of the step at key n0, from its
    // K^T and V operands (read from LDS when asked, so that the reads sit
    // right before their products).
    auto update = [&](bool masked, Scalar n0, ArrayRef<Tile> carried,
                      function_ref<Tile()> readKeys,
                      function_ref<Tile()> readValues) {
      Tile o = carried[0], m = carried[1], l = carried[2];
      SoftmaxStep step =
          softmaxStep(masked, n0, {kb.dot(q, readKeys(), zeroS)}, m, l);
      // (One op per statement: the order in which a compiler evaluates
      // function arguments must not change the kernel.)
      Tile pOperand = step.p.front().to(c.dtype).convertTo(opA);
      Tile values = readValues();
      Tile scaled = o * rowsOf(step.alpha, c.dv);
      Tile oNext = kb.dot(pOperand, values, scaled);
      return SmallVector<Tile>{oNext, step.mNext, step.lNext};
    };
    SmallVector<Tile> state = {kb.zeros({c.bm, c.dv}, acc, DType::F32),
                               kb.full({c.bm}, rowLayout, kb.f32(negInf)),
                               kb.zeros({c.bm}, rowLayout, DType::F32)};
    // Walks the runs of masked and whole steps with `step(masked)`.
    auto walk = [&](auto step) {
      state = walkStepRuns(
          kb, runs, c.bn, state, seq.lower.has_value(),
          seq.upper || c.sk % c.bn || c.varlen(),
          [&](bool masked, Scalar n0, ArrayRef<Tile> carried) {
            return SmallVector<Tile>(step(masked)(n0, carried));
          });
    };

    if (c.wgmma) {
      // Warpgroup MMA (sm_90a): the matrix unit reads both operands of both
      // products from LDS, in its 128-byte swizzle, 64 elements of K a
      // tile. Q stays in LDS for the whole walk as D / 64 column blocks;
      // keys and values come in S stages of BN / 64 key blocks, as the
      // asynchronous path below (one barrier a step, S - 1 steps of copies
      // in flight): a key block as D / 64 tiles of 64 keys x 64 (K-major
      // B of S = Q K^T), a value block as Dv / 64 panels of 64 keys x 64
      // columns (row-major B of O += P V; copyColumnBlocks). P goes
      // through LDS too, one 64-key tile a block; its store sits between
      // barriers (the trailing one, after the proxy fence, publishes it
      // to the unit). The last product of each chain waits for all the
      // step's products, so a step's barrier also ends the reads of the
      // buffers the copy after it refills.
      unsigned stages = unsigned(c.stages);
      int64_t blocks = c.bn / kWarpgroupBlock;
      int64_t dBlocks = c.d / kWarpgroupBlock;
      int64_t vBlocks = c.dv / kWarpgroupBlock;
      LdsTile ldsQ = allocWarpgroupTiles(kb, c, dBlocks, {c.bm, kWarpgroupBlock});
      storeColumnBlocks(kb, c, kb.ptrArg("q"), qView, q0, ldsQ, signedQuery);
      // Buffer b's key block j: stack index b * blocks + j.
      LdsTile stackK = allocWarpgroupTiles(
          kb, c, stages * blocks, {dBlocks, kWarpgroupBlock, kWarpgroupBlock});
      LdsTile stackV = allocWarpgroupTiles(
          kb, c, stages * blocks, {vBlocks, kWarpgroupBlock, kWarpgroupBlock});
      LdsTile ldsP = allocWarpgroupTiles(kb, c, blocks, {c.bm, kWarpgroupBlock});
      HeadRows kWalk = boundedRows(kb, kView, runs.hi);
      HeadRows vWalk = boundedRows(kb, vView, runs.hi);
      auto copyStep = [&](Scalar n0, Scalar buffer) {
        for (int64_t j = 0; j < blocks; ++j) {
          Scalar keys = n0 + j * kWarpgroupBlock;
          copyColumnBlocks(kb, c, kPtr, kWalk, keys,
                           stackK.index(buffer * blocks + j));
          copyColumnBlocks(kb, c, vPtr, vWalk, keys,
                           stackV.index(buffer * blocks + j));
        }
      };
      StagedWalk staged{kb, runs.lo, kb.i32(c.bn), stages, copyStep};
      staged.prologue();
      auto step = [&](bool masked) {
        return [&, masked](Scalar n0, ArrayRef<Tile> carried) {
          Scalar buffer = staged.enter(n0);
          // S, block by block: every product but the last returns with
          // its own still running (its chain's next link, or the next
          // block, overlaps it); the last one's wait ends them all.
          int64_t products = blocks * dBlocks, issued = 0;
          SmallVector<Tile> scores;
          for (int64_t j = 0; j < blocks; ++j) {
            Tile sj = zeroS;
            LdsTile keys = stackK.index(buffer * blocks + j);
            for (int64_t d = 0; d < dBlocks; ++d)
              sj = kb.warpgroupDot(ldsQ.index(kb.i32(d)), keys.index(kb.i32(d)),
                                   sj, ++issued < products ? 1 : 0);
            scores.push_back(sj);
          }
          // (The last block's product waited for everything.)
          for (size_t j = 0; j + 1 < scores.size(); ++j)
            scores[j] = kb.warpgroupWait(scores[j]);
          Tile o = carried[0], m = carried[1], l = carried[2];
          SoftmaxStep soft = softmaxStep(masked, n0, scores, m, l);
          SmallVector<Tile> pBlocks;
          for (Tile p : soft.p)
            pBlocks.push_back(p.to(c.dtype));
          for (int64_t j = 0; j < blocks; ++j)
            ldsP.index(kb.i32(j)).store(pBlocks[j]);
          Tile oNext = o * rowsOf(soft.alpha, c.dv);
          for (int64_t j = 0; j < blocks; ++j)
            oNext = kb.warpgroupDot(ldsP.index(kb.i32(j)),
                                    stackV.index(buffer * blocks + j), oNext,
                                    j + 1 < blocks ? 1 : 0);
          return SmallVector<Tile>{oNext, soft.mNext, soft.lNext};
        };
      };
      walk(step);
      staged.drain();
    } else if (c.stages == 1) {
      // Keys and values pass through registers: each step stores them to
      // LDS (K^T transposed by renaming) between barriers; with prefetch
      // the step before loaded them, and this step issues the next step's
      // loads, in flight during the products.
      LdsTile ldsK = ldsTile(c.d, c.bn, /*colMajor=*/true, /*kFast=*/true);
      LdsTile ldsV = ldsTile(c.bn, c.dv, /*colMajor=*/false, /*kFast=*/false);
      auto loadKeys = [&](Scalar n0) {
        return loadHeadRows(kb, c, kPtr, kView, n0, c.bn);
      };
      auto loadValues = [&](Scalar n0) {
        return loadHeadRows(kb, c, vPtr, vView, n0, c.bn);
      };
      auto step = [&](bool masked) {
        return [&, masked](Scalar n0, ArrayRef<Tile> carried) {
          Tile keys = c.prefetch ? carried[3] : loadKeys(n0);
          Tile values = c.prefetch ? carried[4] : loadValues(n0);
          ldsK.store(keys.transposed(getTransposedLayout(keys.getLayout())));
          ldsV.store(values);
          SmallVector<Tile> next;
          if (c.prefetch) {
            next = {loadKeys(n0 + c.bn), loadValues(n0 + c.bn)};
            // (AMDGPU's scheduler would sink the loads below the products.)
            kb.schedBarrier();
          }
          SmallVector<Tile> result =
              update(masked, n0, carried, [&] { return ldsK.load(opB); },
                     [&] { return ldsV.load(opB); });
          result.append(next);
          return result;
        };
      };
      if (c.prefetch)
        state.append({loadKeys(runs.lo), loadValues(runs.lo)});
      walk(step);
    } else {
      // S buffers of keys and values, S - 1 steps in flight: asynchronous
      // copies straight into LDS (cp.async on NVIDIA), keys by rows as
      // global memory holds them and read back transposed as K^T. Step i
      // (key lo + i BN) lives in buffer i % S. Each step waits for its own
      // copies (at most S - 2 newer groups may still run); its one barrier
      // publishes every lane's copies and ends all reads of the buffer the
      // step before used, which the copy of step i + S - 1 then refills.
      // One group is committed per step, empty or not, so the counts stay
      // exact; copies past the walk's last key are masked off (no reads).
      unsigned stages = unsigned(c.stages);
      LdsTile stackK = ldsTile(c.bn, c.d, /*colMajor=*/false,
                               /*kFast=*/true, stages);
      LdsTile stackV = ldsTile(c.bn, c.dv, /*colMajor=*/false,
                               /*kFast=*/false, stages);
      HeadRows kWalk = boundedRows(kb, kView, runs.hi);
      HeadRows vWalk = boundedRows(kb, vView, runs.hi);
      auto copyStep = [&](Scalar n0, Scalar buffer) {
        copyHeadRows(kb, c, kPtr, kWalk, n0, stackK.index(buffer));
        copyHeadRows(kb, c, vPtr, vWalk, n0, stackV.index(buffer));
      };
      // Q's LDS tile may share bytes with the stacks: every wave has read
      // it before the first copy.
      kb.barrier();
      StagedWalk staged{kb, runs.lo, kb.i32(c.bn), stages, copyStep};
      staged.prologue();
      auto step = [&](bool masked) {
        return [&, masked](Scalar n0, ArrayRef<Tile> carried) {
          Scalar buffer = staged.enter(n0);
          return update(
              masked, n0, carried,
              [&] { return stackK.index(buffer).loadTransposed(opB); },
              [&] { return stackV.index(buffer).load(opB); });
        };
      };
      walk(step);
      // Nothing may be in flight into LDS when the epilogue's conversions
      // reuse it.
      staged.drain();
    }
    Tile o = state[0], m = state[1], l = state[2];

    // Epilogue: rows that saw no key (l = 0) get out = 0, lse = +inf.
    Tile empty = l.compare(Cmp::EQ, kb.zeros({c.bm}, rowLayout, DType::F32));
    Tile one = kb.full({c.bm}, rowLayout, kb.f32(1));
    Tile out = (o / rowsOf(kb.select(empty, one, l), c.dv)).to(c.dtype);
    storeHeadRows(kb, c, out, kb.ptrArg("out"), outView, q0);
    Tile lse = (m + l.log2()) * kb.f32(llvm::numbers::ln2);
    lse = kb.select(empty,
                    kb.full({c.bm}, rowLayout,
                            kb.f32(std::numeric_limits<float>::infinity())),
                    lse);
    storeRowStats(kb, lse, kb.ptrArg("lse"), lseView, q0);
  };
  withinSequence(kb, c, q0, seq.qLength, body);
  return kb.finish();
}

LaunchPlan mlir::rocdsl::planAttentionForward(const AttentionConfig &c) {
  LaunchPlan plan;
  plan.kernelName = "attention_fwd";
  plan.args = {
      attentionTensorArg("q", c.dtype, attentionShape(c, true, c.d), false),
      attentionTensorArg("k", c.dtype, attentionShape(c, false, c.d), false),
      attentionTensorArg("v", c.dtype, attentionShape(c, false, c.dv), false),
      attentionTensorArg("out", c.dtype, attentionShape(c, true, c.dv), true),
      attentionTensorArg("lse", DType::F32, attentionLseShape(c), true)};
  appendSequenceArgs(c, plan.args);
  plan.args.push_back(attentionScaleArg());
  plan.grid[0] = uint32_t(llvm::divideCeil(c.sq, c.bm));
  plan.grid[1] = uint32_t(c.batch * c.hq);
  return plan;
}
