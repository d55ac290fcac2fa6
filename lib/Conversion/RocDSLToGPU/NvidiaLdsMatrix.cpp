//===- NvidiaLdsMatrix.cpp - LDS reads into mma operands via ldmatrix -----===//
//
// ldmatrix.x{1,2,4} reads up to four 8x8 matrices of 16-bit elements from
// shared memory, one 16-byte row per address: lane t supplies the address
// of row t % 8 of matrix t / 8 and receives, of each matrix, the elements
// (t / 4, 2 (t % 4) + {0, 1}), or with .trans (2 (t % 4) + {0, 1}, t / 4)
// of the rows as stored. A register tile whose layout puts every register
// pair of every lane in exactly that place (the mma.sync operands do: A
// with K contiguous in shared memory reads plain, B with N contiguous
// reads .trans) is read four pairs per instruction instead of one element
// or pair per ld.shared, and 8 rows of 16 bytes per phase are what the
// swizzle of the operand tiles keeps on distinct banks.
//
// Which registers form fragments is decided on the layout's mapping
// (TileMapping) for every lane and wave, so any layout with that shape of
// registers qualifies and any other falls back to the generic reads.
//
//===----------------------------------------------------------------------===//
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// Two registers holding one ldmatrix matrix for every lane: register
/// `first` at (t / 4) * u + 2 (t % 4) * v from the matrix origin, `second`
/// one step of v further.
struct Fragment {
  unsigned first, second;
};

/// The rows of an ldmatrix matrix: 8 elements of 16 bits.
constexpr unsigned kRowElements = 8;

/// The fragments covering every register of `m` with the pair direction
/// `v` (and lane-row direction `u`), or std::nullopt. Origins must start a
/// row run along `fast` (a multiple of 8).
std::optional<SmallVector<Fragment>> findFragments(const TileMapping &m,
                                                   unsigned fast,
                                                   ArrayRef<int64_t> u,
                                                   ArrayRef<int64_t> v) {
  unsigned n = m.getNumRegisters();
  std::map<SmallVector<int64_t>, unsigned> regAt;
  for (unsigned r = 0; r < n; ++r)
    regAt.emplace(m.coordOf(r, 0, 0), r);
  SmallVector<bool> used(n, false);
  SmallVector<Fragment> fragments;
  for (unsigned r = 0; r < n; ++r) {
    if (used[r])
      continue;
    SmallVector<int64_t> c = m.coordOf(r, 0, 0);
    SmallVector<int64_t> next = {c[0] + v[0], c[1] + v[1]};
    auto it = regAt.find(next);
    if (it == regAt.end() || used[it->second])
      return std::nullopt;
    Fragment f{r, it->second};
    for (unsigned w = 0; w < m.getNumWarps(); ++w) {
      SmallVector<int64_t> origin = m.coordOf(f.first, 0, w);
      if (origin[fast] % kRowElements != 0)
        return std::nullopt;
      for (unsigned t = 0; t < m.getWarpSize(); ++t) {
        int64_t row = t / 4, col = 2 * (t % 4);
        for (auto [reg, step] :
             {std::pair{f.first, col}, std::pair{f.second, col + 1}}) {
          SmallVector<int64_t> got = m.coordOf(reg, t, w);
          for (unsigned d = 0; d < 2; ++d)
            if (got[d] != origin[d] + row * u[d] + step * v[d])
              return std::nullopt;
        }
      }
    }
    used[f.first] = used[f.second] = true;
    fragments.push_back(f);
  }
  return fragments;
}

/// Orders `fragments` so that each run of four is one 16x16 block of the
/// tile, its 8x8 matrices column by column: (0, 0), (8, 0), (0, 8), (8, 8).
/// That is the register order of an m16n8k16 A operand (a0..a3) and of two
/// neighbouring B operands (b0, b1 of each n8 half), so every mma.sync
/// takes its operand from consecutive registers of one ldmatrix.x4 and
/// ptxas needs no moves to assemble it (register order had a warp's
/// 64x64 tile spend more moves than mma instructions). Any grouping reads
/// the same values; this one only saves the moves. Blocks keep the order
/// of their first register.
void groupForMma(const TileMapping &m, SmallVectorImpl<Fragment> &fragments) {
  constexpr int64_t kBlock = 2 * kRowElements;
  std::map<std::pair<int64_t, int64_t>, unsigned> blockRank;
  auto keyOf = [&](const Fragment &f) {
    SmallVector<int64_t> o = m.coordOf(f.first, 0, 0);
    auto block = std::pair{o[0] / kBlock, o[1] / kBlock};
    unsigned rank =
        blockRank.try_emplace(block, blockRank.size()).first->second;
    return std::tuple{rank, (o[1] % kBlock) / kRowElements,
                      (o[0] % kBlock) / kRowElements};
  };
  // Equal keys keep their order: the position breaks ties, so the result
  // does not depend on the sort's stability.
  using Key = std::pair<std::tuple<unsigned, int64_t, int64_t>, size_t>;
  SmallVector<std::pair<Key, Fragment>> keyed;
  for (auto [i, f] : llvm::enumerate(fragments))
    keyed.push_back({Key{keyOf(f), i}, f});
  llvm::sort(keyed,
             [](const auto &x, const auto &y) { return x.first < y.first; });
  for (auto [i, entry] : llvm::enumerate(keyed))
    fragments[i] = entry.second;
}

} // namespace

Value mlir::rocdsl::readLdsWithLdmatrix(OpBuilder &b, Location loc,
                                        const LdsTileRead &read,
                                        VectorType vectorType) {
  const TileDistribution &dist = read.dist;
  const TileMapping &m = dist.getMapping();
  if (dist.getRank() != 2 || m.getWarpSize() != 32 ||
      read.elementType.getIntOrFloatBitWidth() != 16 ||
      read.alignedRun % kRowElements != 0 || dist.wraps(0) || dist.wraps(1))
    return {};
  unsigned fast = read.fastDim, outer = 1 - fast;
  SmallVector<int64_t> alongFast(2, 0), alongOuter(2, 0);
  alongFast[fast] = 1;
  alongOuter[outer] = 1;
  // Plain: pairs run along the LDS rows; .trans: across them.
  bool trans = false;
  auto fragments = findFragments(m, fast, alongOuter, alongFast);
  if (!fragments) {
    fragments = findFragments(m, fast, alongFast, alongOuter);
    trans = true;
  }
  if (!fragments)
    return {};
  groupForMma(m, *fragments);

  Type i32 = b.getI32Type();
  auto pairType = VectorType::get({2}, read.elementType);
  Value lane = dist.laneId(b, loc);
  Value matrix =
      arith::DivUIOp::create(b, loc, lane, constI32(b, loc, kRowElements));
  Value row =
      arith::RemUIOp::create(b, loc, lane, constI32(b, loc, kRowElements));
  Value waveBase[2] = {dist.waveCoordBase(b, loc, 0),
                       dist.waveCoordBase(b, loc, 1)};
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  SmallVector<Value> entries(dist.getNumElements());
  for (size_t i = 0; i < fragments->size();) {
    size_t left = fragments->size() - i;
    unsigned num = left >= 4 ? 4 : left >= 2 ? 2 : 1;
    ArrayRef<Fragment> group = ArrayRef(*fragments).slice(i, num);
    i += num;
    // Lane t addresses row t % 8 of matrix (t / 8) % num of the group.
    Value which =
        num == 1 ? Value()
                 : arith::RemUIOp::create(b, loc, matrix, constI32(b, loc, num))
                       .getResult();
    SmallVector<Value> coord;
    for (unsigned d = 0; d < 2; ++d) {
      auto originOf = [&](const Fragment &f) {
        return dist.constantCoord(d, dist.delinearize(f.first)[d]);
      };
      Value c = constI32(b, loc, originOf(group[0]));
      for (unsigned j = 1; j < num; ++j) {
        Value isJ = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          which, constI32(b, loc, j));
        c = arith::SelectOp::create(b, loc, isJ,
                                    constI32(b, loc, originOf(group[j])), c);
      }
      c = arith::AddIOp::create(b, loc, waveBase[d], c);
      if (d == outer)
        c = arith::AddIOp::create(b, loc, c, row);
      coord.push_back(c);
    }
    Value ptr =
        LLVM::GEPOp::create(b, loc, ptrType, read.elementType, read.base,
                            ValueRange{read.offsetOf(b, loc, coord)});
    Type resultType = num == 1
                          ? i32
                          : Type(LLVM::LLVMStructType::getLiteral(
                                b.getContext(), SmallVector<Type>(num, i32)));
    Value words = NVVM::LdMatrixOp::create(
        b, loc, resultType, ptr, num,
        trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
    for (auto [j, f] : llvm::enumerate(group)) {
      Value word = num == 1 ? words
                            : LLVM::ExtractValueOp::create(
                                  b, loc, words, ArrayRef<int64_t>{int64_t(j)})
                                  .getResult();
      Value pair = LLVM::BitcastOp::create(b, loc, pairType, word);
      entries[f.first] = vector::ExtractOp::create(b, loc, pair, int64_t(0));
      entries[f.second] = vector::ExtractOp::create(b, loc, pair, int64_t(1));
    }
  }
  return vector::FromElementsOp::create(b, loc, vectorType, entries);
}
