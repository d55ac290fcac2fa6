//===- FatalErrors.h - LLVM's fatal errors as one line in the tools -*- C++ -*-===//
//
// LLVM reports some failures (a backend that cannot lower an instruction, a
// code object its decoder rejects) as fatal errors: by default an abort with
// a stack dump. The tools install this instead: one line on stderr, then
// exit with the tool's status for unusable input. (A library cannot: the
// process is its caller's.)
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_SUPPORT_FATALERRORS_H
#define ROCDSL_SUPPORT_FATALERRORS_H

namespace mlir::rocdsl {

/// LLVM's fatal errors print `<prefix><reason>` and exit with `exitCode`.
/// `prefix` must outlive the process (a string literal).
void installOneLineFatalErrorHandler(const char *prefix, int exitCode);

} // namespace mlir::rocdsl

#endif
