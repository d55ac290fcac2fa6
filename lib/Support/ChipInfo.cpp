//===- ChipInfo.cpp - the one table of target-chip facts ------------------===//
#include "rocdsl/Support/ChipInfo.h"

#include "llvm/ADT/STLExtras.h"

#include <optional>

using namespace mlir::rocdsl;

llvm::StringRef mlir::rocdsl::toString(MatrixOperand operand) {
  switch (operand) {
  case MatrixOperand::F16:
    return "f16";
  case MatrixOperand::BF16:
    return "bf16";
  case MatrixOperand::F8E4M3FNUZ:
    return "f8E4M3FNUZ";
  case MatrixOperand::F8E5M2FNUZ:
    return "f8E5M2FNUZ";
  case MatrixOperand::F8E4M3FN:
    return "f8E4M3FN";
  case MatrixOperand::F8E5M2:
    return "f8E5M2";
  }
  return "?";
}

using MO = MatrixOperand;

// CDNA3 ISA guide, "Matrix Arithmetic Instructions" (single-block forms;
// on gfx940+ the 4-per-lane bf16 forms carry the plain names).
static const MatrixInstr kGfx942Matrix[] = {
    {32, 32, 8, MO::BF16, "v_mfma_f32_32x32x8_bf16"},
    {32, 32, 8, MO::F16, "v_mfma_f32_32x32x8_f16"},
    {16, 16, 16, MO::BF16, "v_mfma_f32_16x16x16_bf16"},
    {16, 16, 16, MO::F16, "v_mfma_f32_16x16x16_f16"},
    {16, 16, 32, MO::F8E4M3FNUZ, "v_mfma_f32_16x16x32_fp8_fp8"},
    {16, 16, 32, MO::F8E5M2FNUZ, "v_mfma_f32_16x16x32_bf8_bf8"},
    {32, 32, 16, MO::F8E4M3FNUZ, "v_mfma_f32_32x32x16_fp8_fp8"},
    {32, 32, 16, MO::F8E5M2FNUZ, "v_mfma_f32_32x32x16_bf8_bf8"},
};

// CDNA4 keeps CDNA3's 16-bit forms, reads its fp8 forms as OCP formats,
// and adds 8-per-lane 16-bit forms.
static const MatrixInstr kGfx950Matrix[] = {
    {32, 32, 8, MO::BF16, "v_mfma_f32_32x32x8_bf16"},
    {32, 32, 8, MO::F16, "v_mfma_f32_32x32x8_f16"},
    {16, 16, 16, MO::BF16, "v_mfma_f32_16x16x16_bf16"},
    {16, 16, 16, MO::F16, "v_mfma_f32_16x16x16_f16"},
    {16, 16, 32, MO::BF16, "v_mfma_f32_16x16x32_bf16"},
    {16, 16, 32, MO::F16, "v_mfma_f32_16x16x32_f16"},
    {32, 32, 16, MO::BF16, "v_mfma_f32_32x32x16_bf16"},
    {32, 32, 16, MO::F16, "v_mfma_f32_32x32x16_f16"},
    {16, 16, 32, MO::F8E4M3FN, "v_mfma_f32_16x16x32_fp8_fp8"},
    {16, 16, 32, MO::F8E5M2, "v_mfma_f32_16x16x32_bf8_bf8"},
    {32, 32, 16, MO::F8E4M3FN, "v_mfma_f32_32x32x16_fp8_fp8"},
    {32, 32, 16, MO::F8E5M2, "v_mfma_f32_32x32x16_bf8_bf8"},
};

// PTX ISA, "Warp-level matrix multiply-accumulate": mma.sync.aligned
// m16n8k16 with f32 accumulators.
static const MatrixInstr kSm90Matrix[] = {
    {16, 8, 16, MO::BF16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16"},
    {16, 8, 16, MO::F16, "mma.sync.aligned.m16n8k16.row.col.f32.f16"},
};

llvm::ArrayRef<ChipInfo> mlir::rocdsl::getChips() {
  // CDNA3 (MI300X): 64 KiB LDS per CU in 32 banks; CDNA4 (MI355X): 160 KiB
  // in 64 banks (304 and 256 CUs); both 256 VGPRs + 256 AGPRs per lane.
  // 8 XCDs each. Direct-to-LDS loads: 1 dword on gfx942, 1, 3 or 4 on
  // gfx950. Hopper:
  // 48 KiB of static shared memory per block (227 KiB dynamic, opted in),
  // 255 registers per thread, 64K per multiprocessor; sm_90a adds
  // warpgroup MMA (wgmma).
  static const ChipInfo chips[] = {
      {"gfx942", ChipVendor::AMD, 64, 64 * 1024, 32, 304, ":sramecc+:xnack-",
       true, 3, kGfx942Matrix, 256, 256, 8, 1u << 1},
      {"gfx950", ChipVendor::AMD, 64, 160 * 1024, 64, 256, ":sramecc+:xnack-",
       false, 4, kGfx950Matrix, 256, 256, 8, (1u << 1) | (1u << 3) | (1u << 4),
       1024, 0, 4, 8, /*ldsTransposeReads=*/true},
      {"sm_90", ChipVendor::NVIDIA, 32, 48 * 1024, 32, 132, "", false, 0,
       kSm90Matrix, 255, 0, 1, 0, 1024, 227 * 1024, 4, 8,
       /*ldsTransposeReads=*/false, /*warpgroupMma=*/false,
       /*registersPerMultiprocessor=*/64 * 1024},
      {"sm_90a", ChipVendor::NVIDIA, 32, 48 * 1024, 32, 132, "", false, 0,
       kSm90Matrix, 255, 0, 1, 0, 1024, 227 * 1024, 4, 8,
       /*ldsTransposeReads=*/false, /*warpgroupMma=*/true,
       /*registersPerMultiprocessor=*/64 * 1024},
  };
  return chips;
}

const MatrixInstr *mlir::rocdsl::findMatrixInstr(const ChipInfo &chip,
                                                 unsigned m, unsigned n,
                                                 unsigned k,
                                                 MatrixOperand operand) {
  for (const MatrixInstr &instr : chip.matrixInstrs)
    if (instr.m == m && instr.n == n && instr.k == k &&
        instr.operand == operand)
      return &instr;
  return nullptr;
}

static std::string joinInstrs(const ChipInfo &chip,
                              std::optional<MatrixOperand> operand) {
  std::string out;
  for (const MatrixInstr &instr : chip.matrixInstrs)
    if (!operand || instr.operand == *operand)
      out += (out.empty() ? "" : ", ") + instr.mnemonic.str();
  return out.empty() ? "none" : out;
}

std::string mlir::rocdsl::listMatrixInstrs(const ChipInfo &chip) {
  return joinInstrs(chip, std::nullopt);
}

std::string mlir::rocdsl::listMatrixInstrs(const ChipInfo &chip,
                                           MatrixOperand operand) {
  return joinInstrs(chip, operand);
}

const ChipInfo *mlir::rocdsl::lookupChip(llvm::StringRef name) {
  for (const ChipInfo &chip : getChips())
    if (chip.name == name)
      return &chip;
  return nullptr;
}

static std::string join(bool (*keep)(const ChipInfo &, ChipVendor),
                        ChipVendor vendor) {
  std::string out;
  for (const ChipInfo &chip : getChips())
    if (keep(chip, vendor))
      out += (out.empty() ? "" : ", ") + chip.name.str();
  return out;
}

std::string mlir::rocdsl::listChips() {
  return join([](const ChipInfo &, ChipVendor) { return true; },
              ChipVendor::AMD);
}

std::string mlir::rocdsl::listChips(ChipVendor vendor) {
  return join([](const ChipInfo &c, ChipVendor v) { return c.vendor == v; },
              vendor);
}
