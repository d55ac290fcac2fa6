//===- LaunchValidationTest.cpp - one rule per value, at launch too -------===//
//
// The rules a value must meet hold wherever it comes from: eps as a -D
// definition and as a launch argument, the 32-bit indexing limit on shapes,
// and overlapping outputs (only the in-place forms a kernel declares are
// accepted). The CLI (test/Tools), Python and PyTorch entry points
// (python-bindings/tests) test the same rules through their own surfaces.
//
//===----------------------------------------------------------------------===//
#include "RMSNormHostSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::testing;

namespace {

std::string errorOf(llvm::Error err) {
  return err ? llvm::toString(std::move(err)) : std::string();
}

//===----------------------------------------------------------------------===//
// eps: one rule for definitions and launch arguments
//===----------------------------------------------------------------------===//

TEST(EpsRuleTest, LaunchArgumentsAreJudgedLikeDefinitions) {
  std::mt19937_64 rng(1);
  for (const char *kernelName :
       {"rmsnorm_fwd", "rmsnorm_add_fwd", "rmsnorm_bwd", "rmsnorm_add_bwd"}) {
    auto kernel = BuiltinKernel::create(
        kernelName, {"N=128", "M=2", "dtype=f32", "wdtype=same"},
        DeviceKind::Host);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    HostLaunch launch((*kernel)->getPlan(), rng);
    size_t epsIndex = 0;
    for (auto [i, sig] : llvm::enumerate((*kernel)->getPlan().args))
      if (sig.name == "eps")
        epsIndex = i;
    ASSERT_NE(epsIndex, 0u) << kernelName;
    for (float bad : {-1.0f, std::numeric_limits<float>::quiet_NaN(),
                      std::numeric_limits<float>::infinity()}) {
      // The definition is refused ...
      std::string text = std::to_string(bad);
      auto refused = BuiltinKernel::create(
          kernelName,
          {"N=128", "M=2", "dtype=f32", "wdtype=same", "eps=" + text},
          DeviceKind::Host);
      ASSERT_FALSE(bool(refused)) << kernelName << " eps=" << text;
      std::string definitionError = llvm::toString(refused.takeError());
      EXPECT_NE(definitionError.find("finite, non-negative"),
                std::string::npos)
          << definitionError;
      // ... and so is the launch argument, with the same words.
      std::vector<ArgValue> args = launch.args;
      args[epsIndex] = ArgValue::ofF32(bad);
      RunInfo info;
      llvm::Error err = (*kernel)->run(args, info);
      ASSERT_TRUE(bool(err)) << kernelName << " eps=" << bad;
      std::string launchError = llvm::toString(std::move(err));
      EXPECT_NE(launchError.find("argument 'eps'"), std::string::npos)
          << launchError;
      EXPECT_NE(launchError.find("finite, non-negative"), std::string::npos)
          << launchError;
    }
    // Zero and ordinary values are fine.
    for (float good : {0.0f, 1e-6f, 0.5f}) {
      std::vector<ArgValue> args = launch.args;
      args[epsIndex] = ArgValue::ofF32(good);
      EXPECT_FALSE(bool((*kernel)->validate(args))) << kernelName;
    }
  }
}


TEST(IndexingLimitTest, TensorsBeyond32BitIndexingAreRefused) {
  // Kernels address a tensor with 32-bit byte offsets: 2^31 bytes and more
  // would wrap (bf16 [262144, 4096] is 2^31 bytes; f32 reaches it at half
  // the rows).
  for (auto [dtype, rows] : {std::pair<const char *, int64_t>{"bf16", 262144},
                             {"f32", 131072}})
    for (const char *kernel : {"rmsnorm_fwd", "rmsnorm_bwd", "rmsnorm_add_bwd"}) {
      std::string dt = std::string("dtype=") + dtype;
      auto refused = BuiltinKernel::create(
          kernel, {"N=4096", "M=" + std::to_string(rows), dt},
          DeviceKind::Host);
      ASSERT_FALSE(bool(refused)) << kernel << " " << dtype;
      std::string message = llvm::toString(refused.takeError());
      EXPECT_NE(message.find("beyond 32-bit indexing"), std::string::npos)
          << message;
      // One row fewer fits.
      auto fits = BuiltinKernel::create(
          kernel, {"N=4096", "M=" + std::to_string(rows - 1), dt},
          DeviceKind::Host);
      EXPECT_TRUE(bool(fits)) << llvm::toString(fits.takeError());
    }
  // The runtime's own check covers every built-in kernel's planned tensors:
  // a gemm whose f32 output passes 2^31 bytes although its element count
  // does not.
  auto gemm = BuiltinKernel::create(
      "gemm", {"M=32768", "N=32768", "K=64", "dtype=bf16", "out_dtype=f32"},
      DeviceKind::Host);
  if (!gemm) {
    std::string message = llvm::toString(gemm.takeError());
    EXPECT_NE(message.find("bytes per tensor (32-bit offsets)"),
              std::string::npos)
        << message;
  } else {
    ADD_FAILURE() << "a 4 GiB gemm output was planned";
  }
}

/// Launch arguments of rmsnorm_add_fwd (N=128, M=4) whose tensors all live
/// in one f32 pool, so that they can be made to overlap at will.
struct PooledLaunch {
  static constexpr int64_t kN = 128, kM = 4, kRows = kM * kN;
  PooledLaunch() {
    auto created = BuiltinKernel::create(
        "rmsnorm_add_fwd", {"N=128", "M=4", "dtype=f32"}, DeviceKind::Host);
    EXPECT_TRUE(bool(created)) << llvm::toString(created.takeError());
    kernel = std::move(*created);
    pool.assign(8 * kRows, 1.0f);
    // x, residual, w, y, residual_out, M, eps at disjoint places.
    args = {tensor(0, true), tensor(kRows, true), tensor(2 * kRows, false),
            tensor(3 * kRows, true), tensor(4 * kRows, true),
            ArgValue::ofI32(kM), ArgValue::ofF32(1e-5f)};
  }
  ArgValue tensor(int64_t offset, bool rows) {
    return ArgValue::of(
        {pool.data() + offset, dsl::DType::F32,
         rows ? std::vector<int64_t>{kM, kN} : std::vector<int64_t>{kN}, {}});
  }
  std::unique_ptr<BuiltinKernel> kernel;
  std::vector<float> pool;
  std::vector<ArgValue> args;
};

TEST(OverlapTest, DisjointAndDeclaredInPlaceArgumentsAreAccepted) {
  PooledLaunch p;
  EXPECT_EQ(errorOf(p.kernel->validate(p.args)), "");
  // y over x and residual_out over residual: how vLLM calls it.
  p.args[3] = p.args[0];
  p.args[4] = p.args[1];
  EXPECT_EQ(errorOf(p.kernel->validate(p.args)), "");
  // Two outputs over two inputs that sit back to back are still disjoint.
  PooledLaunch q;
  q.args[3] = q.tensor(PooledLaunch::kRows / 2 + 5 * PooledLaunch::kRows,
                       true);
  EXPECT_EQ(errorOf(q.kernel->validate(q.args)), "");
}

TEST(OverlapTest, OtherOverlapsAreRefusedNamingBothArguments) {
  const int64_t rows = PooledLaunch::kRows;
  struct Case {
    const char *what;
    int output;   // 3: y, 4: residual_out
    int64_t at;   // where that output now starts in the pool
    const char *other;
  };
  // Offsets stay 16-byte aligned (the accesses are 128-bit), so overlap is
  // the only thing wrong.
  for (const Case &c : {
           Case{"y one row into x", 3, PooledLaunch::kN, "x"},
           Case{"y over residual (not its in-place input)", 3, rows,
                "residual"},
           Case{"y starting inside residual", 3, rows + 4, "residual"},
           Case{"residual_out over y", 4, 3 * rows, "y"},
           Case{"residual_out four elements into y", 4, 3 * rows + 4, "y"},
           Case{"residual_out over x", 4, 0, "x"},
       }) {
    PooledLaunch p;
    p.args[c.output] = p.tensor(c.at, true);
    std::string message = errorOf(p.kernel->validate(p.args));
    std::string output = c.output == 3 ? "'y'" : "'residual_out'";
    std::string other = "'" + std::string(c.other) + "'";
    EXPECT_NE(message.find("overlaps argument"), std::string::npos)
        << c.what << ": " << message;
    EXPECT_NE(message.find(output), std::string::npos)
        << c.what << ": " << message;
    EXPECT_NE(message.find(other), std::string::npos)
        << c.what << ": " << message;
    // And nothing ran: run() validates first.
    RunInfo info;
    EXPECT_TRUE(bool(p.kernel->run(p.args, info))) << c.what;
  }
  // The weight is an input no output may replace.
  PooledLaunch w;
  w.args[3] = w.tensor(2 * rows + 64, true);
  std::string message = errorOf(w.kernel->validate(w.args));
  EXPECT_NE(message.find("overlaps argument 'w'"), std::string::npos)
      << message;
}

TEST(OverlapTest, ForwardInPlaceMatchesTheReference) {
  std::mt19937_64 rng(std::random_device{}());
  auto kernel = BuiltinKernel::create(
      "rmsnorm_fwd", {"N=3001", "M=5", "dtype=bf16"}, DeviceKind::Host);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  HostLaunch launch((*kernel)->getPlan(), rng);
  std::vector<std::vector<double>> tensors = launch.toDoubles();
  (*kernel)->getSpec().reference((*kernel)->getParams(), tensors,
                                 {5.0, double(kTestEps)});
  std::vector<ArgValue> args = launch.args;
  args[2] = args[0]; // y over x
  RunInfo info;
  llvm::Error err = (*kernel)->run(args, info);
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  Comparison y = compareToReference(launch["x"], tensors[2]);
  EXPECT_TRUE(y.passed()) << y.mismatches << " mismatched";
}

} // namespace
