//===- FiniteCheckTest.cpp - NaN/Inf detection and launch-time rules ------===//
//
// ROCDSL_CHECK_FINITE and the per-call option on real host launches of a
// built-in kernel and a source kernel, and the scan itself on every float
// type.
//
//===----------------------------------------------------------------------===//
#include "RMSNormHostSupport.h"

#include "rocdsl/Runtime/FiniteCheck.h"
#include "rocdsl/Runtime/SourceKernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::testing;

namespace {

/// Sets (and on destruction unsets) ROCDSL_CHECK_FINITE.
struct ScopedCheckFinite {
  explicit ScopedCheckFinite(const char *value) {
    ::setenv("ROCDSL_CHECK_FINITE", value, 1);
  }
  ~ScopedCheckFinite() { ::unsetenv("ROCDSL_CHECK_FINITE"); }
};

TEST(FiniteCheckTest, ScanFindsTheFirstNaNOrInfinityOfEveryFloatType) {
  // f32: the largest finite values and denormals are finite.
  std::vector<float> f32 = {1.0f, -0.0f, std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::denorm_min(), 3.0f};
  EXPECT_EQ(findFirstNonFinite(f32.data(), dsl::DType::F32, f32.size()),
            std::nullopt);
  for (float bad : {std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    std::vector<float> v = f32;
    v[4] = bad;
    v[5] = bad;
    EXPECT_EQ(findFirstNonFinite(v.data(), dsl::DType::F32, v.size()),
              std::optional<size_t>(4));
    // Only the first `count` elements are looked at.
    EXPECT_EQ(findFirstNonFinite(v.data(), dsl::DType::F32, 4), std::nullopt);
  }
  // f16: 0x7bff (65504) finite; 0x7c00 inf, 0xfc00 -inf, 0x7e00 / 0x7c01
  // NaN.
  std::vector<uint16_t> f16 = {0x3c00, 0x7bff, 0xfbff, 0x0001, 0x8000};
  EXPECT_EQ(findFirstNonFinite(f16.data(), dsl::DType::F16, f16.size()),
            std::nullopt);
  for (uint16_t bad : {0x7c00, 0xfc00, 0x7e00, 0x7c01}) {
    std::vector<uint16_t> v = f16;
    v[2] = bad;
    EXPECT_EQ(findFirstNonFinite(v.data(), dsl::DType::F16, v.size()),
              std::optional<size_t>(2))
        << std::hex << bad;
  }
  // bf16: 0x7f7f finite; 0x7f80 inf, 0xff80 -inf, 0x7fc0 / 0x7f81 NaN.
  std::vector<uint16_t> bf16 = {0x3f80, 0x7f7f, 0xff7f, 0x0001};
  EXPECT_EQ(findFirstNonFinite(bf16.data(), dsl::DType::BF16, bf16.size()),
            std::nullopt);
  for (uint16_t bad : {0x7f80, 0xff80, 0x7fc0, 0x7f81}) {
    std::vector<uint16_t> v = bf16;
    v[3] = bad;
    EXPECT_EQ(findFirstNonFinite(v.data(), dsl::DType::BF16, v.size()),
              std::optional<size_t>(3))
        << std::hex << bad;
  }
  // Integers are never non-finite.
  std::vector<int32_t> ints = {int32_t(0x7f800000), -1};
  EXPECT_EQ(findFirstNonFinite(ints.data(), dsl::DType::I32, ints.size()),
            std::nullopt);
}

TEST(FiniteCheckTest, EnvironmentAndPerCallOption) {
  ::unsetenv("ROCDSL_CHECK_FINITE");
  EXPECT_FALSE(isFiniteCheckRequested(std::nullopt));
  EXPECT_TRUE(isFiniteCheckRequested(true));
  for (const char *on : {"1", "yes", "ON", "true"}) {
    ScopedCheckFinite env(on);
    EXPECT_TRUE(isFiniteCheckRequested(std::nullopt)) << on;
    EXPECT_FALSE(isFiniteCheckRequested(false)) << on;
  }
  for (const char *off : {"", "0", "off", "No", "false"}) {
    ScopedCheckFinite env(off);
    EXPECT_FALSE(isFiniteCheckRequested(std::nullopt)) << off;
  }
}

/// rmsnorm_fwd on the host with one infinite input element in row 3: that
/// row's sum of squares is infinite, so its y is 0 except at the infinite
/// element, where it is inf * 0 = NaN.
class FiniteLaunchTest : public ::testing::Test {
protected:
  static constexpr int64_t kN = 128, kM = 5, kBadRow = 3, kBadColumn = 17;
  void SetUp() override {
    auto created = BuiltinKernel::create(
        "rmsnorm_fwd",
        {"N=" + std::to_string(kN), "M=" + std::to_string(kM), "dtype=f32",
         "wdtype=same"},
        DeviceKind::Host);
    ASSERT_TRUE(bool(created)) << llvm::toString(created.takeError());
    kernel = std::move(*created);
    launch = std::make_unique<HostLaunch>(kernel->getPlan(), rng);
  }
  void makeOneInputInfinite() {
    static_cast<float *>(
        (*launch)["x"].data())[kBadRow * kN + kBadColumn] =
        std::numeric_limits<float>::infinity();
  }
  std::string runExpectingError(const LaunchOptions &options = {}) {
    RunInfo info;
    llvm::Error err = kernel->run(launch->args, info, options);
    EXPECT_TRUE(bool(err)) << "the launch should have failed";
    return err ? llvm::toString(std::move(err)) : "";
  }
  void runExpectingSuccess(const LaunchOptions &options = {}) {
    RunInfo info;
    llvm::Error err = kernel->run(launch->args, info, options);
    EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
  }
  std::mt19937_64 rng{std::random_device{}()};
  std::unique_ptr<BuiltinKernel> kernel;
  std::unique_ptr<HostLaunch> launch;
};

TEST_F(FiniteLaunchTest, FiniteOutputsPassTheCheck) {
  ScopedCheckFinite env("1");
  runExpectingSuccess();
  // The outputs were really written (they were poisoned with NaN).
  EXPECT_EQ(findFirstNonFinite((*launch)["y"].data(), dsl::DType::F32,
                               (*launch)["y"].count()),
            std::nullopt);
}

TEST_F(FiniteLaunchTest, EnvironmentVariableNamesKernelOutputAndIndex) {
  makeOneInputInfinite();
  ScopedCheckFinite env("1");
  std::string message = runExpectingError();
  EXPECT_NE(message.find("rmsnorm_fwd"), std::string::npos) << message;
  EXPECT_NE(message.find("'y'"), std::string::npos) << message;
  EXPECT_NE(message.find("nan"), std::string::npos) << message;
  EXPECT_NE(message.find("element " +
                         std::to_string(kBadRow * kN + kBadColumn) + " of " +
                         std::to_string(kM * kN)),
            std::string::npos)
      << message;
}

TEST_F(FiniteLaunchTest, PerCallOptionOverridesTheEnvironment) {
  makeOneInputInfinite();
  {
    // Unset: no check, the NaN goes through silently (the old behaviour).
    runExpectingSuccess();
    EXPECT_EQ(findFirstNonFinite((*launch)["y"].data(), dsl::DType::F32,
                                 (*launch)["y"].count()),
              std::optional<size_t>(kBadRow * kN + kBadColumn));
  }
  LaunchOptions on;
  on.checkFinite = true;
  EXPECT_NE(runExpectingError(on).find("'y'"), std::string::npos);
  ScopedCheckFinite env("1");
  LaunchOptions off;
  off.checkFinite = false;
  runExpectingSuccess(off);
}

TEST(FiniteSourceKernelTest, WrittenPointersAreTheCheckedOutputs) {
  // out[i] = log(x[i]): a negative input gives NaN in `out`, the one
  // pointer the kernel stores through.
  const char *source = R"(
#blk = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @logk(%x: !rocdsl.ptr<f32>, %out: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %v = rocdsl.load %x[%c0] : !rocdsl.ptr<f32> -> tensor<64xf32, #blk>
  %r = math.log %v : tensor<64xf32, #blk>
  rocdsl.store %r, %out[%c0] : tensor<64xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}
)";
  auto kernel = SourceKernel::create(source, "logk", DeviceKind::Host);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  ASSERT_EQ((*kernel)->getArgs().size(), 2u);
  EXPECT_FALSE((*kernel)->getArgs()[0].written);
  EXPECT_TRUE((*kernel)->getArgs()[1].written);
  std::vector<float> x(64, 2.0f), out(64, -1.0f);
  std::vector<ArgValue> args = {
      ArgValue::of({x.data(), dsl::DType::F32, {64}, {}}),
      ArgValue::of({out.data(), dsl::DType::F32, {64}, {}})};
  LaunchOptions on;
  on.checkFinite = true;
  RunInfo info;
  x[41] = -3.0f;
  llvm::Error err = (*kernel)->run(args, LaunchGrid{}, nullptr, true, info, on);
  ASSERT_TRUE(bool(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("logk"), std::string::npos) << message;
  EXPECT_NE(message.find("'argument 1'"), std::string::npos) << message;
  EXPECT_NE(message.find("element 41 of 64"), std::string::npos) << message;
  // The same kernel on finite results passes and really ran.
  x[41] = 5.0f;
  err = (*kernel)->run(args, LaunchGrid{}, nullptr, true, info, on);
  EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
  EXPECT_NEAR(out[41], std::log(5.0f), 1e-5);
}

} // namespace
