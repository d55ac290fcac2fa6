//===- FatalErrors.cpp - LLVM's fatal errors as one line in the tools -----===//
#include "rocdsl/Support/FatalErrors.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace {
struct Handler {
  const char *prefix;
  int exitCode;
};
Handler handler;

void report(void *data, const char *reason, bool) {
  const Handler &h = *static_cast<const Handler *>(data);
  llvm::errs() << h.prefix << reason << "\n";
  llvm::errs().flush();
  std::_Exit(h.exitCode);
}
} // namespace

void mlir::rocdsl::installOneLineFatalErrorHandler(const char *prefix,
                                                   int exitCode) {
  handler = {prefix, exitCode};
  llvm::install_fatal_error_handler(report, &handler);
}
