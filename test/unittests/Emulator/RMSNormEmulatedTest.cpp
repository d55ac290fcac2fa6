//===- RMSNormEmulatedTest.cpp - RMSNorm family on emulated gfx942/gfx950 -===//
//
// The same config matrix the host target runs, compiled for the AMD chip and
// launched through the runtime's hip device, whose HIP library is
// librocdsl-hip-emu.so (ROCDSL_HIP_LIBRARY) emulating ROCDSL_EMU_CHIP: the
// real code objects, kernarg packing, device memory and launches a user on
// MI300X/MI355X goes through, executed on the CPU. Inputs are fresh random
// values, outputs poisoned; everything is compared with float64.
//
// CTest registers every test twice, once per emulated chip; without
// ROCDSL_HIP_LIBRARY the tests skip.
//
//===----------------------------------------------------------------------===//
#include "RMSNormHostSupport.h"

#include "rocdsl/Runtime/DeviceMemory.h"
#include "rocdsl/Runtime/HipRuntime.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::testing;

namespace {

/// Device copies of a test's host buffers, shared between its launches
/// (the backward's partial sums pass from step 1 to step 2 on the device).
class DeviceMirror {
public:
  /// Points every tensor of `args` at its device copy (made on first use).
  ::testing::AssertionResult map(std::vector<ArgValue> &args) {
    for (ArgValue &arg : args) {
      if (arg.kind != ArgKind::Tensor)
        continue;
      auto it = copies.find(arg.tensor.data);
      if (it == copies.end()) {
        size_t count = 1;
        for (int64_t d : arg.tensor.shape)
          count *= size_t(d);
        size_t bytes = count * std::max(1u, dsl::bitWidth(arg.tensor.dtype) / 8);
        auto copy = DeviceBuffer::allocate(DeviceKind::HIP, bytes);
        if (!copy)
          return ::testing::AssertionFailure()
                 << llvm::toString(copy.takeError());
        if (llvm::Error err = (*copy)->copyFromHost(arg.tensor.data, bytes))
          return ::testing::AssertionFailure() << llvm::toString(std::move(err));
        it = copies.emplace(arg.tensor.data, std::move(*copy)).first;
      }
      arg.tensor.data = it->second->data();
    }
    return ::testing::AssertionSuccess();
  }
  /// Copies every buffer back to its host memory.
  ::testing::AssertionResult download() {
    for (auto &[host, copy] : copies)
      if (llvm::Error err = copy->copyToHost(host, copy->size()))
        return ::testing::AssertionFailure() << llvm::toString(std::move(err));
    return ::testing::AssertionSuccess();
  }

private:
  std::map<void *, std::unique_ptr<DeviceBuffer>> copies;
};

HipRuntime *emulatedDevice() {
  if (!std::getenv("ROCDSL_HIP_LIBRARY"))
    return nullptr;
  std::string why;
  HipRuntime *hip = HipRuntime::get(why);
  EXPECT_TRUE(hip) << why;
  return hip;
}

void expectOutputsMatch(const LaunchPlan &plan, HostLaunch &launch,
                        const std::vector<std::vector<double>> &tensors,
                        const std::string &what) {
  size_t i = 0;
  for (const ArgSignature &sig : plan.args) {
    if (sig.kind != ArgKind::Tensor)
      continue;
    const std::vector<double> &ref = tensors[i++];
    if (!sig.isOutput)
      continue;
    Comparison cmp = compareToReference(launch[sig.name], ref);
    EXPECT_TRUE(cmp.passed())
        << what << " " << sig.name << ": " << cmp.mismatches << " of "
        << cmp.count << " mismatched, " << cmp.nonFinite
        << " non-finite, max abs err " << cmp.maxAbsError;
  }
}

class RMSNormEmulatedTest : public ::testing::TestWithParam<RMSNormFamilyParam> {};

TEST_P(RMSNormEmulatedTest, ForwardMatchesFloat64Reference) {
  HipRuntime *hip = emulatedDevice();
  if (!hip)
    GTEST_SKIP() << "ROCDSL_HIP_LIBRARY is not set";
  const auto &[c, variant] = GetParam();
  const char *name =
      variant == RMSNormVariant::FusedAdd ? "rmsnorm_add_fwd" : "rmsnorm_fwd";
  std::mt19937_64 rng(std::random_device{}());
  for (int64_t m : getRMSNormRowCounts()) {
    std::vector<std::string> defs = c.definitions();
    defs.push_back("M=" + std::to_string(m));
    defs.push_back("eps=1e-5");
    auto kernel = BuiltinKernel::create(name, defs, DeviceKind::HIP);
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    const LaunchPlan &plan = (*kernel)->getPlan();
    HostLaunch launch(plan, rng);
    std::vector<std::vector<double>> tensors = launch.toDoubles();
    DeviceMirror device;
    std::vector<ArgValue> args = launch.args;
    ASSERT_TRUE(device.map(args));
    RunInfo info;
    llvm::Error err = (*kernel)->run(args, info);
    ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
    ASSERT_TRUE(device.download());
    (*kernel)->getSpec().reference((*kernel)->getParams(), tensors,
                                   {double(m), double(kTestEps)});
    expectOutputsMatch(plan, launch, tensors,
                       std::string(name) + " " + c.name() + " on " +
                           hip->getChip(0) + " M=" + std::to_string(m));
  }
}

TEST_P(RMSNormEmulatedTest, BackwardMatchesFloat64Reference) {
  HipRuntime *hip = emulatedDevice();
  if (!hip)
    GTEST_SKIP() << "ROCDSL_HIP_LIBRARY is not set";
  const auto &[c, variant] = GetParam();
  const bool fused = variant == RMSNormVariant::FusedAdd;
  const char *name = fused ? "rmsnorm_add_bwd" : "rmsnorm_bwd";
  std::mt19937_64 rng(std::random_device{}());
  for (const RMSNormBackwardLaunch &l : getRMSNormBackwardLaunches(c)) {
    const int64_t m = l.m;
    std::vector<std::string> defs = l.definitions(c);
    std::string what = std::string(name) + " " + c.name() + " on " +
                       hip->getChip(0) + " " + l.describe();
    auto step1 = BuiltinKernel::create(name, defs, DeviceKind::HIP);
    ASSERT_TRUE(bool(step1)) << llvm::toString(step1.takeError());
    HostLaunch first((*step1)->getPlan(), rng);
    DeviceMirror device;
    std::vector<ArgValue> args1 = first.args;
    ASSERT_TRUE(device.map(args1));
    RunInfo info;
    llvm::Error err = (*step1)->run(args1, info);
    ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
    std::optional<HostLaunch> second;
    if (!l.direct) {
      auto step2 =
          BuiltinKernel::create("rmsnorm_bwd_dw", defs, DeviceKind::HIP);
      ASSERT_TRUE(bool(step2)) << llvm::toString(step2.takeError());
      second.emplace((*step2)->getPlan(), rng,
                     std::map<std::string, std::shared_ptr<HostBuffer>>{
                         {"dw_partial", first.share("dw_partial")}});
      std::vector<ArgValue> args2 = second->args;
      ASSERT_TRUE(device.map(args2));
      err = (*step2)->run(args2, info);
      ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
    }
    ASSERT_TRUE(device.download());

    std::vector<double> refDx(m * c.n), refDw(c.n), dwMagnitude, dxMagnitude,
        dResidualOut;
    if (fused)
      dResidualOut = first["dresidual_out"].toDoubles();
    rmsNormBackwardReference(
        m, c.n, double(kTestEps), first[fused ? "h" : "x"].toDoubles(),
        first["w"].toDoubles(), first["dy"].toDoubles(), refDx, refDw,
        &dwMagnitude, fused ? &dResidualOut : nullptr, &dxMagnitude);
    Comparison cdx = compareToReference(first["dx"], refDx, dxMagnitude);
    EXPECT_TRUE(cdx.passed()) << what << " dx: " << cdx.mismatches << " of "
                              << cdx.count << " mismatched, max abs err "
                              << cdx.maxAbsError;
    Comparison cdw = compareToReference(l.direct ? first["dw"] : (*second)["dw"],
                                        refDw, dwMagnitude);
    EXPECT_TRUE(cdw.passed()) << what << " dw: " << cdw.mismatches
                              << " mismatched, max abs " << cdw.maxAbsError;
  }
}

/// `name` from the emulated HIP library the runtime loaded, as type F (the
/// HIP calls a framework makes itself, outside ROCDSL's runtime); null if
/// absent.
template <typename F> F emulatedHipCall(const char *name) {
  void *lib = dlopen(std::getenv("ROCDSL_HIP_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}

// The stream path (how a framework's queue is joined): enqueue on a HIP
// stream of the emulated device, wait for it, then check.
TEST(RMSNormEmulatedStreamTest, EnqueuedLaunchCompletesOnSynchronize) {
  HipRuntime *hip = emulatedDevice();
  if (!hip)
    GTEST_SKIP() << "ROCDSL_HIP_LIBRARY is not set";
  auto create = emulatedHipCall<int (*)(void **)>("hipStreamCreate");
  ASSERT_TRUE(create);
  void *stream = nullptr;
  ASSERT_EQ(create(&stream), 0);
  std::mt19937_64 rng(std::random_device{}());
  RMSNormCase c{3001, "bf16", "same"};
  std::vector<std::string> defs = c.definitions();
  defs.push_back("M=5");
  defs.push_back("eps=1e-5");
  auto kernel = BuiltinKernel::create("rmsnorm_fwd", defs, DeviceKind::HIP);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const LaunchPlan &plan = (*kernel)->getPlan();
  HostLaunch launch(plan, rng);
  std::vector<std::vector<double>> tensors = launch.toDoubles();
  DeviceMirror device;
  std::vector<ArgValue> args = launch.args;
  ASSERT_TRUE(device.map(args));
  RunInfo info;
  llvm::Error err = (*kernel)->enqueue(args, stream, info);
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  std::string error;
  ASSERT_TRUE(hip->synchronize(0, stream, error)) << error;
  ASSERT_TRUE(device.download());
  (*kernel)->getSpec().reference((*kernel)->getParams(), tensors,
                                 {5.0, double(kTestEps)});
  expectOutputsMatch(plan, launch, tensors, "rmsnorm_fwd on a stream");
}

// A framework asks whether its stream is being captured into a graph before
// it uses state kept across calls (rocdsl.torch's backward scratch): the
// runtime's query follows hipStreamBeginCapture and hipStreamEndCapture,
// and the emulated device refuses a launch while capturing rather than run
// it at once (it has no graphs to record into).
TEST(RMSNormEmulatedStreamTest, CaptureStateFollowsBeginAndEnd) {
  HipRuntime *hip = emulatedDevice();
  if (!hip)
    GTEST_SKIP() << "ROCDSL_HIP_LIBRARY is not set";
  auto create = emulatedHipCall<int (*)(void **)>("hipStreamCreate");
  auto begin = emulatedHipCall<int (*)(void *, int)>("hipStreamBeginCapture");
  auto end = emulatedHipCall<int (*)(void *, void **)>("hipStreamEndCapture");
  auto destroy = emulatedHipCall<int (*)(void *)>("hipStreamDestroy");
  auto lastError = emulatedHipCall<int (*)()>("hipGetLastError");
  ASSERT_TRUE(create && begin && end && destroy && lastError);
  void *stream = nullptr;
  ASSERT_EQ(create(&stream), 0);
  auto capturing = [&](void *s) {
    bool state = true;
    std::string error;
    EXPECT_TRUE(hip->isCapturing(0, s, state, error)) << error;
    return state;
  };
  EXPECT_FALSE(capturing(stream));
  EXPECT_FALSE(capturing(nullptr));

  ASSERT_EQ(begin(stream, /*hipStreamCaptureModeGlobal=*/0), 0);
  EXPECT_TRUE(capturing(stream));
  EXPECT_NE(begin(stream, 0), 0) << "a second begin must be refused";
  // As in HIP, the null stream has no answer during a global capture
  // (hipErrorStreamCaptureImplicit): the runtime says it cannot tell.
  {
    bool state = true;
    std::string error;
    EXPECT_FALSE(hip->isCapturing(0, nullptr, state, error));
    EXPECT_NE(error.find("global mode"), std::string::npos) << error;
    // ... and clears that error, so the caller's next launch check does
    // not find it.
    EXPECT_EQ(lastError(), 0);
  }

  auto kernel = BuiltinKernel::create("rmsnorm_fwd", {"N=256", "M=2", "eps=1e-5"},
                                      DeviceKind::HIP);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::mt19937_64 rng(std::random_device{}());
  HostLaunch launch((*kernel)->getPlan(), rng);
  DeviceMirror device;
  std::vector<ArgValue> args = launch.args;
  ASSERT_TRUE(device.map(args));
  RunInfo info;
  llvm::Error refused = (*kernel)->enqueue(args, stream, info);
  ASSERT_TRUE(bool(refused)) << "a launch on a capturing stream ran";
  EXPECT_NE(llvm::toString(std::move(refused)).find("capturing"),
            std::string::npos);

  void *graph = &graph;
  EXPECT_NE(end(stream, &graph), 0) << "graphs are not emulated";
  EXPECT_EQ(graph, nullptr);
  EXPECT_FALSE(capturing(stream));
  EXPECT_FALSE(capturing(nullptr));
  EXPECT_NE(end(stream, &graph), 0) << "ending twice must be refused";
  // A capture in relaxed mode leaves the null stream's answer alone.
  ASSERT_EQ(begin(stream, /*hipStreamCaptureModeRelaxed=*/2), 0);
  EXPECT_TRUE(capturing(stream));
  EXPECT_FALSE(capturing(nullptr));
  EXPECT_NE(end(stream, &graph), 0);
  EXPECT_FALSE(capturing(stream));

  bool state = true;
  std::string error;
  EXPECT_FALSE(hip->isCapturing(hip->getDeviceCount(), stream, state, error));
  EXPECT_NE(error.find("does not exist"), std::string::npos) << error;
  EXPECT_EQ(destroy(stream), 0);
}

INSTANTIATE_TEST_SUITE_P(Matrix, RMSNormEmulatedTest, rmsNormFamilyMatrix(),
                         rmsNormFamilyTestName);

} // namespace
