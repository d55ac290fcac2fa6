//===- RuntimeTest.cpp - launcher cache, validation, devices --------------===//
#include "RuntimeTestEnvironment.h"

#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Runtime/BuiltinKernel.h"
#include "rocdsl/Runtime/CompileOnly.h"
#include "rocdsl/Runtime/CudaDriver.h"
#include "rocdsl/Runtime/HostData.h"
#include "rocdsl/Runtime/KernelArgs.h"
#include "rocdsl/Target/AMDGPU.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

std::unique_ptr<BuiltinKernel>
smallRMSNorm(DeviceKind device = DeviceKind::Host, std::string dtype = "f32") {
  auto kernel = BuiltinKernel::create(
      "rmsnorm_fwd", {"N=128", "M=4", "dtype=" + dtype}, device);
  EXPECT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  return std::move(*kernel);
}

/// Buffers and arguments for smallRMSNorm.
struct SmallProblem {
  HostBuffer x{dsl::DType::F32, 4 * 128}, w{dsl::DType::F32, 128},
      y{dsl::DType::F32, 4 * 128};
  std::vector<ArgValue> args() {
    return {ArgValue::of({x.data(), x.dtype(), {4, 128}, {}}),
            ArgValue::of({w.data(), w.dtype(), {128}, {}}),
            ArgValue::of({y.data(), y.dtype(), {4, 128}, {}}),
            ArgValue::ofI32(4), ArgValue::ofF32(1e-6f)};
  }
};

TEST(RuntimeTest, MemoryTierReusesTheSameLauncherObject) {
  auto kernel = smallRMSNorm();
  SmallProblem p;
  std::mt19937_64 rng(7);
  p.x.fillRandom(rng);
  p.w.fillRandom(rng);
  RunInfo first, second;
  ASSERT_FALSE(bool(kernel->run(p.args(), first)));
  uint64_t hitsBefore = Runtime::get().getStats().memoryHits;
  ASSERT_FALSE(bool(kernel->run(p.args(), second)));
  EXPECT_NE(first.launcher, nullptr);
  EXPECT_EQ(first.launcher, second.launcher);
  EXPECT_EQ(second.tier, CacheTier::Memory);
  EXPECT_EQ(second.compileMilliseconds, 0);
  EXPECT_EQ(Runtime::get().getStats().memoryHits, hitsBefore + 1);

  // A second BuiltinKernel for the same specialization shares it too.
  auto again = smallRMSNorm();
  RunInfo third;
  ASSERT_FALSE(bool(again->run(p.args(), third)));
  EXPECT_EQ(third.launcher, first.launcher);
}

TEST(RuntimeTest, EveryKeyComponentChangeMissesAndNothingElseDoes) {
  auto kernel = smallRMSNorm();
  const CompileRequest &base = kernel->getRequest();
  CacheTier tier;
  double ms;
  auto first = Runtime::get().getLauncher(DeviceKind::Host, base, tier, ms);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());

  auto unchanged = Runtime::get().getLauncher(DeviceKind::Host, base, tier, ms);
  ASSERT_TRUE(bool(unchanged));
  EXPECT_EQ(tier, CacheTier::Memory);
  EXPECT_EQ(unchanged->get(), first->get());

  std::vector<std::pair<std::string, std::function<void(CacheKey &)>>> edits = {
      {"kernel fingerprint", [](CacheKey &k) { k.kernelFingerprint += "'"; }},
      {"constexpr value", [](CacheKey &k) { k.constexprs["probe"] = "1"; }},
      {"argument signature",
       [](CacheKey &k) { k.argSignature.back() += ":div16"; }},
      {"target chip", [](CacheKey &k) { k.target.chip += "-probe"; }},
      {"target features", [](CacheKey &k) { k.target.features += "+probe"; }},
      {"wave size", [](CacheKey &k) { k.target.waveSize += 1; }},
      {"compile options", [](CacheKey &k) { k.compileOptions["probe"] = "1"; }},
      {"compiler version", [](CacheKey &k) { k.compiler.version += "'"; }},
      {"build id", [](CacheKey &k) { k.compiler.buildId += "'"; }},
      {"pipeline", [](CacheKey &k) { k.compiler.pipeline += "'"; }},
      {"ISA-check version",
       [](CacheKey &k) { k.compiler.isaCheckVersion += "'"; }},
  };
  for (auto &[what, edit] : edits) {
    CacheKey key = base.getKey();
    edit(key);
    CompileRequest changed = base.withKey(key);
    auto launcher =
        Runtime::get().getLauncher(DeviceKind::Host, changed, tier, ms);
    ASSERT_TRUE(bool(launcher)) << what;
    EXPECT_EQ(tier, CacheTier::Miss) << what;
    EXPECT_NE(launcher->get(), first->get()) << what;
  }
}

TEST(RuntimeTest, CompileErrorsCarryTheCompilerDiagnostics) {
  // A kernel the AMDGPU lowering cannot handle (a matrix-core tile that is
  // neither whole instructions nor a divisor of one): the error returned by the API says why, not just
  // that compiling failed.
  const char *source = R"mlir(
    #mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [1, 1]>
    rocdsl.func @k(%x: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
      %zero = arith.constant 0.0 : f32
      %c0 = arith.constant 0 : i32
      %c32 = arith.constant 32 : i32
      %c = rocdsl.splat %zero : f32 -> tensor<48x32xf32, #mfma>
      rocdsl.store %c, %x[%c0, %c0] strides [%c32] : tensor<48x32xf32, #mfma>, !rocdsl.ptr<f32>
      rocdsl.return
    })mlir";
  CacheKey key;
  key.kernelFingerprint = source;
  key.target = Runtime::getTarget(DeviceKind::HIP, "gfx942");
  key.compiler = Runtime::getCompilerFingerprint(DeviceKind::HIP);
  CompileRequest request(
      "k",
      [source](MLIRContext *ctx, std::string &) {
        return parseSourceString<ModuleOp>(source, ctx);
      },
      key);
  CacheTier tier;
  double ms;
  auto launcher =
      Runtime::get().getLauncher(DeviceKind::HIP, request, tier, ms);
  ASSERT_FALSE(bool(launcher));
  std::string message = llvm::toString(launcher.takeError());
  EXPECT_NE(message.find("lowering k for gfx942 failed"), std::string::npos)
      << message;
  EXPECT_NE(message.find("does not fit its matrix-core layout"), std::string::npos)
      << message;
}

TEST(RuntimeTest, ValidationNamesTheArgument) {
  auto kernel = smallRMSNorm();
  SmallProblem p;
  auto expectError = [&](std::vector<ArgValue> args, const std::string &text) {
    llvm::Error err = kernel->validate(args);
    ASSERT_TRUE(bool(err)) << "expected: " << text;
    std::string message = llvm::toString(std::move(err));
    EXPECT_NE(message.find(text), std::string::npos) << message;
  };
  auto args = p.args();
  EXPECT_FALSE(bool(kernel->validate(args)));

  auto wrongDType = p.args();
  wrongDType[0].tensor.dtype = dsl::DType::BF16;
  expectError(wrongDType, "argument 'x': expected dtype f32, got bf16");
  auto wrongRank = p.args();
  wrongRank[1].tensor.shape = {1, 128};
  expectError(wrongRank, "argument 'w': expected rank 1, got 2");
  auto wrongShape = p.args();
  wrongShape[2].tensor.shape = {4, 127};
  expectError(wrongShape,
              "argument 'y': expected shape [4, 128], got [4, 127]");
  auto strided = p.args();
  strided[0].tensor.strides = {256, 1};
  expectError(
      strided,
      "argument 'x': expected contiguous strides [128, 1], got [256, 1]");
  auto misaligned = p.args();
  misaligned[0].tensor.data = static_cast<char *>(p.x.data()) + 4;
  expectError(misaligned, "argument 'x': data must be 16-byte aligned");
  auto wrongKind = p.args();
  wrongKind[3] = ArgValue::ofF32(4.0f);
  expectError(wrongKind,
              "argument 'M': expected an i32 scalar, got an f32 scalar");
  auto missing = p.args();
  missing.pop_back();
  expectError(missing, "rmsnorm_fwd takes 5 arguments, got 4");
  auto rows = p.args();
  rows[3] = ArgValue::ofI32(256); // more rows than the tensors and grid hold
  expectError(rows, "argument 'M': expected 4 (the value this launch was "
                    "planned for), got 256");
  auto null = p.args();
  null[1].tensor.data = nullptr;
  expectError(null, "argument 'w': null data pointer");
}

TEST(RuntimeTest, HipWithoutAnAMDGPUSaysWhatIsMissing) {
  std::string why;
  if (Runtime::isAvailable(DeviceKind::HIP, why))
    GTEST_SKIP() << "an AMD GPU is present";
  EXPECT_TRUE(why.find("HIP runtime not found") != std::string::npos ||
              why.find("no AMD GPU") != std::string::npos)
      << why;
  auto kernel = smallRMSNorm(DeviceKind::HIP);
  SmallProblem p;
  RunInfo info;
  llvm::Error err = kernel->run(p.args(), info);
  ASSERT_TRUE(bool(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_NE(message.find("cannot run on hip: " + why), std::string::npos)
      << message;
}

TEST(RuntimeTest, CudaWithoutAnNVIDIAGPUSaysWhatIsMissing) {
  std::string why;
  if (CudaDriver::get(why))
    GTEST_SKIP() << "an NVIDIA GPU is present; the cuda device is exercised "
                    "by the GPU-machine checks instead";
  EXPECT_TRUE(why.find("CUDA driver not found") != std::string::npos ||
              why.find("no NVIDIA GPU") != std::string::npos ||
              why.find("cuInit") != std::string::npos)
      << why;
  EXPECT_FALSE(Runtime::isAvailable(DeviceKind::CUDA, why));
}

TEST(KernelArgsTest, PackingFollowsTheCodeObjectMetadata) {
  DialectRegistry registry;
  registerRocDSLDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  const KernelSpec *spec = lookupKernel("rmsnorm_fwd");
  KernelParams params;
  std::string error;
  ASSERT_TRUE(succeeded(resolveKernelParams(*spec, {"N=4096"}, params, error)));
  OwningOpRef<ModuleOp> module = spec->build(&ctx, params, error);
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(lowerToROCDL(*module, "gfx942")));
  auto object = serializeAMDGPU(*module, AMDGPUOutput::CodeObject);
  ASSERT_TRUE(succeeded(object));
  auto kernels = readKernelResources(*object, "gfx942", error);
  ASSERT_TRUE(succeeded(kernels)) << error;
  const KernelResources &k = kernels->front();
  EXPECT_EQ(k.requiredWorkgroupSize[0], 256u);

  void *x = reinterpret_cast<void *>(0x1111222233334444ull);
  void *w = reinterpret_cast<void *>(0x5555666677778888ull);
  void *y = reinterpret_cast<void *>(0x99990000aaaabbbbull);
  int32_t m = 12345;
  float eps = 1e-6f;
  std::vector<void *> args = {&x, &w, &y, &m, &eps};
  uint32_t block[3] = {256, 1, 1};
  auto segment = packKernelArgs(k, args, LaunchGrid{77, 1, 1}, block);
  ASSERT_TRUE(bool(segment)) << llvm::toString(segment.takeError());

  // Read every explicit argument back from where the metadata says it is.
  unsigned explicitIndex = 0;
  for (const KernelArgInfo &a : k.args) {
    if (a.isHidden())
      continue;
    ASSERT_LT(explicitIndex, args.size());
    ASSERT_LE(a.offset + a.size, segment->size());
    unsigned expectedSize = explicitIndex < 3 ? 8 : 4;
    EXPECT_EQ(a.size, expectedSize) << a.name;
    EXPECT_EQ(
        std::memcmp(segment->data() + a.offset, args[explicitIndex], a.size), 0)
        << "argument " << explicitIndex << " at offset " << a.offset;
    ++explicitIndex;
  }
  EXPECT_EQ(explicitIndex, 5u);
  EXPECT_GE(segment->size(), k.kernargSegmentSize);

  args.pop_back();
  auto wrong = packKernelArgs(k, args, LaunchGrid{1, 1, 1}, block);
  ASSERT_FALSE(bool(wrong));
  EXPECT_NE(llvm::toString(wrong.takeError()).find("takes 5 arguments, got 4"),
            std::string::npos);
}

TEST(HostDataTest, ComparisonCatchesUnwrittenAndWrongElements) {
  HostBuffer out(dsl::DType::BF16, 4);
  out.poison();
  std::vector<double> ref = {1, 2, 3, 4};
  Comparison poisoned = compareToReference(out, ref);
  EXPECT_FALSE(poisoned.passed());
  EXPECT_EQ(poisoned.nonFinite, 4u);

  HostBuffer exact(dsl::DType::F32, 4);
  for (int i = 0; i < 4; ++i)
    static_cast<float *>(exact.data())[i] = float(ref[i]);
  EXPECT_TRUE(compareToReference(exact, ref).passed());
  static_cast<float *>(exact.data())[2] = 3.01f;
  Comparison off = compareToReference(exact, ref);
  EXPECT_FALSE(off.passed());
  EXPECT_EQ(off.mismatches, 1u);
}

/// Sums of many terms: each element may be off by rtol times its terms'
/// magnitude, but an error that shifts every element the same way (a 5%
/// scale) fails in the L2 norm, while rounding-sized noise passes.
TEST(HostDataTest, SumsOfTermsAreAlsoCheckedInTheL2Norm) {
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<double> normal;
  const size_t n = 4096;
  std::vector<double> ref(n), magnitude(n);
  for (size_t i = 0; i < n; ++i) {
    ref[i] = normal(rng);
    // Cancelling terms: a magnitude ten times the sum's typical size.
    magnitude[i] = 10 * (std::fabs(ref[i]) + 1);
  }
  auto fill = [&](HostBuffer &b, double factor, double noise) {
    for (size_t i = 0; i < n; ++i)
      static_cast<float *>(b.data())[i] =
          float(ref[i] * factor + noise * normal(rng));
  };
  HostBuffer scaled(dsl::DType::F32, n), noisy(dsl::DType::F32, n);
  // f32: rtol 1e-5, so the elementwise slack is 1e-4 of a magnitude.
  fill(scaled, 1 + 5e-5, 0);
  Comparison c = compareToReference(scaled, ref, magnitude);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_GT(c.relL2Error, c.maxRelL2Error);
  EXPECT_FALSE(c.passed());
  fill(noisy, 1, 2e-6);
  Comparison d = compareToReference(noisy, ref, magnitude);
  EXPECT_EQ(d.mismatches, 0u);
  EXPECT_GT(d.relL2Error, 0);
  EXPECT_TRUE(d.passed()) << d.relL2Error << " > " << d.maxRelL2Error;
  // Without magnitudes there is no L2 bound (each element is its own sum).
  EXPECT_EQ(compareToReference(noisy, ref).maxRelL2Error, 0);
}

TEST(HostDataTest, RandomInputsAreNotDegenerate) {
  std::mt19937_64 rng(std::random_device{}());
  HostBuffer a(dsl::DType::BF16, 1024);
  a.fillRandom(rng);
  std::vector<double> v = a.toDoubles();
  double sumSquares = 0;
  size_t zeros = 0;
  for (double d : v) {
    sumSquares += d * d;
    zeros += d == 0;
  }
  EXPECT_LT(zeros, 8u);
  EXPECT_NEAR(sumSquares / v.size(), 1.0, 0.3);
}

} // namespace

TEST(RuntimeTest, DeviceNamesParseWithOrdinals) {
  auto hip1 = parseDeviceId("hip:1");
  ASSERT_TRUE(hip1);
  EXPECT_EQ(hip1->kind, DeviceKind::HIP);
  EXPECT_EQ(hip1->ordinal, 1);
  EXPECT_EQ(hip1->str(), "hip:1");
  auto cuda0 = parseDeviceId("cuda:0");
  ASSERT_TRUE(cuda0);
  EXPECT_EQ(cuda0->str(), "cuda"); // ordinal 0 is the plain name
  EXPECT_EQ(parseDeviceId("host")->kind, DeviceKind::Host);
  EXPECT_EQ(parseDeviceId("hip")->ordinal, 0);
  for (const char *bad : {"hip:", "hip:-1", "hip:+1", "hip: 1", "hip:1x",
                          "hip:99999999999", "host:1", "tpu", "HIP", ":1",
                          "cuda:1:2", ""})
    EXPECT_FALSE(parseDeviceId(bad)) << bad;
}

TEST(RuntimeTest, CompileOnlyGivesEveryArtifactForEachChip) {
  for (const char *chip : {"gfx942", "gfx950"}) {
    auto build = builtinKernelBuilder(
        "rmsnorm_fwd", {"N=1024", "M=4", "dtype=bf16"}, chip);
    ASSERT_TRUE(bool(build)) << llvm::toString(build.takeError());
    auto out = compileOnly(*build, chip);
    ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
    EXPECT_NE(out->source.find("rocdsl.func"), std::string::npos);
    EXPECT_NE(out->llvmIR.find("amdgpu_kernel"), std::string::npos) << chip;
    EXPECT_NE(out->assembly.find(std::string(".amdgcn_target \"amdgcn-amd-amdhsa--") +
                                 chip),
              std::string::npos);
    EXPECT_EQ(out->binary.substr(0, 4), "\x7f" "ELF");
    ASSERT_EQ(out->resources.size(), 1u);
    EXPECT_GT(out->resources[0].vgprs, 0u);
    EXPECT_EQ(out->resources[0].scratchBytes, 0u);
    EXPECT_TRUE(out->hazards.empty());
  }
  auto build = builtinKernelBuilder("rmsnorm_fwd", {"N=1024", "M=4"}, "sm_90");
  ASSERT_TRUE(bool(build));
  auto ptx = compileOnly(*build, "sm_90");
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_NE(ptx->assembly.find(".target sm_90"), std::string::npos);
  EXPECT_TRUE(ptx->binary.empty());
  auto bad = compileOnly(*build, "gfx90a");
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("unsupported chip 'gfx90a'"),
            std::string::npos);
}
