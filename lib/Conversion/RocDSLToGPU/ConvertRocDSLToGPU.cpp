//===- ConvertRocDSLToGPU.cpp - the convert-rocdsl-to-gpu pass ------------===//
#include "PatternsInternal.h"
#include "rocdsl/Conversion/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"

namespace mlir::rocdsl {
#define GEN_PASS_DEF_CONVERTROCDSLTOGPUPASS
#include "rocdsl/Conversion/Passes.h.inc"
} // namespace mlir::rocdsl

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// Reports constructs whose lowering does not exist yet with one clear
/// error each, instead of a generic "failed to legalize".
LogicalResult checkLowerable(ModuleOp module) {
  WalkResult result = module.walk([&](Operation *op) {
    if (isa<DotOp, LocalAllocOp, LocalLoadOp, LocalStoreOp, ConvertLayoutOp>(op)) {
      op->emitError() << "'" << op->getName()
                      << "' has no GPU lowering yet (matrix-core and LDS "
                         "lowering is not implemented)";
      return WalkResult::interrupt();
    }
    if (!op->getParentOfType<FuncOp>())
      return WalkResult::advance();
    for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                        op->getResultTypes())) {
      auto tile = dyn_cast<RankedTensorType>(type);
      if (!tile)
        continue;
      if (auto layout = getTileLayout(tile);
          layout && layout.getLayoutWarpSize() != 64) {
        op->emitError() << "tile " << tile << " assumes waves of "
                        << layout.getLayoutWarpSize()
                        << " lanes; gfx942 and gfx950 run wave64";
        return WalkResult::interrupt();
      }
      if (TileDistribution::get(tile))
        continue;
      if (isa_and_nonnull<MfmaAttr, DotOperandAttr>(tile.getEncoding()))
        op->emitError() << "tile " << tile
                        << " uses a matrix-core layout, which has no register "
                           "lowering yet";
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
    if (chip != "gfx942" && chip != "gfx950") {
      module.emitError() << "unsupported chip '" << chip
                         << "' (supported: gfx942, gfx950)";
      return signalPassFailure();
    }
    if (module.getOps<FuncOp>().empty())
      return;
    if (failed(checkLowerable(module)))
      return signalPassFailure();

    OpBuilder builder(ctx);
    builder.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), "rocdsl_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());

    TileTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateKernelPatterns(converter, patterns, gpuModule);
    populateElementwisePatterns(converter, patterns);
    populateMemoryPatterns(converter, patterns,
                           StoreOptions{maxStoreBits, padWideStores});
    populateReducePatterns(converter, patterns, gpuModule);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<RocDSLDialect>();
    target.addLegalDialect<gpu::GPUDialect, LLVM::LLVMDialect,
                           ROCDL::ROCDLDialect, vector::VectorDialect>();
    target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
        [&](Operation *op) { return converter.isLegal(op); });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
