//===- TargetTest.cpp - AMDGPU lowering, serialization, resources ---------===//
#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Target/AMDGPU.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class TargetTest : public ::testing::TestWithParam<const char *> {
protected:
  TargetTest() {
    DialectRegistry registry;
    registerRocDSLDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> buildRMSNorm(const std::vector<std::string> &defs) {
    const KernelSpec *spec = lookupKernel("rmsnorm_fwd");
    KernelParams params;
    std::string error;
    EXPECT_TRUE(succeeded(resolveKernelParams(*spec, defs, params, error)));
    return spec->build(&ctx, params, error);
  }

  MLIRContext ctx;
};

TEST_P(TargetTest, CodeObjectReportsNoSpillsNoScratch) {
  OwningOpRef<ModuleOp> module = buildRMSNorm({"N=4096", "dtype=bf16"});
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(lowerToROCDL(*module, GetParam())));
  FailureOr<std::string> object =
      serializeAMDGPU(*module, AMDGPUOutput::CodeObject);
  ASSERT_TRUE(succeeded(object));
  ASSERT_GE(object->size(), 4u);
  EXPECT_EQ(object->substr(0, 4), "\x7f"
                                  "ELF");
  std::string error;
  auto kernels = readKernelResources(*object, GetParam(), error);
  ASSERT_TRUE(succeeded(kernels)) << error;
  ASSERT_EQ(kernels->size(), 1u);
  const KernelResources &k = kernels->front();
  EXPECT_EQ(k.name, "rmsnorm_fwd");
  EXPECT_GT(k.vgprs, 0u);
  EXPECT_EQ(k.vgprSpills, 0u);
  EXPECT_EQ(k.sgprSpills, 0u);
  EXPECT_EQ(k.scratchBytes, 0u);
  EXPECT_EQ(k.maxFlatWorkgroupSize, 256u);
  EXPECT_GE(k.wavesPerSimd, 1u);
  EXPECT_LE(k.wavesPerSimd, 8u);
}

TEST_P(TargetTest, AssemblyNamesTheChip) {
  OwningOpRef<ModuleOp> module = buildRMSNorm({"N=3001", "dtype=f16"});
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(lowerToROCDL(*module, GetParam())));
  FailureOr<std::string> text =
      serializeAMDGPU(*module, AMDGPUOutput::Assembly);
  ASSERT_TRUE(succeeded(text));
  EXPECT_NE(text->find(std::string("amdgcn-amd-amdhsa--") + GetParam()),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Chips, TargetTest,
                         ::testing::Values("gfx942", "gfx950"));

TEST(TargetChipsTest, RejectsUnsupportedChips) {
  EXPECT_TRUE(isSupportedAMDGPUChip("gfx942"));
  EXPECT_TRUE(isSupportedAMDGPUChip("gfx950"));
  EXPECT_FALSE(isSupportedAMDGPUChip("gfx1100"));
  EXPECT_FALSE(isSupportedAMDGPUChip("sm_90"));
}

TEST(TargetResourcesTest, GarbageIsNotACodeObject) {
  std::string error;
  EXPECT_TRUE(failed(readKernelResources("not an elf", "gfx942", error)));
  EXPECT_FALSE(error.empty());
}

} // namespace
