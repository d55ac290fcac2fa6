//===- HazardCheck.cpp - chips, and the check of assembly and files -------===//
//
// The rule (kCheckerVersion "wide-store-hazard-1"): after a VMEM store or
// atomic with more than 64 bits of data, its data registers must not be
// written for 2 wait states on gfx940/gfx941/gfx942/gfx950 (and the
// gfx9-4-generic target that covers them), for 1 on gfx90a and the other
// gfx9 chips, and, as LLVM's hazard recognizer has it, on gfx7 and gfx8.
// gfx6 and gfx10+ have no such hazard.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"
#include "rocdsl/ISA/WaitCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/TargetParser.h"

#include <cstdlib>

using namespace llvm;

namespace mlir::rocdsl::isa {

namespace {

/// gfx940 and gfx941 left LLVM after the gfx942 family was unified; their
/// code still runs on CDNA3 parts and is checked like gfx942.
bool isRetiredCDNA3(StringRef chip) {
  return chip == "gfx940" || chip == "gfx941";
}

} // namespace

std::string normalizeChip(StringRef target) {
  std::string lower = target.trim().trim('"').lower();
  StringRef s = lower;
  size_t gfx = s.find("gfx");
  if (gfx == StringRef::npos)
    return s.str();
  s = s.drop_front(gfx);
  s = s.take_until([](char c) { return c == ':' || isSpace(c) || c == '"'; });
  return s.str();
}

bool isKnownChip(StringRef chip) {
  return isRetiredCDNA3(chip) ||
         AMDGPU::parseArchAMDGCN(chip) != AMDGPU::GK_NONE;
}

unsigned requiredWaitStates(StringRef chip) {
  std::string name = normalizeChip(chip);
  if (isRetiredCDNA3(name) || name == "gfx942" || name == "gfx950" ||
      name == "gfx9-4-generic")
    return 2;
  if (AMDGPU::parseArchAMDGCN(name) == AMDGPU::GK_NONE)
    return 0;
  AMDGPU::IsaVersion version = AMDGPU::getIsaVersion(name);
  if (version.Major == 9 && version.Minor >= 4)
    return 2; // later CDNA3/CDNA4 parts
  if (version.Major >= 7 && version.Major <= 9)
    return 1;
  return 0;
}

/// ROCDSL_WAIT_SLACK_BUDGET: instruction steps the looser-wait search may
/// spend on each kernel (WaitCheck.h, kDefaultSlackBudget when unset).
static Expected<uint64_t> slackBudget() {
  const char *text = std::getenv("ROCDSL_WAIT_SLACK_BUDGET");
  if (!text || !*text)
    return kDefaultSlackBudget;
  uint64_t budget;
  if (StringRef(text).trim().getAsInteger(10, budget) || budget == 0)
    return createStringError(inconvertibleErrorCode(),
                             "ROCDSL_WAIT_SLACK_BUDGET='%s' is not a positive "
                             "whole number of instruction steps",
                             text);
  return budget;
}

/// "FILE: MESSAGE" for an error of the analyses.
static Error prefixed(StringRef file, Error error) {
  return createStringError(inconvertibleErrorCode(), "%s: %s",
                           file.str().c_str(),
                           toString(std::move(error)).c_str());
}

Expected<CheckResult> checkAssembly(StringRef text, StringRef file,
                                    StringRef chip, WaitAnalysis analysis) {
  AsmModule module = parseAssembly(text);
  std::string name =
      normalizeChip(chip.empty() ? StringRef(module.target) : chip);
  if (name.empty())
    return createStringError(inconvertibleErrorCode(),
                             "%s: no target chip: the text has no "
                             ".amdgcn_target directive (pass a chip)",
                             file.str().c_str());
  if (!isKnownChip(name))
    return createStringError(inconvertibleErrorCode(), "%s: unknown chip '%s'",
                             file.str().c_str(), name.c_str());
  unsigned needed = requiredWaitStates(name);
  bool waits = analysis != WaitAnalysis::None && waitCheckApplies(name);
  // Read once for the file (not once a kernel), before any is analysed.
  uint64_t budget = kDefaultSlackBudget;
  if (waits && analysis == WaitAnalysis::ViolationsAndSlack &&
      !module.kernels.empty()) {
    Expected<uint64_t> fromEnvironment = slackBudget();
    if (!fromEnvironment)
      return fromEnvironment.takeError();
    budget = *fromEnvironment;
  }

  CheckResult result;
  result.file = file.str();
  result.chip = name;
  result.kernels = buildKernelReports(text, module, name);
  result.unchecked = std::move(module.unchecked);
  for (size_t i = 0, e = module.kernels.size(); i != e; ++i) {
    Kernel &kernel = module.kernels[i];
    for (const Instruction &inst : kernel.instructions)
      if (!inst.malformedOperand.empty())
        result.unreadable.push_back(
            (file + ":" + Twine(inst.line) + ": '" + inst.malformedOperand +
             (inst.mnemonic == "s_waitcnt" ? "' is no count the checker reads"
                                           : "' is no register") +
             " (in '" + inst.text + "')")
                .str());
    buildCFG(kernel);
    result.kernels[i].instructions = kernel.instructions.size();
    for (size_t b = 0; b < kernel.blocks.size(); ++b)
      for (unsigned succ : kernel.blocks[b].succs)
        result.kernels[i].hasLoop |= succ <= b;
    std::vector<Finding> findings = findWideStoreHazards(kernel, needed);
    for (Finding &f : findings)
      f.file = result.file;
    result.kernels[i].hazards = std::move(findings);
    if (waits) {
      Expected<std::vector<WaitFinding>> violations =
          findWaitViolations(kernel);
      if (!violations)
        return prefixed(file, violations.takeError());
      for (WaitFinding &f : *violations)
        f.file = result.file;
      result.kernels[i].waitsChecked = true;
      result.kernels[i].waitViolations = std::move(*violations);
      if (analysis == WaitAnalysis::ViolationsAndSlack) {
        Expected<SlackSearch> slack = findLooserWaits(kernel, budget);
        if (!slack)
          return prefixed(file, slack.takeError());
        for (WaitSlack &w : slack->looser)
          w.file = result.file;
        result.kernels[i].waitSlack = std::move(slack->looser);
        result.kernels[i].slackWaits = slack->waits;
        result.kernels[i].slackExamined = slack->examined;
      }
    }
  }
  return result;
}

Expected<CheckResult> checkFile(StringRef bytes, StringRef file, StringRef chip,
                                WaitAnalysis analysis) {
  if (bytes.starts_with("\x7f"
                        "ELF"))
    return checkCodeObject(bytes, file, chip, analysis);
  if (bytes.contains('\0'))
    return createStringError(inconvertibleErrorCode(),
                             "%s: neither AMDGCN assembly nor an ELF code "
                             "object (binary data)",
                             file.str().c_str());
  return checkAssembly(bytes, file, chip, analysis);
}

} // namespace mlir::rocdsl::isa
