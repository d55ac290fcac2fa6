//===- KernelAttrs.h - discardable attributes of rocdsl.func ----*- C++ -*-===//
//
// Hints a kernel may carry on its rocdsl.func that only some targets use,
// so they are discardable attributes rather than part of the op.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_DIALECT_ROCDSL_IR_KERNELATTRS_H
#define ROCDSL_DIALECT_ROCDSL_IR_KERNELATTRS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::rocdsl {

/// i32: workgroups that should fit on one CU or SM at once, an occupancy
/// hint the backend meets by keeping registers low (NVIDIA: ptxas's
/// .minnctapersm; AMD takes rocdsl.func's waves_per_eu instead).
constexpr llvm::StringLiteral kMinProgramsPerCUAttr =
    "rocdsl.min_programs_per_cu";

} // namespace mlir::rocdsl

#endif
