//===- KernelArgs.h - kernarg segments from code-object metadata -*- C++
//-*-===//
#ifndef ROCDSL_RUNTIME_KERNELARGS_H
#define ROCDSL_RUNTIME_KERNELARGS_H

#include "rocdsl/Runtime/Runtime.h"
#include "rocdsl/Target/AMDGPU.h"

#include <vector>

namespace mlir::rocdsl {

/// Lays out the kernarg segment exactly as the code object's metadata says:
/// explicit argument i is copied (`.size` bytes from `args[i]`) to its
/// `.offset`; hidden block counts and group sizes get the launch's values,
/// other hidden arguments zero. Fails if the argument count differs.
llvm::Expected<std::vector<uint8_t>>
packKernelArgs(const KernelResources &kernel, llvm::ArrayRef<void *> args,
               LaunchGrid grid, const uint32_t blockSize[3]);

} // namespace mlir::rocdsl

#endif
