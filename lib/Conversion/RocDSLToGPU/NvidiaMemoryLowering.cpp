//===- NvidiaMemoryLowering.cpp - rocdsl.load/store for NVIDIA GPUs -------===//
//
// NVIDIA GPUs have no buffer resources with range checks, so each group of
// `vec` entries is one (up to 128-bit, e.g. ld.global.v4.b32) access guarded
// by its validity: invalid groups never touch memory, loads give `other`.
//
//===----------------------------------------------------------------------===//
#include "AccessPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// Pointer to a group: base + byte offset.
Value groupPointer(OpBuilder &b, Location loc, const AccessPlan &plan,
                   const AccessGroup &group) {
  Value offset = arith::ExtUIOp::create(b, loc, b.getI64Type(), group.voffset);
  return LLVM::GEPOp::create(b, loc, plan.base.getType(), b.getI8Type(),
                             plan.base, ValueRange{offset});
}

struct NvidiaLoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerTileLoad(
        op, adaptor, rewriter, *getTypeConverter(), /*bufferResource=*/false,
        [](OpBuilder &rewriter, Location loc, const AccessPlan &plan,
           const AccessGroup &group, VectorType groupType, Type transfer,
           Value other) -> Value {
          Value pointer = groupPointer(rewriter, loc, plan, group);
          auto load = [&](OpBuilder &b, Location l) -> Value {
            unsigned bytes = groupType.getNumElements() *
                             groupType.getElementTypeBitWidth() / 8;
            Value raw = LLVM::LoadOp::create(b, l, transfer, pointer, bytes);
            return bitcastToGroup(b, l, groupType, raw);
          };
          if (!group.valid)
            return load(rewriter, loc);
          Value padding =
              other ? other
                    : arith::ConstantOp::create(rewriter, loc, groupType,
                                                rewriter.getZeroAttr(groupType))
                          .getResult();
          return scf::IfOp::create(
                     rewriter, loc, group.valid,
                     [&](OpBuilder &b, Location l) {
                       scf::YieldOp::create(b, l, load(b, l));
                     },
                     [&](OpBuilder &b, Location l) {
                       scf::YieldOp::create(b, l, padding);
                     })
              .getResult(0);
        });
  }
};

struct NvidiaStoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tileType = op.getValue().getType();
    auto plan = planAccess(rewriter, loc, tileType, adaptor.getPtr(),
                           adaptor.getOrigin(), adaptor.getStrides(),
                           adaptor.getBounds(), adaptor.getMask(), op.getVecWidth(),
                           op.getUniformMask(), /*bufferResource=*/false);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "layout has no lowering");
    unsigned vec = plan->vec;
    unsigned bits = vec * tileType.getElementType().getIntOrFloatBitWidth();
    Type transfer = groupTransferType(getContext(), bits);
    for (const AccessGroup &group : plan->groups) {
      SmallVector<int64_t> lanes;
      for (unsigned j = 0; j < vec; ++j)
        lanes.push_back(group.firstEntry + j);
      Value part = vector::ShuffleOp::create(rewriter, loc, adaptor.getValue(),
                                             adaptor.getValue(), lanes);
      Value data = bitcastFromGroup(rewriter, loc, transfer, part);
      Value pointer = groupPointer(rewriter, loc, *plan, group);
      auto store = [&](OpBuilder &b, Location l) {
        LLVM::StoreOp::create(b, l, data, pointer, bits / 8);
      };
      if (group.valid) {
        scf::IfOp::create(rewriter, loc, group.valid,
                          [&](OpBuilder &b, Location l) {
                            store(b, l);
                            scf::YieldOp::create(b, l);
                          });
      } else {
        store(rewriter, loc);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateNvidiaMemoryPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<NvidiaLoadLowering, NvidiaStoreLowering>(converter,
                                                        patterns.getContext());
}
