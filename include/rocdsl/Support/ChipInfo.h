//===- ChipInfo.h - the one table of target-chip facts ----------*- C++ -*-===//
//
// Facts about the chips ROCDSL compiles for, read by the lowering (wave
// size, shared-memory limit), the target layer (supported chips, occupancy)
// and the tools. Adding a chip starts here. (The hazard checker keeps its
// own rules per chip: it also reads other compilers' code for chips ROCDSL
// does not target, such as gfx90a.)
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_SUPPORT_CHIPINFO_H
#define ROCDSL_SUPPORT_CHIPINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::rocdsl {

enum class ChipVendor { AMD, NVIDIA };

struct ChipInfo {
  llvm::StringLiteral name;
  ChipVendor vendor;
  /// Lanes per wave (AMD) or warp (NVIDIA).
  unsigned waveSize;
  /// Shared memory (LDS) one workgroup may allocate statically, in bytes;
  /// on AMD this is also the LDS of one CU.
  unsigned sharedMemoryBytes;
  /// LDS banks of 4 bytes (AMD); 32 on NVIDIA.
  unsigned sharedMemoryBanks;
  /// Compute units (AMD) or streaming multiprocessors (NVIDIA) of the
  /// flagship part: MI300X, MI355X, H100/H200.
  unsigned computeUnits;
  /// The target-feature suffix a HIP runtime appends to the processor name
  /// in gcnArchName (AMD): ":sramecc+:xnack-".
  llvm::StringLiteral archFeatures;
  /// 8-bit float formats: the FNUZ variants (gfx942) or OCP's (gfx950).
  bool fp8IsFNUZ;

  bool isAMD() const { return vendor == ChipVendor::AMD; }
  bool isNVIDIA() const { return vendor == ChipVendor::NVIDIA; }
};

/// Every chip ROCDSL targets, AMD first.
llvm::ArrayRef<ChipInfo> getChips();

/// The chip named `name`, or null.
const ChipInfo *lookupChip(llvm::StringRef name);

/// "gfx942, gfx950, sm_90, sm_90a" (all chips, or those of one vendor), for
/// error messages.
std::string listChips();
std::string listChips(ChipVendor vendor);

} // namespace mlir::rocdsl

#endif
