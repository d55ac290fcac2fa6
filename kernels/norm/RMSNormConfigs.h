//===- RMSNormConfigs.h - the one RMSNorm test matrix -----------*- C++ -*-===//
//
// Every test, ISA check and benchmark of the RMSNorm kernels (forward and
// backward, plain and fused-add, and the dw reduction) takes its cases from
// here, so their coverage cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_KERNELS_NORM_RMSNORMCONFIGS_H
#define ROCDSL_KERNELS_NORM_RMSNORMCONFIGS_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::rocdsl {

struct RMSNormCase {
  int64_t n;
  std::string dtype;
  std::string weightDType; // "same" or a dtype
  /// -D definitions for the kernel registry (M excluded).
  std::vector<std::string> definitions() const {
    return {"N=" + std::to_string(n), "dtype=" + dtype,
            "wdtype=" + weightDType};
  }
  std::string name() const {
    return "N" + std::to_string(n) + "_" + dtype +
           (weightDType == "same" ? "" : "_w" + weightDType);
  }
};

/// Row lengths: tiny, short rows sharing a workgroup, aligned and unaligned
/// single-pass rows (unaligned above 2048 included), the single-pass limit,
/// and looping rows: unaligned, aligned with a partial last chunk, and
/// whole chunks.
inline std::vector<int64_t> getRMSNormRowLengths() {
  return {1, 128, 1000, 2050, 3001, 4096, 8192, 10001, 10008, 20480};
}

inline std::vector<RMSNormCase> getRMSNormCases() {
  std::vector<RMSNormCase> cases;
  for (const char *dtype : {"f32", "f16", "bf16"})
    for (int64_t n : getRMSNormRowLengths())
      cases.push_back({n, dtype, "same"});
  cases.push_back({4096, "bf16", "f32"}); // fp32 weight with bf16 activations
  cases.push_back({3001, "f16", "f32"});
  cases.push_back({10008, "bf16", "f32"}); // and on the looping path
  return cases;
}

/// Row counts: one row, a count that leaves the last workgroup partial, and
/// enough rows for several workgroups.
inline std::vector<int64_t> getRMSNormRowCounts() { return {1, 5, 64}; }

} // namespace mlir::rocdsl

#endif
