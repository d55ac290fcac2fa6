//===- AsyncCopies.h - async copies on targets without them -----*- C++ -*-===//
//
// rocdsl.async_copy moves a tile from global memory into LDS without the
// lanes' registers where the target has such copies (NVIDIA's cp.async).
// Elsewhere (AMDGPU today, the host) each copy becomes a rocdsl.load and a
// rocdsl.local_store at the same place, and the commits and waits vanish:
// the data is in LDS when the store completes, which the author's barrier
// already orders. The stores keep the author's barriers only (no barrier
// pair of their own), as the copies had.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_CONVERSION_ASYNCCOPIES_H
#define ROCDSL_CONVERSION_ASYNCCOPIES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::rocdsl {

class AsyncCopyOp;

/// Marks a rocdsl.local_store whose ordering the kernel's own barriers
/// provide (it came from an async copy): the GPU lowering adds none.
inline constexpr const char kAuthorOrderedAttr[] = "rocdsl.author_ordered";

/// Builds at `b`'s insertion point the load + local_store that do what
/// `copy` does (the caller erases `copy`).
void buildCopyThroughRegisters(OpBuilder &b, AsyncCopyOp copy);

/// Rewrites every async_copy in `module` into load + local_store and
/// erases async_commit and async_wait.
void expandAsyncCopies(ModuleOp module);

} // namespace mlir::rocdsl

#endif
