//===- Atomics.cpp - the atomicrmw of each rocdsl atomic ------------------===//
#include "rocdsl/Conversion/Atomics.h"

using namespace mlir;
using namespace mlir::rocdsl;

LLVM::AtomicBinOp mlir::rocdsl::getAtomicAddBinOp(Type elementType) {
  return isa<FloatType>(elementType) ? LLVM::AtomicBinOp::fadd
                                     : LLVM::AtomicBinOp::add;
}

LLVM::AtomicBinOp mlir::rocdsl::getProgramAtomicBinOp(ProgramAtomicKind kind) {
  switch (kind) {
  case ProgramAtomicKind::Add:
    return LLVM::AtomicBinOp::add;
  case ProgramAtomicKind::Xchg:
    return LLVM::AtomicBinOp::xchg;
  case ProgramAtomicKind::Max:
    return LLVM::AtomicBinOp::max;
  }
  llvm_unreachable("unknown program atomic kind");
}
