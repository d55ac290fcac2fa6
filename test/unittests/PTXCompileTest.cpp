//===- PTXCompileTest.cpp - every built-in kernel compiles for sm_90 ------===//
//
// The NVIDIA side of the config matrix: every built-in kernel and
// configuration, specialized for 32-lane waves, lowers to PTX for sm_90
// with its entry point and 256 lanes per program, and keeps nothing in
// local memory (no stack frame from the lowering).
//
//===----------------------------------------------------------------------===//
#include "norm/RMSNorm.h"
#include "RMSNormCases.h"

#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Target/NVIDIA.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

TEST(PTXCompileTest, EveryBuiltinConfigurationCompilesForSM90) {
  DialectRegistry registry;
  registerRocDSLDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  unsigned compiled = 0;
  for (const KernelSpec &spec : getRMSNormSpecs())
    for (const RMSNormCase &c : getRMSNormCases()) {
      std::string what = spec.name + " " + c.name();
      std::vector<std::string> defs = c.definitions();
      defs.push_back("wave=32");
      KernelParams params;
      std::string error;
      ASSERT_TRUE(succeeded(resolveKernelParams(spec, defs, params, error)))
          << what << ": " << error;
      OwningOpRef<ModuleOp> module = spec.build(&ctx, params, error);
      ASSERT_TRUE(module) << what << ": " << error;
      ASSERT_TRUE(succeeded(lowerToNVVM(*module, "sm_90"))) << what;
      FailureOr<std::string> ptx = serializePTX(*module);
      ASSERT_TRUE(succeeded(ptx)) << what;
      llvm::StringRef text(*ptx);
      EXPECT_TRUE(text.contains(".visible .entry " + spec.name + "(")) << what;
      EXPECT_TRUE(text.contains(".maxntid 256, 1, 1")) << what;
      EXPECT_FALSE(text.contains(".local")) << what;
      ++compiled;
    }
  EXPECT_EQ(compiled, getRMSNormSpecs().size() * getRMSNormCases().size());
}

} // namespace
