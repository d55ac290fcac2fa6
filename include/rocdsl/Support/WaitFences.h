//===- WaitFences.h - how planned waits are marked in AMDGCN ----*- C++ -*-===//
//
// The GPU conversion plans the vmcnt of each `rocdsl.async_wait` from the
// kernel's copy groups; the ISA check (WaitCheck.h) proves the plan on the
// assembly LLVM emits. Both sides agree here on how the plan shows in the
// code, through the expcnt field of s_waitcnt: on gfx9 it counts exports
// and GDS operations only, which compute kernels do not issue, so an
// expcnt wait costs an issue slot and waits for nothing.
//
//  - a commit (the end of a copy group) is `s_waitcnt expcnt(6)`;
//  - a planned wait that lets the N newest groups run on (N <= 5) is
//    `s_nop 0` then `s_waitcnt vmcnt(X) expcnt(N)`, fenced by
//    `sched_barrier`s (mask 0) so that LLVM's scheduler moves nothing
//    across it.
//
// An s_waitcnt is never removed or loosened by LLVM, and memory operations
// are not scheduled across it, so a group's loads stay between its commits.
// LLVM does merge adjacent s_waitcnt into one, taking the smaller of each
// count: its own waits may join a mark (the mark survives, the counts only
// tighten), and the s_nop keeps a commit mark from joining the planned wait
// after it, where the commit would be lost.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_SUPPORT_WAITFENCES_H
#define ROCDSL_SUPPORT_WAITFENCES_H

#include <cstdint>
#include <optional>

namespace mlir::rocdsl {

/// The expcnt of a commit mark.
inline constexpr unsigned kCommitExpcnt = 6;
/// The most groups a planned wait can leave in flight (its expcnt); a wait
/// for more is planned as a drain.
inline constexpr unsigned kMaxPlannedPending = 5;
inline constexpr uint32_t kWaitFenceMask = 0x0;

/// The largest vmcnt a plan emits: 63, gfx9's maximum, waits for nothing.
inline constexpr unsigned kMaxPlannedVmcnt = 62;

/// GFX9 s_waitcnt immediate: vmcnt[3:0] and [15:14], expcnt[6:4],
/// lgkmcnt[11:8]. A counter not given keeps its maximum (no wait).
inline uint32_t gfx9WaitcntBits(std::optional<unsigned> vmcnt,
                                std::optional<unsigned> lgkmcnt,
                                std::optional<unsigned> expcnt = {}) {
  uint32_t vm = vmcnt.value_or(63), lgkm = lgkmcnt.value_or(15),
           exp = expcnt.value_or(7);
  return (vm & 0xF) | ((vm >> 4) << 14) | (exp << 4) | (lgkm << 8);
}

} // namespace mlir::rocdsl

#endif
