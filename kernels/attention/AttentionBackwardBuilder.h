//===- AttentionBackwardBuilder.h - what backward programs share -*- C++ -*-===//
//
// The arguments, layouts, scale and access helpers both kinds of backward
// program build on, on mma.sync/MFMA (AttentionBackward.cpp) and on
// warpgroup MMA (AttentionBackwardWarpgroup.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_KERNELS_ATTENTION_BACKWARDBUILDER_H
#define ROCDSL_KERNELS_ATTENTION_BACKWARDBUILDER_H

#include "Attention.h"

#include "common/MatrixTiles.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <optional>

namespace mlir::rocdsl {

using dsl::Cmp;
using dsl::DType;
using dsl::KernelBuilder;
using dsl::Layout;
using dsl::LdsTile;
using dsl::Scalar;
using dsl::Tile;
using dsl::AccessOptions;

/// What both kinds of program build on: arguments, layouts, scale, the
/// access helpers.
struct AttentionBackwardBuilder {
  KernelBuilder &kb;
  const AttentionConfig &c;
  Layout acc, rowLayout, colLayout, opA, opB;
  Scalar scale, scaleLog2;

  AttentionBackwardBuilder(KernelBuilder &kb, const AttentionConfig &c) : kb(kb), c(c) {
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
  }

  Tile loadRows(StringRef name, const HeadRows &view, Scalar row0,
                int64_t rows) {
    return loadHeadRows(kb, c, kb.ptrArg(name), view, row0, rows);
  }
  /// The `count` entries of a head's lse (in log2 units) from `row0`.
  Tile loadLseLog2(const HeadRows &view, Scalar row0, int64_t count,
                   Layout layout) {
    return loadRowStats(kb, kb.ptrArg("lse"), view, row0, count, layout) *
           kb.f32(llvm::numbers::log2e);
  }
  /// The same entries of delta = rowsum(dO * O) (attention_bwd_delta's).
  Tile loadDelta(const HeadRows &view, Scalar row0, int64_t count,
                 Layout layout) {
    return loadRowStats(kb, kb.ptrArg("delta"), view, row0, count, layout);
  }
  LdsTile ldsTile(int64_t rows, int64_t cols, bool colMajor, bool kFast) {
    return operandLdsTile(kb, rows, cols, c.dtype, colMajor, kFast, c.nvidia,
                          c.kWidth, c.ldsBanks, c.ldsTransposeReads);
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

  /// Rows [n, d] kept in LDS for two second operands: as they are (d the
  /// product's N) and transposed (d its K). On NVIDIA both reads want the
  /// same 16-byte swizzle groups, so one copy serves both, read transposed
  /// in place; AMD's K-fast reads want narrower groups (operandLdsTile),
  /// so there the transpose is a second, K-fast copy.
  struct RowsBothWays {
    LdsTile rows, transposed;
    bool inPlace = false;
    void store(Tile t) const {
      if (!inPlace)
        storeTransposed(transposed, t);
      rows.store(t);
    }
    Tile loadRows(Layout layout) const { return rows.load(layout); }
    Tile loadTransposed(Layout layout) const {
      return inPlace ? rows.loadTransposed(layout) : transposed.load(layout);
    }
  };
  RowsBothWays rowsBothWays(int64_t n, int64_t d) {
    RowsBothWays tiles;
    tiles.inPlace = c.nvidia;
    if (!tiles.inPlace)
      tiles.transposed = ldsTile(d, n, /*colMajor=*/true, /*kFast=*/true);
    tiles.rows = ldsTile(n, d, /*colMajor=*/false, /*kFast=*/false);
    return tiles;
  }

  /// A key program's mask in its own terms: rows are keys, columns
  /// queries, and key j sees query i when -upper <= i - j <= -lower.
  struct KeyBounds {
    std::optional<Scalar> lower, upper;
  };
  KeyBounds keyBounds(const Sequences &seq) {
    KeyBounds bounds;
    if (seq.upper)
      bounds.lower = kb.i32(0) - *seq.upper;
    if (seq.lower)
      bounds.upper = kb.i32(0) - *seq.lower;
    return bounds;
  }

  /// One query head of a key program's group: its q rows, its dout rows
  /// (`out`: Dv columns) and its lse and delta entries.
  struct QueryHead {
    Scalar head;
    HeadRows q, out, lse;
  };
  /// dK and dV ([BN, D], [BN, Dv]) of a key program, from zero, summed
  /// over the query heads of key/value head `kvHead`'s group (GQA without
  /// atomics): `perHead` walks one head from the carried gradients.
  SmallVector<Tile> sumOverGroup(
      const Sequences &seq, Scalar batch, Scalar kvHead,
      function_ref<SmallVector<Tile>(const QueryHead &, ArrayRef<Tile>)>
          perHead) {
    int64_t groupSize = c.hq / c.hkv;
    SmallVector<Tile> grads = {kb.zeros({c.bn, c.d}, acc, DType::F32),
                               kb.zeros({c.bn, c.dv}, acc, DType::F32)};
    return kb.forLoop(kb.i32(0), kb.i32(groupSize), kb.i32(1), grads,
                      [&](Scalar g, ArrayRef<Tile> headGrads) {
                        return perHead(queryHead(seq, batch, kvHead, g),
                                       headGrads);
                      });
  }
  /// Query head `g` of key/value head `kvHead`'s group.
  QueryHead queryHead(const Sequences &seq, Scalar batch, Scalar kvHead,
                      Scalar g) {
    QueryHead h;
    h.head = kvHead * (c.hq / c.hkv) + g;
    h.q = getHeadRows(kb, c, seq, batch, h.head, true, c.d);
    h.out = getHeadRows(kb, c, seq, batch, h.head, true, c.dv);
    h.lse = getLseRows(kb, c, seq, batch, h.head);
    return h;
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

/// dK, dV of BN keys and dQ of BM queries on warpgroup MMA (sm_90a).
void buildWarpgroupKeyProgram(AttentionBackwardBuilder &bb,
                              const Sequences &seq, Scalar k0, Scalar batch,
                              Scalar kvHead);
void buildWarpgroupQueryProgram(AttentionBackwardBuilder &bb,
                                const Sequences &seq, Scalar q0, Scalar batch,
                                Scalar head);
/// dq_atomic: dq = 0 where no key program adds (queries that see no key),
/// over the query heads of `kvHead`'s group; key tile `tile` of `tiles`
/// takes every tiles-th block of queries from its own.
void clearUnvisitedQueries(AttentionBackwardBuilder &bb, const Sequences &seq,
                           Scalar batch, Scalar kvHead, Scalar tile,
                           int64_t tiles);

} // namespace mlir::rocdsl

#endif
