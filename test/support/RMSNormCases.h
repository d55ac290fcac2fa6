//===- RMSNormCases.h - the one RMSNorm test matrix -------------*- C++ -*-===//
//
// Every test, ISA check and benchmark of the RMSNorm kernels (forward and
// backward, plain and fused-add, and the dw reduction) takes its cases from
// test/support/rmsnorm-cases.json, which the Python tests read as well, so
// their coverage cannot drift apart. The file is read once, on first use;
// a missing or malformed file is a fatal error naming it.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_TEST_SUPPORT_RMSNORMCASES_H
#define ROCDSL_TEST_SUPPORT_RMSNORMCASES_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef ROCDSL_TEST_SUPPORT_DIR
#error "ROCDSL_TEST_SUPPORT_DIR must name test/support"
#endif

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

namespace detail {

struct RMSNormMatrix {
  std::vector<int64_t> rowLengths, rowCounts;
  std::vector<RMSNormCase> cases;
  /// The CI subset of the numerics matrices ("representative").
  std::vector<RMSNormCase> representativeCases;
};

[[noreturn]] inline void badRMSNormMatrix(const std::string &why) {
  llvm::report_fatal_error(llvm::Twine(ROCDSL_TEST_SUPPORT_DIR) +
                           "/rmsnorm-cases.json: " + why);
}

inline std::vector<int64_t> readInts(const llvm::json::Object &o,
                                     llvm::StringRef key) {
  const llvm::json::Array *a = o.getArray(key);
  if (!a || a->empty())
    badRMSNormMatrix("\"" + key.str() + "\" is not a non-empty array");
  std::vector<int64_t> out;
  for (const llvm::json::Value &v : *a) {
    std::optional<int64_t> x = v.getAsInteger();
    if (!x || *x < 1)
      badRMSNormMatrix("\"" + key.str() + "\" holds a non-positive entry");
    out.push_back(*x);
  }
  return out;
}

inline const RMSNormMatrix &rmsnormMatrix() {
  static const RMSNormMatrix matrix = [] {
    std::string path = ROCDSL_TEST_SUPPORT_DIR "/rmsnorm-cases.json";
    auto file = llvm::MemoryBuffer::getFile(path);
    if (!file)
      badRMSNormMatrix("cannot be read");
    llvm::Expected<llvm::json::Value> json =
        llvm::json::parse((*file)->getBuffer());
    if (!json)
      badRMSNormMatrix(llvm::toString(json.takeError()));
    const llvm::json::Object *root = json->getAsObject();
    if (!root)
      badRMSNormMatrix("is not an object");
    RMSNormMatrix m;
    m.rowLengths = readInts(*root, "row_lengths");
    m.rowCounts = readInts(*root, "row_counts");
    const llvm::json::Array *dtypes = root->getArray("dtypes");
    if (!dtypes || dtypes->empty())
      badRMSNormMatrix("\"dtypes\" is not a non-empty array");
    for (const llvm::json::Value &d : *dtypes) {
      std::optional<llvm::StringRef> name = d.getAsString();
      if (!name)
        badRMSNormMatrix("\"dtypes\" holds a non-string");
      for (int64_t n : m.rowLengths)
        m.cases.push_back({n, name->str(), "same"});
    }
    if (const llvm::json::Array *mixed = root->getArray("mixed_weight_cases"))
      for (const llvm::json::Value &v : *mixed) {
        const llvm::json::Object *c = v.getAsObject();
        std::optional<int64_t> n = c ? c->getInteger("n") : std::nullopt;
        std::optional<llvm::StringRef> dtype =
            c ? c->getString("dtype") : std::nullopt;
        std::optional<llvm::StringRef> weight =
            c ? c->getString("weight_dtype") : std::nullopt;
        if (!n || !dtype || !weight)
          badRMSNormMatrix("a mixed weight case lacks n, dtype or "
                           "weight_dtype");
        m.cases.push_back({*n, dtype->str(), weight->str()});
      }
    const llvm::json::Object *rep = root->getObject("representative");
    std::optional<llvm::StringRef> repDType =
        rep ? rep->getString("dtype") : std::nullopt;
    if (!repDType)
      badRMSNormMatrix("\"representative\" lacks a \"dtype\"");
    std::vector<int64_t> repLengths = readInts(*rep, "row_lengths");
    for (const RMSNormCase &c : m.cases)
      if (c.weightDType != "same" || c.dtype == *repDType ||
          llvm::is_contained(repLengths, c.n))
        m.representativeCases.push_back(c);
    return m;
  }();
  return matrix;
}

} // namespace detail

inline std::vector<int64_t> getRMSNormRowLengths() {
  return detail::rmsnormMatrix().rowLengths;
}
/// Every case: what compile sweeps and GPU runs cover.
inline std::vector<RMSNormCase> getRMSNormCases() {
  return detail::rmsnormMatrix().cases;
}
/// The cases the host and emulated numerics matrices and the AMD compile
/// sweep run: the representative subset, or every case with
/// ROCDSL_FULL_TEST_MATRIX=1 in the environment (CTest lists the tests when
/// it starts, so the variable set for `ctest` selects both the list and
/// the runs).
inline std::vector<RMSNormCase> getRMSNormTestCases() {
  const char *full = std::getenv("ROCDSL_FULL_TEST_MATRIX");
  if (full && llvm::StringRef(full) == "1")
    return detail::rmsnormMatrix().cases;
  return detail::rmsnormMatrix().representativeCases;
}
inline std::vector<int64_t> getRMSNormRowCounts() {
  return detail::rmsnormMatrix().rowCounts;
}

} // namespace mlir::rocdsl

#endif
