//===- AttentionReference.cpp - the float64 attention ---------------------===//
#include "Attention.h"

#include <cmath>
#include <limits>

using namespace mlir::rocdsl;

/// The score of a scaled product x: x, or c tanh(x / c) with a soft cap.
static double cappedScore(const AttentionConfig &c, double x) {
  return c.softcap > 0 ? c.softcap * std::tanh(x / c.softcap) : x;
}

void mlir::rocdsl::attentionForwardReference(
    const AttentionConfig &c, std::vector<std::vector<double>> &t, double scale,
    bool magnitudes) {
  const std::vector<double> &q = t[0], &k = t[1], &v = t[2];
  std::vector<double> &out = t[3], &lse = t[4];
  if (scale == 0)
    scale = 1 / std::sqrt(double(c.d));
  out.assign(size_t(c.batch * c.hq * c.sq * c.dv), 0.0);
  lse.assign(size_t(c.batch * c.hq * c.sq), 0.0);
  std::vector<double> s(size_t(c.sk));
  for (int64_t e = 0; e < c.batch; ++e)
    for (int64_t h = 0; h < c.hq; ++h) {
      int64_t kvh = e * c.hkv + h / (c.hq / c.hkv);
      const double *keys = &k[size_t(kvh * c.sk * c.d)];
      const double *values = &v[size_t(kvh * c.sk * c.dv)];
      for (int64_t i = 0; i < c.sq; ++i) {
        size_t row = size_t((e * c.hq + h) * c.sq + i);
        const double *query = &q[row * size_t(c.d)];
        // Scores, -inf for the keys the mask hides (their weight is 0).
        double max = -std::numeric_limits<double>::infinity();
        double absMax = 0;
        for (int64_t j = 0; j < c.sk; ++j) {
          s[size_t(j)] = -std::numeric_limits<double>::infinity();
          if (!c.sees(i, j))
            continue;
          double dot = 0, absDot = 0;
          for (int64_t d = 0; d < c.d; ++d) {
            dot += query[d] * keys[j * c.d + d];
            absDot += std::fabs(query[d] * keys[j * c.d + d]);
          }
          s[size_t(j)] = cappedScore(c, scale * dot);
          max = std::max(max, s[size_t(j)]);
          absMax = std::max(absMax, std::fabs(scale) * absDot);
        }
        double *o = &out[row * size_t(c.dv)];
        if (max == -std::numeric_limits<double>::infinity()) {
          // No key seen: out 0, lse +inf (the kernel's convention).
          lse[row] = magnitudes ? 0 : std::numeric_limits<double>::infinity();
          continue;
        }
        // Unnormalized weights in place of the scores.
        double sum = 0;
        for (double &w : s)
          sum += w = std::exp(w - max);
        for (int64_t j = 0; j < c.sk; ++j) {
          double p = s[size_t(j)] / sum;
          if (p == 0)
            continue;
          for (int64_t d = 0; d < c.dv; ++d)
            o[d] += magnitudes ? p * std::fabs(values[j * c.dv + d])
                               : p * values[j * c.dv + d];
        }
        double value = max + std::log(sum);
        // The log-sum-exp's rounding scales with the scores it sums (each
        // an fp32 dot product of D terms).
        lse[row] = magnitudes ? std::fabs(value) + absMax : value;
      }
    }
}

void mlir::rocdsl::attentionBackwardReference(
    const AttentionConfig &c, std::vector<std::vector<double>> &t, double scale,
    bool magnitudes) {
  const std::vector<double> &q = t[0], &k = t[1], &v = t[2], &out = t[3],
                            &dout = t[4], &lse = t[5];
  std::vector<double> &dq = t[6], &dk = t[7], &dv = t[8];
  if (scale == 0)
    scale = 1 / std::sqrt(double(c.d));
  dq.assign(q.size(), 0.0);
  dk.assign(k.size(), 0.0);
  dv.assign(v.size(), 0.0);
  auto abs = [&](double x) { return magnitudes ? std::fabs(x) : x; };
  for (int64_t e = 0; e < c.batch; ++e)
    for (int64_t h = 0; h < c.hq; ++h) {
      size_t kvh = size_t(e * c.hkv + h / (c.hq / c.hkv));
      for (int64_t i = 0; i < c.sq; ++i) {
        size_t row = size_t((e * c.hq + h) * c.sq + i);
        const double *query = &q[row * size_t(c.d)];
        const double *dO = &dout[row * size_t(c.dv)];
        double delta = 0;
        for (int64_t d = 0; d < c.dv; ++d)
          delta += dO[d] * out[row * size_t(c.dv) + size_t(d)];
        for (int64_t j = 0; j < c.sk; ++j) {
          if (!c.sees(i, j))
            continue;
          size_t key = kvh * size_t(c.sk) + size_t(j);
          const double *keys = &k[key * size_t(c.d)];
          const double *values = &v[key * size_t(c.dv)];
          double dot = 0, dp = 0;
          for (int64_t d = 0; d < c.d; ++d)
            dot += query[d] * keys[d];
          for (int64_t d = 0; d < c.dv; ++d)
            dp += dO[d] * values[d];
          double x = scale * dot, s = cappedScore(c, x);
          // The forward's weight (0 for a row that saw no key: lse +inf).
          double p = std::exp(s - lse[row]);
          // ds/dx of the cap: 1 - tanh^2.
          double capSlope = 1;
          if (c.softcap > 0) {
            double th = std::tanh(x / c.softcap);
            capSlope = 1 - th * th;
          }
          // dL/d(q.k): the products with it are rounded (dS to the element
          // type) term by term, so their magnitudes are sums of |terms|.
          double ds = abs(p * (dp - delta) * capSlope * scale);
          for (int64_t d = 0; d < c.d; ++d) {
            dq[row * size_t(c.d) + size_t(d)] += ds * abs(keys[d]);
            dk[key * size_t(c.d) + size_t(d)] += ds * abs(query[d]);
          }
          for (int64_t d = 0; d < c.dv; ++d)
            dv[key * size_t(c.dv) + size_t(d)] += p * abs(dO[d]);
        }
      }
    }
}
