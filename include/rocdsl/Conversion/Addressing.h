//===- Addressing.h - how lowered kernels address a tensor ------*- C++ -*-===//
//
// The lowering addresses every tensor with 32-bit byte offsets from its
// base: AMD buffer accesses take a 32-bit offset and mark an element
// invalid by giving it an offset at 2^31 or past (so the valid range is
// [0, 2^31 - 1)), and the NVIDIA and host paths compute the same offsets.
// A tensor larger than that would be read and written at wrapped offsets,
// so launches refuse it (the runtime checks planned shapes against this).
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_CONVERSION_ADDRESSING_H
#define ROCDSL_CONVERSION_ADDRESSING_H

#include <cstdint>

namespace mlir::rocdsl {

/// Bytes a kernel can address in one tensor (2 GiB - 1).
inline constexpr int64_t kMaxTensorBytes = 0x7fffffff;

} // namespace mlir::rocdsl

#endif
