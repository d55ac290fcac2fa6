//===- Registry.h - built-in kernels by name --------------------*- C++ -*-===//
#ifndef ROCDSL_KERNELS_REGISTRY_H
#define ROCDSL_KERNELS_REGISTRY_H

#include "rocdsl/DSL/DSL.h"
#include "rocdsl/Runtime/LaunchPlan.h"
#include "rocdsl/Support/ChipInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::rocdsl {

struct KernelParamSpec {
  std::string name;
  std::string defaultValue;
  std::string help;
  /// Launch-time only (problem size, eps): does not change the generated code.
  bool runtimeOnly = false;
};

/// Parameter values after defaults were applied and names were checked.
class KernelParams {
public:
  void set(llvm::StringRef name, llvm::StringRef value) {
    values[name] = value.str();
  }
  llvm::StringRef get(llvm::StringRef name) const;
  /// Typed accessors: on a malformed value they set `error` and fail.
  LogicalResult getInt(llvm::StringRef name, int64_t &out,
                       std::string &error) const;
  /// A tile size or count whose 0 picks the kernel's default: an integer,
  /// never negative.
  LogicalResult getSizeOrDefault(llvm::StringRef name, int64_t &out,
                                 std::string &error) const;
  LogicalResult getFloat(llvm::StringRef name, double &out,
                         std::string &error) const;
  /// A 0/1 switch; any other value is an error naming it.
  LogicalResult getFlag(llvm::StringRef name, bool &out,
                        std::string &error) const;

private:
  llvm::StringMap<std::string> values;
};

/// What a kernel's per-target defaults may depend on.
struct TargetFacts {
  /// The chip compiled for; null for the host.
  const ChipInfo *chip = nullptr;
  /// Multiprocessors (SMs, CUs) of the launch device; 0 when unknown (a
  /// compile without a device).
  int multiprocessors = 0;
};

struct KernelSpec {
  std::string name;
  std::string summary;
  std::vector<KernelParamSpec> params;
  /// Builds the rocdsl module; sets `error` for values out of range.
  std::function<OwningOpRef<ModuleOp>(MLIRContext *, const KernelParams &,
                                      std::string &error)>
      build;
  /// Arguments and grid for `params`.
  std::function<LogicalResult(const KernelParams &, LaunchPlan &,
                              std::string &error)>
      plan;
  /// The float64 reference: `tensors[i]` holds the i-th tensor argument
  /// (inputs given, outputs to fill), `scalars[i]` the i-th scalar argument.
  std::function<void(const KernelParams &,
                     std::vector<std::vector<double>> &tensors,
                     const std::vector<double> &scalars)>
      reference;
  /// Optional, for outputs that are sums of many fp32 terms (the backward's
  /// partial sums): sets `magnitudes[i]` (one entry per tensor argument,
  /// left empty for the others) to the sums of the terms' absolute values,
  /// which scale their rounding (see compareToReference). Takes the inputs
  /// as `reference` does.
  std::function<void(const KernelParams &,
                     const std::vector<std::vector<double>> &tensors,
                     const std::vector<double> &scalars,
                     std::vector<std::vector<double>> &magnitudes)>
      magnitudes;
  /// Optional: inputs derived from the others or drawn by rules of their
  /// own (attention's packed-sequence offsets; for a `check`ed run, the
  /// attention backward's out and lse, the float64 forward of its q, k and
  /// v): rewrites input entries of `tensors` (random, as given) in place,
  /// before the launch; the caller rounds them to the arguments' types.
  std::function<void(const KernelParams &,
                     std::vector<std::vector<double>> &tensors,
                     const std::vector<double> &scalars, bool check)>
      prepareInputs;
  /// Optional: definitions the kernel adds for a target before the user's
  /// own (its wave size, a grid sized to the device), or an error where a
  /// user's definition cannot run there. The runtime and tools call it
  /// through applyTargetDefaults and know no kernel's rules themselves.
  std::function<LogicalResult(const TargetFacts &,
                              std::vector<std::string> &definitions,
                              std::string &error)>
      targetDefaults;
};

const std::vector<KernelSpec> &getBuiltinKernels();
const KernelSpec *lookupKernel(llvm::StringRef name);
/// "unknown kernel 'NAME' (kernels: a, b, ...)": what every caller of
/// lookupKernel reports when it finds nothing, so a typo shows the choices.
std::string unknownKernelMessage(llvm::StringRef name);

/// Runs `spec.targetDefaults` (when the kernel has one) on `definitions`.
LogicalResult applyTargetDefaults(const KernelSpec &spec,
                                  const TargetFacts &facts,
                                  std::vector<std::string> &definitions,
                                  std::string &error);
/// Whether `definitions` set parameter `name`.
bool definesParam(llvm::ArrayRef<std::string> definitions,
                  llvm::StringRef name);

/// Applies `definitions` (NAME=VALUE) over the defaults; unknown names and
/// malformed definitions set `error`.
LogicalResult resolveKernelParams(const KernelSpec &spec,
                                  llvm::ArrayRef<std::string> definitions,
                                  KernelParams &params, std::string &error);

/// What every caller that builds or launches a built-in kernel does first:
/// the kernel's rules for `facts` (applyTargetDefaults), `definitions` over
/// the defaults (resolveKernelParams), then `spec.plan`, refused where a
/// tensor argument holds more bytes than the kernels' 32-bit byte offsets
/// address (kMaxTensorBytes): such a kernel would wrap its accesses on
/// every target.
LogicalResult prepareKernel(const KernelSpec &spec, const TargetFacts &facts,
                            llvm::ArrayRef<std::string> definitions,
                            KernelParams &params, LaunchPlan &plan,
                            std::string &error);

/// "[2, 3]"
std::string shapeString(llvm::ArrayRef<int64_t> shape);
/// Elements of a tensor of `shape` (a negative extent counts as empty).
uint64_t elementCount(llvm::ArrayRef<int64_t> shape);

} // namespace mlir::rocdsl

#endif
