//===- RMSNormBackwardHostTest.cpp - RMSNorm backward numerics on the host ===//
//
// The whole backward op (rmsnorm_bwd or rmsnorm_add_bwd, then
// rmsnorm_bwd_dw, chained through the fp32 partial buffer) against float64
// dx and dw, over the whole config matrix (looping rows above N = 8192
// included) on fresh random inputs with outputs poisoned.
//
//===----------------------------------------------------------------------===//
#include "RMSNormHostSupport.h"
#include "norm/RMSNorm.h"
#include "RMSNormCases.h"

#include <gtest/gtest.h>

#include <optional>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::testing;

namespace {

class RMSNormBackwardHostTest
    : public ::testing::TestWithParam<RMSNormFamilyParam> {};

TEST_P(RMSNormBackwardHostTest, MatchesFloat64Reference) {
  const auto &[c, variant] = GetParam();
  const bool fused = variant == RMSNormVariant::FusedAdd;
  const char *name = fused ? "rmsnorm_add_bwd" : "rmsnorm_bwd";
  std::mt19937_64 rng(std::random_device{}());
  for (const RMSNormBackwardLaunch &l : getRMSNormBackwardLaunches(c)) {
    const int64_t m = l.m;
    std::vector<std::string> defs = l.definitions(c);
    std::string what = std::string(name) + " " + c.name() + " " + l.describe();
    auto step1 = BuiltinKernel::create(name, defs, DeviceKind::Host);
    ASSERT_TRUE(bool(step1)) << llvm::toString(step1.takeError());
    if (l.direct) {
      EXPECT_EQ((*step1)->getPlan().grid[0], 1u) << what;
    }
    HostLaunch first((*step1)->getPlan(), rng);
    RunInfo info;
    llvm::Error err = (*step1)->run(first.args, info);
    ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
    std::optional<HostLaunch> second;
    if (!l.direct) {
      auto step2 =
          BuiltinKernel::create("rmsnorm_bwd_dw", defs, DeviceKind::Host);
      ASSERT_TRUE(bool(step2)) << llvm::toString(step2.takeError());
      second.emplace((*step2)->getPlan(), rng,
                     std::map<std::string, std::shared_ptr<HostBuffer>>{
                         {"dw_partial", first.share("dw_partial")}});
      err = (*step2)->run(second->args, info);
      ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
    }
    std::vector<double> refDx(m * c.n), refDw(c.n), dwMagnitude, dxMagnitude,
        dResidualOut;
    if (fused)
      dResidualOut = first["dresidual_out"].toDoubles();
    rmsNormBackwardReference(
        m, c.n, double(kTestEps), first[fused ? "h" : "x"].toDoubles(),
        first["w"].toDoubles(), first["dy"].toDoubles(), refDx, refDw,
        &dwMagnitude, fused ? &dResidualOut : nullptr, &dxMagnitude);
    // dx is a difference of two terms that nearly cancel in short rows: its
    // rounding scales with the terms.
    Comparison cdx = compareToReference(first["dx"], refDx, dxMagnitude);
    EXPECT_TRUE(cdx.passed()) << what << " dx: " << cdx.mismatches << " of "
                              << cdx.count << " mismatched, " << cdx.nonFinite
                              << " non-finite, max abs err " << cdx.maxAbsError;
    // dw sums M products in fp32: its rounding scales with their magnitudes.
    Comparison cdw = compareToReference(l.direct ? first["dw"] : (*second)["dw"],
                                        refDw, dwMagnitude);
    EXPECT_TRUE(cdw.passed())
        << what << " dw: " << cdw.mismatches << " mismatched, " << cdw.nonFinite
        << " non-finite, max abs " << cdw.maxAbsError;
  }
}

INSTANTIATE_TEST_SUITE_P(Matrix, RMSNormBackwardHostTest, rmsNormFamilyMatrix(),
                         rmsNormFamilyTestName);

} // namespace
