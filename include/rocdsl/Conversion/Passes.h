//===- Passes.h - rocdsl conversion passes ----------------------*- C++ -*-===//
#ifndef ROCDSL_CONVERSION_PASSES_H
#define ROCDSL_CONVERSION_PASSES_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rocdsl {

#define GEN_PASS_DECL
#include "rocdsl/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rocdsl/Conversion/Passes.h.inc"

} // namespace mlir::rocdsl

#endif
