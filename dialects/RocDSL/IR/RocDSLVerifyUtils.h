//===- RocDSLVerifyUtils.h - shared op-verifier helpers ---------*- C++ -*-===//
#ifndef ROCDSL_DIALECT_IR_VERIFYUTILS_H
#define ROCDSL_DIALECT_IR_VERIFYUTILS_H

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

namespace mlir::rocdsl::detail {

/// Elements of one tile a lane may hold (its share of the tile).
constexpr uint64_t kMaxTileElementsPerLane = 2048;

/// Checks that `type` is a tile with a layout of matching rank, and that the
/// layout's wave count agrees with the enclosing kernel's `num_warps`.
/// `what` names the value in diagnostics ("result", "operand a", ...).
/// Also bounds the elements each lane holds (kMaxTileElementsPerLane).
LogicalResult verifyTileType(Operation *op, Type type, llvm::StringRef what);

} // namespace mlir::rocdsl::detail

#endif
