//===- RMSNormReference.cpp - float64 references of the RMSNorm kernels ---===//
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

void mlir::rocdsl::rmsNormAddForwardReference(
    int64_t m, int64_t n, double eps, DType dtype, const std::vector<double> &x,
    const std::vector<double> &residual, const std::vector<double> &w,
    std::vector<double> &y, std::vector<double> &residualOut) {
  // The inputs hold dtype values, exact in fp32: their fp32 sum, rounded
  // to dtype, is the h the kernel stores and normalizes.
  for (int64_t i = 0; i < m * n; ++i)
    residualOut[i] = roundToDType(float(x[i]) + float(residual[i]), dtype);
  rmsNormForwardReference(m, n, eps, residualOut, w, y);
}

void mlir::rocdsl::rmsNormBackwardReference(
    int64_t m, int64_t n, double eps, const std::vector<double> &x,
    const std::vector<double> &w, const std::vector<double> &dy,
    std::vector<double> &dx, std::vector<double> &dw,
    std::vector<double> *dwMagnitude, const std::vector<double> *dResidualOut,
    std::vector<double> *dxMagnitude) {
  std::fill(dw.begin(), dw.end(), 0.0);
  if (dwMagnitude)
    dwMagnitude->assign(n, 0.0);
  if (dxMagnitude)
    dxMagnitude->assign(size_t(m * n), 0.0);
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
      if (dResidualOut)
        dx[r * n + c] += (*dResidualOut)[r * n + c];
      if (dxMagnitude)
        (*dxMagnitude)[r * n + c] =
            std::fabs(rstd * w[c] * dyr[c]) + std::fabs(rstd * xr[c] * scale) +
            (dResidualOut ? std::fabs((*dResidualOut)[r * n + c]) : 0.0);
      dw[c] += dyr[c] * xr[c] * rstd;
      if (dwMagnitude)
        (*dwMagnitude)[c] += std::fabs(dyr[c] * xr[c] * rstd);
    }
  }
}

void mlir::rocdsl::rmsNormWeightGradPartialsReference(
    const RMSNormConfig &config, int64_t m, double eps,
    const std::vector<double> &x, const std::vector<double> &dy,
    std::vector<double> &partial, std::vector<double> *magnitude) {
  const int64_t n = config.n, g = int64_t(partial.size()) / n;
  std::fill(partial.begin(), partial.end(), 0.0);
  if (magnitude)
    magnitude->assign(partial.size(), 0.0);
  for (int64_t r = 0; r < m; ++r) {
    const double *xr = x.data() + r * n, *dyr = dy.data() + r * n;
    double sumSquares = 0;
    for (int64_t c = 0; c < n; ++c)
      sumSquares += xr[c] * xr[c];
    double rstd = 1.0 / std::sqrt(sumSquares / double(n) + eps);
    // Row tiles are dealt to the G programs round-robin.
    int64_t row = (r / config.rowsPerProgram) % g * n;
    for (int64_t c = 0; c < n; ++c) {
      double term = dyr[c] * xr[c] * rstd;
      partial[row + c] += term;
      if (magnitude)
        (*magnitude)[row + c] += std::fabs(term);
    }
  }
}
