//===- KernelArgs.cpp - kernarg segments from code-object metadata --------===//
#include "rocdsl/Runtime/KernelArgs.h"

#include "llvm/ADT/StringSwitch.h"

#include <cstring>

using namespace mlir;
using namespace mlir::rocdsl;

llvm::Expected<std::vector<uint8_t>>
mlir::rocdsl::packKernelArgs(const KernelResources &kernel,
                             llvm::ArrayRef<void *> args, LaunchGrid grid,
                             const uint32_t blockSize[3]) {
  size_t explicitCount = llvm::count_if(
      kernel.args, [](const KernelArgInfo &a) { return !a.isHidden(); });
  if (explicitCount != args.size())
    return llvm::createStringError(
        "kernel " + kernel.name + " takes " + std::to_string(explicitCount) +
        " arguments, got " + std::to_string(args.size()));
  size_t size = kernel.kernargSegmentSize;
  for (const KernelArgInfo &a : kernel.args)
    size = std::max<size_t>(size, a.offset + a.size);
  std::vector<uint8_t> segment(size, 0);
  unsigned next = 0;
  for (const KernelArgInfo &a : kernel.args) {
    if (!a.isHidden()) {
      std::memcpy(segment.data() + a.offset, args[next++], a.size);
      continue;
    }
    uint64_t value = llvm::StringSwitch<uint64_t>(a.valueKind)
                         .Case("hidden_block_count_x", grid.x)
                         .Case("hidden_block_count_y", grid.y)
                         .Case("hidden_block_count_z", grid.z)
                         .Case("hidden_group_size_x", blockSize[0])
                         .Case("hidden_group_size_y", blockSize[1])
                         .Case("hidden_group_size_z", blockSize[2])
                         .Default(0);
    std::memcpy(segment.data() + a.offset, &value,
                std::min<size_t>(a.size, sizeof(value)));
  }
  return segment;
}
