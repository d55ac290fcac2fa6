//===- RMSNorm.h - RMSNorm kernels ------------------------------*- C++ -*-===//
//
// The RMSNorm family: forward and backward, each plain or with the residual
// add of a transformer block fused in (FusedAdd), plus the dw reduction the
// two backwards share. One configuration (RMSNormConfig) tiles all of them.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_KERNELS_NORM_RMSNORM_H
#define ROCDSL_KERNELS_NORM_RMSNORM_H

#include "rocdsl/DSL/DSL.h"
#include "rocdsl/Kernels/Registry.h"

namespace mlir::rocdsl {

/// How one RMSNorm specialization is tiled. Chosen from N and the dtypes
/// only, so the same (N, dtype) always yields the same code.
struct RMSNormConfig {
  int64_t n = 0;
  dsl::DType dtype = dsl::DType::BF16;
  dsl::DType weightDType = dsl::DType::BF16;
  unsigned vec = 1;       // elements per global access of x and y
  unsigned weightVec = 1; // elements per global access of the weight
  // The backward's fp32 partial sums [G, N]: access width when rmsnorm_bwd
  // stores its row (must divide vec, the layout's run) and when
  // rmsnorm_bwd_dw loads it; then the width of the dw store.
  unsigned partialStoreVec = 1;
  unsigned partialLoadVec = 1;
  unsigned weightGradStoreVec = 1;
  int64_t blockN = 0; // tile columns (a power of two)
  unsigned threadsAlongN = 64;
  unsigned warpsAlongN = 4;
  unsigned rowsPerProgram = 1;
  unsigned numWarps = 4;
  unsigned waveSize = 64; // lanes per wave: 64 on AMDGPU, 32 on NVIDIA
  /// The whole row stays in registers; otherwise (N > 8192) the kernels
  /// loop over blockN-wide column chunks, one row per program.
  bool singlePass = true;

  /// Tile of rmsnorm_bwd_dw: rows of partial sums per step, columns per
  /// program. Narrow columns give N / 32 programs (256 at N = 8192, enough
  /// to reach every multiprocessor) and tall steps keep 16 loads per lane
  /// in flight, so the few steps over G (the sums were just written and sit
  /// in L2) are not each a full memory latency for little data.
  static constexpr int64_t kWeightGradRows = 128, kWeightGradColumns = 32;
  /// Default cap on the backward's programs G (the max_programs parameter):
  /// enough to fill a GPU, few enough that dw_partial stays small.
  static constexpr int64_t kMaxBackwardPrograms = 1024;
  /// Backward with rows in registers: row tiles loaded ahead of the one
  /// being reduced (the prefetch parameter, 0..kMaxPrefetchDepth), so a
  /// program's loads overlap its reductions instead of waiting behind them.
  unsigned prefetchDepth = 1;
  static constexpr unsigned kMaxPrefetchDepth = 3;
  /// Backward with rows in registers (the stages parameter): 0 loads ahead
  /// into registers (prefetchDepth); S >= 2 copies x and dy of the next
  /// S - 1 row tiles asynchronously into S LDS buffers each instead
  /// (prefetchDepth unused).
  unsigned stages = 0;
  static constexpr unsigned kMaxStages = 8;
  /// Backward with rows in registers, one program (the direct_dw
  /// parameter): that program's column sums are dw, stored in the weight's
  /// dtype, so the dw reduction kernel is not needed. The plan launches one
  /// program whatever M is.
  bool directWeightGrad = false;
  /// Backward with rows in registers, any M (the atomic_dw parameter): one
  /// launch of G programs; each adds its fp32 column sums into dw_sums [N]
  /// (rocdsl.atomic_add), and the last program to arrive at dw_count
  /// (rocdsl.program_atomic) writes dw in the weight's dtype and leaves
  /// dw_sums zero and dw_count 0. The order of the float adds varies from
  /// run to run, so dw is not bitwise reproducible.
  bool atomicWeightGrad = false;
  /// Backward with rows in registers, any M (the tree_dw parameter): one
  /// launch of G programs, no data atomics. Each program stores its fp32
  /// column sums in row p of dw_partial and counts itself in its group of
  /// kTreeGroupPrograms programs (dw_count[1 + p / kTreeGroupPrograms]);
  /// the last of a group to arrive sums the group's rows into row G + group,
  /// then counts itself at dw_count[0], and the last such program sums the
  /// group rows into dw (weight dtype). The only atomics are the counts
  /// (one update a program, three more for the last of a group), the sums
  /// run in a fixed order (dw is bitwise reproducible), and dw_count is
  /// left all zero.
  bool treeWeightGrad = false;
  /// Programs a tree_dw group reduces: the last group's sum and the final
  /// one are what the launch waits for, 16 + G/16 rows, near the fewest
  /// (2 sqrt(G)) for the G up to a few hundred of a filled GPU.
  static constexpr int64_t kTreeGroupPrograms = 16;
  static int64_t treeGroups(int64_t programs) {
    return (programs + kTreeGroupPrograms - 1) / kTreeGroupPrograms;
  }

  /// Backward with rows in registers in one launch that writes dw itself
  /// (direct_dw, atomic_dw or tree_dw), not the [G, N] partials that
  /// rmsnorm_bwd_dw reduces.
  bool writesWeightGrad() const {
    return directWeightGrad || atomicWeightGrad || treeWeightGrad;
  }

  /// 128-bit accesses (the aligned fast path).
  bool isVectorized() const { return vec * dsl::bitWidth(dtype) == 128; }
  /// Programs needed for M rows.
  int64_t gridSize(int64_t m) const {
    return (m + rowsPerProgram - 1) / rowsPerProgram;
  }

  /// `lanes` per program (a multiple of the wave): 256 by default; the
  /// backward's `lanes` parameter may ask for 512 (half the row per lane).
  static RMSNormConfig choose(int64_t n, dsl::DType dtype,
                              dsl::DType weightDType, unsigned waveSize = 64,
                              unsigned lanes = 256);
};

/// Which member of a forward/backward pair a builder emits.
enum class RMSNormVariant {
  Plain,
  /// The residual add in front of the norm: h = x + residual.
  FusedAdd,
};

/// Forward, fp32 accumulation, row-major [M, N] activations.
///  rmsnorm_fwd: y = x * rsqrt(mean(x^2) + eps) * w.
///    Arguments: (x, w, y: pointers; M: i32 rows; eps: f32).
///  rmsnorm_add_fwd: h = x + residual, added in fp32 and rounded to dtype;
///    residual_out = h, y = rmsnorm(h) * w. The rounded h is what is
///    normalized (as in vLLM's and FlashInfer's fused_add_rmsnorm), so y is
///    exactly the plain forward of the residual_out that later layers read.
///    Arguments: (x, residual, w, y, residual_out: pointers; M; eps). In
///    place (residual_out = residual, y = x) is fine: each element is read
///    before it is written, by the lane that writes it.
OwningOpRef<ModuleOp>
buildRMSNormForward(MLIRContext *ctx, const RMSNormConfig &config,
                    RMSNormVariant variant = RMSNormVariant::Plain);

/// Backward, kernel 1 of 2: dx, and per-program fp32 column sums of
/// dy * x * rstd into dw_partial [G, N]; G programs = the grid, program p
/// taking row tiles p, p+G, ... With config.directWeightGrad the only
/// kernel: one program, and dw [N] (weight dtype) in dw_partial's place.
///  rmsnorm_bwd: arguments (x, w, dy, dx, dw_partial: pointers; M: i32;
///    eps: f32).
///  rmsnorm_add_bwd: the backward of rmsnorm_add_fwd. Arguments (h, w, dy,
///    dresidual_out, dx, dw_partial; M; eps), h = the forward's residual_out
///    and dresidual_out the gradient reaching residual_out from later
///    layers: dx = rmsnorm backward(dy, h, w) + dresidual_out. Since
///    h = x + residual, that one tensor is the gradient of both x and
///    residual.
OwningOpRef<ModuleOp>
buildRMSNormBackward(MLIRContext *ctx, const RMSNormConfig &config,
                     RMSNormVariant variant = RMSNormVariant::Plain);
/// Backward, kernel 2 of 2 (shared by both backwards): dw = sum over G of
/// dw_partial, cast to the weight dtype. Arguments: (dw_partial, dw:
/// pointers; G: i32).
OwningOpRef<ModuleOp> buildRMSNormWeightGrad(MLIRContext *ctx,
                                             const RMSNormConfig &config);

/// Arguments and grid of each kernel for M rows (RMSNormPlan.cpp). The
/// backward's G is min(row tiles, maxPrograms); both of its kernels must be
/// planned with the same cap.
LaunchPlan planRMSNormForward(const RMSNormConfig &config, int64_t m,
                              RMSNormVariant variant = RMSNormVariant::Plain);
LaunchPlan
planRMSNormBackward(const RMSNormConfig &config, int64_t m,
                    RMSNormVariant variant = RMSNormVariant::Plain,
                    int64_t maxPrograms = RMSNormConfig::kMaxBackwardPrograms);
LaunchPlan planRMSNormWeightGrad(
    const RMSNormConfig &config, int64_t m,
    int64_t maxPrograms = RMSNormConfig::kMaxBackwardPrograms);
/// The backward's default cap on programs (max_programs) on an NVIDIA
/// device of `multiprocessors` multiprocessors of `registersPerMultiprocessor`
/// registers each (RMSNormPlan.cpp): two programs a multiprocessor where two
/// fit its registers together and each still gets
/// kMinRowTilesForTwoPrograms row tiles, one otherwise.
int64_t defaultRMSNormBackwardPrograms(const RMSNormConfig &config, int64_t m,
                                       int64_t multiprocessors,
                                       int64_t registersPerMultiprocessor);
/// Programs of the backward's first kernel for M rows (G).
int64_t rmsNormBackwardPrograms(
    const RMSNormConfig &config, int64_t m,
    int64_t maxPrograms = RMSNormConfig::kMaxBackwardPrograms);

/// float64 references (RMSNormReference.cpp), row-major [m, n].
/// y = x * rsqrt(mean(x^2) + eps) * w.
void rmsNormForwardReference(int64_t m, int64_t n, double eps,
                             const std::vector<double> &x,
                             const std::vector<double> &w,
                             std::vector<double> &y);
/// residualOut = h = x + residual as the kernel rounds it (fp32 sum, then
/// `dtype`), y = the forward of h.
void rmsNormAddForwardReference(int64_t m, int64_t n, double eps,
                                dsl::DType dtype, const std::vector<double> &x,
                                const std::vector<double> &residual,
                                const std::vector<double> &w,
                                std::vector<double> &y,
                                std::vector<double> &residualOut);
/// dx and dw (summed over all rows); `dwMagnitude` gets the sums of the
/// terms' absolute values, the scale of dw's fp32 rounding. With
/// `dResidualOut` (rmsnorm_add_bwd, x = h), dx also adds it. `dxMagnitude`
/// gets the absolute values of dx's terms: dx = rstd * (w * dy - x * scale)
/// nearly cancels for short rows (N = 1 leaves w * dy * rstd * eps /
/// (x^2 + eps)), so its fp32 rounding scales with the terms, not with dx.
void rmsNormBackwardReference(
    int64_t m, int64_t n, double eps, const std::vector<double> &x,
    const std::vector<double> &w, const std::vector<double> &dy,
    std::vector<double> &dx, std::vector<double> &dw,
    std::vector<double> *dwMagnitude = nullptr,
    const std::vector<double> *dResidualOut = nullptr,
    std::vector<double> *dxMagnitude = nullptr);
/// What rmsnorm_bwd leaves in dw_partial [G, n] (G = its size / n): row p
/// sums dy * x * rstd over the rows of the tiles program p handles;
/// `magnitude` (if given) the terms' absolute values.
void rmsNormWeightGradPartialsReference(
    const RMSNormConfig &config, int64_t m, double eps,
    const std::vector<double> &x, const std::vector<double> &dy,
    std::vector<double> &partial, std::vector<double> *magnitude = nullptr);

/// Parameters shared by the RMSNorm kernels, and their parsing into a
/// configuration (with clear errors for bad values).
std::vector<KernelParamSpec> getRMSNormParams();
/// The one rule for eps, wherever it comes from (-D eps=..., the launch's
/// eps argument from C++, Python or PyTorch): what is wrong, or nullopt.
std::optional<std::string> checkRMSNormEps(double eps);
LogicalResult configureRMSNorm(const KernelParams &params,
                               RMSNormConfig &config, int64_t &m,
                               std::string &error);
/// The backward's kernels also take max_programs (the cap on G).
std::vector<KernelParamSpec> getRMSNormBackwardParams();
LogicalResult getRMSNormMaxPrograms(const KernelParams &params,
                                    int64_t &maxPrograms, std::string &error);
/// The backward's specialization parameters (prefetch, direct_dw) into
/// `config` (already configured by configureRMSNorm).
LogicalResult configureRMSNormBackward(const KernelParams &params,
                                       RMSNormConfig &config,
                                       std::string &error);

/// Registry entries (RMSNormSpecs.cpp).
KernelSpec getRMSNormForwardSpec(RMSNormVariant variant);
KernelSpec getRMSNormBackwardSpec(RMSNormVariant variant);
KernelSpec getRMSNormWeightGradSpec();
/// The family in registry order: forward, fused-add forward, both
/// backwards, the weight-gradient reduction.
std::vector<KernelSpec> getRMSNormSpecs();

} // namespace mlir::rocdsl

#endif
