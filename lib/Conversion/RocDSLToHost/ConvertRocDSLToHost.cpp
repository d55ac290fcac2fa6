//===- ConvertRocDSLToHost.cpp - the convert-rocdsl-to-host pass ----------===//
#include "HostPatterns.h"
#include "rocdsl/Conversion/AsyncCopies.h"
#include "rocdsl/Conversion/Passes.h"
#include "rocdsl/Conversion/TargetOperations.h"
#include "rocdsl/Conversion/TileElementwise.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"

namespace mlir::rocdsl {
#define GEN_PASS_DEF_CONVERTROCDSLTOHOSTPASS
#include "rocdsl/Conversion/Passes.h.inc"
} // namespace mlir::rocdsl

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// 8-bit floats have no host lowering (the CPU has no such type and the
/// LLVM translation would abort on one): one error at the first op that
/// uses them.
LogicalResult checkHostElementTypes(ModuleOp module) {
  auto isFloat8 = [](Type type) {
    Type element = getElementTypeOrSelf(type);
    if (auto ptr = dyn_cast<PtrType>(type))
      element = ptr.getElementType();
    if (auto lds = dyn_cast<LdsTileType>(type))
      element = lds.getElementType();
    auto f = dyn_cast<FloatType>(element);
    return f && f.getWidth() == 8;
  };
  WalkResult result = module.walk([&](Operation *op) {
    if (isa<WarpIdOp>(op)) {
      op->emitError() << "rocdsl.warp_id has no host meaning: the host runs "
                         "a program as one thread";
      return WalkResult::interrupt();
    }
    if (isa<WarpgroupDotOp, WarpgroupWaitOp>(op)) {
      op->emitError() << op->getName()
                      << " needs warpgroup MMA (wgmma, "
                         "sm_90a); the host has none (use rocdsl.dot)";
      return WalkResult::interrupt();
    }
    for (Type type :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (isFloat8(type)) {
        op->emitError() << "8-bit float " << type
                        << " has no host lowering (run it on gfx942 or "
                           "gfx950, or convert to f16/bf16 first)";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct ConvertRocDSLToHostPass
    : mlir::rocdsl::impl::ConvertRocDSLToHostPassBase<ConvertRocDSLToHostPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // GPU target operations written into a kernel by hand have no CPU
    // meaning; the host backend would abort on their intrinsics.
    if (failed(checkTargetOperations(getOperation(), TargetFamily::Host,
                                     "the host")))
      return signalPassFailure();
    if (failed(checkHostElementTypes(getOperation())))
      return signalPassFailure();
    // One program runs at a time on the host: a copy is a load and a store.
    expandAsyncCopies(getOperation());
    HostTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateHostKernelPatterns(converter, patterns);
    populateHostTilePatterns(converter, patterns);
    populateHostMemoryPatterns(converter, patterns);
    populateTileElementwisePatterns(converter, patterns);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<RocDSLDialect>();
    target.addLegalDialect<func::FuncDialect, LLVM::LLVMDialect,
                           vector::VectorDialect, memref::MemRefDialect>();
    target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
        [&](Operation *op) { return converter.isLegal(op); });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
