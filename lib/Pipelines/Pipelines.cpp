//===- Pipelines.cpp - registration and named pipelines -------------------===//
#include "rocdsl/Pipelines/Pipelines.h"

#include "rocdsl/Conversion/Passes.h"
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"
#include "rocdsl/Support/ChipInfo.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "rocdsl/Transforms/Passes.h"

using namespace mlir;

namespace mlir::rocdsl {
namespace {
/// First pass of a target pipeline: fails at once, naming the pipeline's
/// chips, when `chip` is not one of them (the later passes would otherwise
/// lower for the wrong vendor or fail far from the cause), or when the
/// optimization level is not LLVM's.
struct CheckTargetPass
    : public PassWrapper<CheckTargetPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckTargetPass)
  CheckTargetPass(StringRef pipeline, StringRef chip, ChipVendor vendor,
                      unsigned optLevel)
      : pipeline(pipeline.str()), chip(chip.str()), vendor(vendor),
        optLevel(optLevel) {}
  StringRef getArgument() const override { return "rocdsl-check-target"; }
  void runOnOperation() override {
    if (optLevel > 3) {
      getOperation()->emitError() << pipeline << ": opt-level=" << optLevel
                                  << " is not 0, 1, 2 or 3";
      return signalPassFailure();
    }
    const ChipInfo *info = lookupChip(chip);
    if (info && info->vendor == vendor)
      return;
    getOperation()->emitError()
        << pipeline << ": chip '" << chip << "' is not one of "
        << listChips(vendor);
    signalPassFailure();
  }
  std::string pipeline, chip;
  ChipVendor vendor;
  unsigned optLevel = 3;
};
} // namespace
} // namespace mlir::rocdsl

void rocdsl::buildRocDSLToROCDLPipeline(OpPassManager &pm,
                                        const RocDSLToROCDLOptions &options) {
  pm.addPass(std::make_unique<CheckTargetPass>(
      "rocdsl-to-rocdl", options.chip, ChipVendor::AMD, options.optLevel));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(rocdsl::createRocDSLInferVectorWidthPass());
  pm.addPass(rocdsl::createRocDSLPipelineLoopsPass({/*stages=*/0, options.chip}));
  ConvertRocDSLToGPUPassOptions toGpu;
  toGpu.chip = options.chip;
  toGpu.maxStoreBits = options.maxStoreBits;
  toGpu.padWideStores = options.padWideStores;
  toGpu.directCopies = options.directCopies;
  toGpu.waits = options.waits;
  pm.addPass(createConvertRocDSLToGPUPass(toGpu));
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createRocDSLLowerSubgroupReducePass({options.chip}));
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  pm.addPass(createSCFToControlFlowPass());
  GpuROCDLAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuROCDLAttachTarget(target));
  OpPassManager &llvmPm = pm.nest<gpu::GPUModuleOp>();
  ConvertAMDGPUToROCDLPassOptions amdgpu;
  amdgpu.chipset = options.chip;
  llvmPm.addPass(createConvertAMDGPUToROCDLPass(amdgpu));
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = options.chip;
  llvmPm.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void rocdsl::buildRocDSLToNVVMPipeline(OpPassManager &pm,
                                       const RocDSLToNVVMOptions &options) {
  pm.addPass(std::make_unique<CheckTargetPass>(
      "rocdsl-to-nvvm", options.chip, ChipVendor::NVIDIA, options.optLevel));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(rocdsl::createRocDSLInferVectorWidthPass());
  pm.addPass(rocdsl::createRocDSLPipelineLoopsPass({/*stages=*/0, options.chip}));
  ConvertRocDSLToGPUPassOptions toGpu;
  toGpu.chip = options.chip;
  pm.addPass(createConvertRocDSLToGPUPass(toGpu));
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  pm.addPass(createSCFToControlFlowPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.nest<gpu::GPUModuleOp>().addPass(createConvertGpuOpsToNVVMOps());
  // NVVM ops without an LLVM intrinsic (wgmma.mma_async) become inline PTX.
  pm.nest<gpu::GPUModuleOp>().addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void rocdsl::buildRocDSLToHostPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(rocdsl::createRocDSLInferVectorWidthPass());
  pm.addPass(rocdsl::createRocDSLPipelineLoopsPass({/*stages=*/0, "host"}));
  pm.addPass(createConvertRocDSLToHostPass());
  pm.addPass(createCanonicalizerPass());
  // bf16 <-> f32 as integer ops: CPUs without bf16 instructions would
  // otherwise call a runtime library per element.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertVectorToSCFPass());
  // Row reductions reduce the innermost dimension: one vector.reduction per
  // row.
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMultiReductionPass(
      vector::VectorMultiReductionLowering::InnerReduction));
  // One buffer of an N-buffered LDS tile is a subview: offsets and strides
  // as plain arithmetic before lowering.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // Float sums and products of a whole row may be reassociated: the GPU
  // targets reduce as a tree across lanes anyway, and an ordered reduction
  // of a long vector is one dependent chain that LLVM's instruction
  // selection takes superlinear time over (24 s for a 8192-long f32 row
  // in rmsnorm_bwd, 3 s reassociated).
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void rocdsl::registerRocDSLDialects(DialectRegistry &registry) {
  registry
      .insert<RocDSLDialect, arith::ArithDialect, math::MathDialect,
              scf::SCFDialect, cf::ControlFlowDialect, gpu::GPUDialect,
              vector::VectorDialect, LLVM::LLVMDialect, ROCDL::ROCDLDialect,
              amdgpu::AMDGPUDialect, memref::MemRefDialect, func::FuncDialect,
              ub::UBDialect, index::IndexDialect, NVVM::NVVMDialect>();
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
  // convert-gpu-to-rocdl discovers lowerings through these interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
}

/// Registers a pipeline of module passes. Nested under another op
/// (`func.func(rocdsl-to-host)`), it reports a pipeline error instead of
/// the fatal error adding a module pass to that pass manager would raise.
template <typename Options>
static void registerModulePipeline(
    StringRef arg, StringRef description,
    std::function<void(OpPassManager &, const Options &)> build) {
  std::string name = arg.str();
  registerPassPipeline(
      arg, description,
      [name, build](OpPassManager &pm, StringRef text,
                    function_ref<LogicalResult(const Twine &)> errorHandler)
          -> LogicalResult {
        if (pm.getOpAnchorName() != ModuleOp::getOperationName())
          return errorHandler("pipeline '" + name +
                              "' runs on builtin.module, not inside '" +
                              pm.getOpAnchorName() + "'");
        Options options;
        if (failed(options.parseFromString(text)))
          return failure();
        build(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(Options());
      });
}

void rocdsl::registerRocDSLPassesAndPipelines() {
  registerRocDSLConversionPasses();
  registerRocDSLTransformsPasses();
  registerCanonicalizerPass();
  registerCSEPass();
  registerSCFToControlFlowPass();
  registerGpuROCDLAttachTarget();
  registerGpuNVVMAttachTarget();
  registerConvertGpuOpsToNVVMOpsPass();
  registerConvertAMDGPUToROCDLPass();
  registerArithToLLVMConversionPass();
  registerConvertVectorToLLVMPass();
  registerConvertFuncToLLVMPass();
  registerConvertGpuOpsToROCDLOpsPass();
  registerReconcileUnrealizedCastsPass();
  registerGpuModuleToBinaryPass();
  registerModulePipeline<RocDSLToNVVMOptions>(
      "rocdsl-to-nvvm",
      "Lower rocdsl kernels to a gpu.module of NVVM/LLVM ops with a "
      "#nvvm.target for the chosen NVIDIA chip",
      buildRocDSLToNVVMPipeline);
  registerModulePipeline<EmptyPipelineOptions>(
      "rocdsl-to-host",
      "Lower rocdsl kernels to LLVM dialect functions for the host CPU "
      "(one call per program instance)",
      [](OpPassManager &pm, const EmptyPipelineOptions &) {
        buildRocDSLToHostPipeline(pm);
      });
  registerModulePipeline<RocDSLToROCDLOptions>(
      "rocdsl-to-rocdl",
      "Lower rocdsl kernels to a gpu.module of ROCDL/LLVM ops with a "
      "#rocdl.target for the chosen chip",
      buildRocDSLToROCDLPipeline);
}
