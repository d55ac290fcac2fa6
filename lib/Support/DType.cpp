//===- DType.cpp - element type names and widths --------------------------===//
#include "rocdsl/Support/DType.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

#include <cmath>
#include <cstring>

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

uint16_t dsl::bf16Bits(float f) {
  if (std::isnan(f))
    return 0x7fc0;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

float dsl::fromBF16Bits(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double dsl::roundToDType(double v, DType dtype) {
  switch (dtype) {
  case DType::F32:
    return double(float(v));
  case DType::F16:
    return double(static_cast<_Float16>(v));
  case DType::BF16:
    return fromBF16Bits(bf16Bits(float(v)));
  case DType::I32:
  case DType::I1:
    return v;
  }
  llvm_unreachable("unknown dtype");
}
