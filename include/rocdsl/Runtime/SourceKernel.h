//===- SourceKernel.h - run a kernel given as rocdsl IR text ----*- C++ -*-===//
//
// Kernels written outside C++ (the Python DSL traces them to rocdsl IR text)
// run through the same launcher cache as the built-in ones: the cache key's
// kernel fingerprint is the SHA-256 of the text, so equal text is one kernel.
//
//   auto k = SourceKernel::create(text, "softmax", DeviceKind::Host);
//   (*k)->run(args, LaunchGrid{rows, 1, 1}, info);
//
// Errors from parsing, verifying and lowering carry the IR's locations
// (file:line:col), so a traced kernel's errors name its Python lines.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_SOURCEKERNEL_H
#define ROCDSL_RUNTIME_SOURCEKERNEL_H

#include "rocdsl/Runtime/BuiltinKernel.h"

namespace mlir::rocdsl {

/// One argument of a source kernel: a pointer (Tensor, element dtype) or a
/// scalar.
struct SourceArg {
  ArgKind kind = ArgKind::Tensor;
  dsl::DType dtype = dsl::DType::F32;
  /// A pointer some rocdsl.store writes through: an output.
  bool written = false;
  /// From the launch facts compiled in: a pointer's address or an i32's
  /// value must be a multiple of this (1: no requirement).
  uint64_t requiredMultiple = 1;
};

class SourceKernel {
public:
  /// Parses and verifies `source`, finds the rocdsl.func named `kernel`.
  static llvm::Expected<std::unique_ptr<SourceKernel>>
  create(llvm::StringRef source, llvm::StringRef kernel, DeviceId device,
         llvm::StringRef chip = "");

  llvm::ArrayRef<SourceArg> getArgs() const { return args; }
  const CompileRequest &getRequest() const { return request; }
  DeviceId getDevice() const { return device; }

  /// Checks kinds, pointer dtypes, null and element alignment; the error
  /// names the argument by position.
  llvm::Error validate(llvm::ArrayRef<ArgValue> values) const;
  /// Validates, gets the launcher and launches on `grid`: waits and times
  /// when `wait`, else queues on `stream` (a CUstream on cuda; null is the
  /// default stream).
  llvm::Error run(llvm::ArrayRef<ArgValue> values, LaunchGrid grid,
                  void *stream, bool wait, RunInfo &info,
                  const LaunchOptions &options = {});

private:
  SourceKernel() = default;
  std::vector<SourceArg> args;
  DeviceId device;
  CompileRequest request;
  LauncherSlot launcher;
  std::vector<OutputArg> outputs;
};

/// "file:line:col: message" for a diagnostic whose location has a file
/// position (looking through names, call sites and fused locations).
std::string formatDiagnostic(const Diagnostic &diagnostic);

/// Parses rocdsl IR text in `ctx`; errors (with their locations) go to
/// `error`. The module returned is the one whose top level holds the
/// kernels (takeKernelModule, KernelModule.h).
OwningOpRef<ModuleOp> parseKernelSource(llvm::StringRef source,
                                        MLIRContext *ctx, std::string &error);

/// "the source has no rocdsl.func @k", and where its kernels are when they
/// are only nested (describeNestedKernels).
std::string noKernelMessage(ModuleOp module, llvm::StringRef kernel);

} // namespace mlir::rocdsl

#endif
