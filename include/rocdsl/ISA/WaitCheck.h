//===- WaitCheck.h - are a kernel's s_waitcnt sufficient? ------*- C++ -*-===//
//
// A memory instruction's destination registers are written when its data
// returns, at a time only an `s_waitcnt` bounds. Reading or overwriting such
// a register before an s_waitcnt has retired the load is a
// wait violation: the instruction sees the old value, or the load's data
// lands after the new one. The check follows every path of a kernel's
// control flow (branches and loop back-edges) from the entry with nothing
// in flight, and reports each instruction that touches a register whose
// load may still be outstanding on some path.
//
// The counters are the gfx9 family's (gfx90a, gfx940-gfx942, gfx950):
//  - vmcnt (at most 63): every VMEM load, store and atomic (buffer, global,
//    scratch, flat, image), returned in issue order. `vmcnt(N)` retires a
//    load once N or more VMEM operations were issued after it.
//  - lgkmcnt (at most 15): LDS/GDS operations, returned in issue order among
//    themselves, and scalar memory (s_load, s_buffer_load, s_memtime...),
//    which returns out of order. `lgkmcnt(N)` retires an LDS load once N or
//    more LDS operations were issued after it (scalar ones may return first,
//    so they do not count); a scalar load only at lgkmcnt(0).
//  - flat (not global/scratch) loads count in both and need lgkmcnt(0).
// No load is assumed retired by a full counter: after the counter's
// maximum of later operations (15 LDS, 63 VMEM), lgkmcnt(14) / vmcnt(62)
// still retire it, a count at the maximum waits for nothing (LLVM's rule
// too; ROCDSL's emulator, which retires on a full counter, is more lenient).
//
// What the check does not model: memory dependences (a ds_read of LDS that
// a `buffer_load ... lds` is still writing, a load after a store to the same
// address), implicit register operands beyond the written text, and the
// gfx10+ counters (vscnt, the split s_wait_* instructions of gfx12); for
// chips outside the gfx9 family no check is made (`waitCheckApplies`).
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_ISA_WAITCHECK_H
#define ROCDSL_ISA_WAITCHECK_H

#include "rocdsl/ISA/HazardCheck.h"

namespace mlir::rocdsl::isa {

/// True for the chips whose counters the check models (gfx9 family).
bool waitCheckApplies(llvm::StringRef chip);

/// Every (load, instruction) pair in `kernel` (with its CFG built) where the
/// instruction reads or writes a destination register of the load while the
/// load may be outstanding; one finding per pair, with the loosest count that
/// would have retired the load on every path. `file` is left empty.
/// Fails, rather than exhaust memory, on control flow whose paths leave
/// more loads possibly outstanding than the analysis keeps (millions of
/// (register, load) states over the blocks, or of findings).
llvm::Expected<std::vector<WaitFinding>>
findWaitViolations(const Kernel &kernel);

/// The one-line form printed by `rocdsl-isa-check --waits`.
std::string formatWaitFinding(const WaitFinding &finding);

/// What findLooserWaits found, and how far it got.
struct SlackSearch {
  /// The waits that could be looser, in order.
  std::vector<WaitSlack> looser;
  /// The s_waitcnt with a vmcnt or lgkmcnt below its maximum (the ones
  /// searched), and how many of them the budget let it examine, in order.
  unsigned waits = 0, examined = 0;
  /// Instructions the analyses stepped through, summed over every rerun.
  uint64_t steps = 0;
};

/// Instruction steps findLooserWaits may spend on one kernel by default
/// (2^25: about a minute on one core at most). Every count it tries reruns the
/// whole wait analysis, so the cost grows with waits times instructions
/// times passes over the loops: ROCDSL's attention kernels and Triton's
/// matmuls need about 0.25 M steps, while a generated kernel with 3200
/// waits among branches needs about 250 M (minutes), and ten thousand such
/// waits an hour or more.
constexpr uint64_t kDefaultSlackBudget = uint64_t(1) << 25;

/// The waits of `kernel` (CFG built) that could be looser, in order,
/// examined until `budget` instruction steps are spent (a wait begun is
/// finished); fails where findWaitViolations does.
llvm::Expected<SlackSearch>
findLooserWaits(const Kernel &kernel, uint64_t budget = kDefaultSlackBudget);

/// "FILE:LINE: wait stricter than needed: kernel 'k': 's_waitcnt
/// vmcnt(0)': vmcnt(3) would do".
std::string formatWaitSlack(const WaitSlack &slack);

} // namespace mlir::rocdsl::isa

#endif // ROCDSL_ISA_WAITCHECK_H
