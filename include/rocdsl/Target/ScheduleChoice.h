//===- ScheduleChoice.h - LLVM's AMDGPU scheduler, picked per kernel -*- C++ -*-===//
//
// LLVM's AMDGPU machine scheduler has several strategies; its default
// (GCNMaxOccupancy) stops lowering register pressure once occupancy is not
// at stake and interleaves independent chains for latency, which in a
// straight-line kernel can cost VGPRs and instructions another strategy
// saves. For loop-free kernels ROCDSL compiles the default and the
// iterative ILP and minimum-register strategies and keeps the one with the
// fewest VGPRs among those with no more instructions than the default
// (ties: fewer instructions, then the default). Kernels with loops or
// matrix-core instructions keep the default: static counts say little
// about where their time goes (and LLVM 22's iterative ILP scheduler
// crashes on a fully unrolled MFMA loop).
//
// ROCDSL_AMD_SCHEDULE overrides it: `auto` (the default), `default`, or one
// of LLVM's strategy names (forced on every kernel).
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_TARGET_SCHEDULECHOICE_H
#define ROCDSL_TARGET_SCHEDULECHOICE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::rocdsl {

struct ScheduleSetting {
  /// Try the candidates on loop-free kernels.
  bool automatic = true;
  /// The strategy when not automatic; empty is LLVM's default.
  std::string strategy;
};

/// The strategies LLVM accepts in the `amdgpu-sched-strategy` attribute.
llvm::ArrayRef<llvm::StringRef> getScheduleStrategies();

/// Parses a ROCDSL_AMD_SCHEDULE value (empty: auto).
llvm::Expected<ScheduleSetting> parseScheduleSetting(llvm::StringRef value);

/// The setting of ROCDSL_AMD_SCHEDULE, and its value as it goes into cache
/// keys ("auto", "default" or a strategy name).
llvm::Expected<ScheduleSetting> getScheduleSetting();
std::string getScheduleSettingKey();

/// Sets `strategy` (empty: LLVM's default) on every LLVM function of the
/// lowered module's gpu.modules.
void setScheduleStrategy(ModuleOp lowered, llvm::StringRef strategy);

/// What one strategy gave (sums over the module's kernels).
struct ScheduleOutcome {
  std::string strategy; // empty: LLVM's default
  unsigned instructions = 0, vgprs = 0, spills = 0;
  bool hasLoop = false;
  /// The assembly that was measured (empty when none was: a fixed
  /// setting, or a kernel that skips the comparison).
  std::string assembly;
};

/// Applies `setting` to the lowered module for `chip` and returns the
/// outcome that was kept (automatic: after comparing the candidates; a
/// strategy other than the default is logged at info level, naming
/// `kernels`).
llvm::Expected<ScheduleOutcome> chooseSchedule(ModuleOp lowered,
                                               llvm::StringRef chip,
                                               const ScheduleSetting &setting,
                                               llvm::StringRef kernels);

} // namespace mlir::rocdsl

#endif
