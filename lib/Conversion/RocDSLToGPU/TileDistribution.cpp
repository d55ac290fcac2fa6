//===- TileDistribution.cpp -----------------------------------------------===//
#include "TileDistribution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::rocdsl;

Value mlir::rocdsl::constI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

std::optional<TileDistribution> TileDistribution::get(RankedTensorType type) {
  Attribute encoding = type.getEncoding();
  // Peel slices down to the blocked parent, recording which parent
  // dimensions survive.
  SmallVector<unsigned> removed;
  while (auto slice = dyn_cast_or_null<SliceAttr>(encoding)) {
    removed.push_back(slice.getDim());
    encoding = slice.getParent();
  }
  auto blocked = dyn_cast_or_null<BlockedAttr>(encoding);
  if (!blocked)
    return std::nullopt;

  TileDistribution d;
  d.parent = blocked;
  d.shape.assign(type.getShape().begin(), type.getShape().end());
  // Innermost slice applies last: map dims from the outermost slice inward.
  SmallVector<unsigned> dims;
  for (unsigned i = 0; i < blocked.getLayoutRank(); ++i)
    dims.push_back(i);
  for (unsigned dim : llvm::reverse(removed))
    dims.erase(dims.begin() + dim);
  d.parentDim = dims;
  for (unsigned i = 0; i < d.getRank(); ++i) {
    unsigned p = dims[i];
    int64_t cta = d.ctaTile(i);
    // A tile either holds whole repetitions of the layout or fits in one
    // (then coordinates wrap and lanes hold copies).
    if (d.shape[i] > cta && d.shape[i] % cta != 0)
      return std::nullopt;
    int64_t reps = std::max<int64_t>(1, d.shape[i] / cta);
    d.elems.push_back(reps * blocked.getSizePerThread()[p]);
  }
  for (unsigned p : blocked.getOrder())
    for (unsigned i = 0; i < d.getRank(); ++i)
      if (dims[i] == p)
        d.order.push_back(i);
  return d;
}

unsigned TileDistribution::ctaTile(unsigned dim) const {
  unsigned p = parentDim[dim];
  return parent.getSizePerThread()[p] * parent.getThreadsPerWarp()[p] *
         parent.getWarpsPerCTA()[p];
}

unsigned TileDistribution::getNumElements() const {
  unsigned n = 1;
  for (unsigned e : elems)
    n *= e;
  return n;
}

SmallVector<unsigned> TileDistribution::delinearize(unsigned flat) const {
  SmallVector<unsigned> index(getRank(), 0);
  for (unsigned dim : order) {
    index[dim] = flat % elems[dim];
    flat /= elems[dim];
  }
  return index;
}

unsigned TileDistribution::linearize(ArrayRef<unsigned> index) const {
  unsigned flat = 0, stride = 1;
  for (unsigned dim : order) {
    flat += index[dim] * stride;
    stride *= elems[dim];
  }
  return flat;
}

int64_t TileDistribution::constantCoord(unsigned dim, unsigned e) const {
  unsigned spt = parent.getSizePerThread()[parentDim[dim]];
  return static_cast<int64_t>(e / spt) * ctaTile(dim) + e % spt;
}

bool TileDistribution::wraps(unsigned dim) const {
  return shape[dim] < ctaTile(dim);
}

Value TileDistribution::indexInParentDim(OpBuilder &b, Location loc,
                                         unsigned pdim, bool warps) const {
  ArrayRef<unsigned> counts =
      warps ? parent.getWarpsPerCTA() : parent.getThreadsPerWarp();
  Value tid = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(),
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value warpSize = constI32(b, loc, getWarpSize());
  Value id = warps ? arith::DivUIOp::create(b, loc, tid, warpSize).getResult()
                   : arith::RemUIOp::create(b, loc, tid, warpSize).getResult();
  // Lanes (and waves) are numbered along `order`, fastest first.
  unsigned stride = 1;
  for (unsigned p : parent.getOrder()) {
    if (p == pdim)
      break;
    stride *= counts[p];
  }
  if (stride > 1)
    id = arith::DivUIOp::create(b, loc, id, constI32(b, loc, stride));
  if (counts[pdim] == 1)
    return constI32(b, loc, 0);
  return arith::RemUIOp::create(b, loc, id, constI32(b, loc, counts[pdim]));
}

Value TileDistribution::laneCoordBase(OpBuilder &b, Location loc,
                                      unsigned dim) const {
  unsigned p = parentDim[dim];
  unsigned tpw = parent.getThreadsPerWarp()[p];
  unsigned spt = parent.getSizePerThread()[p];
  Value lane = indexInParentDim(b, loc, p, /*warps=*/false);
  Value warp = indexInParentDim(b, loc, p, /*warps=*/true);
  Value thread = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warp, constI32(b, loc, tpw)), lane);
  return arith::MulIOp::create(b, loc, thread, constI32(b, loc, spt));
}

Value TileDistribution::coord(OpBuilder &b, Location loc, unsigned dim,
                              unsigned e, Value base) const {
  Value c = arith::AddIOp::create(b, loc, base,
                                  constI32(b, loc, constantCoord(dim, e)));
  if (wraps(dim))
    c = arith::RemUIOp::create(b, loc, c, constI32(b, loc, shape[dim]));
  return c;
}

unsigned TileDistribution::getThreadsAlong(unsigned dim) const {
  return parent.getThreadsPerWarp()[parentDim[dim]];
}

unsigned TileDistribution::getWarpsAlong(unsigned dim) const {
  return parent.getWarpsPerCTA()[parentDim[dim]];
}

unsigned TileDistribution::getLaneStrideAlong(unsigned dim) const {
  unsigned stride = 1;
  for (unsigned p : parent.getOrder()) {
    if (p == parentDim[dim])
      break;
    stride *= parent.getThreadsPerWarp()[p];
  }
  return stride;
}

Value TileDistribution::warpIndexAlong(OpBuilder &b, Location loc,
                                       unsigned dim) const {
  return indexInParentDim(b, loc, parentDim[dim], /*warps=*/true);
}

Value TileDistribution::laneIndexAlong(OpBuilder &b, Location loc,
                                       unsigned dim) const {
  return indexInParentDim(b, loc, parentDim[dim], /*warps=*/false);
}
