//===- SourceKernelTest.cpp - kernels from IR text, PTX block sizes -------===//
#include "RuntimeTestEnvironment.h"

#include "Devices.h"
#include "rocdsl/Conversion/SharedMemory.h"
#include "rocdsl/Runtime/HostData.h"
#include "rocdsl/Runtime/SourceKernel.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// y[i] = x[i] * s over one 64-element block per program, masked by n.
constexpr const char *kScale = R"mlir(
#l = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @scale(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32, %s: f32) attributes {num_warps = 1 : i32} {
  %pid = rocdsl.program_id x : i32
  %c64 = arith.constant 64 : i32
  %start = arith.muli %pid, %c64 : i32
  %t = rocdsl.load %x[%start] bounds[%n] : !rocdsl.ptr<f32> -> tensor<64xf32, #l>
  %sv = rocdsl.splat %s : f32 -> tensor<64xf32, #l>
  %r = arith.mulf %t, %sv : tensor<64xf32, #l>
  rocdsl.store %r, %y[%start] bounds[%n] : tensor<64xf32, #l>, !rocdsl.ptr<f32>
  rocdsl.return
}
)mlir";

TEST(SourceKernelTest, RunsOnHostAndReusesTheLauncher) {
  auto kernel = SourceKernel::create(kScale, "scale", DeviceKind::Host);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  ASSERT_EQ((*kernel)->getArgs().size(), 4u);
  EXPECT_EQ((*kernel)->getArgs()[0].kind, ArgKind::Tensor);
  EXPECT_EQ((*kernel)->getArgs()[2].kind, ArgKind::Int32);
  EXPECT_EQ((*kernel)->getArgs()[3].kind, ArgKind::Float32);

  const int n = 100; // two programs, the second one partial
  HostBuffer x(dsl::DType::F32, 128), y(dsl::DType::F32, 128);
  std::mt19937_64 rng(11);
  x.fillRandom(rng);
  y.poison();
  std::vector<ArgValue> args = {
      ArgValue::of({x.data(), dsl::DType::F32, {}, {}}),
      ArgValue::of({y.data(), dsl::DType::F32, {}, {}}), ArgValue::ofI32(n),
      ArgValue::ofF32(2.5f)};
  RunInfo first, second;
  ASSERT_FALSE(bool((*kernel)->run(args, {2, 1, 1}, nullptr, true, first)));
  ASSERT_FALSE(bool((*kernel)->run(args, {2, 1, 1}, nullptr, true, second)));
  EXPECT_EQ(second.tier, CacheTier::Memory);
  EXPECT_EQ(first.launcher, second.launcher);
  auto *in = static_cast<const float *>(x.data());
  auto *out = static_cast<const float *>(y.data());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], in[i] * 2.5f) << i;
  for (int i = n; i < 128; ++i)
    ASSERT_TRUE(std::isnan(out[i])) << "masked element " << i << " written";
}

TEST(SourceKernelTest, ChecksArguments) {
  auto kernel = SourceKernel::create(kScale, "scale", DeviceKind::Host);
  ASSERT_TRUE(bool(kernel));
  HostBuffer h(dsl::DType::F16, 128);
  std::vector<ArgValue> args = {
      ArgValue::of({h.data(), dsl::DType::F16, {}, {}}),
      ArgValue::of({h.data(), dsl::DType::F16, {}, {}}), ArgValue::ofI32(1),
      ArgValue::ofF32(1)};
  RunInfo info;
  llvm::Error err = (*kernel)->run(args, {1, 1, 1}, nullptr, true, info);
  EXPECT_EQ(llvm::toString(std::move(err)),
            "argument 0: expected dtype f32, got f16");
  err = (*kernel)->run(llvm::ArrayRef(args).take_front(2), {1, 1, 1}, nullptr,
                       true, info);
  EXPECT_EQ(llvm::toString(std::move(err)), "scale takes 4 arguments, got 2");
}

TEST(SourceKernelTest, ErrorsCarryTheSourceLocation) {
  // A verifier error on an op located in a (Python) file.
  std::string bad = R"mlir(
rocdsl.func @k(%x: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c = arith.constant 0 : i32
  %t = rocdsl.load %x[%c, %c] : !rocdsl.ptr<f32> -> tensor<64xf32, #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>> loc("kernel.py":12:5)
  rocdsl.return
}
)mlir";
  auto kernel = SourceKernel::create(bad, "k", DeviceKind::Host);
  ASSERT_FALSE(bool(kernel));
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(message.find("kernel.py:12:5: "), std::string::npos) << message;

  auto missing = SourceKernel::create(kScale, "nope", DeviceKind::Host);
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "the source has no rocdsl.func @nope");
}

/// kScale with its body wrapped: `open` before the rocdsl.func, one "}" per
/// `closing`.
std::string wrapped(llvm::StringRef open, int closing) {
  llvm::StringRef text(kScale);
  size_t func = text.find("rocdsl.func");
  return (text.take_front(func) + open + "\n" + text.drop_front(func) +
          std::string(closing, '}') + "\n")
      .str();
}

TEST(SourceKernelTest, WrappingModulesAreLookedThrough) {
  // Modules whose only content is another module (named or not, nested
  // twice) hold the kernel as if it were at the top: it runs.
  std::string source = wrapped("module @outer { module { module @k {", 3);
  auto kernel = SourceKernel::create(source, "scale", DeviceKind::Host);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  HostBuffer x(dsl::DType::F32, 64), y(dsl::DType::F32, 64);
  std::mt19937_64 rng(12);
  x.fillRandom(rng);
  y.poison();
  std::vector<ArgValue> args = {
      ArgValue::of({x.data(), dsl::DType::F32, {}, {}}),
      ArgValue::of({y.data(), dsl::DType::F32, {}, {}}), ArgValue::ofI32(64),
      ArgValue::ofF32(-3.0f)};
  RunInfo info;
  ASSERT_FALSE(bool((*kernel)->run(args, {1, 1, 1}, nullptr, true, info)));
  auto *in = static_cast<const float *>(x.data());
  auto *out = static_cast<const float *>(y.data());
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(out[i], in[i] * -3.0f) << i;

  // A kernel nested beside other ops, or under a module with attributes of
  // its own, is not compiled; the error says where it is.
  for (const std::string &source :
       {wrapped("module @side {", 1) + "module @other {}\n",
        wrapped("module attributes {test.target = 1} { module @side {", 2)}) {
    auto nested = SourceKernel::create(source, "scale", DeviceKind::Host);
    ASSERT_FALSE(bool(nested)) << source;
    EXPECT_EQ(llvm::toString(nested.takeError()),
              "the source has no rocdsl.func @scale at its top level: its "
              "rocdsl.func are inside module @side (kernels go at the top "
              "level of the source, or of a module that is its only content)");
  }
}

TEST(SourceKernelTest, EmptySourceIsAnError) {
  // A default StringRef has a null data pointer, which MLIR's lexer once
  // took for its code-completion position (a crash found by fuzzing).
  for (llvm::StringRef source :
       {llvm::StringRef(), llvm::StringRef(""), llvm::StringRef("  \n\t")}) {
    auto k = SourceKernel::create(source, "k", DeviceKind::Host);
    ASSERT_FALSE(bool(k));
    EXPECT_NE(llvm::toString(k.takeError()).find("empty"), std::string::npos);
  }
}

TEST(SourceKernelTest, EqualTextIsOneCacheEntry) {
  auto a = SourceKernel::create(kScale, "scale", DeviceKind::Host);
  auto b = SourceKernel::create(kScale, "scale", DeviceKind::Host);
  auto c = SourceKernel::create(std::string(kScale) + "\n", "scale",
                                DeviceKind::Host);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ((*a)->getRequest().getCanonicalKey(),
            (*b)->getRequest().getCanonicalKey());
  EXPECT_NE((*a)->getRequest().getCanonicalKey(),
            (*c)->getRequest().getCanonicalKey());
}

TEST(CudaDeviceTest, ReadsTheBlockSizeFromPTX) {
  const char *ptx = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n"
                    ".maxntid 256, 1, 1\n{\n\tret;\n}\n"
                    ".visible .entry other(\n)\n.reqntid 64, 2, 1\n{\n}\n";
  auto block = getPTXBlockSize(ptx, "k");
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ((*block)[0], 256u);
  EXPECT_EQ((*block)[1], 1u);
  auto other = getPTXBlockSize(ptx, "other");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ((*other)[0], 64u);
  EXPECT_EQ((*other)[1], 2u);
  EXPECT_FALSE(getPTXBlockSize(ptx, "missing").has_value());
  EXPECT_FALSE(getPTXBlockSize(".entry k(\n)\n{\n}\n", "k").has_value());
}

TEST(CudaDeviceTest, ReadsDynamicSharedMemoryFromPTX) {
  std::string ptx =
      ".extern .shared .align 16 .b8 __rocdsl_lds_k[];\n.visible .const "
      ".align 4 .u32 " +
      dynamicSharedBytesSymbol("k") +
      " = 65536;\n.visible .const .align 4 "
      ".u32 " +
      dynamicSharedBytesSymbol("k2") + " = 100;\n";
  EXPECT_EQ(getPTXDynamicSharedBytes(ptx, "k"), 65536u);
  // A name that extends another's is its own kernel.
  EXPECT_EQ(getPTXDynamicSharedBytes(ptx, "k2"), 100u);
  EXPECT_EQ(getPTXDynamicSharedBytes(ptx, "other"), 0u);
  EXPECT_EQ(getPTXDynamicSharedBytes(".visible .entry k(\n)\n{\n}\n", "k"), 0u);
}

} // namespace
