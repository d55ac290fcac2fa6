//===- AttentionSpec.cpp - attention_fwd as a built-in kernel -------------===//
#include "Attention.h"

using namespace mlir;
using namespace mlir::rocdsl;

KernelSpec mlir::rocdsl::getAttentionForwardSpec() {
  KernelSpec spec;
  spec.name = "attention_fwd";
  spec.summary = "out = softmax(scale * q k^T + mask) v and its log-sum-exp, "
                 "FlashAttention-2 style (bf16/f16, f32 statistics)";
  spec.params = {
      {"B", "1", "batch entries", false},
      {"Hq", "1", "query heads", false},
      {"Hkv", "0", "key/value heads, Hq a multiple (0: Hq)", false},
      {"Sq", "128", "query length", false},
      {"Sk", "0", "key/value length (0: Sq)", false},
      {"D", "64", "query/key head dimension: 16..256, a multiple of 16", false},
      {"Dv", "0", "value head dimension (0: D)", false},
      {"dtype", "bf16", "q, k, v and out element type: bf16, f16", false},
      {"causal", "0", "1: keys right of the diagonal are masked", false},
      {"align", "top_left",
       "the diagonal of causal and window masks when Sq != Sk: top_left "
       "(query i's diagonal key is i, torch's is_causal) or bottom_right "
       "(i + Sk - Sq, FlashAttention's)",
       false},
      {"window_left", "-1",
       "keys more than this left of the diagonal are masked (-1: none)", false},
      {"window_right", "-1",
       "keys more than this right of the diagonal are masked (-1: none; "
       "causal=1 means 0)",
       false},
      {"BM", "0", "query rows a program (0: one matrix instruction a wave)",
       false},
      {"BN", "0",
       "keys a step (0: 64 on NVIDIA up to head dimension 64, else 32)",
       false},
      {"warps", "0", "waves (warps) per program: 1, 2, 4, 8 (0: 4)", false},
      {"prefetch", "1",
       "1: each key step issues the next step's key and value loads before "
       "its products (their latency hidden behind them)",
       false},
      {"chip", "gfx942",
       "target whose matrix instruction and tiles the kernel uses; set from "
       "the device or --chip",
       false},
      {"scale", "0", "score scale (launch-time; 0: 1/sqrt(D))", true},
  };
  spec.targetDefaults = [](const TargetFacts &facts,
                           std::vector<std::string> &defs, std::string &) {
    if (facts.chip && !definesParam(defs, "chip"))
      defs.insert(defs.begin(), "chip=" + facts.chip->name.str());
    // The host turns each tile op into whole-tile vector code whose LLVM
    // compile time grows with the tile: one wave's rows (32 query rows),
    // and no prefetch (nothing to hide there).
    if (!facts.chip)
      for (const char *def : {"warps=1", "prefetch=0"})
        if (!definesParam(defs, StringRef(def).split('=').first))
          defs.insert(defs.begin(), def);
    return success();
  };
  spec.build = [](MLIRContext *ctx, const KernelParams &params,
                  std::string &error) -> OwningOpRef<ModuleOp> {
    AttentionConfig c;
    if (failed(configureAttention(params, c, error)))
      return nullptr;
    return buildAttentionForward(ctx, c);
  };
  spec.plan = [](const KernelParams &params, LaunchPlan &plan,
                 std::string &error) -> LogicalResult {
    AttentionConfig c;
    if (failed(configureAttention(params, c, error)))
      return failure();
    plan = planAttentionForward(c);
    return success();
  };
  spec.reference = [](const KernelParams &params,
                      std::vector<std::vector<double>> &tensors,
                      const std::vector<double> &scalars) {
    AttentionConfig c;
    std::string error;
    if (failed(configureAttention(params, c, error)))
      return;
    attentionForwardReference(c, tensors, scalars[0], false);
  };
  spec.magnitudes = [](const KernelParams &params,
                       const std::vector<std::vector<double>> &tensors,
                       const std::vector<double> &scalars,
                       std::vector<std::vector<double>> &magnitudes) {
    AttentionConfig c;
    std::string error;
    if (failed(configureAttention(params, c, error)))
      return;
    magnitudes = tensors;
    attentionForwardReference(c, magnitudes, scalars[0], true);
    for (size_t i = 0; i < 3; ++i)
      magnitudes[i].clear();
  };
  return spec;
}
