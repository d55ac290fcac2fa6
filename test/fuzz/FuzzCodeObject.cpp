//===- FuzzCodeObject.cpp - HSA code-object reader ------------------------===//
//
// Arbitrary bytes as a code object: the ELF reader, the in-process
// disassembly and hazard check (with crash recovery on, as
// rocdsl-isa-check runs it), and the metadata reader the runtime uses to lay
// out kernel arguments must reject what is malformed with an error.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "rocdsl/ISA/HazardCheck.h"
#include "rocdsl/Target/AMDGPU.h"

#include "llvm/Support/CrashRecoveryContext.h"

using namespace mlir::rocdsl;

int mlir::rocdsl::fuzz::runCodeObject(const uint8_t *data, size_t size) {
  if (size > 1024 * 1024)
    return -1;
  // As rocdsl-isa-check runs it: LLVM's AMDGPU decoder crashes on some
  // invalid encodings, and the checker then skips the word (CodeObject.cpp).
  static const bool recovery = [] {
    llvm::CrashRecoveryContext::Enable();
    return true;
  }();
  (void)recovery;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  llvm::Expected<isa::CheckResult> result =
      isa::checkFile(bytes, "fuzz.hsaco", "");
  if (!result)
    llvm::consumeError(result.takeError());
  std::string error;
  (void)readKernelResources(bytes, "gfx942", error);
  return 0;
}

#ifdef ROCDSL_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::rocdsl::fuzz::runCodeObject(data, size);
}
#endif
