//===- LowerSubgroupReduce.cpp - rocdsl-lower-subgroup-reduce -------------===//
#include "rocdsl/Conversion/Passes.h"

#include "mlir/Dialect/AMDGPU/Utils/Chipset.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rocdsl {
#define GEN_PASS_DEF_ROCDSLLOWERSUBGROUPREDUCEPASS
#include "rocdsl/Conversion/Passes.h.inc"
} // namespace mlir::rocdsl

using namespace mlir;

namespace {
struct RocDSLLowerSubgroupReducePass
    : rocdsl::impl::RocDSLLowerSubgroupReducePassBase<
          RocDSLLowerSubgroupReducePass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<amdgpu::Chipset> chipset = amdgpu::Chipset::parse(chip);
    if (failed(chipset)) {
      getOperation().emitError() << "unknown chip '" << chip << "'";
      return signalPassFailure();
    }
    constexpr unsigned kWaveSize = 64;
    RewritePatternSet patterns(&getContext());
    populateGpuBreakDownSubgroupReducePatterns(patterns,
                                               /*maxShuffleBitwidth=*/32,
                                               /*benefit=*/3);
    populateGpuLowerSubgroupReduceToDPPPatterns(patterns, kWaveSize, *chipset,
                                                /*benefit=*/2);
    populateGpuLowerClusteredSubgroupReduceToDPPPatterns(patterns, kWaveSize,
                                                         *chipset,
                                                         /*benefit=*/2);
    // Shapes DPP cannot express (strided clusters) fall back to butterfly
    // shuffles (ds_bpermute / ds_swizzle), still without memory round-trips.
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns, kWaveSize,
                                                    /*shuffleBitwidth=*/32,
                                                    /*benefit=*/1);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, kWaveSize, /*shuffleBitwidth=*/32, /*benefit=*/1);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
