//===- AttentionWarpgroupCompileTest.cpp - attention on sm_90a wgmma ------===//
//
// attention_fwd and attention_bwd with wgmma=1 over shapes whose walks
// fold differently (one query, a single key step, ragged tails, masks that
// empty or keep whole steps, grouped heads, packed sequences, one and two
// warp groups, 64 and 128 keys a step, 2-4 stages, every head dimension
// the path takes): each lowers to PTX for sm_90a, multiplies only with
// wgmma.mma_async and keeps nothing in local memory. (Loops of one
// iteration fold away; a product's result still in flight must not reach
// anything but the matrix unit or a wait whatever the folding leaves.)
// The numbers themselves are checked on the GPU (scripts/device-gpu-check.sh).
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Target/NVIDIA.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <optional>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

struct WarpgroupCase {
  const char *name;
  const char *kernel;
  std::vector<std::string> defs;
  /// The backward: whether dQ comes by atomic adds (dq_atomic); unset:
  /// whichever the defaults take.
  std::optional<bool> atomic = std::nullopt;
};

std::vector<WarpgroupCase> cases() {
  std::vector<WarpgroupCase> all;
  const std::vector<std::pair<const char *, std::vector<std::string>>> shapes =
      {{"Default", {"Sq=1024", "D=128"}},
       {"OneQuery", {"Sq=1", "Sk=65", "D=128"}},
       {"OneKeyStep", {"Sq=64", "Sk=64", "D=64"}},
       {"RaggedCausalBottomRight",
        {"Sq=300", "Sk=100", "D=64", "causal=1", "align=bottom_right"}},
       {"Window", {"Sq=17", "Sk=2049", "D=64", "window_left=300",
                   "window_right=20", "dtype=f16"}},
       {"SoftcapWindow",
        {"Sq=400", "D=128", "softcap=20", "window_left=64", "window_right=0"}},
       {"GroupedHeads", {"B=2", "Hq=8", "Hkv=2", "Sq=1000", "D=128",
                         "causal=1"}},
       {"UnequalHeadDims", {"Sq=129", "Sk=300", "D=192", "Dv=128",
                            "causal=1"}},
       {"Bshd", {"B=2", "Hq=4", "Sq=257", "D=64", "Dv=128", "layout=bshd",
                 "warps=4"}},
       {"Varlen", {"B=3", "Hq=4", "Hkv=2", "Sq=300", "Sk=700", "D=128",
                   "layout=varlen", "causal=1"}},
       {"Wide", {"Sq=513", "D=256", "Dv=64"}}};
  for (const auto &[name, defs] : shapes)
    for (const char *kernel : {"attention_fwd", "attention_bwd"})
      all.push_back({name, kernel, defs});
  // The forward's tile parameters.
  all.push_back({"Keys64Stages3", "attention_fwd",
                 {"Sq=777", "D=128", "BN=64", "causal=1", "stages=3"}});
  all.push_back({"OneGroupStages4", "attention_fwd",
                 {"Sq=333", "Sk=1000", "D=64", "Dv=128", "warps=4", "BN=64",
                  "stages=4"}});
  all.push_back({"D256Keys64", "attention_fwd",
                 {"Hq=8", "Hkv=1", "Sq=513", "D=256"}});
  // The backward's dQ by atomic adds (dq_atomic=1) and without (the
  // default).
  all.push_back({"Atomic", "attention_bwd",
                 {"Sq=1024", "D=128", "dq_atomic=1"}, true});
  all.push_back({"AtomicOneQuery", "attention_bwd",
                 {"Sq=1", "Sk=65", "D=128", "dq_atomic=1"}, true});
  all.push_back({"AtomicEmptyRows", "attention_bwd",
                 {"Sq=300", "Sk=100", "D=128", "causal=1",
                  "align=bottom_right", "dq_atomic=1"},
                 true});
  all.push_back({"AtomicLeftWindowGroups", "attention_bwd",
                 {"B=2", "Hq=8", "Hkv=2", "Sq=300", "Sk=1000", "D=128",
                  "window_left=100", "softcap=20", "dq_atomic=1"},
                 true});
  all.push_back({"AtomicVarlenDv64", "attention_bwd",
                 {"B=3", "Hq=4", "Sq=300", "Sk=700", "D=128", "Dv=64",
                  "layout=varlen", "causal=1", "dq_atomic=1"},
                 true});
  all.push_back({"AtomicOneGroup", "attention_bwd",
                 {"B=2", "Hq=4", "Sq=200", "D=64", "warps=4", "causal=1",
                  "dq_atomic=1"},
                 true});
  all.push_back({"Deterministic", "attention_bwd", {"Sq=1024", "D=128"},
                 false});
  return all;
}

class AttentionWarpgroupCompileTest
    : public testing::TestWithParam<WarpgroupCase> {};

TEST_P(AttentionWarpgroupCompileTest, LowersToWgmmaOnly) {
  const WarpgroupCase &c = GetParam();
  DialectRegistry registry;
  registerRocDSLDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  const KernelSpec *spec = lookupKernel(c.kernel);
  ASSERT_NE(spec, nullptr);
  std::vector<std::string> defs = c.defs;
  defs.insert(defs.end(), {"chip=sm_90a", "wgmma=1"});
  KernelParams params;
  std::string error;
  ASSERT_TRUE(succeeded(resolveKernelParams(*spec, defs, params, error)))
      << error;
  OwningOpRef<ModuleOp> module = spec->build(&ctx, params, error);
  ASSERT_TRUE(module) << error;
  ASSERT_TRUE(succeeded(lowerToNVVM(*module, "sm_90a")));
  FailureOr<std::string> ptx = serializePTX(*module);
  ASSERT_TRUE(succeeded(ptx));
  llvm::StringRef text(*ptx);
  EXPECT_TRUE(text.contains(".entry " + std::string(c.kernel) + "("));
  EXPECT_TRUE(text.contains("wgmma.mma_async.sync.aligned"));
  EXPECT_FALSE(text.contains("mma.sync.aligned.m16n8k16"));
  EXPECT_FALSE(text.contains(".local"));
  if (c.atomic) {
    EXPECT_EQ(text.contains("red.relaxed.gpu.global.add.f32"), *c.atomic);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionWarpgroupCompileTest, testing::ValuesIn(cases()),
    [](const testing::TestParamInfo<WarpgroupCase> &info) {
      return std::string(info.param.name) +
             (llvm::StringRef(info.param.kernel).ends_with("bwd") ? "_bwd"
                                                                 : "_fwd");
    });

} // namespace
