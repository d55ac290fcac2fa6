//===- TileTypeConverter.cpp ----------------------------------------------===//
#include "PatternsInternal.h"
#include "rocdsl/Conversion/TileElementwise.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::rocdsl;

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) {
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type) -> Type {
    auto dist = TileDistribution::get(type);
    if (!dist)
      return Type(); // the layout cannot hold this shape
    return VectorType::get({static_cast<int64_t>(dist->getNumElements())},
                           type.getElementType());
  });
  addConversion([ctx](PtrType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1);
  });
  addConversion([ctx](LdsTileType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/3);
  });
  addUnrealizedCastMaterializations(*this);
}
