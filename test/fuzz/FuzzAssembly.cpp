//===- FuzzAssembly.cpp - AMDGCN assembly parser and hazard checker -------===//
//
// Any text, from any compiler or none: the checker must parse it, build its
// CFG and count wait states without crashing, for the chip the text names
// and for both supported chips explicitly.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "rocdsl/ISA/HazardCheck.h"

using namespace mlir::rocdsl;

int mlir::rocdsl::fuzz::runAssembly(const uint8_t *data, size_t size) {
  if (size > fuzz::kMaxInputBytes)
    return -1;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  for (llvm::StringRef chip : {"", "gfx942", "gfx950"}) {
    llvm::Expected<isa::CheckResult> result =
        isa::checkAssembly(text, "fuzz.s", chip);
    if (!result) {
      llvm::consumeError(result.takeError());
      continue;
    }
    (void)isa::toJSON(*result);
    for (const isa::KernelReport &kernel : result->kernels)
      (void)kernel;
  }
  return 0;
}

#ifdef ROCDSL_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::rocdsl::fuzz::runAssembly(data, size);
}
#endif
