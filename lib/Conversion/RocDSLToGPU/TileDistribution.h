//===- TileDistribution.h - which lane owns which tile element --*- C++ -*-===//
//
// A tile of shape S with a blocked layout (or a slice of one) is held as a
// flat per-lane vector. This class answers, for every entry of that vector,
// which tile coordinate it holds, as constants plus one per-dimension lane
// term, so that memory accesses, iota, masks and reductions agree on one
// mapping.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_LIB_CONVERSION_TILEDISTRIBUTION_H
#define ROCDSL_LIB_CONVERSION_TILEDISTRIBUTION_H

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/IR/Builders.h"

namespace mlir::rocdsl {

class TileDistribution {
public:
  /// Fails (returns std::nullopt) for layouts without a register lowering
  /// yet (mfma, dot_operand).
  static std::optional<TileDistribution> get(RankedTensorType type);

  unsigned getRank() const { return shape.size(); }
  ArrayRef<int64_t> getShape() const { return shape; }
  /// Entries per lane along each tile dimension.
  ArrayRef<unsigned> getElemsPerThread() const { return elems; }
  /// Total entries of the per-lane vector.
  unsigned getNumElements() const;
  /// Tile dimensions, fastest-varying in the per-lane vector first.
  ArrayRef<unsigned> getOrder() const { return order; }

  /// Per-lane multi-index <-> flat index in the per-lane vector.
  SmallVector<unsigned> delinearize(unsigned flat) const;
  unsigned linearize(ArrayRef<unsigned> index) const;

  /// Compile-time part of the coordinate of per-lane index `e` along `dim`.
  int64_t constantCoord(unsigned dim, unsigned e) const;
  /// Lane- and wave-dependent part of the coordinates along `dim`
  /// (i32, computed from gpu.thread_id).
  Value laneCoordBase(OpBuilder &b, Location loc, unsigned dim) const;
  /// Whether coordinates along `dim` wrap (the tile is smaller than one
  /// repetition of the layout, so several lanes hold the same element).
  bool wraps(unsigned dim) const;
  /// Full coordinate: (constant + base) wrapped into the tile.
  Value coord(OpBuilder &b, Location loc, unsigned dim, unsigned e,
              Value base) const;

  /// Lanes and waves that split tile dimension `dim`, and the lane stride
  /// between neighbours along it (for cross-lane reductions).
  unsigned getThreadsAlong(unsigned dim) const;
  unsigned getLaneStrideAlong(unsigned dim) const;
  unsigned getWarpsAlong(unsigned dim) const;
  /// This lane's wave index along `dim` (i32).
  Value warpIndexAlong(OpBuilder &b, Location loc, unsigned dim) const;
  /// This lane's lane index along `dim` (i32).
  Value laneIndexAlong(OpBuilder &b, Location loc, unsigned dim) const;

  unsigned getWarpSize() const { return parent.getLayoutWarpSize(); }
  unsigned getNumWarps() const { return parent.getLayoutNumWarps(); }

private:
  BlockedAttr parent;
  SmallVector<int64_t> shape;
  SmallVector<unsigned> parentDim; // tile dim -> parent dim
  SmallVector<unsigned> elems;
  SmallVector<unsigned> order;
  unsigned ctaTile(unsigned dim) const;
  Value indexInParentDim(OpBuilder &b, Location loc, unsigned pdim,
                         bool warps) const;
};

/// Builds i32 constants.
Value constI32(OpBuilder &b, Location loc, int64_t value);

} // namespace mlir::rocdsl

#endif
