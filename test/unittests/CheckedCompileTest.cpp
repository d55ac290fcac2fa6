//===- CheckedCompileTest.cpp - every emitted AMDGPU kernel is hazard-free ===//
#include "norm/RMSNorm.h"
#include "RMSNormCases.h"

#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Support/Log.h"
#include "rocdsl/Target/CheckedCompile.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class CheckedCompileTest : public ::testing::Test {
protected:
  CheckedCompileTest() {
    DialectRegistry registry;
    registerRocDSLDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  OwningOpRef<ModuleOp> build(const std::vector<std::string> &defs,
                              llvm::StringRef kernel = "rmsnorm_fwd") {
    const KernelSpec *spec = lookupKernel(kernel);
    KernelParams params;
    std::string error;
    EXPECT_TRUE(succeeded(resolveKernelParams(*spec, defs, params, error)));
    return spec->build(&ctx, params, error);
  }
  MLIRContext ctx;
};

/// Every built-in kernel configuration, on both chips: what ROCDSL emits
/// passes the hazard scan, has no spills or scratch, and the assembly that
/// was checked is the code that was linked.
TEST_F(CheckedCompileTest, EveryBuiltinConfigurationIsHazardFree) {
  unsigned checked = 0, fellBack = 0;
  for (const KernelSpec &spec : getRMSNormSpecs())
    for (const RMSNormCase &c : getRMSNormTestCases()) {
      // Every kernel takes every configuration of the matrix.
      KernelParams params;
      LaunchPlan plan;
      std::string error;
      ASSERT_TRUE(
          succeeded(resolveKernelParams(spec, c.definitions(), params, error)));
      ASSERT_TRUE(succeeded(spec.plan(params, plan, error)))
          << spec.name << " " << c.name() << ": " << error;
      for (const char *chip : {"gfx942", "gfx950"}) {
        std::string what = spec.name + " " + c.name() + " " + chip;
        OwningOpRef<ModuleOp> module = build(c.definitions(), spec.name);
        ASSERT_TRUE(module) << what;
        auto code = compileAMDGPUChecked(*module, chip);
        ASSERT_TRUE(bool(code))
            << what << ": " << llvm::toString(code.takeError());
        auto recheck = isa::checkAssembly(code->assembly, c.name(), chip);
        ASSERT_TRUE(bool(recheck)) << llvm::toString(recheck.takeError());
        EXPECT_FALSE(recheck->hasHazard()) << what;
        auto fromObject =
            isa::checkCodeObject(code->codeObject, c.name(), chip);
        ASSERT_TRUE(bool(fromObject)) << llvm::toString(fromObject.takeError());
        EXPECT_FALSE(fromObject->hasHazard()) << what;
        // Every register a load writes is touched only after its wait.
        EXPECT_TRUE(fromObject->kernels.at(0).waitsChecked) << what;
        EXPECT_FALSE(recheck->hasWaitViolation()) << what;
        EXPECT_TRUE(code->waitViolations.empty()) << what;
        for (const isa::KernelReport &k : recheck->kernels) {
          EXPECT_EQ(k.vgprSpills, 0u) << what;
          EXPECT_EQ(k.sgprSpills, 0u) << what;
          EXPECT_EQ(k.scratchBytes, 0u) << what;
        }
        ++checked;
        fellBack += code->form != StoreForm::Wide;
      }
    }
  EXPECT_EQ(checked,
            2 * getRMSNormSpecs().size() * getRMSNormTestCases().size());
  std::printf("%u configurations checked, %u needed a safer store form\n",
              checked, fellBack);
}

/// The gemm family across its layouts, dtypes and a ragged shape, on both
/// chips with their own instructions: hazard-free, no spills or scratch.
TEST_F(CheckedCompileTest, GemmConfigurationsAreHazardFreeWithoutSpills) {
  unsigned checked = 0;
  for (const char *shape : {"M=256 N=256 K=256", "M=1 N=17 K=255"})
    for (const char *dtype : {"bf16", "f16"})
      for (const char *layouts : {"row row", "col col", "row col"})
        for (const char *out : {"same", "f32"})
          for (const char *chip : {"gfx942", "gfx950"}) {
            std::vector<std::string> defs = {std::string("chip=") + chip,
                                             std::string("dtype=") + dtype,
                                             std::string("out_dtype=") + out};
            for (llvm::StringRef d : llvm::split(shape, ' '))
              defs.push_back(d.str());
            auto [la, lb] = llvm::StringRef(layouts).split(' ');
            defs.push_back("layout_a=" + la.str());
            defs.push_back("layout_b=" + lb.str());
            std::string what = llvm::join(defs, " ");
            OwningOpRef<ModuleOp> module = build(defs, "gemm");
            ASSERT_TRUE(module) << what;
            auto code = compileAMDGPUChecked(*module, chip);
            ASSERT_TRUE(bool(code))
                << what << ": " << llvm::toString(code.takeError());
            auto recheck = isa::checkAssembly(code->assembly, what, chip);
            ASSERT_TRUE(bool(recheck)) << llvm::toString(recheck.takeError());
            EXPECT_FALSE(recheck->hasHazard()) << what;
            EXPECT_FALSE(recheck->hasWaitViolation()) << what;
            EXPECT_TRUE(code->waitViolations.empty()) << what;
            for (const isa::KernelReport &k : recheck->kernels) {
              EXPECT_EQ(k.vgprSpills, 0u) << what;
              EXPECT_EQ(k.scratchBytes, 0u) << what;
            }
            EXPECT_NE(code->assembly.find("v_mfma_f32_32x32x"),
                      std::string::npos)
                << what;
            ++checked;
          }
  EXPECT_EQ(checked, 2u * 2 * 3 * 2 * 2);
}

/// The fallback order, with a checker that rejects chosen forms.
TEST_F(CheckedCompileTest, FallsBackToSplitThenPaddingAndLogsOnce) {
  std::vector<std::string> logged;
  LogHandler previous = setLogHandler([&](LogLevel, llvm::StringRef message) {
    logged.push_back(message.str());
  });
  auto rejectWhile = [](std::function<bool(llvm::StringRef)> bad) {
    return [bad](llvm::StringRef text, llvm::StringRef file,
                 llvm::StringRef chip) -> llvm::Expected<isa::CheckResult> {
      auto result = isa::checkAssembly(text, file, chip);
      if (result && bad(text)) {
        isa::Finding f;
        f.file = file.str();
        f.kernel = "rmsnorm_fwd";
        f.storeText = "injected";
        f.needed = 2;
        result->kernels.front().hazards.push_back(f);
      }
      return result;
    };
  };
  OwningOpRef<ModuleOp> module = build({"N=4096"});

  // Wide rejected -> split64.
  auto split = compileAMDGPUChecked(*module, "gfx942", 3, StoreForm::Wide,
                                    rejectWhile([](llvm::StringRef t) {
                                      return t.contains("buffer_store_dwordx4");
                                    }));
  ASSERT_TRUE(bool(split)) << llvm::toString(split.takeError());
  EXPECT_EQ(split->form, StoreForm::Split64);
  EXPECT_EQ(split->rejected.size(), 1u);
  EXPECT_FALSE(
      llvm::StringRef(split->assembly).contains("buffer_store_dwordx4"));
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_NE(logged[0].find("kernel rmsnorm_fwd on gfx942"), std::string::npos);
  EXPECT_NE(logged[0].find("recompiled with the split64 store form"),
            std::string::npos);

  // Wide and split64 rejected -> padded.
  logged.clear();
  auto padded = compileAMDGPUChecked(*module, "gfx950", 3, StoreForm::Wide,
                                     rejectWhile([](llvm::StringRef t) {
                                       return !t.contains(";;#ASMSTART");
                                     }));
  ASSERT_TRUE(bool(padded)) << llvm::toString(padded.takeError());
  EXPECT_EQ(padded->form, StoreForm::Padded);
  EXPECT_EQ(padded->rejected.size(), 2u);
  EXPECT_EQ(logged.size(), 1u);

  // Everything rejected -> an error, never a binary.
  auto none =
      compileAMDGPUChecked(*module, "gfx942", 3, StoreForm::Wide,
                           rejectWhile([](llvm::StringRef) { return true; }));
  ASSERT_FALSE(bool(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("in every store form"),
            std::string::npos);

  // The rocdsl module itself is never modified.
  EXPECT_FALSE(module->getOps<FuncOp>().empty());
  setLogHandler(previous);
}

/// Direct-to-LDS copies with planned waits: the plan ships when the check
/// proves it, and a plan the check cannot prove is dropped for drained
/// waits (logged once), never shipped.
TEST_F(CheckedCompileTest, PlannedWaitsShipOnlyWhenProven) {
  std::vector<std::string> logged;
  LogHandler previous = setLogHandler([&](LogLevel, llvm::StringRef message) {
    logged.push_back(message.str());
  });
  OwningOpRef<ModuleOp> module =
      build({"M=256", "N=256", "K=512", "stages=3"}, "gemm");
  ASSERT_TRUE(module);
  AsyncCopyOptions planned{/*direct=*/true, /*waits=*/"explicit"};
  for (const char *chip : {"gfx942", "gfx950"}) {
    logged.clear();
    auto proven = compileAMDGPUChecked(*module, chip, 3, StoreForm::Wide,
                                       checkAssemblyDefault, planned);
    ASSERT_TRUE(bool(proven)) << llvm::toString(proven.takeError());
    EXPECT_EQ(proven->waits, "explicit") << chip;
    EXPECT_TRUE(proven->unprovenPlan.empty()) << chip;
    EXPECT_TRUE(proven->waitViolations.empty()) << chip;
    EXPECT_NE(proven->assembly.find(" lds\n"), std::string::npos) << chip;
    EXPECT_NE(proven->assembly.find("expcnt(1)"), std::string::npos) << chip;
    EXPECT_TRUE(logged.empty()) << chip;

    // The test hook's plan, one count too loose, is reported by the check
    // at the planned wait (and ships: it is there to be caught).
    auto weakened = compileAMDGPUChecked(
        *module, chip, 3, StoreForm::Wide, checkAssemblyDefault,
        AsyncCopyOptions{true, "weakened-for-testing"});
    ASSERT_TRUE(bool(weakened)) << llvm::toString(weakened.takeError());
    // (One finding for each load the wait may leave in flight.)
    ASSERT_FALSE(weakened->waitViolations.empty()) << chip;
    for (const isa::WaitFinding &f : weakened->waitViolations) {
      EXPECT_TRUE(f.atPlannedWait) << chip << ": " << f.useText;
      EXPECT_TRUE(f.directToLdsLoad) << chip << ": " << f.loadText;
    }
    EXPECT_EQ(weakened->waits, "weakened-for-testing") << chip;

    // A checker that finds the plan wanting (as it would a plan LLVM's
    // code broke), at a planned wait or at a barrier a direct copy runs
    // past: recompiled drained, no plan mark left.
    for (bool atWait : {true, false}) {
      auto doubting = [atWait](llvm::StringRef text, llvm::StringRef file,
                               llvm::StringRef chip)
          -> llvm::Expected<isa::CheckResult> {
        auto result = isa::checkAssembly(text, file, chip);
        if (result && text.contains("expcnt(1)")) {
          isa::WaitFinding f;
          f.kernel = "gemm";
          f.useText = atWait ? "s_waitcnt vmcnt(16) expcnt(1)" : "s_barrier";
          f.loadText = "buffer_load_dword v1, s[0:3], 0 offen lds";
          f.registers = "LDS";
          f.counter = "vmcnt";
          f.atPlannedWait = atWait;
          f.directToLdsLoad = true;
          result->kernels.front().waitViolations.push_back(f);
        }
        return result;
      };
      logged.clear();
      auto drained = compileAMDGPUChecked(*module, chip, 3, StoreForm::Wide,
                                          doubting, planned);
      ASSERT_TRUE(bool(drained)) << llvm::toString(drained.takeError());
      EXPECT_EQ(drained->waits, "llvm") << chip;
      EXPECT_EQ(drained->unprovenPlan.size(), 1u) << chip;
      EXPECT_EQ(drained->assembly.find("expcnt("), std::string::npos) << chip;
      EXPECT_NE(drained->assembly.find(" lds\n"), std::string::npos) << chip;
      ASSERT_EQ(logged.size(), 1u) << chip;
      EXPECT_NE(logged[0].find("the planned waits are not proven"),
                std::string::npos);
      EXPECT_NE(logged[0].find("recompiled with drained waits"),
                std::string::npos);
    }
  }
  setLogHandler(previous);
}

} // namespace
