//===- AMDGPUTargetInfo.cpp - gfx942 / gfx950 parts of the conversion -----===//
//
// Buffer-resource loads and stores (hazard-free store form; async copies
// as loads and LDS stores), MFMA, the hardware exp2; cross-lane reductions
// stay gpu.subgroup_reduce for rocdsl-lower-subgroup-reduce (DPP).
//
//===----------------------------------------------------------------------===//
#include "TargetInfo.h"
#include "rocdsl/Conversion/AsyncCopies.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class AMDGPUTargetInfo : public TargetInfo {
public:
  AMDGPUTargetInfo(const ChipInfo &chip, StoreOptions storeOptions)
      : TargetInfo(chip), storeOptions(storeOptions) {}

  /// No asynchronous copies yet: loads and LDS stores at the copy.
  void prepare(ModuleOp module) const override { expandAsyncCopies(module); }
  void populateMemoryPatterns(TileTypeConverter &converter,
                              RewritePatternSet &patterns) const override {
    mlir::rocdsl::populateMemoryPatterns(converter, patterns, storeOptions);
  }
  void populateDotPatterns(TileTypeConverter &converter,
                           RewritePatternSet &patterns) const override {
    populateMfmaDotPatterns(converter, patterns);
  }
  LogicalResult lowerSubgroupReductions(gpu::GPUModuleOp) const override {
    return success();
  }
  void populateMathPatterns(RewritePatternSet &patterns) const override {
    populateHardwareMathPatterns(patterns, "llvm.amdgcn.exp2",
                                 "llvm.amdgcn.log");
  }

private:
  StoreOptions storeOptions;
};

} // namespace

std::unique_ptr<TargetInfo>
mlir::rocdsl::createAMDGPUTargetInfo(const ChipInfo &chip,
                                     StoreOptions storeOptions) {
  return std::make_unique<AMDGPUTargetInfo>(chip, storeOptions);
}
