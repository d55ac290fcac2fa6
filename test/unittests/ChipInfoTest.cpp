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
  EXPECT_TRUE(sm90->isNVIDIA());
  EXPECT_EQ(lookupChip("gfx90a"), nullptr);
  EXPECT_EQ(lookupChip(""), nullptr);
  EXPECT_EQ(listChips(), "gfx942, gfx950, sm_90, sm_90a");
  EXPECT_EQ(listChips(ChipVendor::AMD), "gfx942, gfx950");
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
