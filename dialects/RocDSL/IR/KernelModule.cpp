//===- KernelModule.cpp - where a file's kernels live ---------------------===//
#include "rocdsl/Dialect/RocDSL/IR/KernelModule.h"
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

OwningOpRef<ModuleOp>
mlir::rocdsl::takeKernelModule(OwningOpRef<ModuleOp> module) {
  // A wrapper carrying attributes of its own (a target, say) is not looked
  // through: dropping them could change what the kernels mean.
  while (module && llvm::hasSingleElement(*module->getBody()) &&
         module->getOperation()->getDiscardableAttrDictionary().empty()) {
    auto inner = dyn_cast<ModuleOp>(module->getBody()->front());
    if (!inner)
      break;
    inner->remove();
    module = OwningOpRef<ModuleOp>(inner);
  }
  return module;
}

std::string mlir::rocdsl::describeNestedKernels(ModuleOp module) {
  if (!module.getOps<FuncOp>().empty())
    return "";
  std::string where;
  module.walk([&](FuncOp func) {
    auto parent = func->getParentOfType<ModuleOp>();
    if (!parent || parent == module)
      return WalkResult::advance();
    std::optional<StringRef> name = parent.getSymName();
    where = "module " + (name ? "@" + name->str() : std::string("(unnamed)"));
    return WalkResult::interrupt();
  });
  return where;
}
