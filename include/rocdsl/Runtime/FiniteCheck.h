//===- FiniteCheck.h - stop on NaN or Inf in a kernel's outputs -*- C++ -*-===//
//
// A diverged training run still exits 0; this makes the first NaN or Inf a
// kernel writes an error, naming the kernel, the output and the first bad
// element.
//
// Environment:
//   ROCDSL_CHECK_FINITE  "1" (or any value but "", "0", "false", "no",
//                        "off"): after every launch, wait for it and scan
//                        every floating-point output. A per-call option
//                        overrides it either way. Read on every launch, so
//                        a process may turn it on and off.
//
// Cost: the scan waits for the launch (a queued launch's stream is
// synchronized) and reads every output back (on GPUs through a bounded
// host buffer, chunk by chunk). Launches queued while a CUDA stream is
// being captured into a graph cannot be waited for: they are not checked,
// with one warning per process.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_FINITECHECK_H
#define ROCDSL_RUNTIME_FINITECHECK_H

#include "rocdsl/DSL/DSL.h"
#include "rocdsl/Runtime/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <optional>
#include <string>

namespace mlir::rocdsl {

/// Whether this launch scans its outputs: `perCall` when given, else
/// ROCDSL_CHECK_FINITE.
bool isFiniteCheckRequested(std::optional<bool> perCall);

/// The index of the first NaN or infinity among `count` elements of
/// `dtype` (f32, f16 or bf16) in host memory; std::nullopt if all are
/// finite or the type is not floating point.
std::optional<size_t> findFirstNonFinite(const void *data, dsl::DType dtype,
                                         size_t count);

/// One output a kernel wrote: where it is (host or device memory, as the
/// launch used it), its element type and count.
struct OutputView {
  std::string name;
  const void *data = nullptr;
  dsl::DType dtype = dsl::DType::F32;
  size_t count = 0;
};

/// Waits for the launch (`stream` as it was queued on) and scans each
/// output; the error names the kernel, the output, the first bad index and
/// its value ("nan", "inf" or "-inf").
llvm::Error checkOutputsFinite(Launcher &launcher, llvm::StringRef kernel,
                               llvm::ArrayRef<OutputView> outputs,
                               void *stream);

} // namespace mlir::rocdsl

#endif
