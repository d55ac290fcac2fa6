//===- ConvertRocDSLToGPU.cpp - the convert-rocdsl-to-gpu pass ------------===//
#include "PatternsInternal.h"
#include "rocdsl/Conversion/Passes.h"
#include "rocdsl/Conversion/TargetOperations.h"

#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "rocdsl/Support/ChipInfo.h"
#include "rocdsl/Support/Log.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
                           "must be multiples of the instruction's, and "
                           "either multiples of instruction x waves or "
                           "smaller; K a multiple of kWidth x 64 / M";
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

/// NVIDIA has no counterpart of AMDGPU's memory counters or scheduling
/// barriers: its hardware tracks every register a load writes, so a wait
/// orders nothing, and ptxas schedules on its own. The hatches are dropped
/// (they would otherwise reach the NVPTX backend as AMDGPU intrinsics it
/// cannot select), with one note per kind and kernel at ROCDSL_LOG=info.
void dropAmdgpuOnlyHatches(ModuleOp module, StringRef chip) {
  for (FuncOp func : module.getOps<FuncOp>()) {
    unsigned waits = 0, schedBarriers = 0;
    func.walk([&](Operation *op) {
      if (isa<WaitOp>(op)) {
        ++waits;
        op->erase();
      } else if (isa<SchedBarrierOp>(op)) {
        ++schedBarriers;
        op->erase();
      }
    });
    if (waits)
      logInfo("kernel '" + func.getName() + "': " + Twine(waits) +
              " rocdsl.wait dropped for " + chip +
              " (memory counters are AMDGPU-only; NVIDIA hardware waits on "
              "registers by itself)");
    if (schedBarriers)
      logInfo("kernel '" + func.getName() + "': " + Twine(schedBarriers) +
              " rocdsl.sched_barrier dropped for " + chip +
              " (a hint for the AMDGPU scheduler only)");
  }
}

/// NVIDIA: f32 rsqrt -> the rsqrt.approx.f32 instruction (what CUDA's
/// rsqrtf does). The NVVM lowering of math.rsqrt calls libdevice, which is
/// only linked where a CUDA toolkit is found; the intrinsic needs nothing.
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
    bool nvidia = info->isNVIDIA();
    unsigned waveSize = info->waveSize;
    if (module.getOps<FuncOp>().empty())
      return;
    if (failed(checkLowerable(module, *info)))
      return signalPassFailure();
    if (nvidia)
      dropAmdgpuOnlyHatches(module, chip);

    OpBuilder builder(ctx);
    builder.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), "rocdsl_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());

    createConvertScratch(module, gpuModule);
    TileTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateKernelPatterns(converter, patterns, gpuModule, waveSize);
    populateElementwisePatterns(converter, patterns);
    if (nvidia)
      populateNvidiaMemoryPatterns(converter, patterns);
    else
      populateMemoryPatterns(converter, patterns,
                             StoreOptions{maxStoreBits, padWideStores});
    populateReducePatterns(converter, patterns, gpuModule);
    populateLdsPatterns(converter, patterns, gpuModule);
    if (nvidia)
      populateNvidiaDotPatterns(converter, patterns);
    else
      populateDotPatterns(converter, patterns);

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
    // Reductions allocate LDS; say so here rather than let the backend
    // abort on a kernel that cannot launch.
    uint64_t ldsBytes = 0;
    for (auto global : gpuModule.getOps<LLVM::GlobalOp>())
      if (global.getAddrSpace() == 3)
        ldsBytes +=
            DataLayout::closest(gpuModule).getTypeSize(global.getType());
    uint64_t ldsLimit = info->sharedMemoryBytes;
    if (ldsBytes > ldsLimit) {
      module.emitError() << "kernels need " << ldsBytes
                         << " bytes of shared memory (LDS) for reductions, "
                            "LDS tiles and layout conversions, more than the "
                         << ldsLimit << " bytes " << chip << " offers";
      return signalPassFailure();
    }
    // NVIDIA: cross-lane reductions become warp shuffles (shfl.sync); AMD
    // keeps gpu.subgroup_reduce for rocdsl-lower-subgroup-reduce (DPP).
    if (nvidia) {
      RewritePatternSet shuffles(ctx);
      populateGpuLowerSubgroupReduceToShufflePatterns(shuffles, waveSize);
      populateGpuLowerClusteredSubgroupReduceToShufflePatterns(shuffles,
                                                               waveSize);
      if (failed(applyPatternsGreedily(gpuModule, std::move(shuffles))))
        return signalPassFailure();
    }
    // One walk, no folding or dead-code removal: only the flagged ops
    // change.
    RewritePatternSet math(ctx);
    populateTargetMathPatterns(math, nvidia);
    walkAndApplyPatterns(gpuModule, std::move(math));
  }
};

} // namespace
