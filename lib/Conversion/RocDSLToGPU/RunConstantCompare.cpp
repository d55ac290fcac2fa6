//===- RunConstantCompare.cpp - one comparison per constant run ----------===//
//
// A mask such as `iota + start < N`, with start and N multiples of 8, is
// the same for each aligned run of 8 innermost elements; the vector-width
// analysis records that on the comparison (`rocdsl.constancy`). Each lane
// then compares once per run it holds and repeats the result over the run,
// as Triton does, instead of once per element: on NVIDIA every live mask
// element is a predicate register (a 64-element row mask kept across a
// reduction otherwise spills), and on both targets it is fewer compares.
//
//===----------------------------------------------------------------------===//
#include "PatternsInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// Whether, along `dim`, every lane's entries fall into runs of `run`
/// elements that start at multiples of `run` in the tile: the lane and
/// wave parts of the coordinate are multiples of it, and each aligned
/// group of `run` entries holds consecutive elements from a multiple of
/// it.
bool runsAreAligned(const TileMapping &mapping, unsigned dim, int64_t run) {
  const DimMapping &d = mapping.dim(dim);
  if (d.wraps || mapping.contiguousAlong(dim) % run != 0)
    return false;
  for (const MappingTerm &t : llvm::concat<const MappingTerm>(d.lane, d.wave))
    if (t.mul % run != 0)
      return false;
  for (unsigned e = 0; e < d.elems; e += run)
    if (d.regCoord(e) % run != 0)
      return false;
  return true;
}

struct RunConstantCompareLowering : OpConversionPattern<arith::CmpIOp> {
  RunConstantCompareLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::CmpIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto runAttr = op->getAttrOfType<IntegerAttr>(kConstancyAttrName);
    auto type = dyn_cast<RankedTensorType>(op.getLhs().getType());
    if (!runAttr || !type)
      return failure();
    auto dist = TileDistribution::get(type);
    if (!dist)
      return failure();
    unsigned dim = type.getRank() - 1;
    const TileMapping &mapping = dist->getMapping();
    // Runs a lane holds whole: no longer than its contiguous entries.
    int64_t run = std::min<int64_t>(runAttr.getInt(),
                                    mapping.contiguousAlong(dim));
    if (run <= 1 || !llvm::isPowerOf2_64(run) ||
        !runsAreAligned(mapping, dim, run))
      return failure();

    // The first entry of each run compares; every entry takes its run's.
    SmallVector<int64_t> leaders, leaderOf;
    llvm::DenseMap<unsigned, int64_t> position;
    for (unsigned f = 0; f < dist->getNumElements(); ++f) {
      SmallVector<unsigned> index = dist->delinearize(f);
      index[dim] -= index[dim] % run;
      unsigned leader = dist->linearize(index);
      auto [it, inserted] = position.try_emplace(leader, leaders.size());
      if (inserted)
        leaders.push_back(leader);
      leaderOf.push_back(it->second);
    }
    Location loc = op.getLoc();
    auto pick = [&](Value v) -> Value {
      return vector::ShuffleOp::create(rewriter, loc, v, v, leaders);
    };
    Value compact = arith::CmpIOp::create(rewriter, loc, op.getPredicate(),
                                          pick(adaptor.getLhs()),
                                          pick(adaptor.getRhs()));
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, compact, compact,
                                                   leaderOf);
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateRunConstantComparePatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<RunConstantCompareLowering>(converter, patterns.getContext());
}
