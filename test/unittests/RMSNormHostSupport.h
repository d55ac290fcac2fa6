//===- RMSNormHostSupport.h - launching RMSNorm kernels in host tests -----===//
//
// Builds a launch from a kernel's plan: every tensor argument gets a buffer
// (inputs random, outputs poisoned with NaN, so anything a kernel fails to
// write shows up), scalars their planned values. Buffers can be handed from
// one launch to the next (the backward's partial sums).
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_TEST_UNITTESTS_RMSNORMHOSTSUPPORT_H
#define ROCDSL_TEST_UNITTESTS_RMSNORMHOSTSUPPORT_H

#include "RuntimeTestEnvironment.h"

#include "norm/RMSNorm.h"
#include "RMSNormCases.h"

#include "rocdsl/Runtime/BuiltinKernel.h"
#include "rocdsl/Runtime/HostData.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <tuple>

namespace mlir::rocdsl::testing {

/// eps every test launches with ("eps=1e-5" as the kernel receives it).
constexpr float kTestEps = 1e-5f;

class HostLaunch {
public:
  /// `given`: buffers to use for the arguments of those names.
  HostLaunch(
      const LaunchPlan &plan, std::mt19937_64 &rng,
      const std::map<std::string, std::shared_ptr<HostBuffer>> &given = {}) {
    for (const ArgSignature &sig : plan.args) {
      if (sig.kind == ArgKind::Int32) {
        args.push_back(ArgValue::ofI32(int32_t(sig.expectedInt.value_or(0))));
        continue;
      }
      if (sig.kind == ArgKind::Float32) {
        args.push_back(ArgValue::ofF32(kTestEps));
        continue;
      }
      auto it = given.find(sig.name);
      std::shared_ptr<HostBuffer> buffer;
      if (it != given.end()) {
        buffer = it->second;
      } else {
        int64_t count = 1;
        for (int64_t d : sig.shape)
          count *= d;
        buffer = std::make_shared<HostBuffer>(sig.dtype, size_t(count));
        if (sig.isOutput)
          buffer->poison();
        else
          buffer->fillRandom(rng);
      }
      args.push_back(ArgValue::of({buffer->data(), sig.dtype, sig.shape, {}}));
      buffers[sig.name] = buffer;
      order.push_back(sig.name);
    }
  }

  HostBuffer &operator[](const std::string &name) { return *buffers.at(name); }
  std::shared_ptr<HostBuffer> share(const std::string &name) {
    return buffers.at(name);
  }
  /// The tensors as float64, in argument order (what references take).
  std::vector<std::vector<double>> toDoubles() const {
    std::vector<std::vector<double>> out;
    for (const std::string &name : order)
      out.push_back(buffers.at(name)->toDoubles());
    return out;
  }

  std::vector<ArgValue> args;

private:
  std::map<std::string, std::shared_ptr<HostBuffer>> buffers;
  std::vector<std::string> order;
};

/// The parameters of the tests that run every config of the matrix for
/// both members of a pair (plain and fused-add).
using RMSNormFamilyParam = std::tuple<RMSNormCase, RMSNormVariant>;

/// One launch of a backward test: rows, the cap on programs, and the
/// specialization (prefetch depth, direct_dw).
struct RMSNormBackwardLaunch {
  int64_t m, maxPrograms;
  int prefetch = 1;    // row tiles loaded ahead
  bool direct = false; // one program writes dw (direct_dw=1)

  /// -D definitions of `c` for this launch.
  std::vector<std::string> definitions(const RMSNormCase &c) const {
    std::vector<std::string> defs = c.definitions();
    defs.insert(defs.end(), {"M=" + std::to_string(m), "eps=1e-5",
                             "max_programs=" + std::to_string(maxPrograms),
                             "prefetch=" + std::to_string(prefetch)});
    if (direct)
      defs.push_back("direct_dw=1");
    return defs;
  }
  std::string describe() const {
    return "M=" + std::to_string(m) +
           " max_programs=" + std::to_string(maxPrograms) +
           " prefetch=" + std::to_string(prefetch) +
           (direct ? " direct_dw=1" : "");
  }
};

/// Each row count with the default cap on programs, then 64 rows dealt to
/// 3 programs, so every program sums many row tiles into its dw_partial row
/// (in registers on the single-pass path, in dw_partial itself on the
/// looping one). On two bf16 row lengths (aligned with two rows per
/// program, unaligned with one) also: deeper prefetch (tiles ahead past M
/// masked) and the one-program kernel that writes dw itself (one row tile,
/// and several with prefetch); each is a compile of its own, and the other
/// cases add no path to these.
inline std::vector<RMSNormBackwardLaunch>
getRMSNormBackwardLaunches(const RMSNormCase &c) {
  std::vector<RMSNormBackwardLaunch> launches;
  for (int64_t m : getRMSNormRowCounts())
    launches.push_back({m, RMSNormConfig::kMaxBackwardPrograms});
  launches.push_back({64, 3});
  if (c.dtype == "bf16" && c.weightDType == "same" &&
      (c.n == 1000 || c.n == 3001)) {
    launches.push_back({64, 3, 2});
    launches.push_back({5, 2, 3});
    launches.push_back({1, 1, 1, true});
    launches.push_back({7, 1, 3, true});
  }
  return launches;
}

inline auto rmsNormFamilyMatrix() {
  return ::testing::Combine(
      ::testing::ValuesIn(getRMSNormTestCases()),
      ::testing::Values(RMSNormVariant::Plain, RMSNormVariant::FusedAdd));
}

inline std::string rmsNormFamilyTestName(
    const ::testing::TestParamInfo<RMSNormFamilyParam> &info) {
  return std::get<0>(info.param).name() +
         (std::get<1>(info.param) == RMSNormVariant::FusedAdd ? "_add"
                                                              : "_plain");
}

} // namespace mlir::rocdsl::testing

#endif
