//===- ScheduleChoiceTest.cpp - LLVM's AMDGPU scheduler, picked per kernel ===//
#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Target/CheckedCompile.h"
#include "rocdsl/Target/ScheduleChoice.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

TEST(ScheduleSettingTest, AcceptsAutoDefaultAndLLVMStrategies) {
  for (llvm::StringRef value : {"", "auto", " auto "}) {
    auto s = parseScheduleSetting(value);
    ASSERT_TRUE(bool(s)) << value.str();
    EXPECT_TRUE(s->automatic);
  }
  auto d = parseScheduleSetting("default");
  ASSERT_TRUE(bool(d));
  EXPECT_FALSE(d->automatic);
  EXPECT_EQ(d->strategy, "");
  for (llvm::StringRef strategy : getScheduleStrategies()) {
    auto s = parseScheduleSetting(strategy);
    ASSERT_TRUE(bool(s)) << strategy.str();
    EXPECT_FALSE(s->automatic);
    EXPECT_EQ(s->strategy, strategy.str());
  }
}

TEST(ScheduleSettingTest, AnUnknownValueIsAnErrorListingTheChoices) {
  auto s = parseScheduleSetting("fastest");
  ASSERT_FALSE(bool(s));
  std::string message = llvm::toString(s.takeError());
  EXPECT_NE(message.find("ROCDSL_AMD_SCHEDULE='fastest'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("iterative-minreg"), std::string::npos) << message;
}

/// The strategy entries of a function's passthrough list.
std::vector<std::string> passthrough(LLVM::LLVMFuncOp func) {
  std::vector<std::string> out;
  if (ArrayAttr list = func.getPassthroughAttr())
    for (Attribute entry : list) {
      auto pair = cast<ArrayAttr>(entry);
      out.push_back(cast<StringAttr>(pair[0]).str() + "=" +
                    cast<StringAttr>(pair[1]).str());
    }
  return out;
}

TEST(ScheduleStrategyTest, SetReplacesOnlyItsOwnAttribute) {
  MLIRContext ctx;
  ctx.loadDialect<gpu::GPUDialect, LLVM::LLVMDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"(
    module attributes {gpu.container_module} {
      gpu.module @kernels {
        llvm.func @k() attributes {passthrough = [["amdgpu-ieee", "false"]]} {
          llvm.return
        }
      }
    })",
                                                            &ctx);
  ASSERT_TRUE(module);
  LLVM::LLVMFuncOp func;
  module->walk([&](LLVM::LLVMFuncOp f) { func = f; });
  ASSERT_TRUE(func);
  setScheduleStrategy(*module, "iterative-minreg");
  EXPECT_EQ(passthrough(func),
            (std::vector<std::string>{"amdgpu-ieee=false",
                                      "amdgpu-sched-strategy=iterative-minreg"}));
  setScheduleStrategy(*module, "iterative-ilp");
  EXPECT_EQ(passthrough(func),
            (std::vector<std::string>{"amdgpu-ieee=false",
                                      "amdgpu-sched-strategy=iterative-ilp"}));
  setScheduleStrategy(*module, "");
  EXPECT_EQ(passthrough(func),
            (std::vector<std::string>{"amdgpu-ieee=false"}));
}

class ScheduleChoiceTest : public ::testing::Test {
protected:
  ScheduleChoiceTest() {
    DialectRegistry registry;
    registerRocDSLDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  ~ScheduleChoiceTest() override { unsetenv("ROCDSL_AMD_SCHEDULE"); }

  /// (instructions, VGPRs) of a built-in kernel compiled for `chip` with
  /// ROCDSL_AMD_SCHEDULE=`setting` (null: unset), and the strategy kept.
  std::tuple<unsigned, unsigned, std::string>
  compile(llvm::StringRef kernel, const std::vector<std::string> &defs,
          const char *chip, const char *setting) {
    if (setting)
      setenv("ROCDSL_AMD_SCHEDULE", setting, 1);
    else
      unsetenv("ROCDSL_AMD_SCHEDULE");
    const KernelSpec *spec = lookupKernel(kernel);
    KernelParams params;
    std::string error;
    EXPECT_TRUE(succeeded(resolveKernelParams(*spec, defs, params, error)));
    OwningOpRef<ModuleOp> module = spec->build(&ctx, params, error);
    EXPECT_TRUE(module) << error;
    auto code = compileAMDGPUChecked(*module, chip);
    if (!code) {
      ADD_FAILURE() << llvm::toString(code.takeError());
      return {};
    }
    auto report = isa::checkAssembly(code->assembly, kernel, chip);
    EXPECT_TRUE(bool(report));
    unsigned instructions = 0, vgprs = 0;
    for (const isa::KernelReport &k : report->kernels) {
      instructions += k.instructions;
      vgprs += k.vgprs + k.agprs;
      EXPECT_EQ(k.vgprSpills + k.scratchBytes, 0u) << kernel.str();
    }
    return {instructions, vgprs, code->schedule};
  }
  MLIRContext ctx;
};

/// Whatever the choice, it is never worse than LLVM's default on the two
/// counts it weighs, and forcing a strategy reaches the code.
TEST_F(ScheduleChoiceTest, TheChoiceIsNeverWorseThanTheDefault) {
  for (const char *chip : {"gfx942", "gfx950"}) {
    std::vector<std::string> defs = {"N=1024", "dtype=bf16"};
    auto [autoInstr, autoVgprs, kept] =
        compile("rmsnorm_fwd", defs, chip, nullptr);
    auto [defInstr, defVgprs, none] =
        compile("rmsnorm_fwd", defs, chip, "default");
    EXPECT_EQ(none, "");
    EXPECT_LE(autoInstr, defInstr) << chip << " kept " << kept;
    EXPECT_LE(autoVgprs, defVgprs) << chip << " kept " << kept;
    auto forced = compile("rmsnorm_fwd", defs, chip, "iterative-minreg");
    EXPECT_EQ(std::get<2>(forced), "iterative-minreg");
  }
}

TEST_F(ScheduleChoiceTest, MatrixCoreKernelsKeepTheDefault) {
  auto [instr, vgprs, kept] = compile(
      "gemm", {"M=1", "N=17", "K=255", "stages=4"}, "gfx942", nullptr);
  EXPECT_GT(instr, 0u);
  EXPECT_EQ(kept, "");
}

TEST_F(ScheduleChoiceTest, AnUnknownSettingFailsTheCompile) {
  setenv("ROCDSL_AMD_SCHEDULE", "fastest", 1);
  const KernelSpec *spec = lookupKernel("rmsnorm_fwd");
  KernelParams params;
  std::string error;
  ASSERT_TRUE(succeeded(
      resolveKernelParams(*spec, {"N=256", "dtype=f32"}, params, error)));
  OwningOpRef<ModuleOp> module = spec->build(&ctx, params, error);
  auto code = compileAMDGPUChecked(*module, "gfx942");
  ASSERT_FALSE(bool(code));
  EXPECT_NE(llvm::toString(code.takeError()).find("ROCDSL_AMD_SCHEDULE"),
            std::string::npos);
}

} // namespace
