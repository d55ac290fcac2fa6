//===- Environment.cpp - on/off switches read from the environment --------===//
#include "rocdsl/Support/Environment.h"

#include "llvm/ADT/StringRef.h"

#include <cstdlib>

bool mlir::rocdsl::isSwitchOnInEnvironment(const char *name) {
  const char *text = std::getenv(name);
  if (!text)
    return false;
  llvm::StringRef value = llvm::StringRef(text).trim();
  return !(value.empty() || value == "0" || value.equals_insensitive("false") ||
           value.equals_insensitive("no") || value.equals_insensitive("off"));
}
