//===- TargetOperations.cpp - target operations a kernel may use ----------===//
#include "rocdsl/Conversion/TargetOperations.h"

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::rocdsl;

StringRef rocdsl::getIntrinsicTarget(StringRef intrinsic) {
  // The architecture prefixes of LLVM's target intrinsics.
  static const char *const targets[] = {
      "aarch64", "amdgcn", "arm",   "bpf",  "dx",    "hexagon", "loongarch",
      "mips",    "nvvm",   "ppc",   "r600", "riscv", "s390",    "spv",
      "ve",      "wasm",   "x86",   "xcore"};
  if (!intrinsic.consume_front("llvm."))
    return "";
  StringRef prefix = intrinsic.take_until([](char c) { return c == '.'; });
  for (const char *target : targets)
    if (prefix == target)
      return target;
  return "";
}

/// Whether intrinsics of `target` can be selected for `family`.
static bool isOwnIntrinsic(StringRef target, TargetFamily family) {
  switch (family) {
  case TargetFamily::AMDGPU:
    return target == "amdgcn";
  case TargetFamily::NVIDIA:
    return target == "nvvm";
  case TargetFamily::Host: {
    llvm::Triple host(llvm::sys::getProcessTriple());
    StringRef arch = host.isX86()       ? "x86"
                     : host.isAArch64() ? "aarch64"
                     : host.isPPC()     ? "ppc"
                     : host.isRISCV()   ? "riscv"
                                        : "";
    return !arch.empty() && target == arch;
  }
  }
  return false;
}

LogicalResult rocdsl::checkTargetOperations(ModuleOp module,
                                            TargetFamily family,
                                            StringRef chip) {
  WalkResult result = module.walk([&](Operation *op) {
    if (!op->getParentOfType<FuncOp>())
      return WalkResult::advance();
    StringRef dialect =
        op->getDialect() ? op->getDialect()->getNamespace() : StringRef();
    bool amd = dialect == "rocdl" || dialect == "amdgpu";
    bool nvidia = dialect == "nvvm" || dialect == "nvgpu";
    TargetFamily opFamily =
        amd ? TargetFamily::AMDGPU : TargetFamily::NVIDIA;
    if ((amd || nvidia) && opFamily != family) {
      if (family == TargetFamily::Host)
        op->emitError() << "'" << op->getName()
                        << "' is a GPU operation; the host target cannot run "
                           "it (use rocdsl's own operations, which every "
                           "target lowers)";
      else
        op->emitError() << "'" << op->getName() << "' is "
                        << (amd ? "an AMDGPU" : "an NVIDIA")
                        << " operation; it cannot be compiled for " << chip;
      return WalkResult::interrupt();
    }
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      StringRef target = getIntrinsicTarget(call.getIntrin());
      if (!target.empty() && !isOwnIntrinsic(target, family)) {
        op->emitError() << "intrinsic '" << call.getIntrin()
                        << "' is for target '" << target
                        << "'; it cannot be compiled for " << chip;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
