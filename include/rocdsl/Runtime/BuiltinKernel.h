//===- BuiltinKernel.h - run a built-in kernel on a device ------*- C++ -*-===//
//
//   auto kernel = BuiltinKernel::create("rmsnorm_fwd", {"N=4096", "M=8"},
//                                       DeviceKind::Host);
//   RunInfo info;
//   if (llvm::Error err = (*kernel)->run(args, info)) ...
//
// Arguments are checked against the specialization before anything runs:
// kind, dtype, rank, shape, strides (contiguous rows) and the alignment the
// compiled code relies on; the error names the argument.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_BUILTINKERNEL_H
#define ROCDSL_RUNTIME_BUILTINKERNEL_H

#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Runtime/Runtime.h"

namespace mlir::rocdsl {

struct TensorArg {
  void *data = nullptr; // host pointer (host device) or device pointer
  dsl::DType dtype = dsl::DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides; // in elements; empty = contiguous
};

struct ArgValue {
  ArgKind kind = ArgKind::Tensor;
  TensorArg tensor;
  int32_t i32 = 0;
  float f32 = 0;
  static ArgValue of(TensorArg t) {
    ArgValue v;
    v.tensor = std::move(t);
    return v;
  }
  static ArgValue ofI32(int32_t x) {
    ArgValue v;
    v.kind = ArgKind::Int32;
    v.i32 = x;
    return v;
  }
  static ArgValue ofF32(float x) {
    ArgValue v;
    v.kind = ArgKind::Float32;
    v.f32 = x;
    return v;
  }
};

struct RunInfo {
  CacheTier tier = CacheTier::Miss;
  double compileMilliseconds = 0;
  double kernelMicroseconds = 0;
  const Launcher *launcher = nullptr; // identity of the compiled launcher
};

/// What a caller may ask of one launch beyond its arguments.
struct LaunchOptions {
  /// Scan the outputs for NaN and Inf afterwards (FiniteCheck.h); unset:
  /// ROCDSL_CHECK_FINITE decides.
  std::optional<bool> checkFinite;
};

/// Which arguments a kernel writes: index and name of each output.
struct OutputArg {
  unsigned index;
  std::string name;
};

/// Gets `request`'s launcher on `device` (memory, disk or compile) and
/// launches it with `args` on `grid`: waiting and timed when `wait`, else
/// queued on `stream`; then, if asked, checks the `outputs` (those args
/// with a known shape) are finite. Shared by built-in and source kernels,
/// after their own argument checks. `slot` (the kernel object's) keeps the
/// launcher after the first launch, so later ones skip the cache lookup.
llvm::Error launchRequest(DeviceId device, const CompileRequest &request,
                          LauncherSlot &slot, llvm::ArrayRef<ArgValue> args,
                          LaunchGrid grid, void *stream, bool wait,
                          RunInfo &info, llvm::ArrayRef<OutputArg> outputs = {},
                          const LaunchOptions &options = {});

class BuiltinKernel {
public:
  /// `chip` empty picks the device's (Runtime::resolveChip: the hip
  /// device's own chip, else gfx942; for cuda sm_90a on compute capability
  /// 9.0, else sm_90). The kernel's own
  /// target defaults (KernelSpec::targetDefaults: e.g. RMSNorm's wave size
  /// and grid) apply before `definitions`.
  static llvm::Expected<std::unique_ptr<BuiltinKernel>>
  create(llvm::StringRef name, llvm::ArrayRef<std::string> definitions,
         DeviceId device, llvm::StringRef chip = "");

  const LaunchPlan &getPlan() const { return plan; }
  const KernelParams &getParams() const { return params; }
  const KernelSpec &getSpec() const { return *spec; }
  const CompileRequest &getRequest() const { return request; }
  DeviceId getDevice() const { return device; }

  /// Checks `args` against the plan; the error names the argument.
  llvm::Error validate(llvm::ArrayRef<ArgValue> args) const;
  /// Validates, gets the launcher (memory tier, disk tier or compile), and
  /// launches on the plan's grid.
  llvm::Error run(llvm::ArrayRef<ArgValue> args, RunInfo &info,
                  const LaunchOptions &options = {});
  /// Like run, but queued on `stream` (a CUstream on cuda, a hipStream_t on
  /// hip) without waiting;
  /// `info.kernelMicroseconds` stays 0.
  llvm::Error enqueue(llvm::ArrayRef<ArgValue> args, void *stream,
                      RunInfo &info, const LaunchOptions &options = {});

private:
  BuiltinKernel() = default;
  /// Outputs overlapping other tensor arguments, beyond what the plan allows
  /// in place (ArgSignature::inPlaceOf).
  llvm::Error checkOverlaps(llvm::ArrayRef<ArgValue> args) const;
  llvm::Error launch(llvm::ArrayRef<ArgValue> args, void *stream, bool wait,
                     RunInfo &info, const LaunchOptions &options);
  const KernelSpec *spec = nullptr;
  KernelParams params;
  LaunchPlan plan;
  DeviceId device;
  CompileRequest request;
  LauncherSlot launcher;
  std::vector<OutputArg> outputs;
};

} // namespace mlir::rocdsl

#endif
