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

#include <algorithm>
#include <string>

namespace mlir::rocdsl {

enum class ChipVendor { AMD, NVIDIA };

/// Operand element types of matrix instructions. The 8-bit floats are
/// named by their MLIR types: the FNUZ formats are gfx942's, OCP's gfx950's.
enum class MatrixOperand {
  F16,
  BF16,
  F8E4M3FNUZ,
  F8E5M2FNUZ,
  F8E4M3FN,
  F8E5M2,
};

/// "bf16", "f8E4M3FNUZ", ... (MLIR's spelling of the element type).
llvm::StringRef toString(MatrixOperand operand);

/// One matrix instruction: D (MxN, f32) += A (MxK) * B (KxN), one block,
/// the A and B operands of one type.
struct MatrixInstr {
  unsigned m, n, k;
  MatrixOperand operand;
  llvm::StringLiteral mnemonic;
  /// K elements of A one lane supplies (K * M / wave size on AMD): a
  /// dot_operand's kWidth is a multiple of it.
  unsigned kPerLane(unsigned waveSize) const { return k * m / waveSize; }
};

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
  /// Matrix-core generation of #rocdsl.mfma layouts this chip runs: 3 for
  /// CDNA3, 4 for CDNA4 (which also runs version 3's); 0 on NVIDIA.
  unsigned matrixCoreVersion;
  /// Matrix instructions a `dot` can lower to.
  llvm::ArrayRef<MatrixInstr> matrixInstrs;
  /// Architectural VGPRs and AGPRs per lane a wave may use (AMD), or
  /// registers per thread (NVIDIA; no AGPRs).
  unsigned vgprs, agprs;
  /// Dies that take workgroups round-robin (MI300X and MI355X: 8 XCDs,
  /// each with its own L2); 1 where there is one L2.
  unsigned xcds;
  /// Dword counts a direct global->LDS load (buffer_load ... lds) moves per
  /// lane, as a bit mask (bit n: n dwords); 0 where there is none.
  unsigned directToLdsDwordMask;
  /// Lanes one workgroup (AMD) or thread block (NVIDIA) may hold: 16
  /// waves of 64, 32 warps of 32.
  unsigned maxWorkgroupSize = 1024;
  /// Shared memory a block may take when it opts in to more than
  /// `sharedMemoryBytes` (dynamic shared memory on NVIDIA: 227 KiB on
  /// Hopper); 0 where the static limit is the limit (AMD).
  unsigned sharedMemoryOptInBytes = 0;
  /// SIMDs of one CU, which share its LDS, and the waves one SIMD holds at
  /// most (AMD occupancy: CDNA3 and CDNA4 alike).
  unsigned simdsPerComputeUnit = 4;
  unsigned maxWavesPerSimd = 8;
  /// Whether LDS has transposing reads for matrix operands
  /// (ds_read_b64_tr_b16: 16 lanes read a 4 x 16 block of 16-bit elements
  /// by rows and each receives one column; CDNA4).
  bool ldsTransposeReads = false;
  /// Whether the chip has warpgroup matrix instructions reading their
  /// operands from shared memory (wgmma.mma_async: sm_90a, the
  /// architecture-specific Hopper target; plain sm_90 PTX may not use it).
  bool warpgroupMma = false;
  /// 32-bit registers one multiprocessor holds, shared by the blocks
  /// resident on it (NVIDIA: 64K on Hopper); 0 where not recorded (AMD,
  /// whose register file is per SIMD: `vgprs` and `agprs` per lane).
  unsigned registersPerMultiprocessor = 0;

  /// The most LDS one workgroup can have.
  unsigned maxSharedMemoryBytes() const {
    return std::max(sharedMemoryBytes, sharedMemoryOptInBytes);
  }

  bool isAMD() const { return vendor == ChipVendor::AMD; }
  bool isNVIDIA() const { return vendor == ChipVendor::NVIDIA; }
};

/// Every chip ROCDSL targets, AMD first.
llvm::ArrayRef<ChipInfo> getChips();

/// The chip named `name`, or null.
const ChipInfo *lookupChip(llvm::StringRef name);

/// The instruction of `chip` with this shape and operand type, or null.
const MatrixInstr *findMatrixInstr(const ChipInfo &chip, unsigned m,
                                   unsigned n, unsigned k,
                                   MatrixOperand operand);

/// "v_mfma_f32_32x32x8_bf16, ..." for error messages; `operand` restricts
/// the list to one operand type.
std::string listMatrixInstrs(const ChipInfo &chip);
std::string listMatrixInstrs(const ChipInfo &chip, MatrixOperand operand);

/// "gfx942, gfx950, sm_90, sm_90a" (all chips, or those of one vendor), for
/// error messages.
std::string listChips();
std::string listChips(ChipVendor vendor);

} // namespace mlir::rocdsl

#endif
