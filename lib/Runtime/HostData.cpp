//===- HostData.cpp - host buffers for checking kernels -------------------===//
#include "rocdsl/Runtime/HostData.h"

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace mlir::rocdsl;
using dsl::DType;

static void store(void *data, DType dtype, size_t i, double v) {
  switch (dtype) {
  case DType::F32:
    static_cast<float *>(data)[i] = static_cast<float>(v);
    return;
  case DType::F16:
    static_cast<_Float16 *>(data)[i] = static_cast<_Float16>(v);
    return;
  case DType::BF16:
    static_cast<uint16_t *>(data)[i] = dsl::bf16Bits(static_cast<float>(v));
    return;
  case DType::I32:
    static_cast<int32_t *>(data)[i] = static_cast<int32_t>(v);
    return;
  case DType::I1:
    static_cast<uint8_t *>(data)[i] = v != 0;
    return;
  }
}

static double load(const void *data, DType dtype, size_t i) {
  switch (dtype) {
  case DType::F32:
    return static_cast<const float *>(data)[i];
  case DType::F16:
    return static_cast<double>(static_cast<const _Float16 *>(data)[i]);
  case DType::BF16:
    return dsl::fromBF16Bits(static_cast<const uint16_t *>(data)[i]);
  case DType::I32:
    return static_cast<const int32_t *>(data)[i];
  case DType::I1:
    return static_cast<const uint8_t *>(data)[i];
  }
  return 0;
}

void HostBuffer::Free::operator()(void *p) const { std::free(p); }

HostBuffer::HostBuffer(DType dtype, size_t count)
    : type(dtype), elements(count) {
  size_t elementBytes = std::max(1u, dsl::bitWidth(dtype) / 8);
  if (count > (SIZE_MAX - 64) / elementBytes) {
    size = 0;
    return; // not representable: isValid() is false
  }
  size = count * elementBytes;
  size_t rounded = (std::max<size_t>(size, 1) + 63) / 64 * 64;
  storage.reset(std::aligned_alloc(64, rounded));
}

void HostBuffer::fillRandom(std::mt19937_64 &rng) {
  std::normal_distribution<double> dist(0.0, 1.0);
  for (size_t i = 0; i < elements; ++i)
    store(data(), type, i, dist(rng));
}

void HostBuffer::poison() {
  for (size_t i = 0; i < elements; ++i)
    store(data(), type, i, std::numeric_limits<double>::quiet_NaN());
}

std::vector<double> HostBuffer::toDoubles() const {
  std::vector<double> out(elements);
  for (size_t i = 0; i < elements; ++i)
    out[i] = load(data(), type, i);
  return out;
}

void HostBuffer::assign(const std::vector<double> &values) {
  for (size_t i = 0; i < elements && i < values.size(); ++i)
    store(data(), type, i, values[i]);
}

Comparison mlir::rocdsl::compareToReference(const HostBuffer &out,
                                            const std::vector<double> &ref) {
  return compareToReference(out, ref, {});
}

Comparison
mlir::rocdsl::compareToReference(const HostBuffer &out,
                                 const std::vector<double> &ref,
                                 const std::vector<double> &magnitude) {
  Comparison c;
  switch (out.dtype()) {
  case DType::F32:
    c.atol = 1e-5, c.rtol = 1e-5;
    break;
  case DType::F16:
    c.atol = 1e-3, c.rtol = 2e-3; // one rounding: 2^-11 relative
    break;
  case DType::BF16:
    c.atol = 1e-2, c.rtol = 1e-2; // one rounding: 2^-8 relative
    break;
  default:
    break;
  }
  std::vector<double> got = out.toDoubles();
  c.count = got.size();
  double errorSquares = 0, referenceSquares = 0, magnitudeSquares = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) {
      // An infinity the reference defines (attention's +inf log-sum-exp
      // of a row that sees no key) is a match, NaN never is.
      if (got[i] == ref[i])
        continue;
      ++c.nonFinite;
      continue;
    }
    double err = std::fabs(got[i] - ref[i]);
    errorSquares += err * err;
    referenceSquares += ref[i] * ref[i];
    c.maxAbsError = std::max(c.maxAbsError, err);
    if (ref[i] != 0)
      c.maxRelError = std::max(c.maxRelError, err / std::fabs(ref[i]));
    double scale = std::fabs(ref[i]);
    if (!magnitude.empty()) {
      scale = std::max(scale, magnitude[i]);
      magnitudeSquares += magnitude[i] * magnitude[i];
    }
    if (err > c.atol + c.rtol * scale)
      ++c.mismatches;
  }
  // Relative to the reference, or to a sixteenth of the terms'
  // magnitudes where the terms cancel more than a random sum of 256 would
  // (an output that is nearly all cancellation, such as RMSNorm's dx at
  // N = 1, keeps only rounding noise of its terms' size).
  double norm = std::max(std::sqrt(referenceSquares),
                         std::sqrt(magnitudeSquares) / 16);
  if (!magnitude.empty() && norm > 0) {
    c.relL2Error = std::sqrt(errorSquares) / norm;
    c.maxRelL2Error = 2 * c.rtol;
  }
  return c;
}
