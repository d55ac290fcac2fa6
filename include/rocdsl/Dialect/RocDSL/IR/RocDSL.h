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

/// Discardable attribute on an `scf.for` (i32, set by kernel authors, read
/// and removed by rocdsl-pipeline-loops): how many K steps' copies to keep
/// in LDS buffers, N - 1 of them in flight while one computes (1: none).
constexpr const char *kStagesAttrName = "rocdsl.stages";

/// The layout whose element (i, j) sits where `layout` keeps (j, i): a 2-D
/// transpose into it moves no data. Null where no such layout is known
/// (then a transpose goes through LDS).
Attribute getTransposedLayout(Attribute layout);

/// The layout of a tile type, or null when it has none.
LayoutEncodingAttrInterface getTileLayout(Type type);

/// Number of consecutive elements of the innermost dimension that one lane
/// owns in `layout` (1 when the innermost dimension is not the fastest).
unsigned getContiguousElementsPerThread(Attribute layout);

/// `count` buffers of `one` stacked along a new leading dimension, the
/// slowest of its `#rocdsl.shared` layout (what rocdsl.local_index takes
/// apart), and the inverse: one buffer of such a stack.
LdsTileType getLdsStackType(LdsTileType one, unsigned count);
LdsTileType getLdsBufferType(LdsTileType stack);

/// The XOR swizzle of an LDS tile of `shape` (elements of `elementBits`)
/// whose `order[0]` dimension is fastest: groups of `vecBytes`, rows
/// narrower than one pass over `banks` 4-byte banks sharing a phase, and as
/// many phases as one pass holds groups (no more than a row has). Rows that
/// are not whole groups, and 1-D tiles, get no swizzle.
SharedAttr getSwizzledSharedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                   unsigned elementBits,
                                   ArrayRef<unsigned> order, unsigned banks,
                                   unsigned vecBytes = 16);

/// The LDS layout of a 2-D matrix operand tile written as global memory
/// holds it (`order`: its fastest dimension first) and read in a
/// `#rocdsl.dot_operand` layout with `kWidth` K elements a lane. `kFast`:
/// K is the fastest dimension. On AMD a K-fast tile is swizzled in groups
/// of what one lane reads (kWidth elements, at most 16 bytes), and a tile
/// read transposed (`transposeReads`, gfx950's ds_read_b64_tr_b16) in
/// groups of a quarter of the banks, so that the four rows of one read
/// fall in four different quarters; otherwise (and on NVIDIA, whose
/// ldmatrix reads 16-byte rows) groups of 16 bytes.
SharedAttr getMatrixOperandSharedLayout(MLIRContext *ctx,
                                        ArrayRef<int64_t> shape,
                                        unsigned elementBits,
                                        ArrayRef<unsigned> order, bool kFast,
                                        bool nvidia, unsigned kWidth,
                                        unsigned banks, bool transposeReads);

} // namespace mlir::rocdsl

#endif // ROCDSL_DIALECT_ROCDSL_IR_ROCDSL_H
