//===- NVIDIASerialize.cpp - rocdsl -> PTX --------------------------------===//
#include "rocdsl/Target/NVIDIA.h"

#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Target/AMDGPU.h"

#include "rocdsl/Support/ChipInfo.h"
#include "rocdsl/Support/Log.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

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
  return runModuleToBinary(module, "isa");
}
