//===- NVIDIA.h - lowering and serializing rocdsl for NVIDIA GPUs -*- C++
//-*-===//
#ifndef ROCDSL_TARGET_NVIDIA_H
#define ROCDSL_TARGET_NVIDIA_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::rocdsl {

bool isSupportedNVIDIAChip(StringRef chip); // sm_90, sm_90a

/// Runs `rocdsl-to-nvvm` on `module` in place.
LogicalResult lowerToNVVM(ModuleOp module, StringRef chip,
                          unsigned optLevel = 3);

/// PTX of the (already lowered) gpu.module, from LLVM's NVPTX backend in
/// process; the CUDA driver compiles it to machine code when loading.
FailureOr<std::string> serializePTX(ModuleOp module);

} // namespace mlir::rocdsl

#endif
