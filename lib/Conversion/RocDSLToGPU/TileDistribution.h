//===- TileDistribution.h - which lane owns which tile element --*- C++ -*-===//
//
// A tile is held as a flat per-lane vector. This class emits, for every
// entry of that vector, the tile coordinate it holds, as constants plus
// per-dimension lane and wave terms: the dialect's TileMapping (the layout
// semantics) as IR, so that memory accesses, iota, masks, reductions and
// matrix products agree on one mapping.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_LIB_CONVERSION_TILEDISTRIBUTION_H
#define ROCDSL_LIB_CONVERSION_TILEDISTRIBUTION_H

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/IR/Builders.h"

namespace mlir::rocdsl {

class TileDistribution {
public:
  /// Fails (returns std::nullopt) when the layout cannot hold the tile's
  /// shape.
  static std::optional<TileDistribution> get(RankedTensorType type);
  const TileMapping &getMapping() const { return mapping; }

  unsigned getRank() const { return shape.size(); }
  ArrayRef<int64_t> getShape() const { return shape; }
  /// Entries per lane along each tile dimension.
  ArrayRef<unsigned> getElemsPerThread() const { return elems; }
  /// Total entries of the per-lane vector.
  unsigned getNumElements() const { return mapping.getNumRegisters(); }
  /// Tile dimensions, fastest-varying in the per-lane vector first.
  ArrayRef<unsigned> getOrder() const { return mapping.getOrder(); }

  /// Per-lane multi-index <-> flat index in the per-lane vector.
  SmallVector<unsigned> delinearize(unsigned flat) const {
    return mapping.delinearize(flat);
  }
  unsigned linearize(ArrayRef<unsigned> index) const {
    return mapping.linearize(index);
  }

  /// Compile-time part of the coordinate of per-lane index `e` along `dim`.
  int64_t constantCoord(unsigned dim, unsigned e) const;
  /// Lane- and wave-dependent part of the coordinates along `dim`
  /// (i32, computed from gpu.thread_id).
  Value laneCoordBase(OpBuilder &b, Location loc, unsigned dim) const;
  /// The wave-dependent part alone (the coordinates of lane 0).
  Value waveCoordBase(OpBuilder &b, Location loc, unsigned dim) const;
  /// Whether coordinates along `dim` wrap (the tile is smaller than one
  /// repetition of the layout, so several lanes hold the same element).
  bool wraps(unsigned dim) const;
  /// Full coordinate: (constant + base) wrapped into the tile.
  Value coord(OpBuilder &b, Location loc, unsigned dim, unsigned e,
              Value base) const;

  /// Whether lanes and waves each split `dim` in one strided group (true of
  /// every layout ROCDSL has); the queries below assume it.
  bool hasSimpleLaneSplit(unsigned dim) const;
  /// Lanes and waves that split tile dimension `dim`, and the lane stride
  /// between neighbours along it (for cross-lane reductions).
  unsigned getThreadsAlong(unsigned dim) const;
  unsigned getLaneStrideAlong(unsigned dim) const;
  unsigned getWarpsAlong(unsigned dim) const;
  /// This lane's wave index along `dim` (i32).
  Value warpIndexAlong(OpBuilder &b, Location loc, unsigned dim) const;
  /// This lane's lane index along `dim` (i32).
  Value laneIndexAlong(OpBuilder &b, Location loc, unsigned dim) const;

  unsigned getWarpSize() const { return mapping.getWarpSize(); }
  unsigned getNumWarps() const { return mapping.getNumWarps(); }
  /// This lane's index in its wave, and its wave's index (i32).
  Value laneId(OpBuilder &b, Location loc) const;
  Value waveId(OpBuilder &b, Location loc) const;

private:
  TileMapping mapping;
  SmallVector<int64_t> shape;
  SmallVector<unsigned> elems;
};

/// Builds i32 constants.
Value constI32(OpBuilder &b, Location loc, int64_t value);

} // namespace mlir::rocdsl

#endif
