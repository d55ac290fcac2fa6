//===- AmdLdsTranspose.cpp - transposing LDS reads into MFMA operands -----===//
//
// CDNA4's ds_read_b64_tr_b16 reads, in each group of 16 lanes, a 4 x 16
// block of 16-bit elements stored by rows: lanes 4e .. 4e + 3 of the group
// supply the addresses of row e (four elements each), and lane i of the
// group receives column i, rows 0..3, as its 64 bits (the mapping the
// emulator implements and Triton's gfx950 code relies on). An MFMA operand
// whose K runs across the LDS rows (a row-major B, attention's V) wants
// exactly that: each lane holds K-consecutive elements of one column, and
// neighbouring lanes neighbouring columns. Read element by element it
// takes one ds_read_u16 per element; this way four elements a read.
//
// Which registers form such fragments is decided on the layout's mapping
// (TileMapping) for every lane and wave, so any layout with that shape of
// registers qualifies and any other falls back to the generic reads.
//
//===----------------------------------------------------------------------===//
#include "TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// Lanes that read one 4 x 16 block, and the elements (rows) a lane gets.
constexpr unsigned kGroupLanes = 16, kRows = 4;

/// Four registers of every lane at origin + e v (e = 0..3), lane i of each
/// group of 16 one step of u (along the LDS rows) further than lane 0.
using Fragment = std::array<unsigned, kRows>;

std::optional<SmallVector<Fragment>> findFragments(const TileMapping &m,
                                                   unsigned fast,
                                                   ArrayRef<int64_t> u,
                                                   ArrayRef<int64_t> v) {
  unsigned n = m.getNumRegisters();
  unsigned outer = 1 - fast;
  std::map<SmallVector<int64_t>, unsigned> regAt;
  for (unsigned r = 0; r < n; ++r)
    regAt.emplace(m.coordOf(r, 0, 0), r);
  SmallVector<bool> used(n, false);
  SmallVector<Fragment> fragments;
  for (unsigned r = 0; r < n; ++r) {
    if (used[r])
      continue;
    SmallVector<int64_t> c = m.coordOf(r, 0, 0);
    // Fragments start on a multiple of four rows, so that they tile the
    // registers the same way whatever the register order.
    if (c[outer] % kRows != 0)
      return std::nullopt;
    Fragment f;
    for (unsigned e = 0; e < kRows; ++e) {
      auto it = regAt.find({c[0] + int64_t(e) * v[0], c[1] + int64_t(e) * v[1]});
      if (it == regAt.end() || used[it->second])
        return std::nullopt;
      f[e] = it->second;
    }
    for (unsigned w = 0; w < m.getNumWarps(); ++w)
      for (unsigned g = 0; g < m.getWarpSize(); g += kGroupLanes) {
        SmallVector<int64_t> origin = m.coordOf(f[0], g, w);
        // Each lane's four elements of a row are one aligned 64-bit read.
        if (origin[fast] % kRows != 0)
          return std::nullopt;
        for (unsigned i = 0; i < kGroupLanes; ++i)
          for (unsigned e = 0; e < kRows; ++e) {
            SmallVector<int64_t> got = m.coordOf(f[e], g + i, w);
            for (unsigned d = 0; d < 2; ++d)
              if (got[d] != origin[d] + int64_t(i) * u[d] + int64_t(e) * v[d])
                return std::nullopt;
          }
      }
    for (unsigned reg : f)
      used[reg] = true;
    fragments.push_back(f);
  }
  return fragments;
}

} // namespace

Value mlir::rocdsl::readLdsWithTransposeRead(OpBuilder &b, Location loc,
                                             const LdsTileRead &read,
                                             VectorType vectorType) {
  const TileDistribution &dist = read.dist;
  const TileMapping &m = dist.getMapping();
  if (dist.getRank() != 2 || m.getWarpSize() % kGroupLanes != 0 ||
      read.elementType.getIntOrFloatBitWidth() != 16 ||
      read.alignedRun % kRows != 0 || dist.wraps(0) || dist.wraps(1))
    return {};
  unsigned fast = read.fastDim, outer = 1 - fast;
  SmallVector<int64_t> alongFast(2, 0), alongOuter(2, 0);
  alongFast[fast] = 1;
  alongOuter[outer] = 1;
  auto fragments = findFragments(m, fast, alongFast, alongOuter);
  if (!fragments)
    return {};

  // Lane t of a group (i = t mod 16) holds, in a fragment's first register,
  // the element i columns right of the group's origin; it supplies the
  // address of row i / 4, columns 4 (i mod 4) .. + 3, of the block.
  Value lane = dist.laneId(b, loc);
  Value i = arith::RemUIOp::create(b, loc, lane, constI32(b, loc, kGroupLanes));
  Value rows = constI32(b, loc, kRows);
  Value row = arith::DivUIOp::create(b, loc, i, rows);
  Value column = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, i, rows), rows);
  Value laneBase[2] = {dist.laneCoordBase(b, loc, 0),
                       dist.laneCoordBase(b, loc, 1)};
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  // The intrinsic returns four 16-bit integers or floats.
  Type element = read.elementType;
  bool isFloat = element.isF16() || element.isBF16();
  auto resultType = VectorType::get({kRows}, isFloat ? element : b.getI16Type());
  SmallVector<Value> entries(dist.getNumElements());
  for (const Fragment &f : *fragments) {
    SmallVector<unsigned> index = dist.delinearize(f[0]);
    SmallVector<Value> coord;
    for (unsigned d = 0; d < 2; ++d)
      coord.push_back(dist.coord(b, loc, d, index[d], laneBase[d]));
    coord[fast] = arith::AddIOp::create(
        b, loc, arith::SubIOp::create(b, loc, coord[fast], i), column);
    coord[outer] = arith::AddIOp::create(b, loc, coord[outer], row);
    Value ptr = LLVM::GEPOp::create(b, loc, ptrType, element, read.base,
                                    ValueRange{read.offsetOf(b, loc, coord)});
    Value words = ROCDL::ds_read_tr16_b64::create(b, loc, resultType, ptr,
                                                  nullptr, nullptr, nullptr);
    if (!isFloat)
      words = LLVM::BitcastOp::create(
          b, loc, VectorType::get({kRows}, element), words);
    for (unsigned e = 0; e < kRows; ++e)
      entries[f[e]] = vector::ExtractOp::create(b, loc, words, int64_t(e));
  }
  return vector::FromElementsOp::create(b, loc, vectorType, entries);
}
