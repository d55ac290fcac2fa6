//===- ReduceLowering.cpp - rocdsl.reduce ---------------------------------===//
//
// Three levels, cheapest first: the entries a lane owns (a tree of scalar
// ops), the lanes of a wave that split the axis (gpu.subgroup_reduce, which
// becomes DPP/permlane moves, no memory), and the waves that split the axis
// (one LDS array per reduce, written, a barrier, read; and a second barrier
// only where the same reduce could write its array again while a slower
// wave still reads it).
//
//===----------------------------------------------------------------------===//
#include "PatternsInternal.h"
#include "rocdsl/Conversion/TileElementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value y,
              arith::FastMathFlags flags = arith::FastMathFlags::none) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::Add:
    return isFloat ? arith::AddFOp::create(b, loc, x, y, flags).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case ReduceKind::Mul:
    return isFloat ? arith::MulFOp::create(b, loc, x, y).getResult()
                   : arith::MulIOp::create(b, loc, x, y).getResult();
  case ReduceKind::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case ReduceKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                   : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  llvm_unreachable("unknown reduce kind");
}

Value identity(OpBuilder &b, Location loc, ReduceKind kind, Type type) {
  return arith::ConstantOp::create(b, loc, getReductionIdentity(kind, type));
}

gpu::AllReduceOperation toGpuKind(ReduceKind kind, bool isFloat) {
  switch (kind) {
  case ReduceKind::Add:
    return gpu::AllReduceOperation::ADD;
  case ReduceKind::Mul:
    return gpu::AllReduceOperation::MUL;
  case ReduceKind::Max:
    return isFloat ? gpu::AllReduceOperation::MAXIMUMF
                   : gpu::AllReduceOperation::MAXSI;
  case ReduceKind::Min:
    return isFloat ? gpu::AllReduceOperation::MINIMUMF
                   : gpu::AllReduceOperation::MINSI;
  }
  llvm_unreachable("unknown reduce kind");
}

/// Balanced tree: independent ops the scheduler can overlap (for a few
/// values: the chains' results). Each level combines value i with value
/// i + half, so the values combined at every level are adjacent pairs in
/// the level below: LLVM packs them into two-wide operations (v_pk_add_f32)
/// whose operands already sit in register pairs, where pairing i with i + 1
/// would pack values a pair apart and move every one into place first.
Value treeCombine(OpBuilder &b, Location loc, ReduceKind kind,
                  SmallVector<Value> values,
                  arith::FastMathFlags flags = arith::FastMathFlags::none) {
  while (values.size() > 1) {
    size_t half = values.size() / 2;
    SmallVector<Value> next;
    for (size_t i = 0; i < half; ++i)
      next.push_back(
          combine(b, loc, kind, values[i], values[i + half], flags));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

/// Independent accumulation chains a lane's own entries are reduced in:
/// enough to overlap the combines' latency, few enough that the partial
/// results stay a handful of registers (a balanced tree over 64 entries
/// keeps 32 partials live beside the entries, which spills a 64-entry
/// row at 128 registers), and that a sum of products is one fma per
/// product but the chains' first.
constexpr size_t kLaneChains = 4;

/// From this many waves on, the partials of a cross-wave reduce are
/// combined by one in-wave reduce (a partial per lane) rather than by
/// every lane reading them all: 16 partials cost 4 128-bit LDS reads and
/// 15 combines a lane that way, against one read and 5-6 shuffle steps.
constexpr unsigned kShuffleCombineWaves = 16;

/// `values` combined in kLaneChains sequential chains, then a tree of the
/// chains.
Value chainCombine(OpBuilder &b, Location loc, ReduceKind kind,
                   ArrayRef<Value> values) {
  size_t chains = std::min(kLaneChains, values.size());
  SmallVector<Value> acc(values.begin(), values.begin() + chains);
  for (size_t i = chains; i < values.size(); ++i)
    acc[i % chains] = combine(b, loc, kind, acc[i % chains], values[i]);
  return treeCombine(b, loc, kind, acc);
}

/// Sum over `entries` of lhs[e] * rhs[e] (the per-lane vectors of a
/// contractible product's operands): kLaneChains chains of math.fma,
/// then a tree of the chains. Explicit fmas, so every target gets them
/// (LLVM would fuse a scalar multiply into an add, but not a lane of a
/// vector multiply, which AMDGPU keeps packed).
Value chainedProductSum(OpBuilder &b, Location loc, Value lhs, Value rhs,
                        ArrayRef<unsigned> entries) {
  auto operand = [&](Value v, unsigned e) -> Value {
    return vector::ExtractOp::create(b, loc, v, int64_t(e));
  };
  auto contract = arith::FastMathFlags::contract;
  size_t chains = std::min(kLaneChains, entries.size());
  SmallVector<Value> sums;
  for (size_t c = 0; c < chains; ++c)
    sums.push_back(arith::MulFOp::create(b, loc, operand(lhs, entries[c]),
                                         operand(rhs, entries[c]), contract));
  for (size_t i = chains; i < entries.size(); ++i)
    sums[i % chains] =
        math::FmaOp::create(b, loc, operand(lhs, entries[i]),
                            operand(rhs, entries[i]), sums[i % chains]);
  return treeCombine(b, loc, ReduceKind::Add, sums, contract);
}

/// The product a reduce sums, when the kernel allows it to contract (an
/// arith.mulf with fastmath<contract> over the reduced tile): its terms
/// may then become fmas.
arith::MulFOp contractibleProductSummed(ReduceOp op) {
  auto mul = op.getSrc().getDefiningOp<arith::MulFOp>();
  if (op.getKind() != ReduceKind::Add || !mul ||
      !bitEnumContainsAll(mul.getFastmath(), arith::FastMathFlags::contract))
    return {};
  return mul;
}

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  ReduceLowering(TileTypeConverter &converter, MLIRContext *ctx,
                 gpu::GPUModuleOp gpuModule,
                 llvm::DenseSet<Operation *> withoutTrailingBarrier)
      : OpConversionPattern(converter, ctx), gpuModule(gpuModule),
        withoutTrailingBarrier(std::move(withoutTrailingBarrier)) {}

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = op.getSrc().getType();
    auto dist = TileDistribution::get(srcType);
    if (!dist)
      return failure();
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    ReduceKind kind = op.getKind();
    Type elementType = srcType.getElementType();
    bool isFloat = isa<FloatType>(elementType);

    // 1. Inside the lane: group entries by their index without `axis`.
    //    Keys are the entry with axis index 0.
    Value base = dist->laneCoordBase(rewriter, loc, axis);
    Value extent = constI32(rewriter, loc, srcType.getShape()[axis]);
    llvm::MapVector<unsigned, SmallVector<Value>> groups;
    llvm::DenseMap<unsigned, SmallVector<unsigned>> entriesOf;
    for (unsigned f = 0; f < dist->getNumElements(); ++f) {
      SmallVector<unsigned> index = dist->delinearize(f);
      unsigned e = index[axis];
      index[axis] = 0;
      Value v = vector::ExtractOp::create(rewriter, loc, adaptor.getSrc(),
                                          int64_t(f));
      if (dist->wraps(axis)) {
        // Copies beyond the tile extent must not count twice.
        Value raw = arith::AddIOp::create(
            rewriter, loc, base,
            constI32(rewriter, loc, dist->constantCoord(axis, e)));
        Value inside = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ult, raw, extent);
        v = arith::SelectOp::create(rewriter, loc, inside, v,
                                    identity(rewriter, loc, kind, elementType));
      }
      groups[dist->linearize(index)].push_back(v);
      entriesOf[dist->linearize(index)].push_back(f);
    }

    // 2. Across the lanes of a wave that split the axis.
    unsigned lanes = dist->getThreadsAlong(axis);
    unsigned laneStride = dist->getLaneStrideAlong(axis);
    SmallVector<std::pair<unsigned, Value>> partials;
    arith::MulFOp product = dist->wraps(axis)
                                ? arith::MulFOp()
                                : contractibleProductSummed(op);
    Value productLhs, productRhs;
    if (product) {
      productLhs = rewriter.getRemappedValue(product.getLhs());
      productRhs = rewriter.getRemappedValue(product.getRhs());
    }
    for (auto &[key, values] : groups) {
      Value v = productLhs && productRhs
                    ? chainedProductSum(rewriter, loc, productLhs, productRhs,
                                        entriesOf[key])
                    : chainCombine(rewriter, loc, kind, values);
      if (lanes > 1) {
        if (lanes == dist->getWarpSize())
          v = gpu::SubgroupReduceOp::create(rewriter, loc, v,
                                            toGpuKind(kind, isFloat),
                                            /*uniform=*/true);
        else
          v = gpu::SubgroupReduceOp::create(
              rewriter, loc, v, toGpuKind(kind, isFloat), /*uniform=*/true,
              rewriter.getI32IntegerAttr(lanes), laneStride);
      }
      partials.push_back({key, v});
    }

    // 3. Across the waves that split the axis, through LDS.
    if (dist->getWarpsAlong(axis) > 1)
      if (failed(reduceAcrossWaves(op, rewriter, *dist, partials)))
        return failure();

    // Assemble the result in the slice layout's entry order.
    if (srcType.getRank() == 1) {
      rewriter.replaceOp(op, partials.front().second);
      return success();
    }
    llvm::DenseMap<unsigned, Value> byKey(partials.begin(), partials.end());
    auto resultType = cast<RankedTensorType>(op.getType());
    auto resultDist = TileDistribution::get(resultType);
    if (!resultDist)
      return failure();
    SmallVector<Value> entries;
    for (unsigned f = 0; f < resultDist->getNumElements(); ++f) {
      SmallVector<unsigned> index = resultDist->delinearize(f);
      index.insert(index.begin() + axis, 0);
      entries.push_back(byKey.lookup(dist->linearize(index)));
    }
    auto vecType =
        cast<VectorType>(getTypeConverter()->convertType(resultType));
    rewriter.replaceOp(
        op, vector::FromElementsOp::create(rewriter, loc, vecType, entries));
    return success();
  }

  /// Each wave writes its partial per result element to
  /// lds[waveAlongAxis][resultElement]; after a barrier every lane combines
  /// the partials of its result elements (from kShuffleCombineWaves waves
  /// on, through one in-wave reduce over a partial per lane). A second
  /// barrier keeps this reduce, run again in a loop, from overwriting slots
  /// a slower wave still reads, unless another barrier always comes first
  /// (findReducesWithoutTrailingBarrier).
  LogicalResult
  reduceAcrossWaves(ReduceOp op, ConversionPatternRewriter &rewriter,
                    const TileDistribution &dist,
                    SmallVector<std::pair<unsigned, Value>> &partials) const {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    auto srcType = op.getSrc().getType();
    Type elementType = srcType.getElementType();
    unsigned waves = dist.getWarpsAlong(axis);
    int64_t resultElems = 1;
    for (unsigned d = 0; d < srcType.getRank(); ++d)
      if (d != axis)
        resultElems *= srcType.getShape()[d];

    auto ldsPtrType = LLVM::LLVMPointerType::get(getContext(), 3);
    Value lds = createLdsArray(rewriter, loc, gpuModule,
                               "__rocdsl_reduce_lds_", elementType,
                               waves * resultElems);

    // Linear index of each partial's result element in the whole tile.
    SmallVector<Value> laneBase;
    for (unsigned d = 0; d < srcType.getRank(); ++d)
      laneBase.push_back(dist.laneCoordBase(rewriter, loc, d));
    auto slotOf = [&](unsigned key) {
      SmallVector<unsigned> index = dist.delinearize(key);
      Value linear = constI32(rewriter, loc, 0);
      for (unsigned d = 0; d < srcType.getRank(); ++d) {
        if (d == axis)
          continue;
        Value c = dist.coord(rewriter, loc, d, index[d], laneBase[d]);
        linear = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(
                rewriter, loc, linear,
                constI32(rewriter, loc, srcType.getShape()[d])),
            c);
      }
      return linear;
    };
    auto elementPtr = [&](Value index) {
      return LLVM::GEPOp::create(rewriter, loc, ldsPtrType, elementType, lds,
                                 ValueRange{index});
    };

    Value wave = dist.warpIndexAlong(rewriter, loc, axis);
    Value waveBase = arith::MulIOp::create(
        rewriter, loc, wave, constI32(rewriter, loc, resultElems));
    SmallVector<Value> slots;
    for (auto &[key, value] : partials) {
      Value slot = slotOf(key);
      slots.push_back(slot);
      LLVM::StoreOp::create(
          rewriter, loc, value,
          elementPtr(arith::AddIOp::create(rewriter, loc, waveBase, slot)));
    }
    gpu::BarrierOp::create(rewriter, loc);
    if (waves >= kShuffleCombineWaves && waves <= dist.getWarpSize()) {
      // Many partials: lane l of every wave reads wave l's, the others
      // the identity, and one in-wave reduce combines them (one LDS load
      // and log2(wave) shuffles a lane instead of `waves` loads and
      // combines).
      ReduceKind kind = op.getKind();
      Value lane = dist.laneId(rewriter, loc);
      Value reads = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::ult, lane,
                                          constI32(rewriter, loc, waves));
      Value source = arith::SelectOp::create(rewriter, loc, reads, lane,
                                             constI32(rewriter, loc, 0));
      Value sourceBase = arith::MulIOp::create(
          rewriter, loc, source, constI32(rewriter, loc, resultElems));
      for (auto [i, entry] : llvm::enumerate(partials)) {
        Value partial = LLVM::LoadOp::create(
            rewriter, loc, elementType,
            elementPtr(
                arith::AddIOp::create(rewriter, loc, sourceBase, slots[i])));
        partial = arith::SelectOp::create(
            rewriter, loc, reads, partial,
            identity(rewriter, loc, kind, elementType));
        entry.second = gpu::SubgroupReduceOp::create(
            rewriter, loc, partial,
            toGpuKind(kind, isa<FloatType>(elementType)), /*uniform=*/true);
      }
    } else {
      for (auto [i, entry] : llvm::enumerate(partials)) {
        SmallVector<Value> values;
        for (unsigned w = 0; w < waves; ++w) {
          Value index = arith::AddIOp::create(
              rewriter, loc, slots[i],
              constI32(rewriter, loc, w * resultElems));
          values.push_back(LLVM::LoadOp::create(rewriter, loc, elementType,
                                                elementPtr(index)));
        }
        entry.second = treeCombine(rewriter, loc, op.getKind(), values);
      }
    }
    if (!withoutTrailingBarrier.contains(op.getOperation()))
      gpu::BarrierOp::create(rewriter, loc);
    return success();
  }

  mutable gpu::GPUModuleOp gpuModule;
  llvm::DenseSet<Operation *> withoutTrailingBarrier;
};

/// Whether `op` goes across waves (and so through LDS and barriers).
bool reducesAcrossWaves(ReduceOp op) {
  auto dist = TileDistribution::get(op.getSrc().getType());
  return dist && dist->getWarpsAlong(op.getAxis()) > 1;
}

} // namespace

llvm::DenseSet<Operation *>
mlir::rocdsl::findReducesWithoutTrailingBarrier(ModuleOp module) {
  // A cross-wave reduce writes its own LDS array, so its trailing barrier
  // only guards the array against the same reduce running again. It runs
  // once if no loop encloses it. Inside a loop, another cross-wave reduce in
  // the same block is on every path from this one's reads to its next
  // write (the block runs whole each time round), and that reduce's first
  // barrier waits for every wave, so it guards the array as well.
  SmallVector<ReduceOp> crossWave;
  llvm::DenseMap<Block *, unsigned> perBlock;
  module.walk([&](ReduceOp op) {
    if (!reducesAcrossWaves(op))
      return;
    crossWave.push_back(op);
    ++perBlock[op->getBlock()];
  });
  llvm::DenseSet<Operation *> found;
  for (ReduceOp op : crossWave)
    if (!op->getParentOfType<LoopLikeOpInterface>() ||
        perBlock.lookup(op->getBlock()) > 1)
      found.insert(op);
  return found;
}

void mlir::rocdsl::populateReducePatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns,
    gpu::GPUModuleOp gpuModule,
    llvm::DenseSet<Operation *> withoutTrailingBarrier) {
  patterns.add<ReduceLowering>(converter, patterns.getContext(), gpuModule,
                               std::move(withoutTrailingBarrier));
}
