//===- TileElementwise.h - arith/math on tiles, for any target --*- C++ -*-===//
#ifndef ROCDSL_CONVERSION_TILEELEMENTWISE_H
#define ROCDSL_CONVERSION_TILEELEMENTWISE_H

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::rocdsl {

/// Elementwise arith/math ops (and splat tile constants) on tiles become the
/// same ops on whatever `converter` maps tiles to: per-lane vectors on GPUs,
/// whole-tile vectors on the host.
void populateTileElementwisePatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns);

/// Materializes values across the conversion boundary with
/// builtin.unrealized_conversion_cast (reconciled by the pipelines).
void addUnrealizedCastMaterializations(TypeConverter &converter);

/// The neutral element of a reduction (0, 1, -inf/INT_MIN, +inf/INT_MAX).
TypedAttr getReductionIdentity(ReduceKind kind, Type elementType);

} // namespace mlir::rocdsl

#endif
