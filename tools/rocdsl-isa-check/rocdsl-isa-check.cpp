//===- rocdsl-isa-check.cpp - find wide-store hazards in AMDGCN code ------===//
//
//   rocdsl-isa-check kernel.s [more.s code.hsaco ...] [--chip gfx942]
//                    [--waits] [--wait-slack] [--json] [--quiet]
//
// Reads AMDGCN assembly or HSA code objects ("-" is stdin) and reports every
// instruction that overwrites the data registers of a wide VMEM store too
// early, then a summary of each kernel. With --waits, also every register a
// memory instruction loads that is read or written before an s_waitcnt has
// retired the load (WaitCheck.h); with --wait-slack, also every s_waitcnt
// that could be looser. Without --chip, each file names its chip
// (.amdgcn_target, or the code object's flags and metadata).
//
// Exit status: 0 clean, 1 a hazard (or, with --waits, a wait violation) was
// found, 2 an input could not be read or checked (one
// "rocdsl-isa-check: error: ..." line each).
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"
#include "rocdsl/ISA/WaitCheck.h"
#include "rocdsl/Support/FatalErrors.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace llvm;
namespace isa = mlir::rocdsl::isa;

static const char *const kUsage =
    "usage: rocdsl-isa-check FILE... [--chip gfx942|gfx950|gfx90a|...] "
    "[--waits] [--wait-slack] [--json] [--quiet]\n"
    "\n"
    "Finds VMEM stores and atomics wider than 64 bits whose data registers\n"
    "are overwritten before the chip's required wait states (2 on gfx940,\n"
    "gfx941, gfx942 and gfx950; 1 on gfx90a and older gfx9), on every path\n"
    "through branches and loops, in AMDGCN assembly or HSA code objects.\n"
    "\n"
    "  --chip CHIP  check for CHIP instead of the target each file names\n"
    "  --waits      also find registers of loads (VMEM, LDS, scalar) read or\n"
    "               written before an s_waitcnt retires the load, on every\n"
    "               path (gfx9 family: gfx90a, gfx940-gfx942, gfx950)\n"
    "  --wait-slack also (implies --waits) every s_waitcnt stricter than the\n"
    "               check needs, with the loosest count that would do; it\n"
    "               stops, with a note, after ROCDSL_WAIT_SLACK_BUDGET\n"
    "               instruction steps a kernel (default 2^25, about a minute)\n"
    "  --json       print the findings and kernel reports as JSON\n"
    "  --quiet      print only the findings\n"
    "\n"
    "Exit status: 0 clean, 1 hazards (or with --waits, wait violations) "
    "found,\n"
    "2 unreadable input or unknown chip.\n";

static void error(const Twine &message) {
  errs() << "rocdsl-isa-check: error: " << message << "\n";
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // LLVM reports some unusable input (a code object it cannot decode) as a
  // fatal error: exit status 2 like other unreadable input (1 is for
  // hazards).
  mlir::rocdsl::installOneLineFatalErrorHandler("rocdsl-isa-check: error: ", 2);
  std::vector<std::string> files;
  std::string chip;
  bool json = false, quiet = false, waits = false, slack = false;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "--json" || arg == "-json") {
      json = true;
    } else if (arg == "--waits" || arg == "-waits") {
      waits = true;
    } else if (arg == "--wait-slack" || arg == "-wait-slack") {
      waits = slack = true;
    } else if (arg == "--quiet" || arg == "-quiet" || arg == "-q") {
      quiet = true;
    } else if (arg == "--help" || arg == "-help" || arg == "-h") {
      outs() << kUsage;
      return 0;
    } else if (arg == "--chip" || arg == "-chip") {
      if (i + 1 >= argc) {
        error("--chip needs a value");
        return 2;
      }
      chip = argv[++i];
    } else if (arg.consume_front("--chip=") || arg.consume_front("-chip=")) {
      chip = arg.str();
    } else if (arg.size() > 1 && arg.starts_with("-")) {
      error("unknown option '" + arg + "' (see --help)");
      return 2;
    } else {
      files.push_back(arg.str());
    }
  }
  if (files.empty()) {
    error("no input files (see --help)");
    return 2;
  }
  if (!chip.empty()) {
    std::string name = isa::normalizeChip(chip);
    if (!isa::isKnownChip(name)) {
      error("unknown chip '" + chip + "'");
      return 2;
    }
    chip = name;
  }

  bool failed = false, hazard = false;
  std::vector<isa::CheckResult> results;
  for (const std::string &file : files) {
    // A device such as /dev/zero never ends; pipes and "-" are read whole.
    sys::fs::file_status status;
    if (file != "-" && !sys::fs::status(file, status) &&
        (status.type() == sys::fs::file_type::character_file ||
         status.type() == sys::fs::file_type::block_file)) {
      error("cannot read '" + file + "': a device, not a file");
      failed = true;
      continue;
    }
    ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
        MemoryBuffer::getFileOrSTDIN(file, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!buffer) {
      error("cannot read '" + file + "': " + buffer.getError().message());
      failed = true;
      continue;
    }
    Expected<isa::CheckResult> result =
        isa::checkFile((*buffer)->getBuffer(), file, chip,
                       slack   ? isa::WaitAnalysis::ViolationsAndSlack
                       : waits ? isa::WaitAnalysis::Violations
                               : isa::WaitAnalysis::None);
    if (!result) {
      error(toString(result.takeError()));
      failed = true;
      continue;
    }
    hazard |= result->hasHazard();
    // An instruction whose registers cannot be read may hide a hazard or a
    // wait violation: such a file is not clean.
    for (const std::string &u : result->unreadable)
      errs() << "rocdsl-isa-check: warning: " << u
             << ": not checked, the file is not proven clean\n";
    hazard |= !result->unreadable.empty();
    // Likewise code the checker never saw: what a macro, repetition or
    // conditional makes, data words among the instructions.
    for (const isa::CheckResult::UncheckedCode &u : result->unchecked)
      errs() << "rocdsl-isa-check: warning: " << result->file
             << (u.line ? ":" + Twine(u.line) : Twine()) << ": '" << u.text
             << "' is code the checker does not read: not checked, the file "
                "is not proven clean\n";
    hazard |= !result->unchecked.empty();
    if (!waits) {
      // The JSON carries only what was asked for (--wait-slack alone runs
      // the violations too).
      for (isa::KernelReport &k : result->kernels) {
        k.waitsChecked = false;
        k.waitViolations.clear();
      }
    } else if (!isa::waitCheckApplies(result->chip)) {
      errs() << "rocdsl-isa-check: note: " << file << ": waits are not checked "
             << "for " << result->chip << " (gfx9 family only)\n";
    }
    hazard |= result->hasWaitViolation();
    for (const isa::KernelReport &k : result->kernels)
      if (k.slackExamined < k.slackWaits)
        errs() << "rocdsl-isa-check: note: " << file << ": kernel '" << k.name
               << "': --wait-slack examined the first " << k.slackExamined
               << " of " << k.slackWaits
               << " waits before its budget ran out "
                  "(ROCDSL_WAIT_SLACK_BUDGET raises it)\n";
    if (!json) {
      if (quiet) {
        for (const isa::KernelReport &k : result->kernels)
          for (const isa::Finding &f : k.hazards)
            outs() << isa::formatFinding(f) << "\n";
      } else {
        outs() << isa::toText(*result);
      }
      if (waits) {
        unsigned count = 0;
        for (const isa::KernelReport &k : result->kernels)
          for (const isa::WaitFinding &f : k.waitViolations) {
            outs() << isa::formatWaitFinding(f) << "\n";
            ++count;
          }
        if (!quiet && isa::waitCheckApplies(result->chip))
          outs() << file << ": " << count << " wait violation"
                 << (count == 1 ? "" : "s") << "\n";
      }
      if (slack) {
        unsigned waitcnts = 0, looser = 0;
        for (const isa::KernelReport &k : result->kernels) {
          if (auto it = k.waitcnts.find("total"); it != k.waitcnts.end())
            waitcnts += it->second;
          for (const isa::WaitSlack &w : k.waitSlack) {
            outs() << isa::formatWaitSlack(w) << "\n";
            ++looser;
          }
        }
        if (!quiet && isa::waitCheckApplies(result->chip))
          outs() << file << ": " << looser << " of " << waitcnts
                 << " s_waitcnt stricter than needed\n";
      }
    }
    results.push_back(std::move(*result));
  }
  if (json)
    outs() << isa::toJSON(results);
  outs().flush();
  if (failed)
    return 2;
  return hazard ? 1 : 0;
}
