//===- ConvertRocDSLToGPU.cpp - the convert-rocdsl-to-gpu pass ------------===//
#include "TargetInfo.h"
#include "rocdsl/Conversion/AmdAsyncCopies.h"
#include "rocdsl/Conversion/Passes.h"
#include "rocdsl/Conversion/SharedMemory.h"
#include "rocdsl/Conversion/TargetOperations.h"
#include "rocdsl/Dialect/RocDSL/IR/KernelAttrs.h"

#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "rocdsl/Support/ChipInfo.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::rocdsl {
#define GEN_PASS_DEF_CONVERTROCDSLTOGPUPASS
#include "rocdsl/Conversion/Passes.h.inc"
} // namespace mlir::rocdsl

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// Reports constructs whose lowering does not exist yet with one clear
/// error each, instead of a generic "failed to legalize".
LogicalResult checkLowerable(ModuleOp module, const ChipInfo &info) {
  unsigned waveSize = info.waveSize;
  StringRef chip = info.name;
  if (failed(checkTargetOperations(module,
                                   info.isNVIDIA() ? TargetFamily::NVIDIA
                                                   : TargetFamily::AMDGPU,
                                   chip)) ||
      failed(checkMatrixOps(module, info)))
    return failure();
  WalkResult result = module.walk([&](Operation *op) {
    if (auto func = dyn_cast<FuncOp>(op)) {
      uint64_t lanes = uint64_t(func.getNumWarps()) * waveSize;
      if (lanes > info.maxWorkgroupSize) {
        func.emitError() << "num_warps " << func.getNumWarps() << " of "
                         << waveSize << "-lane waves is " << lanes
                         << " lanes; " << chip << " runs at most "
                         << info.maxWorkgroupSize << " per workgroup (num_warps "
                         << info.maxWorkgroupSize / waveSize << ")";
        return WalkResult::interrupt();
      }
    }
    if (!op->getParentOfType<FuncOp>())
      return WalkResult::advance();
    for (Type type :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
      if (auto lds = dyn_cast<LdsTileType>(type)) {
        if (std::optional<std::string> why = checkSharedLayout(lds)) {
          op->emitError() << "LDS tile " << lds << ": " << *why;
          return WalkResult::interrupt();
        }
        continue;
      }
      auto tile = dyn_cast<RankedTensorType>(type);
      if (!tile)
        continue;
      if (auto layout = getTileLayout(tile);
          layout && layout.getLayoutWarpSize() != waveSize) {
        op->emitError() << "tile " << tile << " assumes waves of "
                        << layout.getLayoutWarpSize() << " lanes; " << chip
                        << " runs " << waveSize << " lanes per wave";
        return WalkResult::interrupt();
      }
      if (TileDistribution::get(tile))
        continue;
      if (isa_and_nonnull<MfmaAttr, DotOperandAttr>(tile.getEncoding()))
        op->emitError() << "tile " << tile
                        << " does not fit its matrix-core layout: M and N "
                           "must be multiples of instruction x waves or "
                           "divide it; K a multiple of kWidth x 64 / M";
      else
        op->emitError() << "tile " << tile
                        << " has no register lowering: the layout must be "
                           "#rocdsl.blocked (or a slice of it) and each "
                           "dimension a multiple of the layout's repetition "
                           "or smaller than it";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  // Only the first problem is reported: later ones are usually its echoes.
  return failure(result.wasInterrupted());
}

struct ConvertRocDSLToGPUPass
    : mlir::rocdsl::impl::ConvertRocDSLToGPUPassBase<ConvertRocDSLToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    const ChipInfo *info = lookupChip(chip);
    if (!info) {
      module.emitError() << "unsupported chip '" << chip
                         << "' (supported: " << listChips() << ")";
      return signalPassFailure();
    }
    unsigned waveSize = info->waveSize;
    if (module.getOps<FuncOp>().empty())
      return;
    if (failed(checkLowerable(module, *info)))
      return signalPassFailure();
    if (maxStoreBits != 32 && maxStoreBits != 64 && maxStoreBits != 128) {
      module.emitError() << "max-store-bits=" << unsigned(maxStoreBits)
                         << " is not 32, 64 or 128";
      return signalPassFailure();
    }
    std::optional<WaitsMode> waitsMode = parseWaitsMode(waits);
    if (!waitsMode) {
      module.emitError() << "unknown waits mode '" << waits
                         << "' (expected explicit, llvm or "
                            "weakened-for-testing)";
      return signalPassFailure();
    }
    std::unique_ptr<TargetInfo> targetInfo =
        info->isNVIDIA()
            ? createNVIDIATargetInfo(*info)
            : createAMDGPUTargetInfo(*info,
                                     StoreOptions{maxStoreBits, padWideStores},
                                     directCopies, *waitsMode);
    targetInfo->prepare(module);

    OpBuilder builder(ctx);
    builder.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), "rocdsl_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());

    LdsSlots ldsSlots = createLdsArenas(module, gpuModule, *info);
    TileTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateKernelPatterns(converter, patterns, gpuModule, waveSize);
    populateElementwisePatterns(converter, patterns);
    populateReducePatterns(converter, patterns, gpuModule,
                           findReducesWithoutTrailingBarrier(module));
    populateLdsPatterns(converter, patterns, module, ldsSlots, *targetInfo);
    targetInfo->populateMemoryPatterns(converter, patterns);
    populateAtomicPatterns(converter, patterns, gpuModule, *targetInfo);
    targetInfo->populateDotPatterns(converter, patterns);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<RocDSLDialect>();
    target.addLegalDialect<gpu::GPUDialect, LLVM::LLVMDialect,
                           ROCDL::ROCDLDialect, NVVM::NVVMDialect,
                           vector::VectorDialect, amdgpu::AMDGPUDialect>();
    target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
        [&](Operation *op) { return converter.isLegal(op); });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // Fold first: what the target adds before barriers (NVIDIA's proxy
    // fences) would otherwise keep adjacent ones apart.
    foldAdjacentBarriers(gpuModule);
    targetInfo->finishConversion(gpuModule);
    for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>())
      if (auto programs =
              kernel->getAttrOfType<IntegerAttr>(kMinProgramsPerCUAttr)) {
        kernel->removeAttr(kMinProgramsPerCUAttr);
        targetInfo->applyOccupancyHint(kernel, programs);
      }
    // Reductions allocate LDS; say so here rather than let the backend
    // abort on a kernel that cannot launch.
    uint64_t ldsBytes = 0;
    for (auto global : gpuModule.getOps<LLVM::GlobalOp>()) {
      if (global.getAddrSpace() == 3)
        ldsBytes +=
            DataLayout::closest(gpuModule).getTypeSize(global.getType());
      else if (global.getSymName().starts_with(dynamicSharedBytesSymbol("")))
        ldsBytes += cast<IntegerAttr>(*global.getValue()).getInt();
    }
    uint64_t ldsLimit = info->maxSharedMemoryBytes();
    if (ldsBytes > ldsLimit) {
      module.emitError() << "kernels need " << ldsBytes
                         << " bytes of shared memory (LDS) for reductions, "
                            "LDS tiles and layout conversions, more than the "
                         << ldsLimit << " bytes " << chip << " offers";
      return signalPassFailure();
    }
    if (failed(targetInfo->lowerSubgroupReductions(gpuModule)))
      return signalPassFailure();
    // One walk, no folding or dead-code removal: only the flagged ops
    // change.
    RewritePatternSet math(ctx);
    targetInfo->populateMathPatterns(math);
    walkAndApplyPatterns(gpuModule, std::move(math));
  }
};

} // namespace
