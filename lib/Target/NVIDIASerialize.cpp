//===- NVIDIASerialize.cpp - rocdsl -> PTX --------------------------------===//
#include "rocdsl/Target/NVIDIA.h"

#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Target/AMDGPU.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;

bool rocdsl::isSupportedNVIDIAChip(StringRef chip) {
  return chip == "sm_90" || chip == "sm_90a";
}

LogicalResult rocdsl::lowerToNVVM(ModuleOp module, StringRef chip,
                                  unsigned optLevel) {
  if (!isSupportedNVIDIAChip(chip))
    return module.emitError() << "unsupported chip '" << chip
                              << "' (supported NVIDIA chips: sm_90, sm_90a)";
  PassManager pm(module.getContext());
  RocDSLToNVVMOptions options;
  options.chip = chip.str();
  options.optLevel = optLevel;
  buildRocDSLToNVVMPipeline(pm, options);
  return pm.run(module);
}

FailureOr<std::string> rocdsl::serializePTX(ModuleOp module) {
  // PTX text from LLVM's NVPTX backend: no CUDA toolkit needed.
  return runModuleToBinary(module, "isa");
}
