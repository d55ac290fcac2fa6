//===- NVIDIASerialize.cpp - rocdsl -> PTX --------------------------------===//
#include "rocdsl/Target/NVIDIA.h"

#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Target/AMDGPU.h"

#include "rocdsl/Support/ChipInfo.h"
#include "rocdsl/Support/Log.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Scalar/Scalarizer.h"

using namespace mlir;

bool rocdsl::isSupportedNVIDIAChip(StringRef chip) {
  const ChipInfo *info = lookupChip(chip);
  return info && info->isNVIDIA();
}

LogicalResult rocdsl::lowerToNVVM(ModuleOp module, StringRef chip,
                                  unsigned optLevel) {
  if (!isSupportedNVIDIAChip(chip))
    return module.emitError() << "unsupported chip '" << chip
                              << "' (supported NVIDIA chips: "
                              << listChips(ChipVendor::NVIDIA) << ")";
  PassManager pm(module.getContext());
  RocDSLToNVVMOptions options;
  options.chip = chip.str();
  options.optLevel = optLevel;
  buildRocDSLToNVVMPipeline(pm, options);
  return pm.run(module);
}

/// Whether `diag` is MLIR's NVVM serializer failing to find libdevice. It
/// looks for `<CUDA toolkit>/nvvm/libdevice/libdevice.10.bc` whenever it
/// is constructed and reports a missing toolkit as an error, then goes on
/// and succeeds: ROCDSL kernels never call libdevice (rsqrt and the other
/// math become PTX instructions), so the error is false.
static bool isLibdeviceLookupNoise(Diagnostic &diag) {
  if (diag.getSeverity() != DiagnosticSeverity::Error)
    return false;
  std::string message = diag.str();
  StringRef text(message);
  return (text.starts_with("CUDA path: ") ||
          text.starts_with("LibDevice path: ")) &&
         (text.contains("does not exist or is not a directory") ||
          text.contains("does not exist or is not a file"));
}

/// Splits the kernels' vector arithmetic into scalars before LLVM
/// optimizes them, as Triton's per-element IR is. A tile's lane vector
/// (e.g. 64 floats, or a 64-element i1 mask) is one LLVM vector, and
/// NVPTX has no registers for most of them: LLVM otherwise canonicalizes
/// a mask kept across a reduction into an i64 bitmask, packed with
/// selp/shl/or and unpacked with shr/and/setp, which cost registers
/// (spills at 128 per lane) and instructions. Memory accesses stay
/// vectors (ld.global.v4 / st.global.v4).
static void scalarizeForNVPTX(llvm::Module &module) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::FunctionPassManager passes;
  passes.addPass(llvm::ScalarizerPass(llvm::ScalarizerPassOptions()));
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      passes.run(function, fam);
}

FailureOr<std::string> rocdsl::serializePTX(ModuleOp module) {
  // PTX text from LLVM's NVPTX backend: no CUDA toolkit needed. The
  // serializer's libdevice lookup is demoted to a debug line; any other
  // diagnostic goes on to the caller's handler.
  ScopedDiagnosticHandler quiet(
      module.getContext(), [](Diagnostic &diag) -> LogicalResult {
        if (!isLibdeviceLookupNoise(diag))
          return failure();
        logDebug("PTX serializer: " + StringRef(diag.str()).trim() +
                 " (ignored: libdevice is not linked)");
        return success();
      });
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    ArrayAttr targets = gpuModule.getTargetsAttr();
    if (!targets || targets.size() != 1)
      return gpuModule.emitError() << "expected one NVVM target";
    auto target = dyn_cast<gpu::TargetAttrInterface>(targets[0]);
    if (!target)
      return gpuModule.emitError() << "target has no serializer";
    gpu::TargetOptions options(
        /*toolkitPath=*/{}, /*librariesToLink=*/{}, /*cmdOptions=*/{},
        /*elfSection=*/{}, gpu::CompilationTarget::Assembly,
        /*getSymbolTableCallback=*/{}, /*initialLlvmIRCallback=*/{},
        /*linkedLlvmIRCallback=*/scalarizeForNVPTX);
    std::optional<SmallVector<char, 0>> ptx =
        target.serializeToObject(gpuModule, options);
    if (!ptx)
      return failure();
    return std::string(ptx->begin(), ptx->end());
  }
  module.emitError() << "no gpu.module to serialize";
  return failure();
}
