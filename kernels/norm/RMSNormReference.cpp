//===- RMSNormReference.cpp - float64 references and launch plans ---------===//
#include "RMSNorm.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

void mlir::rocdsl::rmsNormForwardReference(int64_t m, int64_t n, double eps,
                                           const std::vector<double> &x,
                                           const std::vector<double> &w,
                                           std::vector<double> &y) {
  for (int64_t r = 0; r < m; ++r) {
    const double *row = x.data() + r * n;
    double sumSquares = 0;
    for (int64_t c = 0; c < n; ++c)
      sumSquares += row[c] * row[c];
    double inv = 1.0 / std::sqrt(sumSquares / double(n) + eps);
    for (int64_t c = 0; c < n; ++c)
      y[r * n + c] = row[c] * inv * w[c];
  }
}

LaunchPlan mlir::rocdsl::planRMSNormForward(const RMSNormConfig &c, int64_t m) {
  unsigned xAlign = c.vec * bitWidth(c.dtype) / 8;
  unsigned wAlign = c.weightVec * bitWidth(c.weightDType) / 8;
  LaunchPlan plan;
  plan.kernelName = "rmsnorm_fwd";
  plan.args = {
      {"x", ArgKind::Tensor, c.dtype, {m, c.n}, xAlign, false},
      {"w", ArgKind::Tensor, c.weightDType, {c.n}, wAlign, false},
      {"y", ArgKind::Tensor, c.dtype, {m, c.n}, xAlign, true},
      {"M", ArgKind::Int32, DType::I32, {}, 1, false, m},
      {"eps", ArgKind::Float32, DType::F32, {}, 1, false},
  };
  plan.grid[0] = static_cast<uint32_t>(c.gridSize(m));
  return plan;
}

void mlir::rocdsl::rmsNormBackwardReference(int64_t m, int64_t n, double eps,
                                            const std::vector<double> &x,
                                            const std::vector<double> &w,
                                            const std::vector<double> &dy,
                                            std::vector<double> &dx,
                                            std::vector<double> &dw,
                                            std::vector<double> *dwMagnitude) {
  std::fill(dw.begin(), dw.end(), 0.0);
  if (dwMagnitude)
    dwMagnitude->assign(n, 0.0);
  for (int64_t r = 0; r < m; ++r) {
    const double *xr = x.data() + r * n, *dyr = dy.data() + r * n;
    double sumSquares = 0, sumWdyX = 0;
    for (int64_t c = 0; c < n; ++c) {
      sumSquares += xr[c] * xr[c];
      sumWdyX += w[c] * dyr[c] * xr[c];
    }
    double rstd = 1.0 / std::sqrt(sumSquares / double(n) + eps);
    double scale = rstd * rstd * sumWdyX / double(n);
    for (int64_t c = 0; c < n; ++c) {
      dx[r * n + c] = rstd * (w[c] * dyr[c] - xr[c] * scale);
      dw[c] += dyr[c] * xr[c] * rstd;
      if (dwMagnitude)
        (*dwMagnitude)[c] += std::fabs(dyr[c] * xr[c] * rstd);
    }
  }
}
