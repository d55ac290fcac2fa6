//===- LdsAllocation.cpp - one LDS arena per kernel, reused by liveness
//----===//
//
// Each kernel's LDS tiles and layout-conversion scratch live in one arena.
// A buffer is live from its op to its last use; a use inside a loop that
// does not hold the buffer's op keeps it live to the end of that loop (the
// next iteration reads it again). Buffers whose live ranges are disjoint
// share bytes: the operand tiles of a K loop and the scratch of the
// epilogue's conversion after it, for example. Offsets are found first-fit,
// the largest buffer first, aligned to 16 bytes (the widest LDS access) or
// to what the buffer asks for (the matrix unit's swizzled tiles: 1024).
//
// Sharing bytes needs no barrier of its own: every LDS write already waits
// for all waves at a barrier before it writes (LdsLowering.cpp), so the
// reads of the buffer that held the bytes before are over. Asynchronous
// copies are writes that land later, and a barrier does not wait for them
// (cp.async; direct-to-LDS loads with planned waits): a buffer a copy
// writes stays live until a wait that retires every copy (`async_wait
// {pending = 0}`) follows the copy, even where nothing reads what it
// wrote (a pipeline's copies past the last step).
//
//===----------------------------------------------------------------------===//
#include "PatternsInternal.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

constexpr int64_t kLdsAlignment = 16;

/// Program order of a function's ops: each op's pre-order index, and the
/// last index inside it (its own for ops without regions).
struct ProgramOrder {
  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> span;
  int64_t end = 0;
  /// Where `async_wait {pending = 0}` retires every copy, in order.
  SmallVector<int64_t> drains;

  explicit ProgramOrder(FuncOp func) {
    int64_t next = 0;
    number(func, next);
    end = next;
  }
  void number(Operation *op, int64_t &next) {
    int64_t first = next++;
    if (auto wait = dyn_cast<AsyncWaitOp>(op); wait && wait.getPending() == 0)
      drains.push_back(first);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &nested : block)
          number(&nested, next);
    span[op] = {first, next - 1};
  }
  int64_t first(Operation *op) const { return span.lookup(op).first; }
  int64_t last(Operation *op) const { return span.lookup(op).second; }
  /// The first drain after `index`, or the end.
  int64_t drainAfter(int64_t index) const {
    auto it = llvm::upper_bound(drains, index);
    return it == drains.end() ? end : *it;
  }
};

/// [first, last] in program order over which `buffer`'s bytes are in use.
std::pair<int64_t, int64_t> liveRange(const ProgramOrder &order,
                                      const LdsBuffer &buffer) {
  Operation *op = buffer.op;
  int64_t first = order.first(op), last = order.first(op);
  if (op->getNumResults() == 0 || !isa<LdsTileType>(op->getResult(0).getType()))
    return {first, last}; // scratch: within the op
  // The tile's readers and writers, through local_index for the buffers of
  // a stack.
  bool seen = walkLdsTileUsers(op->getResult(0), [&](Operation *user) {
    // Anything but an LDS read or write (a yield, a call) may keep the
    // tile beyond what the uses show: live to the end.
    if (!isa<LocalLoadOp, LocalStoreOp, AsyncCopyOp, WarpgroupDotOp>(user))
      return false;
    int64_t end = order.last(user);
    if (isa<AsyncCopyOp>(user))
      end = order.drainAfter(end);
    for (Operation *loop = user->getParentOp(); loop;
         loop = loop->getParentOp()) {
      if (loop->isAncestor(op))
        break;
      if (isa<LoopLikeOpInterface>(loop))
        end = std::max(end, order.last(loop));
    }
    last = std::max(last, end);
    return true;
  });
  return {first, seen ? last : order.end};
}

} // namespace

bool mlir::rocdsl::walkLdsTileUsers(Value tile,
                                    function_ref<bool(Operation *)> fn) {
  SmallVector<Value> tiles = {tile};
  while (!tiles.empty()) {
    Value t = tiles.pop_back_val();
    for (Operation *user : t.getUsers()) {
      if (auto index = dyn_cast<LocalIndexOp>(user))
        tiles.push_back(index.getResult());
      else if (!fn(user))
        return false;
    }
  }
  return true;
}

int64_t
mlir::rocdsl::assignLdsOffsets(FuncOp func, ArrayRef<LdsBuffer> buffers,
                               llvm::DenseMap<Operation *, int64_t> &offsets) {
  ProgramOrder order(func);
  struct Placed {
    int64_t first, last, offset, bytes;
  };
  SmallVector<unsigned> byDecreasingSize(buffers.size());
  for (unsigned i = 0; i < buffers.size(); ++i)
    byDecreasingSize[i] = i;
  // Equal sizes keep the buffers' order: the index breaks ties, so the layout
  // does not depend on the sort's stability.
  llvm::sort(byDecreasingSize, [&](unsigned a, unsigned b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return a < b;
  });
  SmallVector<Placed> placed;
  int64_t arena = 0;
  for (unsigned i : byDecreasingSize) {
    auto [first, last] = liveRange(order, buffers[i]);
    int64_t align = std::max(kLdsAlignment, buffers[i].alignment);
    int64_t bytes = llvm::alignTo(buffers[i].bytes, kLdsAlignment);
    // Lowest offset clear of every placed buffer live at the same time.
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (const Placed &p : placed)
      if (p.first <= last && first <= p.last)
        busy.push_back({p.offset, p.offset + p.bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + bytes <= begin)
        break;
      offset = llvm::alignTo(std::max(offset, end), align);
    }
    placed.push_back({first, last, offset, bytes});
    offsets[buffers[i].op] = offset;
    arena = std::max(arena, offset + bytes);
  }
  return arena;
}
