//===- KernelText.h - one-kernel AMDGCN texts for the ISA checker tests ---===//
#ifndef ROCDSL_TEST_UNITTESTS_ISA_KERNELTEXT_H
#define ROCDSL_TEST_UNITTESTS_ISA_KERNELTEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace mlir::rocdsl::isa::testsupport {

/// `body` as the only kernel "k" of a text for `chip`; the body's first
/// instruction is on line 6.
inline std::string kernelText(llvm::StringRef body,
                              llvm::StringRef chip = "gfx942") {
  return ("\t.amdgcn_target \"amdgcn-amd-amdhsa--" + chip +
          "\"\n\t.text\n\t.globl k\n\t.type k,@function\nk:\n" + body +
          "\ts_endpgm\n.Lfunc_end0:\n\t.size k, .Lfunc_end0-k\n")
      .str();
}

} // namespace mlir::rocdsl::isa::testsupport

#endif
