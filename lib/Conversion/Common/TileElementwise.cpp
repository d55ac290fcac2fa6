//===- TileElementwise.cpp - arith/math on tiles, for any target ----------===//
//
// Elementwise math needs no communication: whatever a target holds of a tile
// (a lane's entries, or the whole tile), applying the op to it is the
// lowering.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Conversion/TileElementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace {
/// Any elementwise arith/math op on tiles -> the same op on per-lane vectors.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return failure();
    if (getTypeConverter()->isLegal(op))
      return failure();
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      return lowerConstant(constant, rewriter);
    if (!OpTrait::hasElementwiseMappableTraits(op))
      return rewriter.notifyMatchFailure(op, "not elementwise");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }

  LogicalResult lowerConstant(arith::ConstantOp op,
                              ConversionPatternRewriter &rewriter) const {
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return rewriter.notifyMatchFailure(op, "only splat tile constants");
    auto type = dyn_cast_or_null<VectorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, type,
        SplatElementsAttr::get(type, splat.getSplatValue<Attribute>()));
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateTileElementwisePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(converter, patterns.getContext());
}

TypedAttr mlir::rocdsl::getReductionIdentity(ReduceKind kind, Type type) {
  bool isFloat = isa<FloatType>(type);
  arith::AtomicRMWKind rmw = arith::AtomicRMWKind::addf;
  switch (kind) {
  case ReduceKind::Add:
    rmw = isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
    break;
  case ReduceKind::Mul:
    rmw = isFloat ? arith::AtomicRMWKind::mulf : arith::AtomicRMWKind::muli;
    break;
  case ReduceKind::Max:
    rmw = isFloat ? arith::AtomicRMWKind::maximumf : arith::AtomicRMWKind::maxs;
    break;
  case ReduceKind::Min:
    rmw = isFloat ? arith::AtomicRMWKind::minimumf : arith::AtomicRMWKind::mins;
    break;
  }
  OpBuilder b(type.getContext());
  return arith::getIdentityValueAttr(rmw, type, b,
                                     UnknownLoc::get(type.getContext()));
}

void mlir::rocdsl::addUnrealizedCastMaterializations(TypeConverter &converter) {
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  converter.addSourceMaterialization(cast);
  converter.addTargetMaterialization(cast);
}
