//===- WideStoreHazard.cpp - overwrites of a wide store's data too early --===//
//
// From each VMEM store or atomic with more than two dwords of data, walk
// every path (fall-through, taken branches, loop back-edges) counting wait
// states until `needed` have passed. A VALU instruction on the way that
// writes a data register before `needed` wait states, or any other writer
// (a load into them) before one, is a finding (CDNA3 ISA, "Manually inserted
// wait states", cases 8 and 9), with the fewest wait states over all paths
// that reach it. A path stops at a call (s_swappc: the callee is not in the
// text) and where the kernel ends.
//
// The walk state is (block, wait states so far): with `needed` at most a few
// wait states, each store visits only the handful of blocks within reach.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace llvm;

namespace mlir::rocdsl::isa {

namespace {

std::string overlapText(const Instruction &writer, const RegRange &data) {
  std::string text;
  for (const RegRange &def : writer.vectorDefs) {
    if (!def.overlaps(data))
      continue;
    RegRange common = def;
    common.first = std::max(def.first, data.first);
    common.last = std::min(def.last, data.last);
    if (!text.empty())
      text += ", ";
    text += common.str();
  }
  return text;
}

struct Hit {
  unsigned writer;
  unsigned waitStates;
};

/// Wait states a writer of the data registers must keep from the store:
/// the chip's count for a VALU write, one for any other.
unsigned waitStatesNeededBy(const Instruction &writer, unsigned needed) {
  return writer.mnemonic.starts_with("v_") ? needed : std::min(needed, 1u);
}

} // namespace

std::vector<Finding> findWideStoreHazards(const Kernel &kernel,
                                          unsigned needed) {
  std::vector<Finding> findings;
  if (needed == 0 || kernel.blocks.empty())
    return findings;
  const std::vector<Instruction> &insts = kernel.instructions;

  // Block of each instruction.
  std::vector<unsigned> blockOf(insts.size());
  for (unsigned b = 0, e = kernel.blocks.size(); b != e; ++b)
    for (unsigned i = kernel.blocks[b].begin; i != kernel.blocks[b].end; ++i)
      blockOf[i] = b;

  struct Item {
    unsigned block, index, waitStates;
  };
  SmallVector<Item, 8> worklist;
  SmallVector<std::pair<unsigned, unsigned>, 8> visited; // (block, waits)
  SmallVector<Hit, 4> hits;

  for (unsigned s = 0, e = insts.size(); s != e; ++s) {
    const Instruction &store = insts[s];
    if (!store.isWideStore() || !store.storeData.isVector())
      continue;
    const RegRange &data = store.storeData;
    worklist.clear();
    visited.clear();
    hits.clear();
    worklist.push_back({blockOf[s], s + 1, 0});

    while (!worklist.empty()) {
      Item item = worklist.pop_back_val();
      const BasicBlock &block = kernel.blocks[item.block];
      unsigned waits = item.waitStates;
      bool pathEnds = false;
      for (unsigned i = item.index; i < block.end; ++i) {
        const Instruction &inst = insts[i];
        // The store's own write (an atomic's return) lands long after it
        // has read its data.
        if (i != s && waits < waitStatesNeededBy(inst, needed) &&
            inst.writes(data)) {
          auto it =
              llvm::find_if(hits, [&](const Hit &h) { return h.writer == i; });
          if (it == hits.end())
            hits.push_back({i, waits});
          else
            it->waitStates = std::min(it->waitStates, waits);
        }
        waits += inst.waitStates;
        if (waits >= needed || inst.flow == Flow::Call) {
          pathEnds = true;
          break;
        }
      }
      if (pathEnds)
        continue;
      for (unsigned succ : block.succs) {
        std::pair<unsigned, unsigned> key{succ, waits};
        if (llvm::is_contained(visited, key))
          continue;
        visited.push_back(key);
        worklist.push_back({succ, kernel.blocks[succ].begin, waits});
      }
    }

    llvm::sort(hits, [&](const Hit &a, const Hit &b) {
      return insts[a.writer].line < insts[b.writer].line;
    });
    for (const Hit &hit : hits) {
      const Instruction &writer = insts[hit.writer];
      Finding f;
      f.kernel = kernel.name;
      f.storeLine = store.line;
      f.storeText = store.text.str();
      f.writeLine = writer.line;
      f.writeText = writer.text.str();
      f.waitStates = hit.waitStates;
      f.needed = waitStatesNeededBy(writer, needed);
      f.registers = overlapText(writer, data);
      findings.push_back(std::move(f));
    }
  }
  return findings;
}

} // namespace mlir::rocdsl::isa
