//===- DType.cpp - element type names and widths --------------------------===//
#include "rocdsl/Support/DType.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;
using llvm::StringRef;

std::optional<DType> dsl::parseDType(StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("f32", DType::F32)
      .Case("f16", DType::F16)
      .Case("bf16", DType::BF16)
      .Case("i32", DType::I32)
      .Default(std::nullopt);
}

StringRef dsl::toString(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I32:
    return "i32";
  case DType::I1:
    return "i1";
  }
  llvm_unreachable("unknown dtype");
}

unsigned dsl::bitWidth(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 32;
  case DType::F16:
  case DType::BF16:
    return 16;
  case DType::I1:
    return 1;
  }
  llvm_unreachable("unknown dtype");
}
