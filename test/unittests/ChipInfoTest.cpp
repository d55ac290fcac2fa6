//===- ChipInfoTest.cpp - the chip table and its readers agree ------------===//
#include "rocdsl/Support/ChipInfo.h"
#include "rocdsl/Target/AMDGPU.h"
#include "rocdsl/Target/NVIDIA.h"

#include <gtest/gtest.h>

using namespace mlir::rocdsl;

namespace {

TEST(ChipInfoTest, FactsOfEveryChip) {
  const ChipInfo *gfx942 = lookupChip("gfx942");
  const ChipInfo *gfx950 = lookupChip("gfx950");
  const ChipInfo *sm90 = lookupChip("sm_90");
  ASSERT_TRUE(gfx942 && gfx950 && sm90);
  EXPECT_EQ(gfx942->waveSize, 64u);
  EXPECT_EQ(gfx942->sharedMemoryBytes, 64u * 1024);
  EXPECT_EQ(gfx942->sharedMemoryBanks, 32u);
  EXPECT_EQ(gfx950->sharedMemoryBytes, 160u * 1024);
  EXPECT_EQ(gfx950->sharedMemoryBanks, 64u);
  EXPECT_EQ(sm90->waveSize, 32u);
  EXPECT_EQ(sm90->sharedMemoryBytes, 48u * 1024);
  EXPECT_EQ(sm90->maxSharedMemoryBytes(), 227u * 1024);
  EXPECT_EQ(gfx950->maxSharedMemoryBytes(), 160u * 1024);
  EXPECT_TRUE(sm90->isNVIDIA());
  EXPECT_EQ(lookupChip("gfx90a"), nullptr);
  EXPECT_EQ(lookupChip(""), nullptr);
  EXPECT_EQ(listChips(), "gfx942, gfx950, sm_90, sm_90a");
  EXPECT_EQ(listChips(ChipVendor::AMD), "gfx942, gfx950");
}

TEST(ChipInfoTest, MatrixInstructions) {
  const ChipInfo &gfx942 = *lookupChip("gfx942");
  const ChipInfo &gfx950 = *lookupChip("gfx950");
  const ChipInfo &sm90 = *lookupChip("sm_90");
  EXPECT_EQ(gfx942.matrixCoreVersion, 3u);
  EXPECT_EQ(gfx950.matrixCoreVersion, 4u);
  const MatrixInstr *bf16 =
      findMatrixInstr(gfx942, 32, 32, 8, MatrixOperand::BF16);
  ASSERT_TRUE(bf16);
  EXPECT_EQ(bf16->mnemonic, "v_mfma_f32_32x32x8_bf16");
  EXPECT_EQ(bf16->kPerLane(64), 4u);
  // CDNA4-only shapes, and fp8 formats per chip.
  EXPECT_FALSE(findMatrixInstr(gfx942, 16, 16, 32, MatrixOperand::BF16));
  const MatrixInstr *wide =
      findMatrixInstr(gfx950, 16, 16, 32, MatrixOperand::BF16);
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->kPerLane(64), 8u);
  EXPECT_TRUE(findMatrixInstr(gfx942, 16, 16, 32, MatrixOperand::F8E4M3FNUZ));
  EXPECT_FALSE(findMatrixInstr(gfx942, 16, 16, 32, MatrixOperand::F8E4M3FN));
  EXPECT_TRUE(findMatrixInstr(gfx950, 16, 16, 32, MatrixOperand::F8E4M3FN));
  EXPECT_FALSE(findMatrixInstr(gfx950, 16, 16, 32, MatrixOperand::F8E4M3FNUZ));
  EXPECT_TRUE(findMatrixInstr(sm90, 16, 8, 16, MatrixOperand::F16));
  EXPECT_EQ(listMatrixInstrs(gfx942, MatrixOperand::F16),
            "v_mfma_f32_32x32x8_f16, v_mfma_f32_16x16x16_f16");
  EXPECT_EQ(listMatrixInstrs(gfx942, MatrixOperand::F8E5M2), "none");
  // Direct-to-LDS widths: 1 dword on gfx942; 1, 3 or 4 on gfx950.
  EXPECT_EQ(gfx942.directToLdsDwordMask, 1u << 1);
  EXPECT_EQ(gfx950.directToLdsDwordMask, (1u << 1) | (1u << 3) | (1u << 4));
}

TEST(ChipInfoTest, TargetLayerReadsTheTable) {
  for (const ChipInfo &chip : getChips()) {
    EXPECT_EQ(isSupportedAMDGPUChip(chip.name), chip.isAMD()) << chip.name.str();
    EXPECT_EQ(isSupportedNVIDIAChip(chip.name), chip.isNVIDIA())
        << chip.name.str();
  }
  EXPECT_EQ(getSupportedAMDGPUChips().size(), 2u);
  EXPECT_FALSE(isSupportedAMDGPUChip("gfx1100"));
}

} // namespace
