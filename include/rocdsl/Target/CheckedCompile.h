//===- CheckedCompile.h - AMDGPU code objects proven hazard-free -*- C++
//-*-===//
//
// Every kernel ROCDSL emits for AMDGPU goes through here: lower, scan the
// emitted assembly for the wide-store data hazard (rocdsl-isa-check's
// analysis), and if a kernel shows it, recompile only that module with the
// conservative store form (no store wider than 64 bits), then with explicit
// s_nop padding. The event is logged once, naming the kernel. A module that
// still shows the hazard is an error: it is never returned.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_TARGET_CHECKEDCOMPILE_H
#define ROCDSL_TARGET_CHECKEDCOMPILE_H

#include "rocdsl/ISA/HazardCheck.h"
#include "rocdsl/Target/AMDGPU.h"

#include <functional>

namespace mlir::rocdsl {

struct CheckedCode {
  std::string codeObject; // HSA code object
  std::string assembly;   // the assembly that was checked
  std::string lowered;    // the module after rocdsl-to-rocdl
  StoreForm form = StoreForm::Wide;
  /// LLVM's machine-scheduler strategy the code was generated with (empty:
  /// its default; ScheduleChoice.h).
  std::string schedule;
  /// Findings of the forms that were rejected before `form`.
  std::vector<isa::Finding> rejected;
  /// Registers of loads the shipped code touches before an s_waitcnt
  /// retires them (isa WaitCheck.h; gfx9 family). Expected empty: each one
  /// is also logged as a warning.
  std::vector<isa::WaitFinding> waitViolations;
  /// Who placed the waits of direct-to-LDS copies: "explicit" (ROCDSL's
  /// plan, proven on the assembly), "llvm" (drained), or empty where no
  /// copy went direct.
  std::string waits;
  /// The async-copy settings the shipped code was lowered with (the
  /// environment applied, after any fallback): lower again with these to
  /// see its LLVM IR.
  AsyncCopyOptions copies;
  /// Findings against a plan that was then dropped for drained waits.
  std::vector<isa::WaitFinding> unprovenPlan;
};

/// The analysis to run on assembly; tests substitute their own.
using AssemblyChecker = std::function<llvm::Expected<isa::CheckResult>(
    llvm::StringRef text, llvm::StringRef file, llvm::StringRef chip)>;

/// isa::checkAssembly as an AssemblyChecker (the default).
llvm::Expected<isa::CheckResult> checkAssemblyDefault(llvm::StringRef text,
                                                      llvm::StringRef file,
                                                      llvm::StringRef chip);

/// Compiles a copy of the rocdsl `module` (left untouched) for `chip`,
/// starting with `first` and falling back as described above.
llvm::Expected<CheckedCode>
compileAMDGPUChecked(ModuleOp module, llvm::StringRef chip,
                     unsigned optLevel = 3, StoreForm first = StoreForm::Wide,
                     const AssemblyChecker &checker = checkAssemblyDefault,
                     const AsyncCopyOptions &copies = {});

} // namespace mlir::rocdsl

#endif
