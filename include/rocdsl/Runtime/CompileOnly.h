//===- CompileOnly.h - everything a compile for one chip produces -*- C++ -*-===//
//
// Compiling without running: for a chip (gfx942, gfx950, sm_90, sm_90a), the
// kernel's rocdsl IR, the IR after the target pipeline, LLVM IR, the final
// assembly (AMDGCN or PTX), the code object, each kernel's resources, and
// the wide-store hazard findings. AMDGPU code goes through the same checked
// compile as launched code (CheckedCompile.h), so what is inspected here is
// what would run. Needs no GPU.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_COMPILEONLY_H
#define ROCDSL_RUNTIME_COMPILEONLY_H

#include "rocdsl/ISA/HazardCheck.h"
#include "rocdsl/Runtime/Runtime.h"
#include "rocdsl/Target/AMDGPU.h"

namespace mlir::rocdsl {

struct CompiledArtifacts {
  std::string chip;
  std::string source;   // the rocdsl module
  std::string lowered;  // after rocdsl-to-rocdl / rocdsl-to-nvvm
  std::string llvmIR;   // the module's LLVM IR (after lowering, before llc)
  std::string assembly; // AMDGCN (the checked text) or PTX
  std::string binary;   // HSA code object; empty for NVIDIA chips
  /// AMDGPU: per kernel, from the code object's metadata.
  std::vector<KernelResources> resources;
  /// AMDGPU: the store form the checked compile settled on, the findings of
  /// the final assembly (empty unless the checker changed), and those of
  /// forms rejected before it.
  StoreForm storeForm = StoreForm::Wide;
  std::vector<isa::Finding> hazards, rejectedHazards;
  /// AMDGPU: LLVM's scheduling strategy the code was generated with (empty:
  /// its default; Target/ScheduleChoice.h).
  std::string schedule;
};

/// Compiles the module `build` makes for `chip`. Unsupported chips are an
/// error listing the supported ones.
llvm::Expected<CompiledArtifacts>
compileOnly(const CompileRequest::BuildFn &build, llvm::StringRef chip);

/// A built-in kernel's module builder for NAME=VALUE `definitions` on
/// `chip` (kernels with a `wave` parameter get the chip's wave size unless
/// the definitions set it).
llvm::Expected<CompileRequest::BuildFn>
builtinKernelBuilder(llvm::StringRef name,
                     llvm::ArrayRef<std::string> definitions,
                     llvm::StringRef chip);

} // namespace mlir::rocdsl

#endif
