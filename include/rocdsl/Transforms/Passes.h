//===- Passes.h - rocdsl-to-rocdsl transformations --------------*- C++ -*-===//
#ifndef ROCDSL_TRANSFORMS_PASSES_H
#define ROCDSL_TRANSFORMS_PASSES_H

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rocdsl {

#define GEN_PASS_DECL
#include "rocdsl/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rocdsl/Transforms/Passes.h.inc"

} // namespace mlir::rocdsl

#endif
