//===- NVIDIASerialize.cpp - rocdsl -> PTX --------------------------------===//
#include "rocdsl/Target/NVIDIA.h"

#include "rocdsl/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
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
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  GpuModuleToBinaryPassOptions options;
  options.compilationTarget = "isa"; // PTX text; no CUDA toolkit needed
  pm.addPass(createGpuModuleToBinaryPass(options));
  if (failed(pm.run(*copy)))
    return failure();
  for (auto binary : copy->getOps<gpu::BinaryOp>())
    for (Attribute object : binary.getObjects())
      if (auto obj = dyn_cast<gpu::ObjectAttr>(object))
        return obj.getObject().getValue().str();
  module.emitError() << "gpu-module-to-binary produced no PTX";
  return failure();
}
