//===- LaunchPlan.h - what a launch of one specialization takes -*- C++ -*-===//
//
// A kernel's plan for one specialization: its arguments in order, what
// each must be at launch (kind, dtype, exact shape, alignment, in-place
// permissions), and the grid. Kernels produce plans (Kernels/Registry.h);
// the runtime checks and launches them without knowing which kernel made
// them.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_LAUNCHPLAN_H
#define ROCDSL_RUNTIME_LAUNCHPLAN_H

#include "rocdsl/Support/DType.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::rocdsl {

enum class ArgKind { Tensor, Int32, Float32 };

/// What a kernel argument must be at launch.
struct ArgSignature {
  std::string name;
  ArgKind kind = ArgKind::Tensor;
  dsl::DType dtype = dsl::DType::F32; // tensors
  std::vector<int64_t> shape;         // tensors: exact, contiguous row-major
  unsigned alignment = 1;             // bytes the compiled code relies on
  bool isOutput = false;
  /// Scalars the launch was planned for (e.g. the row count the grid and
  /// the tensor shapes were sized by): a different value is an error.
  std::optional<int64_t> expectedInt;
  /// Float scalars: the rule their value must meet, shared with the kernel
  /// parameter of the same meaning so that -D definitions and launch
  /// arguments are judged alike. Returns what is wrong, or std::nullopt.
  std::function<std::optional<std::string>(double)> checkFloat;
  /// Outputs: the input this output may replace in place (same memory,
  /// same shape), because the kernel reads every element of it before
  /// writing that element. Any other overlap between an output and another
  /// tensor argument is an error at launch.
  std::string inPlaceOf;
  /// Tensors (outputs) the kernel needs all zero on entry and leaves all
  /// zero: sums and an arrival count that its programs share. A caller
  /// zeroes one once and passes it to launch after launch on one stream
  /// (launches running at the same time need one each).
  bool zeroScratch = false;

  /// The argument kinds by name, so that plans never spell out (or leave
  /// half-initialized) the fields a kind does not use.
  static ArgSignature tensor(std::string name, dsl::DType dtype,
                             std::vector<int64_t> shape, unsigned alignment,
                             bool isOutput) {
    ArgSignature a;
    a.name = std::move(name);
    a.dtype = dtype;
    a.shape = std::move(shape);
    a.alignment = alignment;
    a.isOutput = isOutput;
    return a;
  }
  /// An int32 scalar; `expected`, when given, is the only value accepted.
  static ArgSignature int32(std::string name,
                            std::optional<int64_t> expected = std::nullopt) {
    ArgSignature a;
    a.name = std::move(name);
    a.kind = ArgKind::Int32;
    a.dtype = dsl::DType::I32;
    a.expectedInt = expected;
    return a;
  }
  /// A float32 scalar, judged by `check` when one is given.
  static ArgSignature
  float32(std::string name,
          std::function<std::optional<std::string>(double)> check = {}) {
    ArgSignature a;
    a.name = std::move(name);
    a.kind = ArgKind::Float32;
    a.checkFloat = std::move(check);
    return a;
  }
};

/// How to launch one specialization: its arguments in order and the grid.
struct LaunchPlan {
  std::string kernelName;
  std::vector<ArgSignature> args;
  uint32_t grid[3] = {1, 1, 1};
};

} // namespace mlir::rocdsl

#endif
