//===- ConvertRocDSLToHost.cpp - the convert-rocdsl-to-host pass ----------===//
#include "HostPatterns.h"
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
struct ConvertRocDSLToHostPass
    : mlir::rocdsl::impl::ConvertRocDSLToHostPassBase<ConvertRocDSLToHostPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // GPU target operations written into a kernel by hand have no CPU
    // meaning; the host backend would abort on their intrinsics.
    if (failed(checkTargetOperations(getOperation(), TargetFamily::Host,
                                     "the host")))
      return signalPassFailure();
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
