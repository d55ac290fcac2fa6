//===- AttentionSpec.cpp - attention_fwd as a built-in kernel -------------===//
#include "Attention.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::rocdsl;

/// The parameters both directions share (the forward adds prefetch, the
/// backward its step).
static std::vector<KernelParamSpec> sharedParams() {
  return {
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
      {"softcap", "0",
       "logit soft cap c: scores c * tanh(scale * q.k / c) (0: none)", false},
      {"layout", "bhsd",
       "tensor layout: bhsd (q [B, Hq, Sq, D], torch's), bshd (q [B, Sq, Hq, "
       "D], FlashAttention's) or varlen (packed sequences q [Tq, Hq, D] "
       "delimited by cu_seqlens_q/_k [B + 1], lse [Hq, Tq]; Sq, Sk the "
       "longest)",
       false},
      {"Tq", "0", "varlen: packed query rows (0: B * Sq)", false},
      {"Tk", "0", "varlen: packed key rows (0: B * Sk)", false},
  };
}

static const KernelParamSpec chipParam = {
    "chip", "gfx942",
    "target whose matrix instruction and tiles the kernel uses; set from "
    "the device or --chip",
    false};
static const KernelParamSpec scaleParam = {
    "scale", "0", "score scale (launch-time; 0: 1/sqrt(D))", true};

/// The hooks of either direction's entry over `configure`d parameters.
static KernelSpec makeAttentionSpec(bool backward) {
  KernelSpec spec;
  spec.targetDefaults = [backward](const TargetFacts &facts,
                                   std::vector<std::string> &defs,
                                   std::string &) {
    if (facts.chip && !definesParam(defs, "chip"))
      defs.insert(defs.begin(), "chip=" + facts.chip->name.str());
    // The host turns each tile op into whole-tile vector code whose LLVM
    // compile time grows with the tile: one wave's rows, and no prefetch
    // (nothing to hide there; the backward has none).
    std::vector<StringRef> hostDefs = {"warps=1"};
    if (!backward)
      hostDefs.push_back("prefetch=0");
    if (!facts.chip)
      for (StringRef def : hostDefs)
        if (!definesParam(defs, def.split('=').first))
          defs.insert(defs.begin(), def.str());
    return success();
  };
  using Tensors = std::vector<std::vector<double>>;
  auto configured = [backward](const KernelParams &params, AttentionConfig &c) {
    std::string error;
    return succeeded(configureAttention(params, c, error, backward));
  };
  spec.build = [backward](MLIRContext *ctx, const KernelParams &params,
                          std::string &error) -> OwningOpRef<ModuleOp> {
    AttentionConfig c;
    if (failed(configureAttention(params, c, error, backward)))
      return nullptr;
    return backward ? buildAttentionBackward(ctx, c)
                    : buildAttentionForward(ctx, c);
  };
  spec.plan = [backward](const KernelParams &params, LaunchPlan &plan,
                         std::string &error) -> LogicalResult {
    AttentionConfig c;
    if (failed(configureAttention(params, c, error, backward)))
      return failure();
    plan = backward ? planAttentionBackward(c) : planAttentionForward(c);
    return success();
  };
  // The hooks below run after the plan succeeded on the same parameters.
  spec.reference = [backward, configured](const KernelParams &params,
                                          Tensors &tensors,
                                          const std::vector<double> &scalars) {
    AttentionConfig c;
    if (!configured(params, c))
      return;
    if (backward)
      attentionBackwardReference(c, tensors, scalars[0], false);
    else
      attentionForwardReference(c, tensors, scalars[0], false);
    // dq_atomic's scratch (after the sequences) is left as it was found.
    if (backward && c.dqAtomic)
      for (size_t i = c.varlen() ? 11 : 9; i < tensors.size(); ++i)
        std::fill(tensors[i].begin(), tensors[i].end(), 0.0);
  };
  spec.magnitudes = [backward, configured](const KernelParams &params,
                                           const Tensors &tensors,
                                           const std::vector<double> &scalars,
                                           Tensors &magnitudes) {
    AttentionConfig c;
    if (!configured(params, c))
      return;
    magnitudes = tensors;
    if (backward)
      attentionBackwardReference(c, magnitudes, scalars[0], true);
    else
      attentionForwardReference(c, magnitudes, scalars[0], true);
    // Only the outputs' entries are magnitudes.
    size_t firstOutput = backward ? 6 : 3, outputs = backward ? 3 : 2;
    for (size_t i = 0; i < magnitudes.size(); ++i)
      if (i < firstOutput || i >= firstOutput + outputs)
        magnitudes[i].clear();
  };
  return spec;
}

/// Varlen: ragged cu_seqlens (tensors `first` and `first` + 1) covering
/// every packed row, different each run (seeded by the random q).
static void prepareSequences(const AttentionConfig &c,
                             std::vector<std::vector<double>> &tensors,
                             size_t first) {
  if (!c.varlen())
    return;
  uint64_t seed = 0;
  for (size_t i = 0; i < std::min<size_t>(8, tensors[0].size()); ++i)
    seed = seed * 1000003 + uint64_t(std::fabs(tensors[0][i]) * 1e6);
  tensors[first] = raggedSequences(c.batch, c.tq, c.sq, seed);
  tensors[first + 1] = raggedSequences(c.batch, c.tk, c.sk, seed + 1);
}

KernelSpec mlir::rocdsl::getAttentionForwardSpec() {
  KernelSpec spec = makeAttentionSpec(/*backward=*/false);
  spec.prepareInputs = [](const KernelParams &params,
                          std::vector<std::vector<double>> &tensors,
                          const std::vector<double> &, bool) {
    AttentionConfig c;
    std::string error;
    if (succeeded(configureAttention(params, c, error)))
      prepareSequences(c, tensors, 5);
  };
  spec.name = "attention_fwd";
  spec.summary = "out = softmax(scale * q k^T + mask) v and its log-sum-exp, "
                 "FlashAttention-2 style (bf16/f16, f32 statistics)";
  spec.params = sharedParams();
  spec.params.insert(
      spec.params.end(),
      {{"BM", "0", "query rows a program (0: one matrix instruction a wave)",
        false},
       {"BN", "0",
        "keys a step (0: with wgmma 128 at head dimensions 65-128, else 64; "
        "otherwise 64 on NVIDIA up to head dimension 64, else 32)",
        false},
       {"warps", "0",
        "waves (warps) per program: 1, 2, 4, 8 (0: 8 with wgmma, else 4)",
        false},
       {"wgmma", "auto",
        "sm_90a: 1 computes both products with warpgroup MMA (wgmma) from "
        "LDS (D and Dv multiples of 64, warps 4 or 8, BN a multiple of 64, "
        "stages 2-4; Q stays in LDS, P passes through it); 0: mma.sync; "
        "auto: wgmma where the chip and the parameters given allow it and "
        "its tiles fit, else mma.sync",
        false},
       {"prefetch", "1",
        "1: each key step issues the next step's key and value loads before "
        "its products (their latency hidden behind them; stages=1 only)",
        false},
       {"stages", "0",
        "1: keys and values pass through registers; 2-4: copied "
        "asynchronously into that many LDS buffers, stages - 1 key steps "
        "ahead (cp.async on NVIDIA) and K^T read from K's rows (0: 2 with "
        "wgmma, and on NVIDIA where two buffers take at most half the "
        "shared memory; else 1)",
        false},
       chipParam,
       scaleParam});
  return spec;
}

KernelSpec mlir::rocdsl::getAttentionBackwardSpec() {
  KernelSpec spec = makeAttentionSpec(/*backward=*/true);
  spec.name = "attention_bwd";
  spec.summary = "dq, dk, dv of attention_fwd from dout, lse and "
                 "attention_bwd_delta's delta, FlashAttention-2 style in one "
                 "deterministic launch (dQ by atomic adds with dq_atomic=1 "
                 "on sm_90a)";
  spec.params = sharedParams();
  spec.params.insert(
      spec.params.end(),
      {{"BM", "0", "queries a dQ program owns (0: 16 rows a wave)", false},
       {"BN", "0", "keys a dK/dV program owns (0: 16 rows a wave)", false},
       {"step", "0",
        "queries a dK/dV program takes a step, keys a dQ program takes a "
        "step (0: 64 with wgmma, which needs 64; 32 otherwise, 64 with the "
        "default warps on NVIDIA up to head dimension 64)",
        false},
       {"warps", "0",
        "waves (warps) per program: 1, 2, 4, 8 (0: 4 with wgmma, 8 with "
        "dq_atomic=1; 8 on NVIDIA's mma.sync up to head dimension 128; "
        "else 4)",
        false},
       {"wgmma", "auto",
        "sm_90a: 1 computes every product with warpgroup MMA (wgmma) from "
        "LDS (D and Dv multiples of 64, warps 4 or 8, step 64; a program's "
        "own rows stay in LDS, the other side's arrive by cp.async into two "
        "buffers, P^T and dS^T pass through LDS); 0: mma.sync; auto: wgmma "
        "where the chip and the parameters given allow it and its tiles "
        "fit, else mma.sync",
        false},
       {"dq_atomic", "0",
        "1: no dQ programs; each key program adds its dQ^T = K^T dS^T into "
        "the fp32 scratch dq_accum with atomic adds, and the last of a block "
        "of queries' key programs (dq_count) writes its dq and clears the "
        "scratch (needs wgmma and D a multiple of 16 * warps; the float "
        "sums' order varies from run to run; slower than 0 on an H100 "
        "today); 0: dQ programs of their own, no atomics, the same bits "
        "every run",
        false},
       chipParam,
       scaleParam});
  spec.prepareInputs = [](const KernelParams &params,
                          std::vector<std::vector<double>> &tensors,
                          const std::vector<double> &scalars, bool check) {
    AttentionConfig c;
    std::string error;
    if (failed(configureAttention(params, c, error, /*backward=*/true)))
      return;
    prepareSequences(c, tensors, 9);
    if (!check)
      return;
    // A checked run takes lse from the float64 forward of its q, k and v
    // (rounded as the kernel reads them), and delta = rowsum(dout * out)
    // from that forward's out rounded to the element type, as
    // attention_bwd_delta would compute it: the backward sees what a
    // forward would have given it.
    std::vector<std::vector<double>> forward = {
        tensors[0], tensors[1], tensors[2], {}, {}};
    if (c.varlen())
      forward.insert(forward.end(), {tensors[9], tensors[10]});
    attentionForwardReference(c, forward, scalars[0], false);
    tensors[4] = std::move(forward[4]);
    for (double &x : forward[3])
      x = dsl::roundToDType(x, c.dtype);
    std::vector<std::vector<double>> delta = {std::move(forward[3]),
                                              tensors[3],
                                              std::move(tensors[5])};
    if (c.varlen())
      delta.insert(delta.end(), {tensors[9], tensors[10]});
    attentionBackwardDeltaReference(c, delta);
    tensors[5] = std::move(delta[2]);
  };
  return spec;
}

KernelSpec mlir::rocdsl::getAttentionBackwardDeltaSpec() {
  KernelSpec spec;
  spec.name = "attention_bwd_delta";
  spec.summary = "delta = rowsum(dout * out) per query row in fp32 (lse's "
                 "shape): attention_bwd's preprocessing, launched before it "
                 "with the same definitions";
  spec.params = sharedParams();
  spec.params.push_back(chipParam);
  spec.targetDefaults = [](const TargetFacts &facts,
                           std::vector<std::string> &defs, std::string &) {
    if (facts.chip && !definesParam(defs, "chip"))
      defs.insert(defs.begin(), "chip=" + facts.chip->name.str());
    return success();
  };
  spec.build = [](MLIRContext *ctx, const KernelParams &params,
                  std::string &error) -> OwningOpRef<ModuleOp> {
    AttentionConfig c;
    if (failed(configureAttentionShapes(params, c, error)))
      return nullptr;
    return buildAttentionBackwardDelta(ctx, c);
  };
  spec.plan = [](const KernelParams &params, LaunchPlan &plan,
                 std::string &error) -> LogicalResult {
    AttentionConfig c;
    if (failed(configureAttentionShapes(params, c, error)))
      return failure();
    plan = planAttentionBackwardDelta(c);
    return success();
  };
  spec.prepareInputs = [](const KernelParams &params,
                          std::vector<std::vector<double>> &tensors,
                          const std::vector<double> &, bool) {
    AttentionConfig c;
    std::string error;
    if (succeeded(configureAttentionShapes(params, c, error)))
      prepareSequences(c, tensors, 3);
  };
  auto reference = [](const KernelParams &params,
                      std::vector<std::vector<double>> &tensors, bool abs) {
    AttentionConfig c;
    std::string error;
    if (failed(configureAttentionShapes(params, c, error)))
      return;
    if (abs)
      for (size_t i : {0, 1})
        for (double &x : tensors[i])
          x = std::fabs(x);
    attentionBackwardDeltaReference(c, tensors);
  };
  spec.reference = [reference](const KernelParams &params,
                               std::vector<std::vector<double>> &tensors,
                               const std::vector<double> &) {
    reference(params, tensors, false);
  };
  // delta sums Dv products in fp32: its rounding scales with their
  // magnitudes, not with delta's own.
  spec.magnitudes = [reference](const KernelParams &params,
                                const std::vector<std::vector<double>> &tensors,
                                const std::vector<double> &,
                                std::vector<std::vector<double>> &magnitudes) {
    magnitudes = tensors;
    reference(params, magnitudes, true);
    for (size_t i = 0; i < magnitudes.size(); ++i)
      if (i != 2)
        magnitudes[i].clear();
  };
  return spec;
}
