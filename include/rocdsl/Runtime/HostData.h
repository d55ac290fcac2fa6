//===- HostData.h - host buffers for checking kernels -----------*- C++ -*-===//
//
// Random inputs, poisoned outputs and float64 comparisons with tolerances
// by dtype: what every numerics check (tests, rocdsl-run) shares.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_HOSTDATA_H
#define ROCDSL_RUNTIME_HOSTDATA_H

#include "rocdsl/DSL/DSL.h"

#include <cstddef>
#include <memory>
#include <random>
#include <vector>

namespace mlir::rocdsl {

/// A 64-byte aligned host buffer of `count` elements of `dtype`.
class HostBuffer {
public:
  HostBuffer(dsl::DType dtype, size_t count);
  /// False when the allocation failed (too large for this machine).
  bool isValid() const { return storage != nullptr; }
  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  size_t bytes() const { return size; }
  size_t count() const { return elements; }
  dsl::DType dtype() const { return type; }

  /// Normally distributed values (mean 0, stddev 1), rounded to the dtype.
  void fillRandom(std::mt19937_64 &rng);
  /// NaN in every element, so anything a kernel fails to write shows up.
  void poison();
  std::vector<double> toDoubles() const;
  /// Stores `values` (one per element), rounded to the dtype.
  void assign(const std::vector<double> &values);

private:
  struct Free {
    void operator()(void *p) const;
  };
  std::unique_ptr<void, Free> storage;
  dsl::DType type;
  size_t elements, size;
};

struct Comparison {
  size_t count = 0, mismatches = 0, nonFinite = 0;
  double maxAbsError = 0, maxRelError = 0;
  double atol = 0, rtol = 0;
  /// ||out - ref|| / ||ref|| over the whole output (compareToReference
  /// with magnitudes says what ||ref|| stands for), and its bound (0: not
  /// checked).
  double relL2Error = 0, maxRelL2Error = 0;
  bool withinL2() const {
    return maxRelL2Error == 0 || relL2Error <= maxRelL2Error;
  }
  bool passed() const {
    return mismatches == 0 && nonFinite == 0 && withinL2();
  }
};

/// |out - ref| <= atol + rtol * |ref| per element, tolerances by dtype (the
/// rounding of one final cast plus fp32 accumulation); non-finite outputs
/// always fail.
Comparison compareToReference(const HostBuffer &out,
                              const std::vector<double> &reference);
/// For outputs that are sums of many terms: the relative tolerance applies
/// to `magnitude[i]` (the sum of the terms' absolute values) when it exceeds
/// |reference[i]|, since rounding scales with the terms, not their sum.
/// That bound is a worst case, loose where the terms cancel (an error of a
/// few percent in every element can hide under it), so the output as a
/// whole must also be within 2 * rtol of the reference in the L2 norm:
/// rounding errors of independent terms grow with the square root of
/// their number, an error in the computation with the number itself.
/// (Where the terms cancel more than a random sum of 256 would, the norm is
/// relative to a sixteenth of the magnitudes' norm instead.)
Comparison compareToReference(const HostBuffer &out,
                              const std::vector<double> &reference,
                              const std::vector<double> &magnitude);

} // namespace mlir::rocdsl

#endif
