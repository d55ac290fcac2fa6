//===- CheckedCompile.cpp - AMDGPU code objects proven hazard-free --------===//
#include "rocdsl/Target/CheckedCompile.h"

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"
#include "rocdsl/ISA/WaitCheck.h"
#include "rocdsl/Target/ScheduleChoice.h"
#include "rocdsl/Support/Log.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;

llvm::StringRef mlir::rocdsl::toString(StoreForm form) {
  switch (form) {
  case StoreForm::Wide:
    return "wide";
  case StoreForm::Split64:
    return "split64";
  case StoreForm::Padded:
    return "padded";
  }
  return "?";
}

llvm::Expected<isa::CheckResult>
mlir::rocdsl::checkAssemblyDefault(llvm::StringRef text, llvm::StringRef file,
                                   llvm::StringRef chip) {
  return isa::checkAssembly(text, file, chip);
}

static std::string kernelNames(ModuleOp module) {
  SmallVector<std::string> names;
  for (auto func : module.getOps<FuncOp>())
    names.push_back(func.getName().str());
  return llvm::join(names, ", ");
}

/// compileAMDGPUChecked with the environment applied to `copies`.
static llvm::Expected<CheckedCode>
compileChecked(ModuleOp module, llvm::StringRef chip, unsigned optLevel,
               StoreForm first, const AssemblyChecker &checker,
               const AsyncCopyOptions &copies) {
  std::string kernels = kernelNames(module);
  // Each form is more conservative than the one before it.
  SmallVector<StoreForm, 3> forms = {first};
  if (first == StoreForm::Wide)
    forms.push_back(StoreForm::Split64);
  if (first != StoreForm::Padded)
    forms.push_back(StoreForm::Padded);

  auto setting = getScheduleSetting();
  if (!setting)
    return setting.takeError();
  CheckedCode result;
  for (StoreForm form : forms) {
    OwningOpRef<ModuleOp> copy = module.clone();
    if (failed(lowerToROCDL(*copy, chip, optLevel, form, copies)))
      return llvm::createStringError("lowering " + kernels + " for " +
                                     chip.str() + " failed");
    // Chosen once, on the first store form; the fallbacks keep it.
    auto schedule = chooseSchedule(*copy, chip, *setting, kernels);
    if (!schedule)
      return schedule.takeError();
    setting->automatic = false;
    setting->strategy = schedule->strategy;
    result.schedule = schedule->strategy;
    // The choice compiled the kept schedule already (when it compared).
    FailureOr<std::string> assembly =
        schedule->assembly.empty()
            ? serializeAMDGPU(*copy, AMDGPUOutput::Assembly)
            : FailureOr<std::string>(std::move(schedule->assembly));
    if (failed(assembly))
      return llvm::createStringError("code generation of " + kernels + " for " +
                                     chip.str() + " failed");
    auto check = checker(*assembly, kernels, chip);
    if (!check)
      return check.takeError();
    if (check->hasHazard()) {
      for (const isa::KernelReport &k : check->kernels)
        llvm::append_range(result.rejected, k.hazards);
      continue;
    }
    // Waits ROCDSL planned that the check cannot prove are not shipped:
    // the kernel is compiled again with every async_wait drained (the test
    // hook's weakened plan ships, so that the emulator can catch it too).
    // Findings at a planned wait concern the plan, and so does any about a
    // direct-to-LDS load: with a plan, barriers let copies run on (a
    // kernel that reads a copy after a barrier but without waiting for it
    // relied on a drain that is no longer there). Only where copies went
    // direct.
    bool directLoads = llvm::StringRef(*assembly).contains(" lds\n");
    std::vector<isa::WaitFinding> unproven;
    for (const isa::KernelReport &k : check->kernels)
      for (const isa::WaitFinding &f : k.waitViolations)
        if (f.atPlannedWait || f.directToLdsLoad)
          unproven.push_back(f);
    if (!unproven.empty() && directLoads && copies.direct &&
        copies.waits == "explicit") {
      logWarning("kernel " + kernels + " on " + chip +
                 ": the planned waits are not proven (" +
                 llvm::Twine(unproven.size()) +
                 " finding(s), first: " +
                 isa::formatWaitFinding(unproven.front()) +
                 "); recompiled with drained waits (waits=llvm)");
      AsyncCopyOptions drained = copies;
      drained.waits = "llvm";
      auto again =
          compileChecked(module, chip, optLevel, first, checker, drained);
      if (again)
        again->unprovenPlan = std::move(unproven);
      return again;
    }
    FailureOr<std::string> object =
        serializeAMDGPU(*copy, AMDGPUOutput::CodeObject);
    if (failed(object))
      return llvm::createStringError("linking the code object of " + kernels +
                                     " failed");
    // What ships is the code object, from its own code generation run: it
    // is disassembled and checked too.
    auto shipped = isa::checkCodeObject(*object, kernels, chip);
    if (!shipped)
      return shipped.takeError();
    if (shipped->hasHazard()) {
      for (const isa::KernelReport &k : shipped->kernels)
        llvm::append_range(result.rejected, k.hazards);
      continue;
    }
    if (!result.rejected.empty())
      logWarning(
          "kernel " + kernels + " on " + chip + ": " +
          llvm::Twine(result.rejected.size()) +
          " wide-store hazard(s) in the " + toString(first) +
          " store form (first: " + isa::formatFinding(result.rejected.front()) +
          "); recompiled with the " + toString(form) + " store form");
    // LLVM places the waits for register dependences and ROCDSL's own
    // waits come on top: a violation here is a compiler bug, reported
    // (never silently shipped) but not fatal, since the check is static.
    for (const isa::KernelReport &k : shipped->kernels)
      llvm::append_range(result.waitViolations, k.waitViolations);
    result.copies = copies;
    result.waits = directLoads ? copies.waits : "";
    if (!result.waitViolations.empty())
      logWarning("kernel " + kernels + " on " + chip + ": " +
                 llvm::Twine(result.waitViolations.size()) +
                 " wait violation(s) (first: " +
                 isa::formatWaitFinding(result.waitViolations.front()) + ")");
    result.codeObject = std::move(*object);
    result.assembly = std::move(*assembly);
    llvm::raw_string_ostream os(result.lowered);
    copy->print(os);
    result.form = form;
    return result;
  }
  return llvm::createStringError(
      "kernel " + kernels + " on " + chip.str() +
      " shows the wide-store hazard in every store form; first finding: " +
      isa::formatFinding(result.rejected.front()));
}

llvm::Expected<CheckedCode>
mlir::rocdsl::compileAMDGPUChecked(ModuleOp module, llvm::StringRef chip,
                                   unsigned optLevel, StoreForm first,
                                   const AssemblyChecker &checker,
                                   const AsyncCopyOptions &copies) {
  auto resolved = applyAsyncCopyEnvironment(copies);
  if (!resolved)
    return resolved.takeError();
  return compileChecked(module, chip, optLevel, first, checker, *resolved);
}
