//===- RegistryTest.cpp - built-in kernels and their parameters -----------===//
#include "rocdsl/Kernels/Registry.h"
#include "norm/RMSNorm.h"
#include "rocdsl/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

TEST(RegistryTest, ListsRMSNormForwardWithDefaults) {
  const KernelSpec *spec = lookupKernel("rmsnorm_fwd");
  ASSERT_NE(spec, nullptr);
  KernelParams params;
  std::string error;
  ASSERT_TRUE(succeeded(resolveKernelParams(*spec, {}, params, error)));
  EXPECT_EQ(params.get("N"), "4096");
  EXPECT_EQ(params.get("dtype"), "bf16");
  EXPECT_EQ(lookupKernel("no_such_kernel"), nullptr);
}

TEST(RegistryTest, RejectsUnknownAndMalformedParameters) {
  const KernelSpec *spec = lookupKernel("rmsnorm_fwd");
  KernelParams params;
  std::string error;
  EXPECT_TRUE(failed(resolveKernelParams(*spec, {"K=3"}, params, error)));
  EXPECT_NE(error.find("no parameter 'K'"), std::string::npos) << error;
  EXPECT_TRUE(failed(resolveKernelParams(*spec, {"N"}, params, error)));
  EXPECT_NE(error.find("expected NAME=VALUE"), std::string::npos) << error;
}

TEST(RegistryTest, BuildRejectsBadValuesWithAMessage) {
  DialectRegistry registry;
  registerRocDSLDialects(registry);
  MLIRContext ctx(registry);
  const KernelSpec *spec = lookupKernel("rmsnorm_fwd");
  for (const char *bad : {"N=abc", "N=0", "dtype=f64", "wdtype=i32", "M=0"}) {
    KernelParams params;
    std::string error;
    ASSERT_TRUE(succeeded(resolveKernelParams(*spec, {bad}, params, error)));
    EXPECT_FALSE(spec->build(&ctx, params, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

TEST(RMSNormConfigTest, AlignedRowsUse128BitAccesses) {
  auto c = RMSNormConfig::choose(4096, dsl::DType::BF16, dsl::DType::BF16);
  EXPECT_EQ(c.vec, 8u);
  EXPECT_TRUE(c.isVectorized());
  EXPECT_TRUE(c.singlePass);
  EXPECT_EQ(c.blockN, 4096);
  EXPECT_EQ(c.rowsPerProgram, 1u);
  EXPECT_EQ(c.gridSize(4097), 4097);
}

TEST(RMSNormConfigTest, UnalignedRowsTakeTheMaskedGenericPath) {
  auto c = RMSNormConfig::choose(3001, dsl::DType::BF16, dsl::DType::BF16);
  EXPECT_EQ(c.vec, 1u);
  EXPECT_FALSE(c.isVectorized());
  EXPECT_EQ(c.blockN, 4096);
  auto f32 = RMSNormConfig::choose(3000, dsl::DType::F32, dsl::DType::F32);
  EXPECT_EQ(f32.vec, 4u); // 3000 = 4 * 750: still 128-bit
}

TEST(RMSNormConfigTest, ShortRowsShareAWorkgroup) {
  auto c = RMSNormConfig::choose(128, dsl::DType::F32, dsl::DType::F32);
  EXPECT_EQ(c.threadsAlongN, 32u);
  EXPECT_EQ(c.rowsPerProgram, 8u);
  EXPECT_EQ(c.gridSize(17), 3);
}

TEST(RMSNormConfigTest, LongRowsLoop) {
  auto c = RMSNormConfig::choose(10000, dsl::DType::BF16, dsl::DType::BF16);
  EXPECT_FALSE(c.singlePass);
  EXPECT_EQ(c.blockN, 4096);
  EXPECT_EQ(c.vec, 8u);
}

TEST(RMSNormConfigTest, MixedWeightDTypeKeepsWeightAccessesLegal) {
  auto c = RMSNormConfig::choose(4096, dsl::DType::BF16, dsl::DType::F32);
  EXPECT_EQ(c.vec, 8u);
  EXPECT_EQ(c.weightVec, 4u); // 4 x f32 = 128 bits, divides the lane's 8
}

} // namespace
