//===- WaitFences.h - how planned waits are marked in AMDGCN ----*- C++ -*-===//
//
// The GPU conversion plans the vmcnt of each `rocdsl.async_wait` from the
// kernel's copy groups; the ISA check proves the plan on the assembly LLVM
// emits. Both sides agree here on the marks: every commit and every
// planned wait is fenced by an `llvm.amdgcn.sched.barrier`, which LLVM
// prints as a comment `; sched_barrier mask(0x...)` and which keeps its
// scheduler from moving instructions of the masked-out kinds across it.
//
//  - commit: VMEM may not cross (a group's loads stay in their group);
//    everything else may. Mask 0x78F: ALU, VALU, SALU, MFMA, DS (read and
//    write) and transcendental may cross.
//  - wait: nothing may cross, before and after the s_waitcnt (mask 0).
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_SUPPORT_WAITFENCES_H
#define ROCDSL_SUPPORT_WAITFENCES_H

#include <cstdint>
#include <optional>

namespace mlir::rocdsl {

inline constexpr uint32_t kCommitFenceMask = 0x78F;
inline constexpr uint32_t kWaitFenceMask = 0x0;

/// The largest vmcnt a plan emits: 63, gfx9's maximum, waits for nothing.
inline constexpr unsigned kMaxPlannedVmcnt = 62;

/// GFX9 s_waitcnt immediate: vmcnt[3:0] and [15:14], expcnt[6:4],
/// lgkmcnt[11:8]. A counter not given keeps its maximum (no wait).
inline uint32_t gfx9WaitcntBits(std::optional<unsigned> vmcnt,
                                std::optional<unsigned> lgkmcnt) {
  uint32_t vm = vmcnt.value_or(63), lgkm = lgkmcnt.value_or(15), exp = 7;
  return (vm & 0xF) | ((vm >> 4) << 14) | (exp << 4) | (lgkm << 8);
}

} // namespace mlir::rocdsl

#endif
