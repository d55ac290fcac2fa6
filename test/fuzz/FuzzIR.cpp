//===- FuzzIR.cpp - rocdsl IR: parser, verifier, every pipeline -----------===//
//
// Parses the input as rocdsl IR; if it verifies, lowers a copy for gfx942
// to AMDGCN assembly (with the hazard check the runtime runs), a copy for
// sm_90 to PTX, and (for tiles of at most 16K elements) a copy through the
// host pipeline to LLVM IR. Every stage may reject the input with an
// error; none may crash or hang.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "rocdsl/ISA/HazardCheck.h"
#include "rocdsl/Target/AMDGPU.h"
#include "rocdsl/Target/NVIDIA.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace mlir;
using namespace mlir::rocdsl;

int mlir::rocdsl::fuzz::runIR(const uint8_t *data, size_t size) {
  if (size > fuzz::kMaxInputBytes)
    return -1;
  fuzz::FuzzContext fc;
  // As rocdsl-opt and rocdsl-compile read files: a NUL-terminated buffer,
  // which MLIR's lexer relies on.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, &fc.context, "fuzz.mlir");
  if (!module || failed(verify(*module)))
    return 0;
  // Raw LLVM intrinsic calls and inline assembly are an expert's escape
  // hatch past every ROCDSL check: with them any backend can be made to
  // fail (llvm.clear_cache has no AMDGPU lowering, say), which the tools
  // report in one line (test/Tools/rocdsl-compile/hostile-input.test).
  // They are outside what this target searches.
  bool rawLLVM = false;
  module->walk([&](Operation *op) {
    rawLLVM |= llvm::isa<LLVM::CallIntrinsicOp, LLVM::InlineAsmOp>(op);
  });
  if (rawLLVM)
    return -1;

  {
    OwningOpRef<ModuleOp> amd = module->clone();
    if (succeeded(lowerToROCDL(*amd, "gfx942"))) {
      FailureOr<std::string> assembly =
          serializeAMDGPU(*amd, AMDGPUOutput::Assembly);
      if (succeeded(assembly)) {
        llvm::Expected<isa::CheckResult> check =
            isa::checkAssembly(*assembly, "fuzz.s", "gfx942");
        if (!check)
          llvm::consumeError(check.takeError());
      }
    }
  }
  {
    OwningOpRef<ModuleOp> nvidia = module->clone();
    if (succeeded(lowerToNVVM(*nvidia, "sm_90")))
      (void)serializePTX(*nvidia);
  }
  // The host target keeps whole tiles in vectors, and its compile time
  // grows with them (seconds for a 64K-element tile): large tiles would
  // only slow the search, so they skip the host pipeline.
  int64_t largestTile = 0;
  module->walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto tile = dyn_cast<RankedTensorType>(type);
          tile && tile.hasStaticShape())
        largestTile = std::max(largestTile, tile.getNumElements());
  });
  if (largestTile <= 16384) {
    OwningOpRef<ModuleOp> host = module->clone();
    PassManager pm(&fc.context);
    buildRocDSLToHostPipeline(pm);
    if (succeeded(pm.run(*host))) {
      llvm::LLVMContext llvmContext;
      (void)translateModuleToLLVMIR(*host, llvmContext, "fuzz");
    }
  }
  return 0;
}

#ifdef ROCDSL_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::rocdsl::fuzz::runIR(data, size);
}
#endif
