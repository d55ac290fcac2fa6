//===- InferVectorWidth.cpp - widest provable access per load/store ------===//
#include "rocdsl/Transforms/AxisInfo.h"
#include "rocdsl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/bit.h"

namespace mlir::rocdsl {
#define GEN_PASS_DEF_ROCDSLINFERVECTORWIDTHPASS
#include "rocdsl/Transforms/Passes.h.inc"
} // namespace mlir::rocdsl

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// The widest group of innermost elements one access of `tile` may move,
/// given what is proven about its operands. Returns 1 when nothing wider
/// is safe.
int64_t inferWidth(const AxisInfoAnalysis &facts, RankedTensorType tile,
                   Value ptr, ValueRange origin, ValueRange strides,
                   ValueRange bounds, Value mask) {
  unsigned bits = tile.getElementType().getIntOrFloatBitWidth();
  if (bits == 0 || bits > 128 || bits % 8 != 0)
    return 1;
  int64_t width = std::min<int64_t>(128 / bits, tile.getShape().back());
  width = std::min<int64_t>(width,
                            getContiguousElementsPerThread(tile.getEncoding()));
  // The group's first address must be aligned to the whole group.
  width = std::min<int64_t>(width, facts.getPointerAlignment(ptr) / (bits / 8));
  for (Value stride : strides)
    width = std::min(width, facts.get(stride).divisibility[0]);
  width = std::min(width, facts.get(origin.back()).divisibility[0]);
  // Groups may not straddle the innermost bound (bounds are per group).
  if (!bounds.empty())
    width = std::min(width, facts.get(bounds.back()).divisibility[0]);
  if (mask)
    width = std::min(width, facts.get(mask).constancy.back());
  if (width < 1)
    return 1;
  return int64_t(llvm::bit_floor(uint64_t(width)));
}

/// Records on a tile comparison the innermost runs its result is constant
/// over, when longer than one element.
void markConstantRuns(const AxisInfoAnalysis &facts, arith::CmpIOp cmp) {
  auto type = dyn_cast<RankedTensorType>(cmp.getType());
  if (!type)
    return;
  int64_t run = std::min(facts.get(cmp.getResult()).constancy.back(),
                         type.getShape().back());
  if (run > 1)
    cmp->setAttr(kConstancyAttrName,
                 IntegerAttr::get(IntegerType::get(cmp.getContext(), 32),
                                  int64_t(llvm::bit_floor(uint64_t(run)))));
}

struct InferVectorWidth
    : mlir::rocdsl::impl::RocDSLInferVectorWidthPassBase<InferVectorWidth> {
  void runOnOperation() override {
    getOperation()->walk([&](FuncOp func) {
      AxisInfoAnalysis facts(func);
      auto widen = [&](auto op, RankedTensorType tile) {
        // An explicit vec (1 included) is the author's promise or choice.
        if (op.getVec())
          return;
        int64_t width = inferWidth(facts, tile, op.getPtr(), op.getOrigin(),
                                   op.getStrides(), op.getBounds(),
                                   op.getMask());
        if (width <= 1)
          return;
        op.setVec(uint32_t(width));
        if (op.getMask())
          op.setUniformMask(true);
      };
      func.walk([&](Operation *op) {
        if (auto load = dyn_cast<LoadOp>(op))
          widen(load, load.getType());
        else if (auto store = dyn_cast<StoreOp>(op))
          widen(store, store.getValue().getType());
        else if (auto cmp = dyn_cast<arith::CmpIOp>(op))
          markConstantRuns(facts, cmp);
      });
    });
  }
};

} // namespace
