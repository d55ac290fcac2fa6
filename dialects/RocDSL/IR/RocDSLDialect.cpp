//===- RocDSLDialect.cpp - rocdsl dialect registration --------------------===//
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::rocdsl;

#include "RocDSL/IR/RocDSLAttrInterfaces.cpp.inc"
#include "RocDSL/IR/RocDSLDialect.cpp.inc"
#include "RocDSL/IR/RocDSLEnums.cpp.inc"

// `64x32xbf16` inside `!rocdsl.lds<...>`.
static ParseResult parseShape(AsmParser &parser, SmallVector<int64_t> &shape,
                              Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShape(AsmPrinter &printer, ArrayRef<int64_t> shape,
                       Type elementType) {
  for (int64_t dim : shape)
    printer << dim << 'x';
  printer << elementType;
}

#define GET_ATTRDEF_CLASSES
#include "RocDSL/IR/RocDSLAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "RocDSL/IR/RocDSLTypes.cpp.inc"

void RocDSLDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "RocDSL/IR/RocDSLAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "RocDSL/IR/RocDSLTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "RocDSL/IR/RocDSLOps.cpp.inc"
      >();
}

Operation *RocDSLDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult LdsTileType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  Attribute encoding) {
  if (shape.empty())
    return emitError() << "LDS tile must have at least one dimension";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "LDS tile dimensions must be positive, got " << dim;
  auto shared = dyn_cast<SharedAttr>(encoding);
  if (!shared)
    return emitError() << "LDS tile encoding must be #rocdsl.shared, got "
                       << encoding;
  if (shared.getOrder().size() != shape.size())
    return emitError() << "#rocdsl.shared order has "
                       << shared.getOrder().size()
                       << " entries but the LDS tile has rank " << shape.size();
  return success();
}
