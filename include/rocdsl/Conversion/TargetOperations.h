//===- TargetOperations.h - target operations a kernel may use --*- C++ -*-===//
//
// Kernels may use target operations directly (rocdl/amdgpu or nvvm/nvgpu
// dialect ops, llvm.call_intrinsic): an escape hatch for experts. An
// operation or intrinsic of another target than the one compiled for would
// reach a backend that cannot select it, and LLVM aborts the process there
// ("LLVM ERROR: Cannot select"). Every target lowering checks first and
// reports one error at the operation instead.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_CONVERSION_TARGETOPERATIONS_H
#define ROCDSL_CONVERSION_TARGETOPERATIONS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::rocdsl {

enum class TargetFamily { AMDGPU, NVIDIA, Host };

/// The target an LLVM intrinsic name belongs to ("amdgcn" for
/// llvm.amdgcn.*, "nvvm", "x86", ...); empty for target-independent ones
/// (llvm.fma.*, llvm.memcpy.*, ...).
StringRef getIntrinsicTarget(StringRef intrinsic);

/// Fails, with an error at the first offending operation inside a
/// rocdsl.func, if a kernel uses another target's operations or intrinsics
/// than `family`'s. `chip` names the target in the message.
LogicalResult checkTargetOperations(ModuleOp module, TargetFamily family,
                                    StringRef chip);

} // namespace mlir::rocdsl

#endif
