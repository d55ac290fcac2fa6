//===- Attention.h - the attention family -----------------------*- C++ -*-===//
//
// Scaled dot-product attention over tensors in PyTorch's layout:
//   q [B, Hq, Sq, D], k [B, Hkv, Sk, D], v [B, Hkv, Sk, Dv]
//   out [B, Hq, Sq, Dv], lse [B, Hq, Sq] (fp32, natural log)
// with grouped heads (query head h reads key/value head h / (Hq / Hkv)),
// causal and sliding-window masks, a logit soft cap and a custom scale.
//
// The scores are s = scale * q.k, or with a soft cap c > 0
// s = c * tanh(scale * q.k / c) (Gemma 2's), before the mask.
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

#include <optional>
#include <utility>

namespace mlir::rocdsl {

/// Where the tensors keep heads and sequences:
///   BHSD    q [B, Hq, Sq, D] ... (PyTorch's SDPA), lse [B, Hq, Sq];
///   BSHD    q [B, Sq, Hq, D] ... (FlashAttention's), lse [B, Hq, Sq];
///   Varlen  packed sequences: q [Tq, Hq, D], k [Tk, Hkv, D] ..., batch
///           entry b's rows from cu_seqlens_q[b] to cu_seqlens_q[b + 1]
///           (FlashAttention's varlen functions), lse [Hq, Tq]; Sq and Sk
///           are the longest sequences.
enum class AttentionLayout { BHSD, BSHD, Varlen };

/// The K extent of one LDS operand tile of warpgroup MMA (128-byte rows of
/// bf16/f16), hence the granule of D, Dv and BN on that path.
constexpr int64_t kWarpgroupBlock = 64;

struct AttentionConfig;
/// dq_atomic's count of blocks of `step` queries (dq_count's entries):
/// one per block of the longest sequence, per batch entry and query head.
int64_t queryBlockCounts(const AttentionConfig &c);
/// The backward's grid: its key programs and (without dq_atomic) its query
/// programs.
int64_t backwardPrograms(const AttentionConfig &c);

struct AttentionConfig {
  int64_t batch = 1, hq = 1, hkv = 1, sq = 1, sk = 1, d = 64, dv = 64;
  AttentionLayout layout = AttentionLayout::BHSD;
  /// Varlen: the packed rows of q (and out) and of k (and v).
  int64_t tq = 0, tk = 0;
  dsl::DType dtype = dsl::DType::BF16;
  bool causal = false, bottomRight = false;
  /// Logit soft cap; 0: none.
  double softcap = 0;
  /// -1: unbounded.
  int64_t windowLeft = -1, windowRight = -1;
  /// Program tile: BM query rows (split over the waves, each wave owning
  /// whole rows so that row statistics never leave it), BN keys a step.
  int64_t bm = 0, bn = 0, warps = 4;
  /// Whether each step issues the next step's key and value loads before
  /// its products (their latency hidden behind them, at the cost of the
  /// registers that hold them).
  bool prefetch = true;
  /// Forward: 1 passes keys and values through registers (with
  /// `prefetch`); 2-4 copies them asynchronously into that many LDS
  /// buffers, stages - 1 steps ahead. 0 until configured: the target's
  /// default.
  int64_t stages = 0;
  /// The backward's inner step: queries a step of a dK/dV program (which
  /// owns BN keys), keys a step of a dQ program (which owns BM queries).
  int64_t step = 0;
  unsigned waveSize = 64;
  unsigned ldsBanks = 32;
  bool ldsTransposeReads = false;
  /// AMD matrix instruction (M, N, K), K elements per lane, layout
  /// version; NVIDIA uses mma.sync m16n8k16.
  unsigned instr[3] = {32, 32, 8};
  unsigned kWidth = 4, matrixVersion = 3;
  bool nvidia = false;
  /// Forward on sm_90a: both products on warpgroup MMA (wgmma) from LDS,
  /// in kWarpgroupBlock-wide tiles.
  bool wgmma = false;
  /// Backward: dQ added atomically into an fp32 scratch by the key
  /// programs, converted by the last to add into each block of queries;
  /// no query programs (dq_atomic).
  bool dqAtomic = false;

  /// The diagonal's key offset: 0 top-left, Sk - Sq bottom-right.
  int64_t offset() const { return bottomRight ? sk - sq : 0; }
  /// The bound j - (i + offset) <= right, or -1 when keys right of the
  /// diagonal are all seen.
  int64_t rightBound() const { return causal ? 0 : windowRight; }
  bool varlen() const { return layout == AttentionLayout::Varlen; }
  /// Whether key j is visible to query i (of sequences of sq and sk rows).
  bool sees(int64_t i, int64_t j) const { return sees(i, j, sq, sk); }
  bool sees(int64_t i, int64_t j, int64_t sqRows, int64_t skRows) const {
    int64_t diff = j - (i + (bottomRight ? skRows - sqRows : 0));
    if (rightBound() >= 0 && diff > rightBound())
      return false;
    return windowLeft < 0 || diff >= -windowLeft;
  }
};

/// A tensor argument in PyTorch's contiguous layout, aligned for the
/// widest row access; the launch-time scale (finite; 0: 1/sqrt(D)).
ArgSignature attentionTensorArg(const char *name, dsl::DType dtype,
                                std::vector<int64_t> shape, bool output);
ArgSignature attentionScaleArg();
/// The shape of q/out (`query`) or k/v with `cols` elements a row, and of
/// the lse, in the configured layout.
std::vector<int64_t> attentionShape(const AttentionConfig &c, bool query,
                                    int64_t cols);
std::vector<int64_t> attentionLseShape(const AttentionConfig &c);
/// Varlen: the cu_seqlens_q and cu_seqlens_k arguments (i32 [B + 1]), which
/// follow the other tensors.
void appendSequenceArgs(const AttentionConfig &c,
                        std::vector<ArgSignature> &args);
/// The same as the kernel's arguments.
void appendSequenceArgSpecs(const AttentionConfig &c,
                            SmallVectorImpl<dsl::ArgSpec> &args);
/// Varlen: ragged cu_seqlens for rocdsl-run: `total` rows over `batch`
/// entries of 0 to `longest` rows each, every row used.
std::vector<double> raggedSequences(int64_t batch, int64_t total,
                                    int64_t longest, uint64_t seed);

/// Reads and checks the parameters both directions share (shapes, head
/// grouping, masks, layout, dtype, chip), not the tiles.
LogicalResult configureAttentionShapes(const KernelParams &params,
                                       AttentionConfig &config,
                                       std::string &error);
/// Reads and checks the parameters (shapes, head grouping, masks, tiles)
/// of the forward kernel, or with `backward` of the backward kernel.
LogicalResult configureAttention(const KernelParams &params,
                                 AttentionConfig &config, std::string &error,
                                 bool backward = false);

/// The steps of a program's walk over the other sequence that its mask
/// leaves anything in. The program owns rows [r0, r0 + rows) of one
/// sequence and steps over columns [0, extent) of the other, `step` at a
/// time; row r sees column c when lower <= c - r <= upper (a missing bound:
/// none). The steps [lo, hi) come in three runs: [lo, mid0) and [mid1, hi)
/// need the mask, [mid0, mid1) is seen whole (every row sees every column
/// of every step there, all inside `extent`). lo, mid0 and mid1 are
/// multiples of `step` (or equal hi).
struct StepRuns {
  dsl::Scalar lo, mid0, mid1, hi;
};
StepRuns getStepRuns(dsl::KernelBuilder &kb, dsl::Scalar r0, int64_t rows,
                     dsl::Scalar extent, int64_t step,
                     std::optional<dsl::Scalar> lower,
                     std::optional<dsl::Scalar> upper);

/// Walks `runs` `step` rows at a time, carrying `state`: the masked steps
/// below (when `maskedBelow`), the whole ones, the masked ones above (when
/// `maskedAbove`); `body(masked, row0, carried)` is one step.
SmallVector<dsl::Tile> walkStepRuns(
    dsl::KernelBuilder &kb, const StepRuns &runs, int64_t step,
    ArrayRef<dsl::Tile> state, bool maskedBelow, bool maskedAbove,
    function_ref<SmallVector<dsl::Tile>(bool masked, dsl::Scalar row0,
                                        ArrayRef<dsl::Tile> carried)>
        body);

/// The (rows x cols) i1 tile, in `layout`, of the pairs (row r, column c)
/// with c < extent and lower <= c - r <= upper, for rows `row` (a 1-D tile
/// in the slice of `layout` along dimension 1) and columns `col` (along
/// dimension 0).
dsl::Tile visiblePairs(dsl::KernelBuilder &kb, dsl::Tile row, dsl::Tile col,
                       dsl::Scalar extent, std::optional<dsl::Scalar> lower,
                       std::optional<dsl::Scalar> upper);

/// One batch entry's query and key sequences: where their rows start along
/// the sequence dimension (b * S, or cu_seqlens[b] clamped into the packed
/// rows) and how many there are.
struct Sequences {
  dsl::Scalar qStart, qLength, kStart, kLength;
  /// The mask's bounds on key - query: none, or offset - window_left and
  /// offset + right with this entry's diagonal offset.
  std::optional<dsl::Scalar> lower, upper;
};
Sequences getSequences(dsl::KernelBuilder &kb, const AttentionConfig &c,
                       dsl::Scalar batch);
/// `body`, in the varlen layout only where `row0` is below `length`: a
/// program past the end of a short packed sequence has nothing to do.
void withinSequence(dsl::KernelBuilder &kb, const AttentionConfig &c,
                    dsl::Scalar row0, dsl::Scalar length,
                    function_ref<void()> body);

/// One head of one sequence in a tensor as rows of a 2-D view: the
/// sequence's row r is view row first + r, rows before `end` exist, the
/// head's `cols` elements start at `column`, rows are `stride` apart.
struct HeadRows {
  dsl::Scalar first, end, column;
  int64_t stride = 0, cols = 0;
};
/// q, out, dq (`query` true: Hq heads) or k, v, dk, dv (Hkv heads) with
/// `cols` elements a row.
HeadRows getHeadRows(dsl::KernelBuilder &kb, const AttentionConfig &c,
                     const Sequences &seq, dsl::Scalar batch, dsl::Scalar head,
                     bool query, int64_t cols);
/// `view` with its rows ending `hi` rows past its first (or where they
/// end already).
HeadRows boundedRows(dsl::KernelBuilder &kb, const HeadRows &view,
                     dsl::Scalar hi);
/// Columns [col, col + cols) of `view`'s rows.
HeadRows columnRange(const HeadRows &view, int64_t col, int64_t cols);
/// The layout warpgroup MMA reads an LDS operand tile of `shape` in: the
/// unit's 128-byte swizzle, the last dimension fastest.
dsl::Layout warpgroupOperandLayout(dsl::KernelBuilder &kb,
                                   ArrayRef<int64_t> shape, dsl::DType dtype);
/// LDS tiles for warpgroup MMA: `count` buffers of `shape`.
dsl::LdsTile allocWarpgroupTiles(dsl::KernelBuilder &kb,
                                 const AttentionConfig &c, unsigned count,
                                 ArrayRef<int64_t> shape);
/// Asynchronous copies of rows [row0, row0 + R) of `view` into `blocks`
/// ([n, R, 64]): block p gets columns [64 p, 64 p + 64). Each such block
/// serves warpgroup MMA both as a K-major operand (R x 64, K fastest) and
/// as a panel of a row-major one (K = R rows, 64 columns).
void copyColumnBlocks(dsl::KernelBuilder &kb, const AttentionConfig &c,
                      dsl::Ptr ptr, const HeadRows &view, dsl::Scalar row0,
                      dsl::LdsTile blocks);
/// Rows [row0, row0 + R) of `view` through registers into `tiles` ([n, R,
/// 64], block p columns [64 p, 64 p + 64)), each block `transform`ed
/// first.
void storeColumnBlocks(dsl::KernelBuilder &kb, const AttentionConfig &c,
                       dsl::Ptr ptr, const HeadRows &view, dsl::Scalar row0,
                       dsl::LdsTile tiles,
                       function_ref<dsl::Tile(dsl::Tile)> transform = nullptr);
/// The lse (and delta) entries of query head `head`.
HeadRows getLseRows(dsl::KernelBuilder &kb, const AttentionConfig &c,
                    const Sequences &seq, dsl::Scalar batch, dsl::Scalar head);
/// `count` entries of a row statistic (lse, delta: getLseRows's `view`)
/// from row `row0`, in `layout` (zeros past the view's end); and the same
/// entries stored (none past the end).
dsl::Tile loadRowStats(dsl::KernelBuilder &kb, dsl::Ptr ptr,
                       const HeadRows &view, dsl::Scalar row0, int64_t count,
                       dsl::Layout layout);
void storeRowStats(dsl::KernelBuilder &kb, dsl::Tile stats, dsl::Ptr ptr,
                   const HeadRows &view, dsl::Scalar row0);
/// `rows` rows of `view` from its row `row0` (zeros past its end),
/// coalesced, as wide as the row allows; elements of `dtype` (none: the
/// kernel's element type).
dsl::Tile loadHeadRows(dsl::KernelBuilder &kb, const AttentionConfig &c,
                       dsl::Ptr ptr, const HeadRows &view, dsl::Scalar row0,
                       int64_t rows, std::optional<dsl::DType> dtype = {});
/// The same rows copied asynchronously into LDS tile `dst` (rows x
/// view.cols; rocdsl.async_copy, zeros past the view's end).
void copyHeadRows(dsl::KernelBuilder &kb, const AttentionConfig &c,
                  dsl::Ptr ptr, const HeadRows &view, dsl::Scalar row0,
                  dsl::LdsTile dst);
/// `tile` (rows x view.cols, any layout) rounded to the element type (or
/// `dtype`) and stored through LDS in coalesced 128-bit accesses from row
/// `row0`.
void storeHeadRows(dsl::KernelBuilder &kb, const AttentionConfig &c,
                   dsl::Tile tile, dsl::Ptr ptr, const HeadRows &view,
                   dsl::Scalar row0, std::optional<dsl::DType> dtype = {});

/// The soft-capped scores from the raw products q.k: c * tanh(scale * x /
/// c), returned with tanh's value t (the backward's 1 - t^2).
std::pair<dsl::Tile, dsl::Tile> softcapScores(dsl::KernelBuilder &kb,
                                              dsl::Tile raw, dsl::Scalar scale,
                                              double cap);
OwningOpRef<ModuleOp> buildAttentionForward(MLIRContext *ctx,
                                            const AttentionConfig &config);
LaunchPlan planAttentionForward(const AttentionConfig &config);
/// The float64 forward: fills out and lse (tensors 3 and 4) from q, k, v
/// and the scale; with `magnitudes`, the scales of their rounding instead.
void attentionForwardReference(const AttentionConfig &config,
                               std::vector<std::vector<double>> &tensors,
                               double scale, bool magnitudes);
KernelSpec getAttentionForwardSpec();

/// The backward's preprocessing (attention_bwd_delta): delta =
/// rowsum(dout * out) in fp32 for every query row, in lse's shape.
OwningOpRef<ModuleOp>
buildAttentionBackwardDelta(MLIRContext *ctx, const AttentionConfig &config);
LaunchPlan planAttentionBackwardDelta(const AttentionConfig &config);
/// Tensors: out, dout (inputs), delta (output), then the sequences.
void attentionBackwardDeltaReference(const AttentionConfig &config,
                                     std::vector<std::vector<double>> &tensors);
KernelSpec getAttentionBackwardDeltaSpec();

/// The backward, one launch after attention_bwd_delta's: programs [0,
/// keyPrograms) each own BN keys of one key/value head and accumulate their
/// dK and dV over the query steps of every query head of its group; the
/// programs after them each own BM queries of one query head and
/// accumulate dQ over the key steps. Both recompute the scores and read
/// delta; no atomics, no workspace, deterministic (dq_atomic aside).
OwningOpRef<ModuleOp> buildAttentionBackward(MLIRContext *ctx,
                                             const AttentionConfig &config);
LaunchPlan planAttentionBackward(const AttentionConfig &config);
/// Tensors: q, k, v, dout, lse, delta (inputs), dq, dk, dv (outputs).
/// The float64 backward from the given lse and delta, filling dq, dk, dv;
/// with `magnitudes`, the sums of their terms' absolute values instead.
void attentionBackwardReference(const AttentionConfig &config,
                                std::vector<std::vector<double>> &tensors,
                                double scale, bool magnitudes);
KernelSpec getAttentionBackwardSpec();

} // namespace mlir::rocdsl

#endif
