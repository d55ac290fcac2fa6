//===- RMSNormHostTest.cpp - RMSNorm forward numerics on the host target --===//
//
// Runs the real kernel (compiled by ROCDSL for this CPU) over the whole
// config matrix on fresh random inputs, with outputs poisoned, against the
// float64 reference.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestEnvironment.h"
#include "norm/RMSNorm.h"
#include "norm/RMSNormConfigs.h"

#include "rocdsl/Runtime/BuiltinKernel.h"
#include "rocdsl/Runtime/HostData.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class RMSNormHostTest : public ::testing::TestWithParam<RMSNormCase> {};

TEST_P(RMSNormHostTest, MatchesFloat64Reference) {
  const RMSNormCase &c = GetParam();
  std::mt19937_64 rng(std::random_device{}());
  for (int64_t m : getRMSNormRowCounts()) {
    std::vector<std::string> defs = c.definitions();
    defs.push_back("M=" + std::to_string(m));
    defs.push_back("eps=1e-5");
    auto kernel = BuiltinKernel::create("rmsnorm_fwd", defs, DeviceKind::Host);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    const LaunchPlan &plan = (*kernel)->getPlan();
    HostBuffer x(plan.args[0].dtype, m * c.n), w(plan.args[1].dtype, c.n),
        y(plan.args[2].dtype, m * c.n);
    x.fillRandom(rng);
    w.fillRandom(rng);
    y.poison();
    std::vector<ArgValue> args = {
        ArgValue::of({x.data(), x.dtype(), {m, c.n}, {}}),
        ArgValue::of({w.data(), w.dtype(), {c.n}, {}}),
        ArgValue::of({y.data(), y.dtype(), {m, c.n}, {}}),
        ArgValue::ofI32(int32_t(m)), ArgValue::ofF32(1e-5f)};
    RunInfo info;
    llvm::Error err = (*kernel)->run(args, info);
    ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));

    std::vector<std::vector<double>> tensors = {x.toDoubles(), w.toDoubles(),
                                                y.toDoubles()};
    (*kernel)->getSpec().reference((*kernel)->getParams(), tensors,
                                   {double(m), double(1e-5f)});
    Comparison cmp = compareToReference(y, tensors[2]);
    EXPECT_TRUE(cmp.passed())
        << c.name() << " M=" << m << ": " << cmp.mismatches << " of "
        << cmp.count << " mismatched, " << cmp.nonFinite
        << " non-finite, max abs err " << cmp.maxAbsError;
  }
}

INSTANTIATE_TEST_SUITE_P(Matrix, RMSNormHostTest,
                         ::testing::ValuesIn(getRMSNormForwardCases()),
                         [](const auto &info) { return info.param.name(); });

} // namespace

namespace {

/// The whole backward op (rmsnorm_bwd then rmsnorm_bwd_dw, chained through
/// the fp32 partial buffer) against float64 dx and dw, over the matrix rows
/// the backward supports (N <= 8192).
class RMSNormBackwardHostTest : public ::testing::TestWithParam<RMSNormCase> {};

TEST_P(RMSNormBackwardHostTest, MatchesFloat64Reference) {
  const RMSNormCase &c = GetParam();
  if (c.n > 8192)
    GTEST_SKIP() << "rmsnorm_bwd supports N <= 8192 so far";
  std::mt19937_64 rng(std::random_device{}());
  for (int64_t m : getRMSNormRowCounts()) {
    std::vector<std::string> defs = c.definitions();
    defs.push_back("M=" + std::to_string(m));
    defs.push_back("eps=1e-5");
    auto step1 = BuiltinKernel::create("rmsnorm_bwd", defs, DeviceKind::Host);
    auto step2 =
        BuiltinKernel::create("rmsnorm_bwd_dw", defs, DeviceKind::Host);
    ASSERT_TRUE(bool(step1)) << llvm::toString(step1.takeError());
    ASSERT_TRUE(bool(step2)) << llvm::toString(step2.takeError());
    const LaunchPlan &plan = (*step1)->getPlan();
    int64_t g = plan.args[4].shape[0];
    HostBuffer x(plan.args[0].dtype, m * c.n), w(plan.args[1].dtype, c.n),
        dy(plan.args[2].dtype, m * c.n), dx(plan.args[3].dtype, m * c.n),
        partial(dsl::DType::F32, g * c.n), dw(plan.args[1].dtype, c.n);
    x.fillRandom(rng);
    w.fillRandom(rng);
    dy.fillRandom(rng);
    dx.poison();
    partial.poison();
    dw.poison();
    RunInfo info;
    llvm::Error err = (*step1)->run(
        {ArgValue::of({x.data(), x.dtype(), {m, c.n}, {}}),
         ArgValue::of({w.data(), w.dtype(), {c.n}, {}}),
         ArgValue::of({dy.data(), dy.dtype(), {m, c.n}, {}}),
         ArgValue::of({dx.data(), dx.dtype(), {m, c.n}, {}}),
         ArgValue::of({partial.data(), partial.dtype(), {g, c.n}, {}}),
         ArgValue::ofI32(int32_t(m)), ArgValue::ofF32(1e-5f)},
        info);
    ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
    err = (*step2)->run(
        {ArgValue::of({partial.data(), partial.dtype(), {g, c.n}, {}}),
         ArgValue::of({dw.data(), dw.dtype(), {c.n}, {}}),
         ArgValue::ofI32(int32_t(g))},
        info);
    ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));

    std::vector<double> refDx(m * c.n), refDw(c.n), dwMagnitude;
    rmsNormBackwardReference(m, c.n, double(1e-5f), x.toDoubles(),
                             w.toDoubles(), dy.toDoubles(), refDx, refDw,
                             &dwMagnitude);
    Comparison cdx = compareToReference(dx, refDx);
    EXPECT_TRUE(cdx.passed())
        << c.name() << " M=" << m << " dx: " << cdx.mismatches
        << " mismatched, " << cdx.nonFinite << " non-finite";
    // dw sums M products in fp32: its rounding scales with their magnitudes.
    Comparison cdw = compareToReference(dw, refDw, dwMagnitude);
    EXPECT_TRUE(cdw.passed())
        << c.name() << " M=" << m << " dw: " << cdw.mismatches
        << " mismatched, " << cdw.nonFinite << " non-finite, max abs "
        << cdw.maxAbsError;
  }
}

INSTANTIATE_TEST_SUITE_P(Matrix, RMSNormBackwardHostTest,
                         ::testing::ValuesIn(getRMSNormForwardCases()),
                         [](const auto &info) { return info.param.name(); });

} // namespace
