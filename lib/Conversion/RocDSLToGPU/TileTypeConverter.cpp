//===- TileTypeConverter.cpp ----------------------------------------------===//
#include "PatternsInternal.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::rocdsl;

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) {
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type) -> Type {
    auto dist = TileDistribution::get(type);
    if (!dist)
      return Type(); // no register lowering for this layout yet
    return VectorType::get({static_cast<int64_t>(dist->getNumElements())},
                           type.getElementType());
  });
  addConversion([ctx](PtrType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1);
  });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}
