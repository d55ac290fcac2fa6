//===- ScheduleChoice.cpp - LLVM's AMDGPU scheduler, picked per kernel ----===//
#include "rocdsl/Target/ScheduleChoice.h"

#include "rocdsl/ISA/HazardCheck.h"
#include "rocdsl/Support/Log.h"
#include "rocdsl/Target/AMDGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::rocdsl;

static constexpr llvm::StringLiteral kAttribute = "amdgpu-sched-strategy";

llvm::ArrayRef<llvm::StringRef> mlir::rocdsl::getScheduleStrategies() {
  static const llvm::StringRef strategies[] = {
      "max-ilp", "max-memory-clause", "iterative-ilp", "iterative-minreg",
      "iterative-maxocc"};
  return strategies;
}

llvm::Expected<ScheduleSetting>
mlir::rocdsl::parseScheduleSetting(llvm::StringRef value) {
  value = value.trim();
  ScheduleSetting setting;
  if (value.empty() || value == "auto")
    return setting;
  setting.automatic = false;
  if (value == "default")
    return setting;
  if (!llvm::is_contained(getScheduleStrategies(), value))
    return llvm::createStringError(
        "ROCDSL_AMD_SCHEDULE='" + value.str() +
        "' is not a schedule (auto, default, " +
        llvm::join(getScheduleStrategies(), ", ") + ")");
  setting.strategy = value.str();
  return setting;
}

static llvm::StringRef scheduleEnvironment() {
  const char *text = std::getenv("ROCDSL_AMD_SCHEDULE");
  return text ? llvm::StringRef(text) : llvm::StringRef();
}

llvm::Expected<ScheduleSetting> mlir::rocdsl::getScheduleSetting() {
  return parseScheduleSetting(scheduleEnvironment());
}

std::string mlir::rocdsl::getScheduleSettingKey() {
  llvm::StringRef value = scheduleEnvironment().trim();
  return value.empty() ? "auto" : value.str();
}

void mlir::rocdsl::setScheduleStrategy(ModuleOp lowered,
                                       llvm::StringRef strategy) {
  MLIRContext *ctx = lowered.getContext();
  lowered.walk([&](LLVM::LLVMFuncOp func) {
    SmallVector<Attribute> entries;
    if (ArrayAttr old = func.getPassthroughAttr())
      for (Attribute entry : old) {
        auto pair = dyn_cast<ArrayAttr>(entry);
        auto key = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[0])
                                            : StringAttr();
        if (!key || key.getValue() != kAttribute)
          entries.push_back(entry);
      }
    if (!strategy.empty())
      entries.push_back(ArrayAttr::get(
          ctx, {StringAttr::get(ctx, kAttribute), StringAttr::get(ctx, strategy)}));
    if (entries.empty())
      func.removePassthroughAttr();
    else
      func.setPassthroughAttr(ArrayAttr::get(ctx, entries));
  });
}

/// Compiles a copy of `lowered` with `strategy` and measures it.
static llvm::Expected<ScheduleOutcome>
measure(ModuleOp lowered, llvm::StringRef chip, llvm::StringRef strategy,
        llvm::StringRef kernels) {
  OwningOpRef<ModuleOp> copy = lowered.clone();
  setScheduleStrategy(*copy, strategy);
  FailureOr<std::string> assembly =
      serializeAMDGPU(*copy, AMDGPUOutput::Assembly);
  if (failed(assembly))
    return llvm::createStringError(
        "code generation of " + kernels.str() + " for " + chip.str() +
        " (" + (strategy.empty() ? "default" : strategy.str()) +
        " schedule) failed");
  auto report = isa::checkAssembly(*assembly, "schedule candidate", chip);
  if (!report)
    return report.takeError();
  ScheduleOutcome outcome;
  outcome.strategy = strategy.str();
  outcome.assembly = std::move(*assembly);
  for (const isa::KernelReport &k : report->kernels) {
    outcome.instructions += k.instructions;
    outcome.vgprs += k.vgprs + k.agprs;
    outcome.spills += k.vgprSpills + k.sgprSpills + k.scratchBytes;
    outcome.hasLoop |= k.hasLoop;
  }
  return outcome;
}

/// Whether the lowered module multiplies on the matrix cores.
static bool usesMatrixCores(ModuleOp lowered) {
  bool found = false;
  lowered.walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if (name.contains("mfma") || name.contains("wmma")) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

static std::string describe(const ScheduleOutcome &o) {
  return (o.strategy.empty() ? std::string("default") : o.strategy) + " (" +
         std::to_string(o.instructions) + " instructions, " +
         std::to_string(o.vgprs) + " VGPRs)";
}

llvm::Expected<ScheduleOutcome>
mlir::rocdsl::chooseSchedule(ModuleOp lowered, llvm::StringRef chip,
                             const ScheduleSetting &setting,
                             llvm::StringRef kernels) {
  if (!setting.automatic) {
    setScheduleStrategy(lowered, setting.strategy);
    ScheduleOutcome fixed;
    fixed.strategy = setting.strategy;
    return fixed;
  }
  // Matrix-core kernels keep the default: LLVM 22's iterative ILP
  // scheduler crashes on a fully unrolled MFMA K loop (gemm M=1, K=255,
  // stages=4), and their loops are what matters anyway.
  if (usesMatrixCores(lowered))
    return ScheduleOutcome{};
  auto base = measure(lowered, chip, "", kernels);
  if (!base)
    return base.takeError();
  if (base->hasLoop)
    return *base;
  ScheduleOutcome best = *base;
  for (llvm::StringRef strategy : {"iterative-ilp", "iterative-minreg"}) {
    auto candidate = measure(lowered, chip, strategy, kernels);
    if (!candidate) {
      // A strategy LLVM cannot apply here is no reason to fail the kernel.
      logDebug("schedule " + strategy + " on " + chip + ": " +
               llvm::toString(candidate.takeError()));
      continue;
    }
    if (candidate->spills > base->spills ||
        candidate->instructions > base->instructions)
      continue;
    if (std::make_pair(candidate->vgprs, candidate->instructions) <
        std::make_pair(best.vgprs, best.instructions))
      best = *candidate;
  }
  setScheduleStrategy(lowered, best.strategy);
  if (!best.strategy.empty())
    logInfo("kernel " + kernels + " on " + chip + ": schedule " +
            describe(best) +
            " instead of LLVM's " + describe(*base));
  return best;
}
