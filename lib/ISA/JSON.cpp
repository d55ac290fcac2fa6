//===- JSON.cpp - machine-readable check results --------------------------===//
//
//   {"checker": "wide-store-hazard-1",
//    "files": [{"file": ..., "chip": "gfx942", "hazard": true,
//               "kernels": [{"name": ..., "waitcnts": {"total": 3, ...},
//                            "vgprs": 5, "agprs": 0, "sgprs": 19,
//                            "vgpr_spills": 0, "sgpr_spills": 0,
//                            "scratch_bytes": 0, "lds_bytes": 0,
//                            "hazards": [{"store_line": 14, "store": ...,
//                                         "write_line": 15, "write": ...,
//                                         "wait_states": 0, "needed": 2,
//                                         "registers": "v3"}]}]}]}
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace mlir::rocdsl::isa {

bool CheckResult::hasHazard() const {
  return llvm::any_of(kernels,
                      [](const KernelReport &k) { return !k.hazards.empty(); });
}

/// Assembly may hold any bytes; JSON strings must be UTF-8.
static std::string utf8(StringRef text) {
  if (json::isUTF8(text))
    return text.str();
  return json::fixUTF8(text);
}

static json::Value findingToJSON(const Finding &f) {
  return json::Object{
      {"store_line", f.storeLine},     {"store", utf8(f.storeText)},
      {"write_line", f.writeLine},     {"write", utf8(f.writeText)},
      {"wait_states", f.waitStates},   {"needed", f.needed},
      {"registers", utf8(f.registers)}};
}

bool CheckResult::hasWaitViolation() const {
  return llvm::any_of(
      kernels, [](const KernelReport &k) { return !k.waitViolations.empty(); });
}

static json::Value waitFindingToJSON(const WaitFinding &f) {
  return json::Object{{"load_line", f.loadLine},
                      {"load", utf8(f.loadText)},
                      {"use_line", f.useLine},
                      {"use", utf8(f.useText)},
                      {"registers", utf8(f.registers)},
                      {"counter", f.counter},
                      {"loosest", f.loosest}};
}

static json::Value kernelToJSON(const KernelReport &k) {
  json::Object waitcnts;
  for (const auto &[kind, count] : k.waitcnts)
    waitcnts[utf8(kind)] = count;
  json::Array hazards;
  for (const Finding &f : k.hazards)
    hazards.push_back(findingToJSON(f));
  json::Object object{{"name", utf8(k.name)},
                      {"waitcnts", std::move(waitcnts)},
                      {"vgprs", k.vgprs},
                      {"agprs", k.agprs},
                      {"sgprs", k.sgprs},
                      {"vgpr_spills", k.vgprSpills},
                      {"sgpr_spills", k.sgprSpills},
                      {"scratch_bytes", k.scratchBytes},
                      {"lds_bytes", k.ldsBytes},
                      {"hazards", std::move(hazards)}};
  if (k.waitsChecked) {
    json::Array waits;
    for (const WaitFinding &f : k.waitViolations)
      waits.push_back(waitFindingToJSON(f));
    object["wait_violations"] = std::move(waits);
  }
  if (!k.waitSlack.empty()) {
    json::Array slack;
    for (const WaitSlack &w : k.waitSlack) {
      json::Object o{{"line", w.line}, {"wait", utf8(w.text)}};
      if (w.vmcnt)
        o["vmcnt"] = *w.vmcnt, o["loosest_vmcnt"] = *w.loosestVmcnt;
      if (w.lgkmcnt)
        o["lgkmcnt"] = *w.lgkmcnt, o["loosest_lgkmcnt"] = *w.loosestLgkmcnt;
      slack.push_back(std::move(o));
    }
    object["wait_slack"] = std::move(slack);
  }
  if (k.slackExamined < k.slackWaits)
    object["wait_slack_examined"] =
        json::Object{{"waits", k.slackWaits}, {"examined", k.slackExamined}};
  return object;
}

std::string toJSON(ArrayRef<CheckResult> results) {
  json::Array files;
  for (const CheckResult &r : results) {
    json::Array kernels;
    for (const KernelReport &k : r.kernels)
      kernels.push_back(kernelToJSON(k));
    json::Object file{{"file", utf8(r.file)},
                      {"chip", utf8(r.chip)},
                      {"hazard", r.hasHazard()},
                      {"kernels", std::move(kernels)}};
    if (!r.unreadable.empty()) {
      json::Array unreadable;
      for (const std::string &u : r.unreadable)
        unreadable.push_back(utf8(u));
      file["unreadable_operands"] = std::move(unreadable);
    }
    if (!r.unchecked.empty()) {
      json::Array unchecked;
      for (const CheckResult::UncheckedCode &u : r.unchecked)
        unchecked.push_back(
            json::Object{{"line", u.line}, {"text", utf8(u.text)}});
      file["unchecked_code"] = std::move(unchecked);
    }
    files.push_back(std::move(file));
  }
  json::Value root =
      json::Object{{"checker", kCheckerVersion}, {"files", std::move(files)}};
  std::string out;
  raw_string_ostream os(out);
  os << formatv("{0:2}", root) << "\n";
  return out;
}

} // namespace mlir::rocdsl::isa
