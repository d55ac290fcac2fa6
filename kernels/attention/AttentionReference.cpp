//===- AttentionReference.cpp - the float64 attention ---------------------===//
#include "Attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir::rocdsl;

/// The score of a scaled product x: x, or c tanh(x / c) with a soft cap.
static double cappedScore(const AttentionConfig &c, double x) {
  return c.softcap > 0 ? c.softcap * std::tanh(x / c.softcap) : x;
}

namespace {
/// Element offsets of rows in the configured layout, and the sequences of
/// each batch entry (varlen: from the cu_seqlens tensors, clamped as the
/// kernel clamps them).
class Rows {
public:
  Rows(const AttentionConfig &c, const std::vector<std::vector<double>> &t,
       size_t cuIndex)
      : c(c) {
    for (int64_t b = 0; b <= c.batch; ++b) {
      qStart.push_back(b * c.sq);
      kStart.push_back(b * c.sk);
    }
    if (c.varlen()) {
      clamp(t[cuIndex], c.tq, c.sq, qStart, qEnd);
      clamp(t[cuIndex + 1], c.tk, c.sk, kStart, kEnd);
    } else {
      for (int64_t b = 0; b < c.batch; ++b) {
        qEnd.push_back(qStart[size_t(b)] + c.sq);
        kEnd.push_back(kStart[size_t(b)] + c.sk);
      }
    }
  }
  int64_t queries(int64_t b) const { return qEnd[b] - qStart[b]; }
  int64_t keys(int64_t b) const { return kEnd[b] - kStart[b]; }
  /// Offset of query row i of head h of entry b in a tensor of `cols`.
  size_t query(int64_t b, int64_t h, int64_t i, int64_t cols) const {
    return at(b, h, i, c.hq, c.sq, qStart[b], cols);
  }
  size_t key(int64_t b, int64_t h, int64_t j, int64_t cols) const {
    return at(b, h, j, c.hkv, c.sk, kStart[b], cols);
  }
  size_t lse(int64_t b, int64_t h, int64_t i) const {
    return size_t(c.varlen() ? h * c.tq + qStart[b] + i
                             : (b * c.hq + h) * c.sq + i);
  }

private:
  size_t at(int64_t b, int64_t h, int64_t r, int64_t heads, int64_t extent,
            int64_t start, int64_t cols) const {
    if (c.layout == AttentionLayout::BHSD)
      return size_t(((b * heads + h) * extent + r) * cols);
    return size_t(((start + r) * heads + h) * cols);
  }
  void clamp(const std::vector<double> &cu, int64_t total, int64_t longest,
             std::vector<int64_t> &start, std::vector<int64_t> &end) {
    start.clear();
    for (int64_t b = 0; b < c.batch; ++b) {
      int64_t s = std::clamp<int64_t>(int64_t(cu[b]), 0, total);
      int64_t e = std::clamp<int64_t>(int64_t(cu[b + 1]), s, total);
      start.push_back(s);
      end.push_back(s + std::min(e - s, longest));
    }
  }

  const AttentionConfig &c;
  std::vector<int64_t> qStart, qEnd, kStart, kEnd;
};
} // namespace

/// Elements of q/out (`query`) or k/v with `cols` a row.
static size_t elements(const AttentionConfig &c, bool query, int64_t cols) {
  size_t n = 1;
  for (int64_t d : attentionShape(c, query, cols))
    n *= size_t(d);
  return n;
}

void mlir::rocdsl::attentionForwardReference(
    const AttentionConfig &c, std::vector<std::vector<double>> &t, double scale,
    bool magnitudes) {
  const std::vector<double> &q = t[0], &k = t[1], &v = t[2];
  std::vector<double> &out = t[3], &lse = t[4];
  Rows rows(c, t, 5);
  if (scale == 0)
    scale = 1 / std::sqrt(double(c.d));
  out.assign(elements(c, true, c.dv), 0.0);
  size_t lseSize = 1;
  for (int64_t d : attentionLseShape(c))
    lseSize *= size_t(d);
  // Entries outside every sequence (varlen) are never written: +inf, as a
  // row that sees no key.
  lse.assign(lseSize, magnitudes ? 0 : std::numeric_limits<double>::infinity());
  std::vector<double> s(size_t(c.sk));
  for (int64_t e = 0; e < c.batch; ++e)
    for (int64_t h = 0; h < c.hq; ++h) {
      int64_t kvh = h / (c.hq / c.hkv);
      int64_t sq = rows.queries(e), sk = rows.keys(e);
      for (int64_t i = 0; i < sq; ++i) {
        const double *query = &q[rows.query(e, h, i, c.d)];
        // Scores, -inf for the keys the mask hides (their weight is 0).
        double max = -std::numeric_limits<double>::infinity();
        double absMax = 0;
        for (int64_t j = 0; j < sk; ++j) {
          s[size_t(j)] = -std::numeric_limits<double>::infinity();
          if (!c.sees(i, j, sq, sk))
            continue;
          const double *key = &k[rows.key(e, kvh, j, c.d)];
          double dot = 0, absDot = 0;
          for (int64_t d = 0; d < c.d; ++d) {
            dot += query[d] * key[d];
            absDot += std::fabs(query[d] * key[d]);
          }
          s[size_t(j)] = cappedScore(c, scale * dot);
          max = std::max(max, s[size_t(j)]);
          absMax = std::max(absMax, std::fabs(scale) * absDot);
        }
        double *o = &out[rows.query(e, h, i, c.dv)];
        size_t l = rows.lse(e, h, i);
        if (max == -std::numeric_limits<double>::infinity()) {
          // No key seen: out 0, lse +inf (the kernel's convention).
          lse[l] = magnitudes ? 0 : std::numeric_limits<double>::infinity();
          continue;
        }
        // Unnormalized weights in place of the scores.
        double sum = 0;
        for (int64_t j = 0; j < sk; ++j)
          sum += s[size_t(j)] = std::exp(s[size_t(j)] - max);
        for (int64_t j = 0; j < sk; ++j) {
          double p = s[size_t(j)] / sum;
          if (p == 0)
            continue;
          const double *value = &v[rows.key(e, kvh, j, c.dv)];
          for (int64_t d = 0; d < c.dv; ++d)
            o[d] += magnitudes ? p * std::fabs(value[d]) : p * value[d];
        }
        double value = max + std::log(sum);
        // The log-sum-exp's rounding scales with the scores it sums (each
        // an fp32 dot product of D terms).
        lse[l] = magnitudes ? std::fabs(value) + absMax : value;
      }
    }
}

void mlir::rocdsl::attentionBackwardReference(
    const AttentionConfig &c, std::vector<std::vector<double>> &t, double scale,
    bool magnitudes) {
  const std::vector<double> &q = t[0], &k = t[1], &v = t[2], &dout = t[3],
                            &lse = t[4], &deltas = t[5];
  std::vector<double> &dq = t[6], &dk = t[7], &dv = t[8];
  Rows rows(c, t, 9);
  if (scale == 0)
    scale = 1 / std::sqrt(double(c.d));
  dq.assign(q.size(), 0.0);
  dk.assign(k.size(), 0.0);
  dv.assign(v.size(), 0.0);
  auto abs = [&](double x) { return magnitudes ? std::fabs(x) : x; };
  for (int64_t e = 0; e < c.batch; ++e)
    for (int64_t h = 0; h < c.hq; ++h) {
      int64_t kvh = h / (c.hq / c.hkv);
      int64_t sq = rows.queries(e), sk = rows.keys(e);
      for (int64_t i = 0; i < sq; ++i) {
        const double *query = &q[rows.query(e, h, i, c.d)];
        const double *dO = &dout[rows.query(e, h, i, c.dv)];
        double *dQ = &dq[rows.query(e, h, i, c.d)];
        double rowLse = lse[rows.lse(e, h, i)];
        double delta = deltas[rows.lse(e, h, i)];
        for (int64_t j = 0; j < sk; ++j) {
          if (!c.sees(i, j, sq, sk))
            continue;
          const double *key = &k[rows.key(e, kvh, j, c.d)];
          const double *value = &v[rows.key(e, kvh, j, c.dv)];
          double *dK = &dk[rows.key(e, kvh, j, c.d)];
          double *dV = &dv[rows.key(e, kvh, j, c.dv)];
          double dot = 0, dp = 0;
          for (int64_t d = 0; d < c.d; ++d)
            dot += query[d] * key[d];
          for (int64_t d = 0; d < c.dv; ++d)
            dp += dO[d] * value[d];
          double x = scale * dot, s = cappedScore(c, x);
          // The forward's weight (0 for a row that saw no key: lse +inf).
          double p = std::exp(s - rowLse);
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
            dQ[d] += ds * abs(key[d]);
            dK[d] += ds * abs(query[d]);
          }
          for (int64_t d = 0; d < c.dv; ++d)
            dV[d] += p * abs(dO[d]);
        }
      }
    }
}

void mlir::rocdsl::attentionBackwardDeltaReference(
    const AttentionConfig &c, std::vector<std::vector<double>> &t) {
  const std::vector<double> &out = t[0], &dout = t[1];
  std::vector<double> &delta = t[2];
  Rows rows(c, t, 3);
  size_t entries = 1;
  for (int64_t d : attentionLseShape(c))
    entries *= size_t(d);
  delta.assign(entries, 0.0);
  for (int64_t e = 0; e < c.batch; ++e)
    for (int64_t h = 0; h < c.hq; ++h)
      for (int64_t i = 0; i < rows.queries(e); ++i) {
        size_t row = rows.query(e, h, i, c.dv);
        double sum = 0;
        for (int64_t d = 0; d < c.dv; ++d)
          sum += out[row + size_t(d)] * dout[row + size_t(d)];
        delta[rows.lse(e, h, i)] = sum;
      }
}
