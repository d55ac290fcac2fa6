//===- Atomics.h - the atomicrmw of each rocdsl atomic, for any target -*-===//
//
// rocdsl.atomic_add and rocdsl.program_atomic become LLVM atomicrmw on the
// GPU and on the host alike; which operation is decided once, here.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_CONVERSION_ATOMICS_H
#define ROCDSL_CONVERSION_ATOMICS_H

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"

namespace mlir::rocdsl {

/// rocdsl.atomic_add on elements of `elementType`: fadd for floats, add for
/// integers.
LLVM::AtomicBinOp getAtomicAddBinOp(Type elementType);

/// rocdsl.program_atomic's kind: add, xchg, or signed max.
LLVM::AtomicBinOp getProgramAtomicBinOp(ProgramAtomicKind kind);

} // namespace mlir::rocdsl

#endif
