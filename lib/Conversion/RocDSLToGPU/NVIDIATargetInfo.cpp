//===- NVIDIATargetInfo.cpp - sm_90 parts of the conversion ---------------===//
//
// Guarded global accesses, cp.async, mma.sync and ldmatrix, wgmma (sm_90a),
// warp shuffles for cross-lane reductions, PTX's approximate exp2, division and rsqrt;
// AMDGPU-only escape hatches dropped with a note.
//
//===----------------------------------------------------------------------===//
#include "TargetInfo.h"
#include "rocdsl/Dialect/RocDSL/IR/KernelAttrs.h"
#include "rocdsl/Support/Log.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class NVIDIATargetInfo : public TargetInfo {
public:
  using TargetInfo::TargetInfo;

  void applyOccupancyHint(gpu::GPUFuncOp kernel,
                          IntegerAttr programs) const override {
    kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), programs);
  }

  /// NVIDIA has no counterpart of AMDGPU's memory counters or scheduling
  /// barriers: its hardware tracks every register a load writes, so a wait
  /// orders nothing, and ptxas schedules on its own. The hatches are
  /// dropped (they would otherwise reach the NVPTX backend as AMDGPU
  /// intrinsics it cannot select), with one note per kind and kernel at
  /// ROCDSL_LOG=info. Unaligned barriers become `barrier.sync` here; the
  /// others are left to the common lowering (gpu.barrier, `bar.sync`).
  void prepare(ModuleOp module) const override {
    for (FuncOp func : module.getOps<FuncOp>()) {
      unsigned waits = 0, schedBarriers = 0;
      func.walk([&](Operation *op) {
        if (isa<WaitOp>(op)) {
          ++waits;
          op->erase();
        } else if (isa<SchedBarrierOp, SchedGroupBarrierOp, SetPriorityOp>(
                       op)) {
          ++schedBarriers;
          op->erase();
        } else if (auto barrier = dyn_cast<BarrierOp>(op);
                   barrier && barrier.getUnaligned()) {
          lowerUnalignedBarrier(barrier);
        }
      });
      if (waits)
        logInfo("kernel '" + func.getName() + "': " + Twine(waits) +
                " rocdsl.wait dropped for " + chip.name +
                " (memory counters are AMDGPU-only; NVIDIA hardware waits on "
                "registers by itself)");
      if (schedBarriers)
        logInfo("kernel '" + func.getName() + "': " + Twine(schedBarriers) +
                " rocdsl.sched_barrier/sched_group_barrier/set_priority "
                "dropped for " +
                chip.name +
                " (a hint for the AMDGPU scheduler only)");
    }
  }
  /// `barrier.sync 0`: as `bar.sync 0` (gpu.barrier's lowering) without
  /// `.aligned`, whose promise that every thread runs this very
  /// instruction phase-shifted waves break (rocdsl.barrier).
  static void lowerUnalignedBarrier(BarrierOp barrier) {
    OpBuilder b(barrier);
    Location loc = barrier.getLoc();
    Value id = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                        b.getI32IntegerAttr(0));
    LLVM::CallIntrinsicOp::create(
        b, loc, b.getStringAttr("llvm.nvvm.barrier.cta.sync.all"),
        ValueRange{id});
    barrier.erase();
  }

  void populateMemoryPatterns(TileTypeConverter &converter,
                              RewritePatternSet &patterns) const override {
    populateNvidiaMemoryPatterns(converter, patterns);
    populateNvidiaAsyncCopyPatterns(converter, patterns);
  }
  void populateDotPatterns(TileTypeConverter &converter,
                           RewritePatternSet &patterns) const override {
    populateNvidiaDotPatterns(converter, patterns);
    populateNvidiaWarpgroupDotPatterns(converter, patterns);
  }
  void finishConversion(gpu::GPUModuleOp gpuModule) const override {
    fenceSharedMemoryForWarpgroupMma(gpuModule);
  }
  /// Cross-lane reductions become warp shuffles (shfl.sync).
  LogicalResult
  lowerSubgroupReductions(gpu::GPUModuleOp gpuModule) const override {
    RewritePatternSet shuffles(gpuModule.getContext());
    populateGpuLowerSubgroupReduceToShufflePatterns(shuffles, chip.waveSize);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(shuffles,
                                                             chip.waveSize);
    return applyPatternsGreedily(gpuModule, std::move(shuffles));
  }
  Value readLdsTile(OpBuilder &b, Location loc, const LdsTileRead &read,
                    VectorType vectorType) const override {
    return readLdsWithLdmatrix(b, loc, read, vectorType);
  }
  StringRef deviceSyncScope() const override { return "device"; }
  bool barrierCarriesFences() const override { return true; }
  // LLVM's NVPTX turns an atomicrmw into `atom`, which returns the old
  // value through the memory system even when nothing reads it; `red`
  // returns nothing. On an H100, attention_bwd with dq_atomic=1 (8192
  // adds a step) took 8.3 ms with `atom` and 3.0 ms with `red` when its
  // only other synchronization was at the walk's end.
  void emitAtomicAdd(OpBuilder &b, Location loc, Value ptr,
                     Value value) const override {
    bool isFloat = value.getType().isF32();
    Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
    auto asmDialect = LLVM::AsmDialectAttr::get(b.getContext(),
                                                LLVM::AsmDialect::AD_ATT);
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, ValueRange{address, value},
        isFloat ? "red.relaxed.gpu.global.add.f32 [$0], $1;"
                : "red.relaxed.gpu.global.add.u32 [$0], $1;",
        isFloat ? "l,f,~{memory}" : "l,r,~{memory}",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, asmDialect, ArrayAttr());
  }
  void populateMathPatterns(RewritePatternSet &patterns) const override {
    populateHardwareMathPatterns(patterns, "llvm.nvvm.ex2.approx.f32",
                                 "llvm.nvvm.lg2.approx.f");
    populatePtxApproxMathPatterns(patterns);
  }
};

} // namespace

std::unique_ptr<TargetInfo>
mlir::rocdsl::createNVIDIATargetInfo(const ChipInfo &chip) {
  return std::make_unique<NVIDIATargetInfo>(chip);
}
