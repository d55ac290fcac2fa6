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
#include "norm/RMSNormConfigs.h"

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

inline auto rmsNormFamilyMatrix() {
  return ::testing::Combine(
      ::testing::ValuesIn(getRMSNormCases()),
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
