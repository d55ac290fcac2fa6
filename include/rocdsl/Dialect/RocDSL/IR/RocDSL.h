//===- RocDSL.h - the rocdsl dialect ----------------------------*- C++ -*-===//
//
// Public entry point of the rocdsl dialect: dialect, layout attributes,
// types and operations.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_DIALECT_ROCDSL_IR_ROCDSL_H
#define ROCDSL_DIALECT_ROCDSL_IR_ROCDSL_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "rocdsl/Dialect/RocDSL/IR/TileMapping.h"

#include "RocDSL/IR/RocDSLAttrInterfaces.h.inc"
#include "RocDSL/IR/RocDSLDialect.h.inc"
#include "RocDSL/IR/RocDSLEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "RocDSL/IR/RocDSLAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "RocDSL/IR/RocDSLTypes.h.inc"

#define GET_OP_CLASSES
#include "RocDSL/IR/RocDSLOps.h.inc"

namespace mlir::rocdsl {

/// Discardable attribute on a tile `arith.cmpi` (set by
/// rocdsl-infer-vector-width, read by the GPU lowering): the result is
/// constant over aligned runs of this many innermost elements (i32, a
/// power of two).
constexpr const char *kConstancyAttrName = "rocdsl.constancy";

/// The layout whose element (i, j) sits where `layout` keeps (j, i): a 2-D
/// transpose into it moves no data. Null where no such layout is known
/// (then a transpose goes through LDS).
Attribute getTransposedLayout(Attribute layout);

/// The layout of a tile type, or null when it has none.
LayoutEncodingAttrInterface getTileLayout(Type type);

/// Number of consecutive elements of the innermost dimension that one lane
/// owns in `layout` (1 when the innermost dimension is not the fastest).
unsigned getContiguousElementsPerThread(Attribute layout);

} // namespace mlir::rocdsl

#endif // ROCDSL_DIALECT_ROCDSL_IR_ROCDSL_H
