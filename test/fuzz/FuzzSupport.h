//===- FuzzSupport.h - shared set-up of the libFuzzer targets ---*- C++ -*-===//
//
// Each target gets a fresh MLIRContext per input (no state carried from one
// input to the next) without its thread pool, and swallows diagnostics:
// rejecting bad input with an error is the expected outcome; only crashes,
// sanitizer reports, hangs and leaks are findings.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_TEST_FUZZ_FUZZSUPPORT_H
#define ROCDSL_TEST_FUZZ_FUZZSUPPORT_H

#include "rocdsl/Pipelines/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace mlir::rocdsl::fuzz {

inline const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    registerRocDSLDialects(*r);
    registerRocDSLPassesAndPipelines();
    return r;
  }();
  return *registry;
}

/// A context with every ROCDSL dialect loaded and diagnostics swallowed.
struct FuzzContext {
  FuzzContext()
      : context(getRegistry(), MLIRContext::Threading::DISABLED),
        quiet(&context, [](Diagnostic &) { return success(); }) {
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
  ScopedDiagnosticHandler quiet;
};

/// Inputs above this many bytes are ignored: the interesting structure of
/// IR, assembly and entries fits in far less, and huge inputs only slow the
/// search down.
constexpr size_t kMaxInputBytes = 64 * 1024;

/// The targets' bodies: libFuzzer calls them through LLVMFuzzerTestOneInput
/// (built with ROCDSL_LIBFUZZER), and the unit tests replay every saved
/// finding and seed through them (FuzzRegressionTest.cpp). Each returns 0,
/// or -1 for an input it does not take; a violated invariant aborts.
int runIR(const uint8_t *data, size_t size);
int runAssembly(const uint8_t *data, size_t size);
int runCodeObject(const uint8_t *data, size_t size);
int runCacheEntry(const uint8_t *data, size_t size);
int runSourceKernel(const uint8_t *data, size_t size);
int runEmulator(const uint8_t *data, size_t size);

} // namespace mlir::rocdsl::fuzz

#endif
