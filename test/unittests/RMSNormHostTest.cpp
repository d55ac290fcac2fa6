//===- RMSNormHostTest.cpp - RMSNorm forward numerics on the host target --===//
//
// Runs the real kernel (compiled by ROCDSL for this CPU) over the whole
// config matrix on fresh random inputs, with outputs poisoned, against the
// float64 reference.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestEnvironment.h"
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
