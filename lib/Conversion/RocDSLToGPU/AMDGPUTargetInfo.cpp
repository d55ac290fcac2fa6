//===- AMDGPUTargetInfo.cpp - gfx942 / gfx950 parts of the conversion -----===//
//
// Buffer-resource loads and stores (hazard-free store form; async copies
// as direct-to-LDS loads with planned waits, AmdAsyncCopy.cpp), MFMA, the hardware exp2; cross-lane reductions
// stay gpu.subgroup_reduce for rocdsl-lower-subgroup-reduce (DPP).
//
//===----------------------------------------------------------------------===//
#include "TargetInfo.h"
#include "rocdsl/Conversion/AsyncCopies.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class AMDGPUTargetInfo : public TargetInfo {
public:
  AMDGPUTargetInfo(const ChipInfo &chip, StoreOptions storeOptions,
                   bool directCopies, WaitsMode waits)
      : TargetInfo(chip), storeOptions(storeOptions),
        directCopies(directCopies), waits(waits) {}

  void prepare(ModuleOp module) const override {
    if (directCopies)
      prepareAmdAsyncCopies(module, chip, waits);
    else
      expandAsyncCopies(module);
  }
  void populateMemoryPatterns(TileTypeConverter &converter,
                              RewritePatternSet &patterns) const override {
    mlir::rocdsl::populateMemoryPatterns(converter, patterns, storeOptions);
    populateAmdAsyncCopyPatterns(converter, patterns);
  }
  void populateDotPatterns(TileTypeConverter &converter,
                           RewritePatternSet &patterns) const override {
    populateMfmaDotPatterns(converter, patterns);
  }
  void finishConversion(gpu::GPUModuleOp gpuModule) const override {
    separateDirectCopiesFromLdsAccesses(gpuModule);
  }
  LogicalResult lowerSubgroupReductions(gpu::GPUModuleOp) const override {
    return success();
  }
  Value readLdsTile(OpBuilder &b, Location loc, const LdsTileRead &read,
                    VectorType vectorType) const override {
    if (!chip.ldsTransposeReads)
      return {};
    return readLdsWithTransposeRead(b, loc, read, vectorType);
  }
  StringRef deviceSyncScope() const override { return "agent"; }
  bool atomicsUseLaneOffsets() const override { return true; }
  // Kernel arguments are device allocations (hipMalloc: coarse-grained, on
  // this device). Saying so lets LLVM emit global_atomic_add_f32 instead
  // of a compare-and-swap loop, which it must assume for memory another
  // agent or the host may be changing at the same time.
  void decorateAtomic(Operation *atomicRmw) const override {
    auto *rocdl = atomicRmw->getContext()
                      ->getOrLoadDialect<ROCDL::ROCDLDialect>();
    UnitAttr unit = UnitAttr::get(atomicRmw->getContext());
    rocdl->getNoRemoteMemoryAttrHelper().setAttr(atomicRmw, unit);
    rocdl->getNoFineGrainedMemoryAttrHelper().setAttr(atomicRmw, unit);
  }
  void populateMathPatterns(RewritePatternSet &patterns) const override {
    populateHardwareMathPatterns(patterns, "llvm.amdgcn.exp2",
                                 "llvm.amdgcn.log");
  }

private:
  StoreOptions storeOptions;
  bool directCopies;
  WaitsMode waits;
};

} // namespace

std::unique_ptr<TargetInfo>
mlir::rocdsl::createAMDGPUTargetInfo(const ChipInfo &chip,
                                     StoreOptions storeOptions,
                                     bool directCopies, WaitsMode waits) {
  return std::make_unique<AMDGPUTargetInfo>(chip, storeOptions, directCopies,
                                            waits);
}
