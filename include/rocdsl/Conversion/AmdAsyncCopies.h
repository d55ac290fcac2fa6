//===- AmdAsyncCopies.h - direct-to-LDS copies and planned waits -*- C++ -*-===//
//
// rocdsl.async_copy on gfx942/gfx950 as `buffer_load ... lds`, and
// rocdsl.async_wait as an `s_waitcnt vmcnt(N)` whose N the conversion
// plans from the copy groups (lib/Conversion/RocDSLToGPU/AmdAsyncCopy.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_CONVERSION_AMDASYNCCOPIES_H
#define ROCDSL_CONVERSION_AMDASYNCCOPIES_H

#include "rocdsl/Support/ChipInfo.h"
#include "rocdsl/Support/WaitFences.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::rocdsl {

/// Who places the waits of asynchronous copies.
enum class WaitsMode {
  /// ROCDSL: each async_wait waits for exactly the groups it must retire.
  Explicit,
  /// Every async_wait drains (vmcnt(0)); LLVM places all other waits.
  Llvm,
  /// A test hook: Explicit with one wait (the first inside a loop, else the
  /// first) one count too loose
  /// (one load too few retired), which the ISA check and the emulator must
  /// catch.
  WeakenedForTesting,
};

/// "explicit", "llvm" or "weakened-for-testing".
std::optional<WaitsMode> parseWaitsMode(llvm::StringRef text);

/// The vmcnt planned for a rocdsl.async_wait (i32), the groups it leaves in
/// flight when it is a planned wait (i32, absent for a drain the kernel
/// did not plan), and a commit that closes a planned group (unit).
inline constexpr char kPlannedVmcntAttr[] = "rocdsl.planned_vmcnt";
inline constexpr char kPlannedPendingAttr[] = "rocdsl.planned_pending";
inline constexpr char kPlannedCommitAttr[] = "rocdsl.planned_commit";

/// Marks every copy that goes straight to LDS and every wait with its
/// planned vmcnt; where some copy cannot, copies go through registers and
/// commits and waits are removed (expandAsyncCopies).
void prepareAmdAsyncCopies(ModuleOp module, const ChipInfo &chip,
                           WaitsMode mode);

} // namespace mlir::rocdsl

#endif
