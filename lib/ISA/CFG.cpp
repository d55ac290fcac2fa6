//===- CFG.cpp - basic blocks of a kernel ---------------------------------===//
//
// A block starts at the first instruction, at every label and after every
// branch, s_endpgm or s_setpc. Successors: the branch target (when the label
// is in the kernel), and the next block unless the last instruction is an
// unconditional branch or leaves the kernel.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace llvm;

namespace mlir::rocdsl::isa {

void buildCFG(Kernel &kernel) {
  kernel.blocks.clear();
  unsigned n = kernel.instructions.size();
  if (n == 0)
    return;

  std::vector<unsigned> leaders;
  leaders.reserve(kernel.labels.size() + 8);
  leaders.push_back(0);
  StringMap<unsigned> labelIndex;
  for (const auto &[label, index] : kernel.labels) {
    labelIndex.try_emplace(label, index);
    if (index < n)
      leaders.push_back(index);
  }
  for (unsigned i = 0; i + 1 < n; ++i) {
    Flow flow = kernel.instructions[i].flow;
    if (flow == Flow::Branch || flow == Flow::CondBranch ||
        flow == Flow::Return)
      leaders.push_back(i + 1);
  }
  llvm::sort(leaders);
  leaders.erase(std::unique(leaders.begin(), leaders.end()), leaders.end());

  kernel.blocks.resize(leaders.size());
  for (unsigned b = 0, e = leaders.size(); b != e; ++b) {
    kernel.blocks[b].begin = leaders[b];
    kernel.blocks[b].end = b + 1 < e ? leaders[b + 1] : n;
  }
  // First label of each block.
  for (const auto &[label, index] : kernel.labels) {
    auto it = llvm::lower_bound(leaders, index);
    if (it != leaders.end() && *it == index) {
      BasicBlock &block = kernel.blocks[it - leaders.begin()];
      if (block.label.empty())
        block.label = label;
    }
  }

  auto blockAt = [&](unsigned index) -> std::optional<unsigned> {
    auto it = llvm::lower_bound(leaders, index);
    if (it == leaders.end() || *it != index)
      return std::nullopt;
    return unsigned(it - leaders.begin());
  };

  for (unsigned b = 0, e = kernel.blocks.size(); b != e; ++b) {
    BasicBlock &block = kernel.blocks[b];
    const Instruction &last = kernel.instructions[block.end - 1];
    if (last.flow == Flow::Branch || last.flow == Flow::CondBranch) {
      if (!last.target.empty()) {
        auto it = labelIndex.find(last.target);
        if (it != labelIndex.end())
          if (std::optional<unsigned> target = blockAt(it->second))
            block.succs.push_back(*target);
      }
    }
    bool fallsThrough = last.flow != Flow::Branch && last.flow != Flow::Return;
    if (fallsThrough && b + 1 < e && !llvm::is_contained(block.succs, b + 1))
      block.succs.push_back(b + 1);
  }
}

} // namespace mlir::rocdsl::isa
