//===- TileMappingTest.cpp - layout semantics against the ISA's layouts ---===//
//
// The matrix-core layouts are checked against the forward formulas of the
// AMD Matrix Instruction Calculator (CDNA3, `-d`; element -> lane and
// register), the opposite direction from the one the dialect implements
// (lane and register -> element), so a shared mistake cannot pass.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class TileMappingTest : public ::testing::Test {
protected:
  TileMappingTest() { ctx.loadDialect<RocDSLDialect>(); }

  MfmaAttr mfma(unsigned m, unsigned n, unsigned k, unsigned wm = 1,
                unsigned wn = 1, unsigned version = 3) {
    return MfmaAttr::get(&ctx, version, {m, n, k}, {wm, wn});
  }
  TileMapping mapping(ArrayRef<int64_t> shape, Attribute layout) {
    auto type = RankedTensorType::get(shape, Float32Type::get(&ctx), layout);
    std::optional<TileMapping> m = TileMapping::get(type);
    EXPECT_TRUE(m.has_value());
    return m.value_or(TileMapping());
  }

  MLIRContext ctx;
};

struct Shape {
  unsigned m, n, k;
};
const Shape kShapes[] = {{32, 32, 8}, {16, 16, 16}, {32, 32, 16}, {16, 16, 32}};

TEST_F(TileMappingTest, AccumulatorMatchesTheCalculator) {
  for (Shape s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n));
    TileMapping d =
        mapping({s.m, s.n}, mfma(s.m, s.n, s.k, 1, 1, s.k > 16 ? 4 : 3));
    unsigned groups = 64 / s.n; // M_I
    ASSERT_EQ(d.getNumRegisters(), s.m * s.n / 64);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        // D[i][j]: VGPR i mod 4 + 4 floor(i / (4 M_I)), lane j + N (floor(i
        // / 4) mod M_I).
        TileOwner expected{unsigned(i % 4 + 4 * (i / (4 * groups))),
                           unsigned(j + s.n * ((i / 4) % groups)), 0};
        SmallVector<TileOwner> owners = d.ownersOf({i, j});
        ASSERT_EQ(owners.size(), 1u) << i << "," << j;
        EXPECT_EQ(owners[0], expected) << i << "," << j;
      }
  }
}

TEST_F(TileMappingTest, OperandsMatchTheCalculator) {
  for (Shape s : kShapes) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.k));
    unsigned perLane = s.k * s.m / 64;
    auto parent = mfma(s.m, s.n, s.k, 1, 1, s.k > 16 ? 4 : 3);
    TileMapping a = mapping(
        {s.m, s.k}, DotOperandAttr::get(&ctx, 0, parent, perLane));
    TileMapping b = mapping(
        {s.k, s.n}, DotOperandAttr::get(&ctx, 1, parent, perLane));
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t k = 0; k < s.k; ++k) {
        // A[i][k]: lane i + M floor(k / KL), element k mod KL; B likewise.
        TileOwner expected{unsigned(k % perLane),
                           unsigned(i + s.m * (k / perLane)), 0};
        SmallVector<TileOwner> owners = a.ownersOf({i, k});
        ASSERT_EQ(owners.size(), 1u);
        EXPECT_EQ(owners[0], expected) << "A " << i << "," << k;
        owners = b.ownersOf({k, i});
        ASSERT_EQ(owners.size(), 1u);
        EXPECT_EQ(owners[0], expected) << "B " << k << "," << i;
      }
  }
}

// With kWidth a multiple of the instruction's K per lane, A and B must still
// agree on which k every (lane, register) holds: that is what makes each
// instruction multiply matching elements.
TEST_F(TileMappingTest, WideKWidthPairsTheSameK) {
  auto parent = mfma(32, 32, 8, 2, 2);
  for (unsigned kWidth : {4u, 8u, 16u}) {
    SCOPED_TRACE(kWidth);
    int64_t k = 2 * kWidth * 2; // two kWidth blocks of the 2 lane groups
    TileMapping a =
        mapping({64, k}, DotOperandAttr::get(&ctx, 0, parent, kWidth));
    TileMapping b =
        mapping({k, 64}, DotOperandAttr::get(&ctx, 1, parent, kWidth));
    ASSERT_EQ(a.dim(1).elems, b.dim(0).elems);
    for (unsigned w = 0; w < 4; ++w)
      for (unsigned lane = 0; lane < 64; ++lane)
        for (unsigned e = 0; e < a.dim(1).elems; ++e)
          EXPECT_EQ(a.dim(1).coord(e, lane, w), b.dim(0).coord(e, lane, w));
    // Every k of the tile is held, each by kWidth-long runs.
    EXPECT_EQ(a.contiguousAlong(1), kWidth);
  }
}

TEST_F(TileMappingTest, WavesSplitTheAccumulatorAndShareOperands) {
  auto parent = mfma(32, 32, 8, 2, 2);
  TileMapping c = mapping({128, 128}, parent);
  TileMapping a =
      mapping({128, 16}, DotOperandAttr::get(&ctx, 0, parent, 4));
  for (int64_t i : {0, 5, 37, 64, 127})
    for (int64_t j : {0, 31, 32, 100}) {
      SmallVector<TileOwner> owners = c.ownersOf({i, j});
      ASSERT_EQ(owners.size(), 1u);
      // Waves are numbered with N fastest; the tile repeats every 64.
      EXPECT_EQ(owners[0].wave, unsigned(((i / 32) % 2) * 2 + (j / 32) % 2));
    }
  // A is needed by both waves of its M half: two copies of every element.
  for (int64_t i : {0, 33, 127})
    for (int64_t k : {0, 7, 15}) {
      SmallVector<TileOwner> owners = a.ownersOf({i, k});
      ASSERT_EQ(owners.size(), 2u);
      EXPECT_EQ(owners[0].wave / 2, owners[1].wave / 2);
      EXPECT_NE(owners[0].wave, owners[1].wave);
    }
  EXPECT_EQ(c.contiguousAlong(1), 1u);
  EXPECT_EQ(c.contiguousAlong(0), 4u);
}

TEST_F(TileMappingTest, BlockedSliceAndWrap) {
  auto blocked = BlockedAttr::get(&ctx, {1, 8}, {1, 64}, {4, 1}, {1, 0});
  TileMapping t = mapping({4, 1024}, blocked);
  EXPECT_EQ(t.getNumRegisters(), 16u);
  EXPECT_EQ(t.contiguousAlong(1), 8u);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j : {0, 7, 8, 511, 512, 1023}) {
      SmallVector<TileOwner> owners = t.ownersOf({i, j});
      ASSERT_EQ(owners.size(), 1u);
      EXPECT_EQ(owners[0].wave, unsigned(i));
      EXPECT_EQ(owners[0].lane, unsigned((j % 512) / 8));
      EXPECT_EQ(owners[0].reg, unsigned(j % 8 + 8 * (j / 512)));
    }
  // The row slice: every lane of a wave holds its row's element.
  TileMapping rows = mapping({4}, SliceAttr::get(&ctx, 1, blocked));
  EXPECT_EQ(rows.ownersOf({2}).size(), 64u);
  // A 256-wide tile is half a repetition: coordinates wrap, two copies.
  TileMapping half = mapping({4, 256}, blocked);
  EXPECT_TRUE(half.dim(1).wraps);
  EXPECT_EQ(half.ownersOf({1, 100}).size(), 2u);
}

/// Counts, for every element, the holders soleHolders() selects: each
/// must be selected exactly once (what an atomic add needs).
static void expectOneHolderEach(const TileMapping &t,
                                ArrayRef<int64_t> shape) {
  auto holders = t.soleHolders();
  ASSERT_TRUE(holders.has_value());
  ASSERT_EQ(holders->size(), t.getNumRegisters());
  std::map<SmallVector<int64_t>, unsigned> count;
  for (unsigned reg = 0; reg < t.getNumRegisters(); ++reg) {
    const TileMapping::SoleHolder &h = (*holders)[reg];
    if (h.skip)
      continue;
    for (unsigned w = 0; w < t.getNumWarps(); ++w)
      for (unsigned l = 0; l < t.getWarpSize(); ++l)
        if (!(l & h.laneMask) && !(w & h.waveMask))
          ++count[t.coordOf(reg, l, w)];
  }
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  EXPECT_EQ(int64_t(count.size()), elements);
  for (const auto &[coord, n] : count)
    EXPECT_EQ(n, 1u) << "element held " << n << " times";
}

TEST_F(TileMappingTest, SoleHoldersSelectEachElementOnce) {
  auto blocked = BlockedAttr::get(&ctx, {1, 4}, {4, 16}, {2, 1}, {1, 0});
  // Column sums: a copy in each of 4 lanes and 2 waves along the rows.
  expectOneHolderEach(mapping({64}, SliceAttr::get(&ctx, 0, blocked)), {64});
  TileMapping cols = mapping({64}, SliceAttr::get(&ctx, 0, blocked));
  EXPECT_EQ((*cols.soleHolders())[0].laneMask, 48u);
  EXPECT_EQ((*cols.soleHolders())[0].waveMask, 1u);
  // No copies: nothing masked.
  TileMapping whole = mapping({8, 64}, blocked);
  // Held by name: a range-for over `*temporary` would outlive the optional.
  auto wholeHolders = whole.soleHolders();
  ASSERT_TRUE(wholeHolders);
  for (const auto &h : *wholeHolders)
    EXPECT_TRUE(!h.skip && !h.laneMask && !h.waveMask);
  expectOneHolderEach(whole, {8, 64});
  // Wrapped: a tile smaller than the layout (copies within the wave, and
  // registers repeating elements).
  expectOneHolderEach(mapping({2, 8}, blocked), {2, 8});
  auto wide = BlockedAttr::get(&ctx, {1, 8}, {1, 64}, {4, 1}, {1, 0});
  expectOneHolderEach(mapping({4, 256}, wide), {4, 256});
  expectOneHolderEach(mapping({4}, SliceAttr::get(&ctx, 1, wide)), {4});
  // Matrix-core layouts: the accumulator (one holder) and an operand that
  // two waves share.
  auto parent = mfma(32, 32, 8, 2, 2);
  expectOneHolderEach(mapping({64, 64}, parent), {64, 64});
  expectOneHolderEach(
      mapping({64, 16}, DotOperandAttr::get(&ctx, 0, parent, 4)), {64, 16});
  expectOneHolderEach(mapping({1, 32}, mfma(32, 32, 8)), {1, 32});
}

TEST_F(TileMappingTest, ShapesALayoutCannotHold) {
  auto f32 = Float32Type::get(&ctx);
  auto blocked = BlockedAttr::get(&ctx, {4}, {64}, {1}, {0});
  EXPECT_FALSE(TileMapping::get(RankedTensorType::get({384}, f32, blocked)));
  auto parent = mfma(32, 32, 8);
  EXPECT_FALSE(TileMapping::get(RankedTensorType::get({48, 32}, f32, parent)));
  // A divisor of the instruction wraps (a broadcast bias row).
  std::optional<TileMapping> row =
      TileMapping::get(RankedTensorType::get({1, 32}, f32, parent));
  ASSERT_TRUE(row);
  // Every row of the instruction is row 0: 2 lane groups x 16 registers.
  EXPECT_EQ(row->ownersOf({0, 5}).size(), 32u);
  EXPECT_FALSE(TileMapping::get(RankedTensorType::get(
      {32, 12}, f32, DotOperandAttr::get(&ctx, 0, parent, 4))));
}

} // namespace

namespace {

// NVIDIA mma.sync.aligned.m16n8k16 fragments (PTX ISA, "Matrix Fragments
// for mma.m16n8k16"), groupID = lane / 4, t = lane % 4, checked through the
// (row, K) entry each PTX register is gathered from in the lowering.
class MmaMappingTest : public TileMappingTest {};

TEST_F(MmaMappingTest, FragmentsMatchThePtxIsa) {
  auto mma = NvidiaMmaAttr::get(&ctx, 2, {16, 8, 16}, {1, 1});
  TileMapping c = mapping({16, 8}, mma);
  TileMapping a = mapping({16, 16}, DotOperandAttr::get(&ctx, 0, mma, 2));
  TileMapping b = mapping({16, 8}, DotOperandAttr::get(&ctx, 1, mma, 2));
  EXPECT_EQ(c.getWarpSize(), 32u);
  // Entries of each PTX register, as NvidiaDotLowering gathers them.
  const unsigned cEntry[4][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  const unsigned aEntry[8][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1},
                                 {0, 2}, {0, 3}, {1, 2}, {1, 3}};
  for (unsigned lane = 0; lane < 32; ++lane) {
    int64_t group = lane / 4, t = lane % 4;
    for (unsigned i = 0; i < 4; ++i) {
      SmallVector<int64_t> at =
          c.coordOf(c.linearize({cEntry[i][0], cEntry[i][1]}), lane, 0);
      EXPECT_EQ(at[0], group + 8 * (i / 2)) << "c" << i << " lane " << lane;
      EXPECT_EQ(at[1], 2 * t + i % 2) << "c" << i << " lane " << lane;
      // b_i: K = 2t + (i mod 2) + 8 floor(i / 2), N = groupID.
      at = b.coordOf(b.linearize({i, 0}), lane, 0);
      EXPECT_EQ(at[0], 2 * t + i % 2 + 8 * (i / 2)) << "b" << i;
      EXPECT_EQ(at[1], group) << "b" << i;
    }
    for (unsigned i = 0; i < 8; ++i) {
      SmallVector<int64_t> at =
          a.coordOf(a.linearize({aEntry[i][0], aEntry[i][1]}), lane, 0);
      EXPECT_EQ(at[0], group + 8 * ((i / 2) % 2)) << "a" << i;
      EXPECT_EQ(at[1], 2 * t + i % 2 + 8 * (i / 4)) << "a" << i;
    }
  }
  // Every element of each fragment has exactly one owner.
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = 0; j < 16; ++j) {
      EXPECT_EQ(a.ownersOf({i, j}).size(), 1u);
      if (j < 8)
        EXPECT_EQ(c.ownersOf({i, j}).size(), 1u);
    }
}

} // namespace
