//===- PipelineLoops.cpp - N-stage software pipelining of K loops ---------===//
//
// A loop whose global loads feed LDS (a `local_store` into a tile that only
// this loop reads, or a `convert_layout` into a `#rocdsl.dot_operand`
// layout, which the lowering would route through LDS scratch) is rewritten
// so that N - 1 iterations' copies are in flight while one computes:
//
//   prologue   for i in [0, N-1): copy step i -> buffer i; commit
//   loop       wait (at most N-2 groups pending); barrier
//              copy step iv + (N-1)*step -> buffer (slot-1) mod N; commit
//              ... the body, reading buffer `slot` ...
//              slot = (slot + 1) mod N
//
// Invariants. Exactly one group is committed per step, empty or not, so
// "N-2 pending" always means "every step up to this one has landed" in the
// lane; the barrier then makes every lane's copies visible and, because it
// follows the previous iteration's reads of buffer (slot-1) mod N, frees
// that buffer for the copy right after it. One barrier an iteration, none
// in the prologue. A copy of a step at or past the loop's end has all its
// elements out of bounds (its first bound is 0): it issues the same
// instructions, so every group has the same size (counted waits on AMD
// rely on that), reads nothing and writes zeros nobody reads. That is the
// epilogue: no peeled copies of the body, and loops of zero or one
// iteration need no special case. Each copy's addressing is the load's,
// with the induction variable advanced, so bounds and masks (the K tail)
// carry over and past-the-edge elements are written as zero.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"
#include "rocdsl/Support/ChipInfo.h"
#include "rocdsl/Support/Log.h"
#include "rocdsl/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace mlir::rocdsl {
#define GEN_PASS_DEF_ROCDSLPIPELINELOOPSPASS
#include "rocdsl/Transforms/Passes.h.inc"
} // namespace mlir::rocdsl

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// What the LDS tiles are laid out for: bank count and matrix-read facts.
struct LdsFacts {
  unsigned banks = 32;
  bool nvidia = false;
  bool transposeReads = false;
  unsigned maxBytes = 64 * 1024;
};

/// One global load whose tile goes to LDS every iteration.
struct StagedLoad {
  LoadOp load;
  /// The explicit write of the load (null for a dot-operand conversion).
  LocalStoreOp store;
  /// The dot-operand conversion reading the load (null for a store).
  ConvertLayoutOp convert;
  /// The N-buffered tile that replaces the author's tile or the scratch.
  LdsTileType bufferType;
};

class LoopPipeliner {
public:
  LoopPipeliner(scf::ForOp loop, unsigned stages, const LdsFacts &facts)
      : loop(loop), stages(stages), facts(facts) {}

  /// Why the loop cannot be pipelined, or empty when it can.
  std::string analyze();
  void rewrite();

private:
  bool computableAhead(Value v, llvm::SetVector<Operation *> &slice);
  std::string matchLoad(LoadOp load);
  void cloneCopy(OpBuilder &b, Location loc, Value iv, Value inside,
                 Value dst, const StagedLoad &s);

  scf::ForOp loop;
  unsigned stages;
  LdsFacts facts;
  SmallVector<StagedLoad> staged;
  /// Ops of the loop body the loads' addressing needs, in body order:
  /// pure, region-free, and depending only on the induction variable and
  /// values from outside the loop.
  llvm::SetVector<Operation *> slice;
};

bool LoopPipeliner::computableAhead(Value v,
                                    llvm::SetVector<Operation *> &ops) {
  if (v == loop.getInductionVar())
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return !loop->isAncestor(v.getParentBlock()->getParentOp());
  if (!loop->isAncestor(def))
    return true;
  if (ops.contains(def))
    return true;
  if (def->getBlock() != loop.getBody() || def->getNumRegions() != 0 ||
      !isMemoryEffectFree(def))
    return false;
  for (Value operand : def->getOperands())
    if (!computableAhead(operand, ops))
      return false;
  ops.insert(def);
  return true;
}

/// A zero `other` (or none) is what an asynchronous copy writes for
/// invalid elements.
static bool isZeroOrAbsent(Value other) {
  if (!other)
    return true;
  return matchPattern(other, m_Zero()) || matchPattern(other, m_AnyZeroFloat());
}

std::string LoopPipeliner::matchLoad(LoadOp load) {
  if (!load->hasOneUse())
    return "";
  Operation *user = *load->getUsers().begin();
  if (user->getBlock() != loop.getBody())
    return "";
  StagedLoad s{load, nullptr, nullptr, nullptr};
  if (auto store = dyn_cast<LocalStoreOp>(user)) {
    auto alloc = store.getDst().getDefiningOp<LocalAllocOp>();
    if (!alloc || loop->isAncestor(alloc) || alloc.getInit())
      return "";
    auto shared = dyn_cast_or_null<SharedAttr>(
        store.getDst().getType().getEncoding());
    if (!shared)
      return "";
    // Only this loop writes the tile (this store) and reads it (after the
    // store, in the same iteration).
    for (Operation *other : alloc->getUsers()) {
      if (other == store)
        continue;
      if (!isa<LocalLoadOp>(other) || !loop->isAncestor(other))
        return "an LDS tile is used outside the loop or written twice";
      Operation *inBody = loop.getBody()->findAncestorOpInBlock(*other);
      if (!store->isBeforeInBlock(inBody))
        return "an LDS tile is read before it is written in an iteration";
    }
    s.store = store;
    s.bufferType = getLdsStackType(store.getDst().getType(), stages);
  } else if (auto convert = dyn_cast<ConvertLayoutOp>(user)) {
    auto operand = dyn_cast_or_null<DotOperandAttr>(
        convert.getType().getEncoding());
    auto blocked =
        dyn_cast_or_null<BlockedAttr>(load.getType().getEncoding());
    if (!operand || !blocked || load.getType().getRank() != 2)
      return "";
    // K is dimension 1 of A and dimension 0 of B.
    unsigned kDim = operand.getOpIdx() == 0 ? 1 : 0;
    ArrayRef<int64_t> shape = load.getType().getShape();
    SmallVector<unsigned> order(blocked.getOrder());
    Type element = load.getType().getElementType();
    SharedAttr shared = getMatrixOperandSharedLayout(
        loop.getContext(), shape, element.getIntOrFloatBitWidth(), order,
        order[0] == kDim, facts.nvidia, operand.getKWidth(), facts.banks,
        facts.transposeReads);
    s.convert = convert;
    s.bufferType = getLdsStackType(
        LdsTileType::get(loop.getContext(), shape, element, shared), stages);
  } else {
    return "";
  }
  if (!isZeroOrAbsent(load.getOther()))
    return "a load's `other` is not zero (copies write zeros)";
  for (Value operand : load->getOperands())
    if (!computableAhead(operand, slice))
      return "a load's address depends on a value carried by the loop";
  staged.push_back(s);
  return "";
}

std::string LoopPipeliner::analyze() {
  if (!loop.getInductionVar().getType().isSignlessInteger() &&
      !loop.getInductionVar().getType().isIndex())
    return "the induction variable is not an integer";
  std::string why;
  for (Operation &op : *loop.getBody()) {
    if (isa<AsyncCopyOp, AsyncCommitOp, AsyncWaitOp>(op))
      return "the loop already has asynchronous copies";
    if (auto load = dyn_cast<LoadOp>(op)) {
      std::string reason = matchLoad(load);
      if (!reason.empty())
        return reason;
    }
  }
  if (staged.empty())
    return "no global load feeds an LDS tile or a dot operand";
  // A write to global memory in the loop could be one the loads, now
  // issued steps earlier, must see.
  WalkResult written = loop.getBody()->walk([&](Operation *op) {
    if (isa<StoreOp, AtomicAddOp, ProgramAtomicOp>(op) ||
        (!isa<RocDSLDialect>(op->getDialect()) &&
         hasEffect<MemoryEffects::Write>(op)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (written.wasInterrupted())
    return "the loop writes global memory";
  int64_t bytes = 0;
  for (const StagedLoad &s : staged)
    bytes += s.bufferType.getNumElements() *
             s.bufferType.getElementType().getIntOrFloatBitWidth() / 8;
  if (bytes > facts.maxBytes)
    return std::to_string(stages) + " buffers of the tiles take " +
           std::to_string(bytes) + " bytes of LDS, more than the chip's " +
           std::to_string(facts.maxBytes);
  return "";
}

void LoopPipeliner::cloneCopy(OpBuilder &b, Location loc, Value iv,
                              Value inside, Value dst, const StagedLoad &s) {
  IRMapping map;
  map.map(loop.getInductionVar(), iv);
  for (Operation *op : slice)
    b.clone(*op, map);
  LoadOp load = s.load;
  auto mapped = [&](ValueRange values) {
    return llvm::map_to_vector(values,
                               [&](Value v) { return map.lookupOrDefault(v); });
  };
  // A step past the loop's end is still copied, with every element out of
  // bounds: the copy issues the same instructions (so every group has the
  // same size, which counted waits rely on) but reads nothing and writes
  // zeros into a buffer no iteration reads. A load without bounds gets
  // bounds no index reaches.
  SmallVector<Value> bounds = mapped(load.getBounds());
  if (bounds.empty())
    bounds.assign(load.getOrigin().size(),
                  arith::ConstantOp::create(
                      b, loc, b.getI32IntegerAttr(
                                  std::numeric_limits<int32_t>::max())));
  Value none = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  bounds[0] = arith::SelectOp::create(b, loc, inside, bounds[0], none);
  Value mask = load.getMask() ? map.lookupOrDefault(load.getMask()) : Value();
  AsyncCopyOp::create(b, loc, map.lookupOrDefault(load.getPtr()),
                      mapped(load.getOrigin()), mapped(load.getStrides()),
                      bounds, mask, dst, load.getType(), load.getVecAttr(),
                      load.getUniformMask());
}

void LoopPipeliner::rewrite() {
  Location loc = loop.getLoc();
  IRRewriter rewriter(loop.getContext());
  OpBuilder &b = rewriter;
  b.setInsertionPoint(loop);
  Type ivType = loop.getInductionVar().getType();
  auto ivConstant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, ivType,
                                     b.getIntegerAttr(ivType, v));
  };
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32Type(),
                                     b.getI32IntegerAttr(v));
  };

  SmallVector<Value> buffers;
  for (const StagedLoad &s : staged)
    buffers.push_back(LocalAllocOp::create(b, loc, s.bufferType, Value()));

  auto bufferOf = [&](OpBuilder &at, Value stack, Value index) -> Value {
    auto type = getLdsBufferType(cast<LdsTileType>(stack.getType()));
    return LocalIndexOp::create(at, loc, type, stack, index);
  };
  // Copies of the step at `base + d` into buffer `index`, all elements
  // out of bounds unless that step is below the loop's end, then one
  // commit. `base + d < ub` is tested as `base < ub - d` (`limit`), which
  // does not overflow for loops ending at or below the type's maximum.
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  auto copyStep = [&](OpBuilder &at, Value base, Value d, Value limit,
                      Value index) {
    Value inside = arith::CmpIOp::create(at, loc, arith::CmpIPredicate::slt,
                                         base, limit);
    Value iv = arith::AddIOp::create(at, loc, base, d);
    for (auto [s, stack] : llvm::zip(staged, buffers))
      cloneCopy(at, loc, iv, inside, bufferOf(at, stack, index), s);
    AsyncCommitOp::create(at, loc);
  };

  // Prologue: steps 0 .. N-2 into buffers 0 .. N-2.
  for (unsigned i = 0; i + 1 < stages; ++i) {
    Value offset = arith::MulIOp::create(b, loc, step, ivConstant(i));
    Value limit = arith::SubIOp::create(b, loc, ub, offset);
    copyStep(b, lb, offset, limit, i32(i));
  }
  Value ahead = arith::MulIOp::create(b, loc, step, ivConstant(stages - 1));
  Value lastCopied = arith::SubIOp::create(b, loc, ub, ahead);

  // The loop carries the buffer of its step.
  Value zero = i32(0);
  Value count = i32(stages);
  Value one = i32(1);
  Value last = i32(stages - 1);
  auto newLoop = cast<scf::ForOp>(
      *cast<LoopLikeOpInterface>(loop.getOperation())
           .replaceWithAdditionalYields(
               rewriter, {zero}, /*replaceInitOperandUsesInLoop=*/false,
               [&](OpBuilder &yb, Location l, ArrayRef<BlockArgument> args) {
                 Value next = arith::AddIOp::create(yb, l, args[0], one);
                 Value wrap = arith::CmpIOp::create(
                     yb, l, arith::CmpIPredicate::eq, next, count);
                 return SmallVector<Value>{
                     arith::SelectOp::create(yb, l, wrap, zero, next)};
               }));
  loop = newLoop;
  Value slot = loop.getRegionIterArgs().back();

  b.setInsertionPointToStart(loop.getBody());
  AsyncWaitOp::create(b, loc, stages - 2);
  BarrierOp::create(b, loc);
  // Buffer (slot - 1) mod N, which every wave finished reading before the
  // barrier, takes the step N - 1 ahead.
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        slot, zero);
  Value previous = arith::SubIOp::create(b, loc, slot, one);
  Value refill = arith::SelectOp::create(b, loc, isFirst, last, previous);
  copyStep(b, loop.getInductionVar(), ahead, lastCopied, refill);
  for (auto [s, stack] : llvm::zip(staged, buffers)) {
    Value view = bufferOf(b, stack, slot);
    if (s.store) {
      Value tile = s.store.getDst();
      Operation *alloc = tile.getDefiningOp();
      rewriter.eraseOp(s.store);
      rewriter.replaceAllUsesWith(tile, view);
      rewriter.eraseOp(alloc);
    } else {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(s.convert);
      Value read = LocalLoadOp::create(b, s.convert.getLoc(),
                                       s.convert.getType(), view);
      rewriter.replaceOp(s.convert, read);
    }
    rewriter.eraseOp(s.load);
  }
  // Address arithmetic only the loads used is dead now.
  for (Operation *op : llvm::reverse(slice))
    if (op->use_empty())
      rewriter.eraseOp(op);
}

/// The stages a loop asks for: its `rocdsl.stages` attribute, else the
/// pass option (0: none).
static unsigned requestedStages(scf::ForOp loop, unsigned fallback,
                                bool &explicitRequest) {
  explicitRequest = false;
  if (auto attr = loop->getAttrOfType<IntegerAttr>(kStagesAttrName)) {
    explicitRequest = true;
    return unsigned(std::max<int64_t>(0, attr.getInt()));
  }
  return fallback;
}

struct PipelineLoopsPass
    : mlir::rocdsl::impl::RocDSLPipelineLoopsPassBase<PipelineLoopsPass> {
  using RocDSLPipelineLoopsPassBase::RocDSLPipelineLoopsPassBase;

  void runOnOperation() override {
    LdsFacts facts;
    if (chip != "host") {
      const ChipInfo *info = lookupChip(chip);
      if (!info) {
        getOperation().emitError() << "rocdsl-pipeline-loops: unknown chip '"
                                   << chip << "'";
        return signalPassFailure();
      }
      facts.banks = info->sharedMemoryBanks;
      facts.nvidia = info->isNVIDIA();
      facts.transposeReads = info->ldsTransposeReads;
      facts.maxBytes = info->maxSharedMemoryBytes();
    }
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    bool failed = false;
    for (scf::ForOp loop : loops) {
      bool explicitRequest;
      unsigned n = requestedStages(loop, stages, explicitRequest);
      loop->removeAttr(kStagesAttrName);
      if (n < 2)
        continue;
      if (n > 9) {
        loop.emitError() << kStagesAttrName << " = " << n
                         << " is more than 9 stages (at most 7 copy groups "
                            "may be left pending)";
        failed = true;
        continue;
      }
      LoopPipeliner pipeliner(loop, n, facts);
      std::string why = pipeliner.analyze();
      if (!why.empty()) {
        std::string where;
        llvm::raw_string_ostream os(where);
        os << loop.getLoc();
        std::string message = "loop at " + where + ": " + std::to_string(n) +
                              " stages not applied: " + why;
        if (explicitRequest)
          logWarning(message);
        else
          logDebug(message);
        continue;
      }
      pipeliner.rewrite();
      logDebug("loop pipelined in " + std::to_string(n) + " stages");
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
