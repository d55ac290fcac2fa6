//===- HazardCheck.h - AMDGCN wide-store hazard checker ---------*- C++ -*-===//
//
// On gfx940/gfx941/gfx942 and gfx950 the data registers of a VMEM store or
// atomic whose data is wider than 64 bits must not be overwritten for two
// wait states after the store issues (one on gfx90a and older gfx9). One
// instruction is one wait state, `s_nop N` is N+1, and `s_waitcnt` is just an
// instruction: it does not clear the hazard. LLVM inserts the `s_nop` for
// global stores and for buffer stores with a constant soffset, but not for
// buffer stores whose soffset is an SGPR.
//
// The checker reads AMDGCN assembly (from ROCDSL, llc, Triton, hipcc...) or
// an HSA code object, splits every kernel into basic blocks and follows every
// path from each wide store (fall-through, taken branches, loop back-edges)
// until the required wait states have passed, reporting each instruction that
// writes a data register too early. It also summarizes each kernel: its
// s_waitcnt instructions, registers, spills, scratch and LDS.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_ISA_HAZARDCHECK_H
#define ROCDSL_ISA_HAZARDCHECK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::rocdsl::isa {

/// Bumped whenever the rules change; part of every compiled-kernel cache key.
constexpr const char *kCheckerVersion = "wide-store-hazard-1";

/// Wait states a wide store's data needs on `chip` (2 on gfx940/941/942/950,
/// 1 on gfx90a and older gfx9 -- and on gfx7/gfx8, where LLVM applies the
/// same rule --, 0 if no such hazard is known).
unsigned requiredWaitStates(llvm::StringRef chip);

/// The processor name in `target`: "gfx942" for "gfx942",
/// "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" or "GFX942". Returns the
/// trimmed input when it names no gfx processor.
std::string normalizeChip(llvm::StringRef target);

/// True for AMDGPU processors LLVM knows, and for gfx940/gfx941.
bool isKnownChip(llvm::StringRef chip);

struct Finding {
  std::string file, kernel;
  /// 1-based lines in the input. A code object has no lines: they are 0 and
  /// the texts end with the instruction's address ("// kernel+0x40").
  unsigned storeLine = 0;
  std::string storeText;
  unsigned writeLine = 0;
  std::string writeText;
  unsigned waitStates = 0, needed = 0; // present on the worst path, required
  std::string registers; // the overlapping registers, e.g. "v[4:5]"
};

/// A register read or written while the memory instruction that loads it
/// may still be outstanding (WaitCheck.h).
struct WaitFinding {
  std::string file, kernel;
  unsigned loadLine = 0; ///< as in Finding: 0 in code objects
  std::string loadText;
  unsigned useLine = 0;
  std::string useText;
  std::string registers; ///< the registers touched too early, e.g. "v[4:5]"
  std::string counter;   ///< "vmcnt" or "lgkmcnt"
  /// The largest count of `counter` that, waited for right before the use,
  /// retires the load on every path (0 for scalar and flat loads).
  unsigned loosest = 0;
  /// The use is a planned wait of ROCDSL's (WaitFences.h) that does not
  /// retire what its plan says it does.
  bool atPlannedWait = false;
  /// The load writes LDS itself (`buffer_load ... lds`).
  bool directToLdsLoad = false;
};

/// An s_waitcnt that waits for more than the check needs: with one of its
/// counts raised to `loosest*` (each on its own, the other as written), the
/// kernel touches no register and reaches no barrier the kernel as written
/// does not. A loosest count at the counter's maximum (63, 15) means that
/// counter need not be waited on there.
struct WaitSlack {
  std::string file, kernel;
  unsigned line = 0;
  std::string text;
  std::optional<unsigned> vmcnt, loosestVmcnt, lgkmcnt, loosestLgkmcnt;
};

struct KernelReport {
  std::string name;
  /// "total": s_waitcnt instructions; "vmcnt", "lgkmcnt", "expcnt", ...: how
  /// many of them wait on that counter.
  std::map<std::string, unsigned> waitcnts;
  /// From the metadata, `.set`, kernel-info comments or `.amdhsa_*`
  /// directives of the assembly, or the metadata note of a code object.
  /// `vgprs` counts architected VGPRs (a code object with AGPRs only tells
  /// them rounded up to a multiple of 4).
  unsigned vgprs = 0, agprs = 0, sgprs = 0, vgprSpills = 0, sgprSpills = 0,
           scratchBytes = 0, ldsBytes = 0;
  /// Instructions of the kernel body, and whether a branch goes back to an
  /// earlier block (a loop, in the layout LLVM emits).
  unsigned instructions = 0;
  bool hasLoop = false;
  std::vector<Finding> hazards;
  /// Filled where the chip's counters are modelled (waitCheckApplies).
  bool waitsChecked = false;
  std::vector<WaitFinding> waitViolations;
  /// Only when asked for (`waitSlack` below): waits that could be looser,
  /// among the first `slackExamined` of the `slackWaits` searched (fewer
  /// when the search's budget ran out: ROCDSL_WAIT_SLACK_BUDGET).
  std::vector<WaitSlack> waitSlack;
  unsigned slackWaits = 0, slackExamined = 0;
};

struct CheckResult {
  std::string file, chip;
  std::vector<KernelReport> kernels;
  /// "FILE:LINE: 'v[5:2]' is no register (in '...')": operands written as
  /// registers that name none, so what their instructions touch is unknown
  /// and the file is not proven clean.
  std::vector<std::string> unreadable;
  /// Code the checker does not see: an assembler directive that makes code
  /// the text does not spell out (AsmModule::unchecked), or a word of a code
  /// object that does not decode. The file is not proven clean. `line` is 0
  /// where `text` says where (" // kernel+0x..." in a code object).
  struct UncheckedCode {
    unsigned line = 0;
    std::string text;
  };
  std::vector<UncheckedCode> unchecked;
  bool hasHazard() const;
  bool hasWaitViolation() const;
};

/// How much of the wait analysis (WaitCheck.h) a check runs on chips it
/// applies to: none (wide-store hazards only), the violations, or also the
/// waits that could be looser (a few more passes per s_waitcnt).
enum class WaitAnalysis { None, Violations, ViolationsAndSlack };

/// Checks AMDGCN assembly text (from ROCDSL, llc, Triton, hipcc...). `chip`
/// empty: taken from `.amdgcn_target`; unknown chip -> error. Malformed
/// lines never fail the check.
llvm::Expected<CheckResult>
checkAssembly(llvm::StringRef text, llvm::StringRef file, llvm::StringRef chip,
              WaitAnalysis waits = WaitAnalysis::Violations);

/// Disassembles an HSA code object in-process (LLVM MC disassembler for
/// AMDGPU, chip from the ELF e_flags/metadata if `chip` is empty) and checks
/// it. A corrupt object is an error; words that crash LLVM's decoder are
/// skipped as data when llvm::CrashRecoveryContext is enabled.
llvm::Expected<CheckResult>
checkCodeObject(llvm::StringRef bytes, llvm::StringRef file,
                llvm::StringRef chip,
                WaitAnalysis waits = WaitAnalysis::Violations);

/// Sniffs ELF magic and dispatches; other binary input is an error.
llvm::Expected<CheckResult>
checkFile(llvm::StringRef bytes, llvm::StringRef file, llvm::StringRef chip,
          WaitAnalysis waits = WaitAnalysis::Violations);

/// {"checker": kCheckerVersion, "files": [{"file", "chip", "hazard",
/// "kernels": [{"name", "waitcnts", "vgprs", ..., "hazards": [...]}]}]}
std::string toJSON(llvm::ArrayRef<CheckResult> results);

/// Human-readable: one line per finding naming file, kernel, store
/// line+instruction, overwrite line+instruction, wait states present and
/// needed; then the per-kernel report.
std::string toText(const CheckResult &result);

/// The one-line form of a finding that toText prints.
std::string formatFinding(const Finding &finding);

//===----------------------------------------------------------------------===//
// Building blocks of the check, for tests and tools.
//===----------------------------------------------------------------------===//

/// A range of registers of one register file.
struct RegRange {
  enum Kind : uint8_t { None, VGPR, AGPR, SGPR, TTMP, Special };
  Kind kind = None;
  unsigned first = 0, last = 0;

  bool isVector() const { return kind == VGPR || kind == AGPR; }
  unsigned size() const { return kind == None ? 0 : last - first + 1; }
  bool overlaps(const RegRange &other) const {
    return kind != None && kind != Special && kind == other.kind &&
           first <= other.last && other.first <= last;
  }
  /// "v7", "v[4:7]", "a[0:3]", "s[0:1]"; "" for None.
  std::string str() const;
  bool operator==(const RegRange &other) const {
    return kind == other.kind && first == other.first && last == other.last;
  }
};

/// Parses one register operand: v7, v[4:7], v[4], a[0:3], s5, s[0:1],
/// ttmp[0:1], vcc, exec, m0... (Special). Sign and abs/neg modifiers are
/// ignored. std::nullopt for anything else (literals, labels, off).
std::optional<RegRange> parseRegister(llvm::StringRef operand);

/// How an instruction leaves its basic block.
enum class Flow : uint8_t {
  Next,       ///< falls through to the next instruction
  Branch,     ///< s_branch: only to `target`
  CondBranch, ///< s_cbranch_*: to `target` or the next instruction
  Return,     ///< s_endpgm, s_setpc_b64, s_rfe_b64: leaves the kernel
  Call,       ///< s_swappc_b64, s_call_b64: continues in unseen code
};

/// One parsed instruction. The StringRefs point into the checked text.
struct Instruction {
  unsigned line = 0;    ///< 1-based line in the text
  llvm::StringRef text; ///< the statement, comments stripped
  llvm::StringRef mnemonic;
  /// Comma-separated operands (their first token) and everything after them
  /// (offen, glc, sc0, offset:16, lgkmcnt(0)...).
  llvm::SmallVector<llvm::StringRef, 4> operands;
  llvm::SmallVector<llvm::StringRef, 2> modifiers;
  unsigned waitStates = 1; ///< `s_nop N`: N+1 (SIMM16[3:0]); others 1
  Flow flow = Flow::Next;
  llvm::StringRef target; ///< label of a branch
  /// VGPRs and AGPRs the instruction writes.
  llvm::SmallVector<RegRange, 2> vectorDefs;
  /// VMEM stores and atomics: the data registers (None if unparsable) and
  /// the data width in dwords (from the registers, else the mnemonic).
  RegRange storeData;
  unsigned storeDwords = 0;
  /// An operand written as a register that names none (v[5:2], v[2:,
  /// v99999), or an s_waitcnt operand that is no count (a symbol): the
  /// checks cannot see what the instruction touches or waits for.
  llvm::StringRef malformedOperand;

  bool isWideStore() const { return storeDwords > 2; }
  bool writes(const RegRange &regs) const;
};

/// Parses one statement without label or comment. Never fails: an unknown
/// mnemonic takes one wait state and writes its first operand when that is
/// a VGPR or an AGPR.
Instruction parseInstruction(llvm::StringRef statement, unsigned line);

/// Data dwords of a VMEM store or atomic mnemonic (dwordx4, b128, format_xyzw
/// -> 4; cmpswap_x2 -> 4, source and compare value; d16 variants packed), 0
/// for anything else.
unsigned mnemonicDataDwords(llvm::StringRef mnemonic);

struct BasicBlock {
  unsigned begin = 0, end = 0; ///< instruction indices [begin, end)
  llvm::SmallVector<unsigned, 2> succs;
  llvm::StringRef label; ///< first label at `begin`, if any
};

struct Kernel {
  std::string name;
  std::vector<Instruction> instructions;
  /// Labels and the index of the instruction that follows each.
  std::vector<std::pair<llvm::StringRef, unsigned>> labels;
  std::vector<BasicBlock> blocks; ///< filled by buildCFG
};

struct AsmModule {
  std::string target; ///< operand of the first `.amdgcn_target`
  std::vector<Kernel> kernels;
  /// Lower-case copies of statements written in upper case (mnemonics and
  /// registers are case-insensitive to the assembler); instructions refer
  /// into them. Moving the module keeps them in place.
  std::vector<std::unique_ptr<char[]>> loweredText;
  /// Directives that stand for code the text does not spell out (`.rept`,
  /// `.macro`, `.if`, `.include`; data words inside a kernel), by line:
  /// what they make is not checked.
  std::vector<CheckResult::UncheckedCode> unchecked;
};

/// The counts one `s_waitcnt` waits for, by counter ("vmcnt", "expcnt",
/// "lgkmcnt", or any other name in the named form `name(N)`, `_sat`
/// dropped). The bare immediate is decoded with the gfx9 layout (vmcnt
/// [3:0] and [15:14], expcnt [6:4], lgkmcnt [11:8]) when `gfx9` is set; a
/// field at its maximum waits for nothing and is left out. Nullopt for
/// other instructions.
std::optional<llvm::SmallVector<std::pair<llvm::StringRef, unsigned>, 3>>
decodeWaitcnt(const Instruction &inst, bool gfx9);

/// Splits assembly into kernels: from a label named by `.type x,@function`,
/// `.amdhsa_kernel x` or the metadata (any non-local label when the text
/// names none) up to `.Lfunc_end*`, `.size` or the next kernel. The module
/// refers into `text` (Instruction's StringRefs), which must outlive it.
AsmModule parseAssembly(llvm::StringRef text);

/// Basic blocks at labels and after branches and s_endpgm, with their
/// fall-through and branch successors.
void buildCFG(Kernel &kernel);

/// Every instruction that, on some path from a wide store, writes one of the
/// store's data registers too early: a VALU write before `needed` wait
/// states have passed, any other write before one; one
/// finding per (store, writer) with the fewest wait states over all paths.
/// `file` is left empty.
std::vector<Finding> findWideStoreHazards(const Kernel &kernel,
                                          unsigned needed);

/// The report of each kernel in `module` (without hazards), resources taken
/// from `text`.
std::vector<KernelReport> buildKernelReports(llvm::StringRef text,
                                             const AsmModule &module,
                                             llvm::StringRef chip);

} // namespace mlir::rocdsl::isa

#endif // ROCDSL_ISA_HAZARDCHECK_H
