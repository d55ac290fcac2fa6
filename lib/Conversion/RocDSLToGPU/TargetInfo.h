//===- TargetInfo.h - what the GPU conversion asks of each target -*- C++ -*-===//
//
// convert-rocdsl-to-gpu is target-neutral: kernels, elementwise ops, shape
// ops, reductions and LDS lower the same everywhere. What differs per
// target family (global memory, matrix products, the escape hatches a
// target lacks, cross-lane reductions, approximate math) comes from one
// TargetInfo, as in Triton's per-backend TargetInfo.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_LIB_CONVERSION_TARGETINFO_H
#define ROCDSL_LIB_CONVERSION_TARGETINFO_H

#include "PatternsInternal.h"
#include "rocdsl/Conversion/AmdAsyncCopies.h"

#include <memory>

namespace mlir::rocdsl {

/// A read of a register tile from an LDS array, offered to the target
/// before the generic element-group reads.
struct LdsTileRead {
  const TileDistribution &dist;
  Type elementType;
  /// The LDS array (!llvm.ptr<3>) and the element offset of a tile
  /// coordinate in it (swizzle and padding included).
  Value base;
  function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> offsetOf;
  /// The tile dimension contiguous in LDS, and the elements that stay
  /// together along it from any multiple of `alignedRun`, with the first
  /// of them at an address aligned to the run's bytes.
  unsigned fastDim;
  unsigned alignedRun;
};

class TargetInfo {
public:
  explicit TargetInfo(const ChipInfo &chip) : chip(chip) {}
  virtual ~TargetInfo() = default;

  const ChipInfo &getChip() const { return chip; }

  /// Before conversion: removes constructs that mean nothing on the target
  /// (with a note), after checks have rejected those it cannot run.
  virtual void prepare(ModuleOp module) const {}
  /// rocdsl.load/store on global memory.
  virtual void populateMemoryPatterns(TileTypeConverter &converter,
                                      RewritePatternSet &patterns) const = 0;
  /// rocdsl.dot on the matrix units.
  virtual void populateDotPatterns(TileTypeConverter &converter,
                                   RewritePatternSet &patterns) const = 0;
  /// Right after conversion, before anything else touches the module.
  virtual void finishConversion(gpu::GPUModuleOp gpuModule) const {}
  /// After conversion: the gpu.subgroup_reduce ops reductions left.
  virtual LogicalResult
  lowerSubgroupReductions(gpu::GPUModuleOp gpuModule) const = 0;
  /// A target's own instructions for an LDS read (NVIDIA: ldmatrix into
  /// mma operands); a null Value leaves it to the generic reads.
  virtual Value readLdsTile(OpBuilder &b, Location loc, const LdsTileRead &read,
                            VectorType vectorType) const {
    return {};
  }
  /// A kernel's `rocdsl.min_programs_per_cu` (an occupancy hint: keep
  /// registers low enough that this many workgroups share one CU or SM),
  /// copied onto its gpu.func, as the target's own attribute (NVIDIA:
  /// nvvm.minctasm, ptxas's .minnctapersm) or dropped where the target
  /// takes occupancy hints otherwise (AMD: the function's waves_per_eu).
  virtual void applyOccupancyHint(gpu::GPUFuncOp kernel,
                                  IntegerAttr programs) const {}
  /// Atomics (AtomicLowering.cpp): the LLVM sync scope of the whole device
  /// (NVPTX "device", AMDGPU "agent"), how the target addresses an element
  /// of a tile's atomic update, and what it adds to each atomicrmw.
  virtual StringRef deviceSyncScope() const = 0;
  /// Whether a workgroup barrier followed by one lane's device-scope fence
  /// orders every lane's accesses before the barrier, and one lane's
  /// acquire fence followed by a barrier orders every lane's accesses after
  /// it (NVIDIA: PTX fences are cumulative and bar.sync synchronizes the
  /// block, as cooperative groups' grid sync relies on). Otherwise every
  /// lane fences too (AMDGPU: each wave drains its own memory counters).
  virtual bool barrierCarriesFences() const { return false; }
  virtual bool atomicsUseLaneOffsets() const { return false; }
  virtual void decorateAtomic(Operation *atomicRmw) const {}
  /// One relaxed device-wide add of `value` at `ptr` whose old value
  /// nobody reads: a decorated atomicrmw unless the target has a cheaper
  /// form (NVIDIA: `red`).
  virtual void emitAtomicAdd(OpBuilder &b, Location loc, Value ptr,
                             Value value) const;
  /// Fast-math flags to the target's approximate instructions (applied by
  /// one walk over the lowered module).
  virtual void populateMathPatterns(RewritePatternSet &patterns) const = 0;

protected:
  const ChipInfo &chip;
};

std::unique_ptr<TargetInfo> createAMDGPUTargetInfo(const ChipInfo &chip,
                                                   StoreOptions storeOptions,
                                                   bool directCopies,
                                                   WaitsMode waits);
std::unique_ptr<TargetInfo> createNVIDIATargetInfo(const ChipInfo &chip);

} // namespace mlir::rocdsl

#endif
