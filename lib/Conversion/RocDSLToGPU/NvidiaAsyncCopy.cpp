//===- NvidiaAsyncCopy.cpp - rocdsl.async_copy as cp.async ----------------===//
//
// Each lane copies its groups of the tile straight from global to shared
// memory with `cp.async` (16 bytes: .cg, which skips L1 as the data is
// read once per program; 4 or 8 bytes: .ca, the only form for them).
// An invalid group copies zero bytes from the source and zero-fills its
// shared destination (the src-size operand), so masked rows and steps past
// the end need no branch. A group narrower than 4 bytes (cp.async's
// smallest) makes the whole copy a load and a shared store at the copy.
// Commits and waits are cp.async.commit_group / wait_group.
//
//===----------------------------------------------------------------------===//
#include "AccessPlan.h"
#include "rocdsl/Conversion/AsyncCopies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

struct AsyncCopyLowering : OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = op.getTileType();
    auto dist = TileDistribution::get(tile);
    if (!dist)
      return rewriter.notifyMatchFailure(op, "no register mapping");
    Type element = tile.getElementType();
    unsigned bytes = element.getIntOrFloatBitWidth() / 8;
    LdsGroupAddresses lds =
        ldsGroupAddresses(rewriter, loc, *dist, element, adaptor.getDst(),
                          op.getDst().getType(), op.getVecWidth());
    unsigned width = lds.width * bytes;
    if (width < 4) {
      // Register path: the load and an LDS store the author's barriers
      // order (the two ops are converted in turn).
      buildCopyThroughRegisters(rewriter, op);
      rewriter.eraseOp(op);
      return success();
    }
    auto plan =
        planAccess(rewriter, loc, tile, adaptor.getPtr(), adaptor.getOrigin(),
                   adaptor.getStrides(), adaptor.getBounds(), adaptor.getMask(),
                   lds.width, op.getUniformMask(), AccessForm::Pointer);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "layout has no lowering");
    if (plan->vec != lds.width)
      return rewriter.notifyMatchFailure(op, "access groups differ from LDS");
    auto cache = width == 16 ? NVVM::LoadCacheModifierKind::CG
                             : NVVM::LoadCacheModifierKind::CA;
    Value full = constI32(rewriter, loc, width);
    Value none = constI32(rewriter, loc, 0);
    for (const AccessGroup &group : plan->groups) {
      Value offset = arith::ExtUIOp::create(
          rewriter, loc, rewriter.getI64Type(), group.voffset);
      Value source = LLVM::GEPOp::create(rewriter, loc, plan->base.getType(),
                                         rewriter.getI8Type(), plan->base,
                                         ValueRange{offset});
      Value size =
          group.valid
              ? arith::SelectOp::create(rewriter, loc, group.valid, full, none)
                    .getResult()
              : Value();
      NVVM::CpAsyncOp::create(rewriter, loc,
                              lds.addresses[group.firstEntry / lds.width],
                              source, width, cache, size);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitLowering : OpConversionPattern<AsyncCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct AsyncWaitLowering : OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateNvidiaAsyncCopyPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AsyncCopyLowering, AsyncCommitLowering, AsyncWaitLowering>(
      converter, patterns.getContext());
}
