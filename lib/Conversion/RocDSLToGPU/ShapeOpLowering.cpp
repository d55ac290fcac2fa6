//===- ShapeOpLowering.cpp - splat, iota, expand_dims, broadcast ----------===//
//
// Shape ops only re-index the entries a lane owns, so they become
// vector.shuffle; iota needs the lane's coordinates.
//
//===----------------------------------------------------------------------===//
#include "PatternsInternal.h"
#include "rocdsl/Conversion/TileElementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                     adaptor.getValue());
    return success();
  }
};

/// iota: lane entry e holds start + coordinate(e) = start + const(e) + base.
struct IotaLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dist = TileDistribution::get(op.getType());
    if (!dist)
      return failure();
    Location loc = op.getLoc();
    auto type =
        VectorType::get({dist->getNumElements()}, rewriter.getI32Type());
    SmallVector<int32_t> offsets;
    for (unsigned e = 0; e < dist->getNumElements(); ++e)
      offsets.push_back(dist->constantCoord(0, e));
    Value base = dist->laneCoordBase(rewriter, loc, 0);
    Value result = arith::AddIOp::create(
        rewriter, loc, vector::BroadcastOp::create(rewriter, loc, type, base),
        arith::ConstantOp::create(
            rewriter, loc, type,
            DenseElementsAttr::get(type, ArrayRef(offsets))));
    if (dist->wraps(0))
      result = arith::RemUIOp::create(
          rewriter, loc, result,
          arith::ConstantOp::create(
              rewriter, loc, type,
              SplatElementsAttr::get(
                  type, rewriter.getI32IntegerAttr(dist->getShape()[0]))));
    if (op.getStart() != 0)
      result = arith::AddIOp::create(
          rewriter, loc, result,
          arith::ConstantOp::create(
              rewriter, loc, type,
              SplatElementsAttr::get(
                  type, rewriter.getI32IntegerAttr(op.getStart()))));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Re-indexes a lane's entries: result entry f takes source entry
/// `sourceIndex(result multi-index)`.
static Value shuffleEntries(
    ConversionPatternRewriter &rewriter, Location loc, Value source,
    const TileDistribution &src, const TileDistribution &dst,
    function_ref<SmallVector<unsigned>(ArrayRef<unsigned>)> sourceIndex) {
  SmallVector<int64_t> mask;
  for (unsigned f = 0; f < dst.getNumElements(); ++f)
    mask.push_back(src.linearize(sourceIndex(dst.delinearize(f))));
  return vector::ShuffleOp::create(rewriter, loc, source, source, mask);
}

struct ExpandDimsLowering : OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = TileDistribution::get(op.getSrc().getType());
    auto dst = TileDistribution::get(op.getType());
    if (!src || !dst)
      return failure();
    unsigned axis = op.getAxis();
    rewriter.replaceOp(op, shuffleEntries(rewriter, op.getLoc(),
                                          adaptor.getSrc(), *src, *dst,
                                          [&](ArrayRef<unsigned> index) {
                                            SmallVector<unsigned> s(index);
                                            s.erase(s.begin() + axis);
                                            return s;
                                          }));
    return success();
  }
};

struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = TileDistribution::get(op.getSrc().getType());
    auto dst = TileDistribution::get(op.getType());
    if (!src || !dst)
      return failure();
    ArrayRef<int64_t> srcShape = op.getSrc().getType().getShape();
    ArrayRef<int64_t> dstShape = op.getType().getShape();
    rewriter.replaceOp(
        op, shuffleEntries(rewriter, op.getLoc(), adaptor.getSrc(), *src, *dst,
                           [&](ArrayRef<unsigned> index) {
                             SmallVector<unsigned> s(index);
                             for (unsigned d = 0; d < s.size(); ++d)
                               if (srcShape[d] != dstShape[d])
                                 s[d] = 0; // broadcast dimension
                             return s;
                           }));
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateElementwisePatterns(TileTypeConverter &converter,
                                               RewritePatternSet &patterns) {
  populateTileElementwisePatterns(converter, patterns);
  populateRunConstantComparePatterns(converter, patterns);
  patterns
      .add<SplatLowering, IotaLowering, ExpandDimsLowering, BroadcastLowering>(
          converter, patterns.getContext());
}
