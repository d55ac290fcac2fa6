//===- KernelModule.h - where a file's kernels live ------------*- C++ -*-===//
//
// A file of rocdsl IR holds its kernels (rocdsl.func) at the top level of its
// module. Files written by hand or by other tools often wrap that module in
// another (`module { module @m { ... } }`); those wrappers are looked
// through. Kernels nested beside other ops are not compiled, and the errors
// that say "no kernel" name where they are.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_DIALECT_ROCDSL_IR_KERNELMODULE_H
#define ROCDSL_DIALECT_ROCDSL_IR_KERNELMODULE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::rocdsl {

/// The module whose top level holds a file's kernels: `module` itself, or,
/// while a module without attributes of its own (a name aside) has another
/// module as its only op, that inner module, to any depth.
OwningOpRef<ModuleOp> takeKernelModule(OwningOpRef<ModuleOp> module);

/// "module @a" (or "module (unnamed)"): the first nested module holding a
/// rocdsl.func, where `module` has none at its top level; empty otherwise.
std::string describeNestedKernels(ModuleOp module);

} // namespace mlir::rocdsl

#endif
