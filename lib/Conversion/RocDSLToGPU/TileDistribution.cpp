//===- TileDistribution.cpp -----------------------------------------------===//
//
// The dialect's TileMapping, emitted as IR: register terms fold to
// constants, lane and wave terms become arithmetic on gpu.thread_id.
//
//===----------------------------------------------------------------------===//
#include "TileDistribution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::rocdsl;

Value mlir::rocdsl::constI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

std::optional<TileDistribution> TileDistribution::get(RankedTensorType type) {
  std::optional<TileMapping> mapping = TileMapping::get(type);
  if (!mapping)
    return std::nullopt;
  TileDistribution d;
  d.mapping = std::move(*mapping);
  for (const DimMapping &dim : d.mapping.dims) {
    d.shape.push_back(dim.size);
    d.elems.push_back(dim.elems);
  }
  return d;
}

int64_t TileDistribution::constantCoord(unsigned dim, unsigned e) const {
  return mapping.dim(dim).regCoord(e);
}

bool TileDistribution::wraps(unsigned dim) const {
  return mapping.dim(dim).wraps;
}

/// ((x / div) % mod) * mul as i32 IR, for 0 <= x < range (the modulo is
/// left out where x / div stays below mod anyway).
static Value emitTerm(OpBuilder &b, Location loc, Value x, const MappingTerm &t,
                      unsigned range) {
  if (t.mod == 1 || t.mul == 0)
    return constI32(b, loc, 0);
  Value v = x;
  if (t.div > 1)
    v = arith::DivUIOp::create(b, loc, v, constI32(b, loc, t.div));
  if (t.mod && uint64_t(t.div) * t.mod < range)
    v = arith::RemUIOp::create(b, loc, v, constI32(b, loc, t.mod));
  if (t.mul != 1)
    v = arith::MulIOp::create(b, loc, v, constI32(b, loc, t.mul));
  return v;
}

Value TileDistribution::laneId(OpBuilder &b, Location loc) const {
  Value tid = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(),
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  return arith::RemUIOp::create(b, loc, tid,
                                constI32(b, loc, getWarpSize()));
}

Value TileDistribution::waveId(OpBuilder &b, Location loc) const {
  Value tid = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(),
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  return arith::DivUIOp::create(b, loc, tid, constI32(b, loc, getWarpSize()));
}

Value TileDistribution::laneCoordBase(OpBuilder &b, Location loc,
                                      unsigned dim) const {
  const DimMapping &m = mapping.dim(dim);
  Value sum;
  if (!m.lane.empty()) {
    Value lane = laneId(b, loc);
    for (const MappingTerm &t : m.lane) {
      Value v = emitTerm(b, loc, lane, t, getWarpSize());
      sum = sum ? arith::AddIOp::create(b, loc, sum, v).getResult() : v;
    }
  }
  if (m.wave.empty())
    return sum ? sum : constI32(b, loc, 0);
  Value wave = waveCoordBase(b, loc, dim);
  return sum ? arith::AddIOp::create(b, loc, sum, wave).getResult() : wave;
}

Value TileDistribution::waveCoordBase(OpBuilder &b, Location loc,
                                      unsigned dim) const {
  const DimMapping &m = mapping.dim(dim);
  Value sum;
  if (!m.wave.empty()) {
    Value wave = waveId(b, loc);
    for (const MappingTerm &t : m.wave) {
      Value v = emitTerm(b, loc, wave, t, getNumWarps());
      sum = sum ? arith::AddIOp::create(b, loc, sum, v).getResult() : v;
    }
  }
  return sum ? sum : constI32(b, loc, 0);
}

Value TileDistribution::coord(OpBuilder &b, Location loc, unsigned dim,
                              unsigned e, Value base) const {
  Value c = arith::AddIOp::create(b, loc, base,
                                  constI32(b, loc, constantCoord(dim, e)));
  if (wraps(dim))
    c = arith::RemUIOp::create(b, loc, c, constI32(b, loc, shape[dim]));
  return c;
}

/// The single term of `terms` that moves the coordinate (reductions need
/// lanes and waves to split a dimension in one strided group).
static const MappingTerm *singleTerm(ArrayRef<MappingTerm> terms) {
  const MappingTerm *found = nullptr;
  for (const MappingTerm &t : terms) {
    if (t.mod == 1 || t.mul == 0)
      continue;
    if (found)
      return nullptr;
    found = &t;
  }
  return found;
}

bool TileDistribution::hasSimpleLaneSplit(unsigned dim) const {
  const DimMapping &m = mapping.dim(dim);
  auto simple = [](ArrayRef<MappingTerm> terms) {
    unsigned moving = 0;
    for (const MappingTerm &t : terms)
      if (t.mod != 1 && t.mul != 0)
        ++moving;
    return moving <= 1;
  };
  return simple(m.lane) && simple(m.wave);
}

unsigned TileDistribution::getThreadsAlong(unsigned dim) const {
  const MappingTerm *t = singleTerm(mapping.dim(dim).lane);
  return t ? (t->mod ? t->mod : getWarpSize() / t->div) : 1;
}

unsigned TileDistribution::getLaneStrideAlong(unsigned dim) const {
  const MappingTerm *t = singleTerm(mapping.dim(dim).lane);
  return t ? t->div : 1;
}

unsigned TileDistribution::getWarpsAlong(unsigned dim) const {
  const MappingTerm *t = singleTerm(mapping.dim(dim).wave);
  return t ? (t->mod ? t->mod : getNumWarps() / t->div) : 1;
}

Value TileDistribution::warpIndexAlong(OpBuilder &b, Location loc,
                                       unsigned dim) const {
  const MappingTerm *t = singleTerm(mapping.dim(dim).wave);
  if (!t)
    return constI32(b, loc, 0);
  return emitTerm(b, loc, waveId(b, loc), {t->div, t->mod, 1}, getNumWarps());
}

Value TileDistribution::laneIndexAlong(OpBuilder &b, Location loc,
                                       unsigned dim) const {
  const MappingTerm *t = singleTerm(mapping.dim(dim).lane);
  if (!t)
    return constI32(b, loc, 0);
  return emitTerm(b, loc, laneId(b, loc), {t->div, t->mod, 1}, getWarpSize());
}
