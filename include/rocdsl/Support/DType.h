//===- DType.h - element types of kernel arguments and tiles ----*- C++ -*-===//
//
// The element types a kernel's arguments and tiles take, named as every
// layer spells them ("f32", "bf16"). Below the DSL, so that the runtime's
// launch types and the kernels' plans can name them without building IR.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_SUPPORT_DTYPE_H
#define ROCDSL_SUPPORT_DTYPE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::rocdsl::dsl {

enum class DType { F32, F16, BF16, I32, I1 };

/// "f32", "f16", "bf16", "i32".
std::optional<DType> parseDType(llvm::StringRef name);
llvm::StringRef toString(DType dtype);
unsigned bitWidth(DType dtype);

/// `f` as bf16 bits, rounded to the nearest even (NaN: the quiet NaN).
uint16_t bf16Bits(float f);
float fromBF16Bits(uint16_t bits);
/// `v` as a buffer of `dtype` holds it: rounded to the nearest even f32 or
/// f16, or to bf16 through f32 (as the runtime writes buffers and
/// arith.truncf rounds); i32 and i1 values as they are.
double roundToDType(double v, DType dtype);

} // namespace mlir::rocdsl::dsl

#endif
