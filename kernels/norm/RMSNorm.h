//===- RMSNorm.h - RMSNorm kernels ------------------------------*- C++ -*-===//
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
  bool singlePass = true; // the whole row stays in registers

  /// Tile of rmsnorm_bwd_dw: rows of partial sums per step, columns per
  /// program.
  static constexpr int64_t kWeightGradRows = 8, kWeightGradColumns = 512;

  /// 128-bit accesses (the aligned fast path).
  bool isVectorized() const { return vec * dsl::bitWidth(dtype) == 128; }
  /// Programs needed for M rows.
  int64_t gridSize(int64_t m) const {
    return (m + rowsPerProgram - 1) / rowsPerProgram;
  }

  static RMSNormConfig choose(int64_t n, dsl::DType dtype,
                              dsl::DType weightDType, unsigned waveSize = 64);
};

/// y[m, :] = x[m, :] * rsqrt(mean(x[m, :]^2) + eps) * w, fp32 accumulation.
/// Arguments: (x, w, y: pointers; M: i32 rows; eps: f32).
OwningOpRef<ModuleOp> buildRMSNormForward(MLIRContext *ctx,
                                          const RMSNormConfig &config);

/// Arguments (x, w, y, M, eps) and grid for M rows.
LaunchPlan planRMSNormForward(const RMSNormConfig &config, int64_t m);

/// y = x * rsqrt(mean(x^2) + eps) * w in float64, row-major [m, n].
void rmsNormForwardReference(int64_t m, int64_t n, double eps,
                             const std::vector<double> &x,
                             const std::vector<double> &w,
                             std::vector<double> &y);

/// Parameters shared by the RMSNorm kernels, and their parsing into a
/// configuration (with clear errors for bad values).
std::vector<KernelParamSpec> getRMSNormParams();
LogicalResult configureRMSNorm(const KernelParams &params,
                               RMSNormConfig &config, int64_t &m,
                               std::string &error);

KernelSpec getRMSNormForwardSpec();
KernelSpec getRMSNormBackwardSpec();
KernelSpec getRMSNormWeightGradSpec();

/// Backward, kernel 1 of 2: dx, and per-program fp32 column sums of
/// dy * x * rstd into dw_partial [G, N]. Arguments: (x, w, dy, dx,
/// dw_partial: pointers; M: i32; eps: f32); G programs = the grid.
OwningOpRef<ModuleOp> buildRMSNormBackward(MLIRContext *ctx,
                                           const RMSNormConfig &config);
/// Backward, kernel 2 of 2: dw = sum over G of dw_partial, cast to the
/// weight dtype. Arguments: (dw_partial, dw: pointers; G: i32).
OwningOpRef<ModuleOp> buildRMSNormWeightGrad(MLIRContext *ctx,
                                             const RMSNormConfig &config);
/// dx and dw in float64 (dw summed over all rows).
void rmsNormBackwardReference(int64_t m, int64_t n, double eps,
                              const std::vector<double> &x,
                              const std::vector<double> &w,
                              const std::vector<double> &dy,
                              std::vector<double> &dx, std::vector<double> &dw,
                              std::vector<double> *dwMagnitude = nullptr);

/// Programs of the backward's first kernel for M rows.
int64_t rmsNormBackwardPrograms(const RMSNormConfig &config, int64_t m);

} // namespace mlir::rocdsl

#endif
