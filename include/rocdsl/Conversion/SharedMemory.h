//===- SharedMemory.h - a kernel's dynamic shared memory -------*- C++ -*-===//
//
// A block on NVIDIA gets 48 KiB of shared memory statically; more (up to
// the chip's opt-in limit) must be dynamic: declared without a size and
// given at launch, after the function is allowed to take it. A kernel
// whose LDS arena is dynamic carries its size as a constant named here,
// which the CUDA runtime reads from the PTX when it loads the kernel, as
// it reads the block size from .maxntid.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_CONVERSION_SHAREDMEMORY_H
#define ROCDSL_CONVERSION_SHAREDMEMORY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace mlir::rocdsl {

/// The i32 constant holding `kernel`'s dynamic shared memory bytes.
inline std::string dynamicSharedBytesSymbol(llvm::StringRef kernel) {
  return ("__rocdsl_dynamic_shared_bytes_" + kernel).str();
}

} // namespace mlir::rocdsl

#endif
