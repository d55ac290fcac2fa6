//===- TileMapping.h - which (register, lane, wave) holds a tile element -*-===//
//
// The one definition of what a layout means. Every tile layout (blocked,
// slice, mfma, dot_operand) describes each tile dimension as a sum of
// mixed-radix terms over three sources: the entry's index along that
// dimension in the lane's register vector, the lane, and the wave:
//
//   coord_d = sum over terms t of ((source_t / div_t) % mod_t) * mul_t
//
// (mod 0: no modulo), taken modulo the dimension's size where the tile is
// smaller than one repetition of the layout (then several lanes or
// registers hold copies). This is a linear layout in the sense of Triton's
// LinearLayout restricted to per-dimension terms, which all of ROCDSL's
// layouts are. Conversions emit these terms as IR; verifiers, tests and
// the inverse mapping evaluate them as integers.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_DIALECT_ROCDSL_IR_TILEMAPPING_H
#define ROCDSL_DIALECT_ROCDSL_IR_TILEMAPPING_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::rocdsl {

/// ((x / div) % mod) * mul; mod 0 means no modulo.
struct MappingTerm {
  unsigned div = 1;
  unsigned mod = 0;
  int64_t mul = 1;
  int64_t eval(int64_t x) const {
    int64_t q = x / div;
    return (mod ? q % mod : q) * mul;
  }
};

/// How one tile dimension of `size` elements is spread.
struct DimMapping {
  int64_t size = 1;
  /// Entries each lane holds along this dimension.
  unsigned elems = 1;
  llvm::SmallVector<MappingTerm, 3> reg, lane, wave;
  /// The layout repeats over more than `size` elements: coordinates are
  /// taken modulo `size` and copies exist.
  bool wraps = false;

  int64_t regCoord(unsigned index) const;
  int64_t laneCoord(unsigned laneId, unsigned waveId) const;
  int64_t coord(unsigned index, unsigned laneId, unsigned waveId) const;
};

/// One holder of a tile element.
struct TileOwner {
  unsigned reg, lane, wave;
  bool operator==(const TileOwner &o) const {
    return reg == o.reg && lane == o.lane && wave == o.wave;
  }
};

/// The mapping of a whole tile: per-dimension mappings and the order in
/// which per-dimension entry indices are flattened into the lane's vector.
class TileMapping {
public:
  /// The mapping of `type` through its layout's interface; std::nullopt
  /// when the layout cannot hold a tile of this shape (a dimension neither
  /// a multiple of the layout's repetition nor smaller than it).
  static std::optional<TileMapping> get(RankedTensorType type);

  unsigned getRank() const { return dims.size(); }
  const DimMapping &dim(unsigned d) const { return dims[d]; }
  llvm::ArrayRef<unsigned> getOrder() const { return order; }
  unsigned getWarpSize() const { return warpSize; }
  unsigned getNumWarps() const { return numWarps; }
  /// Entries of each lane's register vector.
  unsigned getNumRegisters() const;

  /// Register index <-> per-dimension entry indices (order fastest first).
  llvm::SmallVector<unsigned> delinearize(unsigned reg) const;
  unsigned linearize(llvm::ArrayRef<unsigned> index) const;

  /// The tile element register `reg` of `lane` in `wave` holds.
  llvm::SmallVector<int64_t> coordOf(unsigned reg, unsigned lane,
                                     unsigned wave) const;
  /// Every (register, lane, wave) holding element `coord` (the inverse;
  /// enumerates, for verifiers and tests).
  llvm::SmallVector<TileOwner> ownersOf(llvm::ArrayRef<int64_t> coord) const;

  /// Which holders update each element once (atomics; stores may write a
  /// copy twice). Register `reg` of a lane is its element's one update
  /// when `!holders[reg].skip` and the lane's and wave's indices have none
  /// of the bits of `laneMask` and `waveMask` set (the bits that only pick
  /// among copies). std::nullopt when copies cannot be told apart by
  /// index bits alone (no layout ROCDSL has).
  struct SoleHolder {
    bool skip = false;
    unsigned laneMask = 0, waveMask = 0;
  };
  std::optional<llvm::SmallVector<SoleHolder>> soleHolders() const;

  /// Consecutive registers that hold consecutive elements along dimension
  /// `d` (the widest vector access the layout allows along it).
  unsigned contiguousAlong(unsigned d) const;

  llvm::SmallVector<DimMapping> dims;
  llvm::SmallVector<unsigned> order;
  unsigned warpSize = 64, numWarps = 1;
};

} // namespace mlir::rocdsl

#endif
