//===- RMSNormHostTest.cpp - RMSNorm forward numerics on the host target --===//
//
// Runs the real kernels (rmsnorm_fwd, rmsnorm_add_fwd; compiled by ROCDSL
// for this CPU) over the whole config matrix on fresh random inputs, with
// outputs poisoned, against the float64 reference.
//
//===----------------------------------------------------------------------===//
#include "RMSNormHostSupport.h"
#include "norm/RMSNorm.h"
#include "RMSNormCases.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::testing;

namespace {

class RMSNormHostTest : public ::testing::TestWithParam<RMSNormFamilyParam> {};

TEST_P(RMSNormHostTest, MatchesFloat64Reference) {
  const auto &[c, variant] = GetParam();
  const char *name =
      variant == RMSNormVariant::FusedAdd ? "rmsnorm_add_fwd" : "rmsnorm_fwd";
  std::mt19937_64 rng(std::random_device{}());
  for (int64_t m : getRMSNormRowCounts()) {
    std::vector<std::string> defs = c.definitions();
    defs.push_back("M=" + std::to_string(m));
    defs.push_back("eps=1e-5");
    auto kernel = BuiltinKernel::create(name, defs, DeviceKind::Host);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    const LaunchPlan &plan = (*kernel)->getPlan();
    HostLaunch launch(plan, rng);
    RunInfo info;
    llvm::Error err = (*kernel)->run(launch.args, info);
    ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));

    // The spec's reference fills every output from the inputs as the
    // kernel saw them.
    std::vector<std::vector<double>> tensors = launch.toDoubles();
    (*kernel)->getSpec().reference((*kernel)->getParams(), tensors,
                                   {double(m), double(kTestEps)});
    size_t i = 0;
    for (const ArgSignature &sig : plan.args) {
      if (sig.kind != ArgKind::Tensor)
        continue;
      const std::vector<double> &ref = tensors[i++];
      if (!sig.isOutput)
        continue;
      Comparison cmp = compareToReference(launch[sig.name], ref);
      EXPECT_TRUE(cmp.passed())
          << name << " " << c.name() << " M=" << m << " " << sig.name << ": "
          << cmp.mismatches << " of " << cmp.count << " mismatched, "
          << cmp.nonFinite << " non-finite, max abs err " << cmp.maxAbsError;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Matrix, RMSNormHostTest, rmsNormFamilyMatrix(),
                         rmsNormFamilyTestName);

} // namespace

namespace {

/// rmsnorm_add_fwd as vLLM's fused_add_rmsnorm calls it: residual updated
/// in place (residual_out = residual) and y written over x. Every element
/// is read before it is written, by the lane that writes it, on the
/// single-pass and the looping path alike.
TEST(RMSNormInPlaceHostTest, FusedAddForwardUpdatesInPlace) {
  std::mt19937_64 rng(std::random_device{}());
  for (const RMSNormCase &c :
       {RMSNormCase{4096, "bf16", "same"}, RMSNormCase{3001, "f16", "f32"},
        RMSNormCase{10001, "f32", "same"},
        RMSNormCase{20480, "bf16", "same"}}) {
    const int64_t m = 5;
    std::vector<std::string> defs = c.definitions();
    defs.push_back("M=" + std::to_string(m));
    defs.push_back("eps=1e-5");
    auto kernel =
        BuiltinKernel::create("rmsnorm_add_fwd", defs, DeviceKind::Host);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    HostLaunch launch((*kernel)->getPlan(), rng);
    // Reference on the inputs before they are overwritten.
    std::vector<std::vector<double>> tensors = launch.toDoubles();
    (*kernel)->getSpec().reference((*kernel)->getParams(), tensors,
                                   {double(m), double(kTestEps)});
    std::vector<ArgValue> args = launch.args;
    args[3] = args[0]; // y over x
    args[4] = args[1]; // residual_out over residual
    RunInfo info;
    llvm::Error err = (*kernel)->run(args, info);
    ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
    Comparison y = compareToReference(launch["x"], tensors[3]);
    Comparison h = compareToReference(launch["residual"], tensors[4]);
    EXPECT_TRUE(y.passed())
        << c.name() << " y: " << y.mismatches << " mismatched";
    EXPECT_TRUE(h.passed())
        << c.name() << " residual_out: " << h.mismatches << " mismatched";
  }
}

} // namespace
