//===- Attention.h - the attention family -----------------------*- C++ -*-===//
//
// Scaled dot-product attention over tensors in PyTorch's layout:
//   q [B, Hq, Sq, D], k [B, Hkv, Sk, D], v [B, Hkv, Sk, Dv]
//   out [B, Hq, Sq, Dv], lse [B, Hq, Sq] (fp32, natural log)
// with grouped heads (query head h reads key/value head h / (Hq / Hkv)),
// causal and sliding-window masks, and a custom scale.
//
// Masks, in FlashAttention's terms: query i sees key j when
//   j <= i + offset + right   (right = 0 with causal=1, else window_right;
//                              no bound when -1)
//   j >= i + offset - window_left   (no bound when -1)
// where offset = 0 for align=top_left (torch's is_causal) and Sk - Sq for
// align=bottom_right (FlashAttention's causal when Sq != Sk). A query that
// sees no key gets out = 0 and lse = +inf (so that a backward pass's
// exp(s - lse) is 0 for it), never NaN.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_KERNELS_ATTENTION_ATTENTION_H
#define ROCDSL_KERNELS_ATTENTION_ATTENTION_H

#include "rocdsl/Kernels/Registry.h"

namespace mlir::rocdsl {

struct AttentionConfig {
  int64_t batch = 1, hq = 1, hkv = 1, sq = 1, sk = 1, d = 64, dv = 64;
  dsl::DType dtype = dsl::DType::BF16;
  bool causal = false, bottomRight = false;
  /// -1: unbounded.
  int64_t windowLeft = -1, windowRight = -1;
  /// Program tile: BM query rows (split over the waves, each wave owning
  /// whole rows so that row statistics never leave it), BN keys a step.
  int64_t bm = 0, bn = 0, warps = 4;
  /// Whether each step issues the next step's key and value loads before
  /// its products (their latency hidden behind them, at the cost of the
  /// registers that hold them).
  bool prefetch = true;
  unsigned waveSize = 64;
  unsigned ldsBanks = 32;
  /// AMD matrix instruction (M, N, K), K elements per lane, layout
  /// version; NVIDIA uses mma.sync m16n8k16.
  unsigned instr[3] = {32, 32, 8};
  unsigned kWidth = 4, matrixVersion = 3;
  bool nvidia = false;

  /// The diagonal's key offset: 0 top-left, Sk - Sq bottom-right.
  int64_t offset() const { return bottomRight ? sk - sq : 0; }
  /// The bound j - (i + offset) <= right, or -1 when keys right of the
  /// diagonal are all seen.
  int64_t rightBound() const { return causal ? 0 : windowRight; }
  /// Whether key j is visible to query i.
  bool sees(int64_t i, int64_t j) const {
    int64_t diff = j - (i + offset());
    if (rightBound() >= 0 && diff > rightBound())
      return false;
    return windowLeft < 0 || diff >= -windowLeft;
  }
};

/// Reads and checks the parameters (shapes, head grouping, masks, tiles).
LogicalResult configureAttention(const KernelParams &params,
                                 AttentionConfig &config, std::string &error);
OwningOpRef<ModuleOp> buildAttentionForward(MLIRContext *ctx,
                                            const AttentionConfig &config);
LaunchPlan planAttentionForward(const AttentionConfig &config);
/// The float64 forward: fills out and lse (tensors 3 and 4) from q, k, v
/// and the scale; with `magnitudes`, the scales of their rounding instead.
void attentionForwardReference(const AttentionConfig &config,
                               std::vector<std::vector<double>> &tensors,
                               double scale, bool magnitudes);
KernelSpec getAttentionForwardSpec();

} // namespace mlir::rocdsl

#endif
