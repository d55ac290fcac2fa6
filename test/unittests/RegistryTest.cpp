//===- RegistryTest.cpp - built-in kernels and their parameters -----------===//
#include "rocdsl/Kernels/Registry.h"
#include "norm/RMSNorm.h"
#include "rocdsl/Support/ChipInfo.h"
#include "rocdsl/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <tuple>

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
  for (const KernelSpec &spec : getRMSNormSpecs())
    for (const char *bad :
         {"N=abc", "N=0", "dtype=f64", "wdtype=i32", "M=0", "wave=16"}) {
      KernelParams params;
      std::string error;
      ASSERT_TRUE(succeeded(resolveKernelParams(spec, {bad}, params, error)));
      EXPECT_FALSE(spec.build(&ctx, params, error)) << spec.name << " " << bad;
      EXPECT_FALSE(error.empty()) << spec.name << " " << bad;
    }
}

/// Argument names of a kernel's plan for `defs`.
static std::vector<std::string> planArgs(llvm::StringRef kernel,
                                         const std::vector<std::string> &defs,
                                         LaunchPlan &plan) {
  const KernelSpec *spec = lookupKernel(kernel);
  KernelParams params;
  std::string error;
  EXPECT_TRUE(succeeded(resolveKernelParams(*spec, defs, params, error)));
  EXPECT_TRUE(succeeded(spec->plan(params, plan, error))) << error;
  std::vector<std::string> names;
  for (const ArgSignature &arg : plan.args)
    names.push_back(arg.name);
  return names;
}

TEST(RegistryTest, GemmRejectsBadValuesWithAMessage) {
  DialectRegistry registry;
  registerRocDSLDialects(registry);
  MLIRContext ctx(registry);
  const KernelSpec *spec = lookupKernel("gemm");
  ASSERT_TRUE(spec);
  for (const char *bad :
       {"M=0", "K=-3", "N=abc", "dtype=f32", "out_dtype=i32", "layout_a=t",
        "layout_b=", "bias=2", "accumulate=yes", "BM=48", "BK=7",
        "chip=gfx90a", "batch=0"}) {
    KernelParams params;
    std::string error;
    if (failed(resolveKernelParams(*spec, {bad}, params, error)))
      continue; // malformed (an empty value): refused before building
    EXPECT_FALSE(spec->build(&ctx, params, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

TEST(RegistryTest, ListsTheBuiltinKernels) {
  std::vector<std::string> names;
  for (const KernelSpec &spec : getBuiltinKernels())
    names.push_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"rmsnorm_fwd", "rmsnorm_add_fwd",
                                             "rmsnorm_bwd", "rmsnorm_add_bwd",
                                             "rmsnorm_bwd_dw", "gemm",
                                             "attention_fwd", "attention_bwd",
                                             "attention_bwd_delta"}));
}

TEST(RegistryTest, AttentionPlansTorchLayoutTensorsAndTheGrid) {
  LaunchPlan plan;
  EXPECT_EQ(planArgs("attention_fwd",
                     {"B=2", "Hq=8", "Hkv=2", "Sq=100", "Sk=300", "D=192",
                      "Dv=128", "chip=sm_90"},
                     plan),
            (std::vector<std::string>{"q", "k", "v", "out", "lse", "scale"}));
  EXPECT_EQ(plan.args[0].shape, (std::vector<int64_t>{2, 8, 100, 192}));
  EXPECT_EQ(plan.args[1].shape, (std::vector<int64_t>{2, 2, 300, 192}));
  EXPECT_EQ(plan.args[2].shape, (std::vector<int64_t>{2, 2, 300, 128}));
  EXPECT_EQ(plan.args[3].shape, (std::vector<int64_t>{2, 8, 100, 128}));
  EXPECT_TRUE(plan.args[3].isOutput && plan.args[4].isOutput);
  EXPECT_EQ(plan.args[4].dtype, dsl::DType::F32);
  EXPECT_EQ(plan.grid[0], 2u); // 64-row tiles on sm_90 past D = 128
  EXPECT_EQ(plan.grid[1], 16u); // B * Hq
  ASSERT_TRUE(plan.args[5].checkFloat);
  EXPECT_TRUE(plan.args[5].checkFloat(std::nan("")));
  EXPECT_FALSE(plan.args[5].checkFloat(-0.5));
}

TEST(RegistryTest, AttentionBackwardPlansOneLaunchOfBothProgramKinds) {
  LaunchPlan plan;
  EXPECT_EQ(planArgs("attention_bwd",
                     {"B=2", "Hq=8", "Hkv=2", "Sq=100", "Sk=300", "D=128",
                      "chip=gfx942"},
                     plan),
            (std::vector<std::string>{"q", "k", "v", "dout", "lse", "delta",
                                      "dq", "dk", "dv", "scale"}));
  EXPECT_EQ(plan.args[7].shape, (std::vector<int64_t>{2, 2, 300, 128}));
  EXPECT_EQ(plan.args[5].shape, (std::vector<int64_t>{2, 8, 100}));
  EXPECT_EQ(plan.args[5].dtype, dsl::DType::F32);
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(plan.args[size_t(i)].isOutput, i >= 6) << i;
  // 64-row tiles (16 a wave, 4 waves): 5 key tiles per B * Hkv head, then
  // 2 query tiles per B * Hq head, on one grid dimension.
  EXPECT_EQ(plan.grid[0], 5u * 4u + 2u * 16u);
  EXPECT_EQ(plan.grid[1], 1u);
}

TEST(RegistryTest, AttentionBackwardDeltaTakesTheBackwardsDefinitions) {
  LaunchPlan plan;
  // The backward's definitions as the torch op passes them to both
  // launches, bshd: delta in lse's [B, Hq, Sq] order, 64 rows a program
  // at Dv = 128.
  EXPECT_EQ(planArgs("attention_bwd_delta",
                     {"B=2", "Hq=8", "Hkv=2", "Sq=100", "Sk=300", "D=192",
                      "Dv=128", "causal=1", "layout=bshd", "chip=sm_90a"},
                     plan),
            (std::vector<std::string>{"out", "dout", "delta"}));
  EXPECT_EQ(plan.args[0].shape, (std::vector<int64_t>{2, 100, 8, 128}));
  EXPECT_EQ(plan.args[2].shape, (std::vector<int64_t>{2, 8, 100}));
  EXPECT_TRUE(plan.args[2].isOutput && !plan.args[1].isOutput);
  EXPECT_EQ(plan.grid[0], 2u);
  EXPECT_EQ(plan.grid[1], 16u);
  // Varlen: the sequences follow, as for the backward.
  EXPECT_EQ(planArgs("attention_bwd_delta",
                     {"B=3", "Hq=2", "Sq=40", "Tq=70", "D=64",
                      "layout=varlen", "chip=gfx942"},
                     plan),
            (std::vector<std::string>{"out", "dout", "delta", "cu_seqlens_q",
                                      "cu_seqlens_k"}));
  EXPECT_EQ(plan.args[2].shape, (std::vector<int64_t>{2, 70}));
  // The backward's tile parameters are not the preprocessing's.
  KernelParams params;
  std::string error;
  EXPECT_TRUE(failed(resolveKernelParams(*lookupKernel("attention_bwd_delta"),
                                         {"BM=64"}, params, error)));
  EXPECT_NE(error.find("BM"), std::string::npos) << error;
}

TEST(RegistryTest, AttentionLayoutsShapeTheTensors) {
  LaunchPlan plan;
  planArgs("attention_fwd",
           {"B=2", "Hq=8", "Hkv=2", "Sq=100", "Sk=300", "D=64",
            "layout=bshd"},
           plan);
  EXPECT_EQ(plan.args[0].shape, (std::vector<int64_t>{2, 100, 8, 64}));
  EXPECT_EQ(plan.args[1].shape, (std::vector<int64_t>{2, 300, 2, 64}));
  EXPECT_EQ(plan.args[4].shape, (std::vector<int64_t>{2, 8, 100}));
  EXPECT_EQ(planArgs("attention_fwd",
                     {"B=3", "Hq=4", "Sq=100", "Sk=50", "Tq=250", "D=64",
                      "layout=varlen"},
                     plan),
            (std::vector<std::string>{"q", "k", "v", "out", "lse",
                                      "cu_seqlens_q", "cu_seqlens_k",
                                      "scale"}));
  EXPECT_EQ(plan.args[0].shape, (std::vector<int64_t>{250, 4, 64}));
  EXPECT_EQ(plan.args[1].shape, (std::vector<int64_t>{150, 4, 64}));
  EXPECT_EQ(plan.args[4].shape, (std::vector<int64_t>{4, 250}));
  EXPECT_EQ(plan.args[5].shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(plan.args[5].dtype, dsl::DType::I32);
  EXPECT_FALSE(plan.args[5].isOutput);
}

TEST(RegistryTest, VarlenRunsDrawRaggedSequencesCoveringEveryPackedRow) {
  const KernelSpec *spec = lookupKernel("attention_fwd");
  ASSERT_TRUE(spec && spec->prepareInputs);
  for (auto [batch, total, longest] :
       {std::tuple<int, int, int>{3, 250, 100}, {5, 5, 1}, {4, 1, 70},
        {7, 300, 300}, {2, 200, 100}}) {
    KernelParams params;
    std::string error;
    std::vector<std::string> defs = {
        "B=" + std::to_string(batch), "Sq=" + std::to_string(longest),
        "Tq=" + std::to_string(total), "layout=varlen"};
    ASSERT_TRUE(succeeded(resolveKernelParams(*spec, defs, params, error)))
        << error;
    // q random-ish (it seeds the draw); cu_seqlens to be filled.
    std::vector<std::vector<double>> tensors(7);
    tensors[0] = {0.25, -1.5, 3.0};
    spec->prepareInputs(params, tensors, {0.0}, false);
    for (int which : {5, 6}) {
      const std::vector<double> &cu = tensors[size_t(which)];
      ASSERT_EQ(cu.size(), size_t(batch + 1));
      EXPECT_EQ(cu.front(), 0);
      // Sk defaults to Sq, Tk to B * Sk.
      EXPECT_EQ(cu.back(), which == 5 ? total : batch * longest);
      for (int b = 0; b < batch; ++b) {
        EXPECT_GE(cu[size_t(b + 1)], cu[size_t(b)]);
        EXPECT_LE(cu[size_t(b + 1)] - cu[size_t(b)], longest);
      }
    }
  }
}

TEST(RegistryTest, GemmPlansItsArguments) {
  LaunchPlan plan;
  EXPECT_EQ(planArgs("gemm", {"M=100", "N=300", "K=64"}, plan),
            (std::vector<std::string>{"a", "b", "out", "alpha"}));
  EXPECT_EQ(plan.grid[0], 1u * 3u); // 128 x 128 tiles
  EXPECT_EQ(planArgs("gemm", {"accumulate=1", "bias=1", "batch=4",
                              "layout_a=col", "M=64", "K=32"},
                     plan),
            (std::vector<std::string>{"a", "b", "c", "bias", "out", "alpha",
                                      "beta"}));
  EXPECT_EQ(plan.args[0].shape, (std::vector<int64_t>{4, 32, 64}));
  EXPECT_EQ(plan.args[4].inPlaceOf, "c");
  EXPECT_EQ(plan.grid[1], 4u);
}

TEST(RegistryTest, FusedAddKernelsTakeTheResidualTensors) {
  LaunchPlan plan;
  EXPECT_EQ(planArgs("rmsnorm_add_fwd", {"N=4096", "M=3"}, plan),
            (std::vector<std::string>{"x", "residual", "w", "y", "residual_out",
                                      "M", "eps"}));
  EXPECT_TRUE(plan.args[4].isOutput);
  EXPECT_EQ(plan.args[4].shape, (std::vector<int64_t>{3, 4096}));
  EXPECT_EQ(plan.args[4].alignment, 16u);
  EXPECT_EQ(plan.grid[0], 3u);
  EXPECT_EQ(planArgs("rmsnorm_add_bwd", {"N=4096", "M=3"}, plan),
            (std::vector<std::string>{"h", "w", "dy", "dresidual_out", "dx",
                                      "dw_partial", "M", "eps"}));
  EXPECT_FALSE(plan.args[3].isOutput);
  EXPECT_TRUE(plan.args[4].isOutput);
}

TEST(RegistryTest, MaxProgramsCapsTheBackwardsPrograms) {
  LaunchPlan step1, step2;
  // 64 rows of 10001: one row per program, at most 3 programs.
  planArgs("rmsnorm_bwd", {"N=10001", "M=64", "max_programs=3"}, step1);
  planArgs("rmsnorm_bwd_dw", {"N=10001", "M=64", "max_programs=3"}, step2);
  EXPECT_EQ(step1.grid[0], 3u);
  EXPECT_EQ(step1.args[4].shape, (std::vector<int64_t>{3, 10001}));
  EXPECT_EQ(step2.args[0].shape, (std::vector<int64_t>{3, 10001}));
  EXPECT_EQ(step2.args[2].expectedInt, 3);
  // The default: 1024, fewer when there are fewer row tiles.
  planArgs("rmsnorm_add_bwd", {"N=10001", "M=5000"}, step1);
  EXPECT_EQ(step1.grid[0], 1024u);
  planArgs("rmsnorm_add_bwd", {"N=10001", "M=5"}, step1);
  EXPECT_EQ(step1.grid[0], 5u);

  const KernelSpec *spec = lookupKernel("rmsnorm_add_bwd");
  KernelParams params;
  std::string error;
  ASSERT_TRUE(
      succeeded(resolveKernelParams(*spec, {"max_programs=0"}, params, error)));
  EXPECT_TRUE(failed(spec->plan(params, step1, error)));
  EXPECT_NE(error.find("max_programs=0 out of range"), std::string::npos)
      << error;
  // The forward has no such parameter.
  EXPECT_TRUE(failed(resolveKernelParams(*lookupKernel("rmsnorm_add_fwd"),
                                         {"max_programs=3"}, params, error)));
}

/// The max_programs definition applyTargetDefaults adds for `kernel` on
/// `chip` with `multiprocessors`; "" where it adds none.
std::string defaultMaxPrograms(const char *kernel, const char *chip,
                               int multiprocessors,
                               std::vector<std::string> defs) {
  TargetFacts facts;
  facts.chip = lookupChip(chip);
  facts.multiprocessors = multiprocessors;
  std::string error;
  EXPECT_TRUE(succeeded(
      applyTargetDefaults(*lookupKernel(kernel), facts, defs, error)))
      << error;
  for (const std::string &d : defs)
    if (llvm::StringRef(d).starts_with("max_programs="))
      return d;
  return "";
}

TEST(RegistryTest, NvidiaBackwardProgramsFollowRegistersAndRows) {
  struct Case {
    const char *kernel, *chip;
    int multiprocessors;
    std::vector<std::string> defs;
    const char *want;
  };
  const Case cases[] = {
      // Two programs a multiprocessor: they fit its registers together (16
      // bf16 elements a lane, 8 registers each, 2 x 256 lanes x 128 = 64K)
      // and each still gets at least 8 row tiles (4096 rows over 264).
      {"rmsnorm_bwd", "sm_90", 132, {"N=4096", "M=4096"}, "max_programs=264"},
      {"rmsnorm_add_bwd", "sm_90a", 114, {"N=2048", "M=32768", "dtype=f16"},
       "max_programs=228"},
      // f32 rows of 3000 (12 elements a lane, 10 registers each) still fit.
      {"rmsnorm_bwd", "sm_90", 132, {"N=3000", "M=4096", "dtype=f32"},
       "max_programs=264"},
      // Too few rows: 512 (about 2 a program at 264) and 2111 (just under
      // 8 each).
      {"rmsnorm_bwd", "sm_90", 132, {"N=3000", "M=512", "dtype=f32"},
       "max_programs=132"},
      {"rmsnorm_bwd", "sm_90", 132, {"N=4096", "M=2111"}, "max_programs=132"},
      {"rmsnorm_bwd", "sm_90", 132, {"N=4096", "M=2112"}, "max_programs=264"},
      // Too many registers for two, however many rows: f32 rows of 4096,
      // bf16 rows of 8192 (with 256 lanes or 512).
      {"rmsnorm_bwd", "sm_90", 132, {"N=4096", "M=32768", "dtype=f32"},
       "max_programs=132"},
      {"rmsnorm_bwd", "sm_90", 132, {"N=8192", "M=32768"}, "max_programs=132"},
      {"rmsnorm_add_bwd", "sm_90", 132, {"N=8192", "M=32768", "lanes=512"},
       "max_programs=132"},
      // Short rows share a tile: 4 rows a tile at N = 512 bf16, so 8445 rows
      // (2112 tiles) are 8 tiles each for 264, 8444 just short.
      {"rmsnorm_bwd", "sm_90", 132, {"N=512", "M=8444"}, "max_programs=132"},
      {"rmsnorm_bwd", "sm_90", 132, {"N=512", "M=8445"}, "max_programs=264"},
      // The second kernel gets the same cap from the same definitions.
      {"rmsnorm_bwd_dw", "sm_90", 132, {"N=8192", "M=32768"},
       "max_programs=132"},
      // The user's value stands; AMD, the host and an unknown device count
      // keep the parameter's own default (none added); so do definitions
      // that do not resolve, whose build reports the error; the forward has
      // no such parameter.
      {"rmsnorm_bwd", "sm_90", 132, {"N=8192", "M=32768", "max_programs=7"},
       "max_programs=7"},
      {"rmsnorm_bwd", "gfx942", 304, {"N=4096", "M=32768"}, ""},
      {"rmsnorm_bwd", "host", 0, {"N=4096"}, ""},
      {"rmsnorm_bwd", "sm_90", 0, {"N=4096"}, ""},
      {"rmsnorm_bwd", "sm_90", 132, {"N=0"}, ""},
      {"rmsnorm_fwd", "sm_90", 132, {"N=4096"}, ""},
  };
  for (const Case &c : cases)
    EXPECT_EQ(defaultMaxPrograms(c.kernel, c.chip, c.multiprocessors, c.defs),
              c.want)
        << c.kernel << " on " << c.chip << " with "
        << llvm::join(c.defs, " ");
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

TEST(RMSNormConfigTest, LongRowsTakeOneRowPerProgram) {
  // The looping backward keeps a program's dw partial sums in dw_partial
  // and relies on this.
  for (auto dtype : {dsl::DType::F32, dsl::DType::F16, dsl::DType::BF16})
    for (unsigned wave : {32u, 64u})
      for (int64_t n : {8193, 10001, 20480, 1 << 24}) {
        auto c = RMSNormConfig::choose(n, dtype, dtype, wave);
        EXPECT_FALSE(c.singlePass);
        EXPECT_EQ(c.rowsPerProgram, 1u) << n << " wave " << wave;
      }
}

TEST(RMSNormConfigTest, MixedWeightDTypeKeepsWeightAccessesLegal) {
  auto c = RMSNormConfig::choose(4096, dsl::DType::BF16, dsl::DType::F32);
  EXPECT_EQ(c.vec, 8u);
  EXPECT_EQ(c.weightVec, 4u); // 4 x f32 = 128 bits, divides the lane's 8
}

} // namespace
