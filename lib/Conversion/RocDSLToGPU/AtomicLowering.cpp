//===- AtomicLowering.cpp - rocdsl.atomic_add and rocdsl.program_atomic ---===//
//
// atomic_add: each element's one holder (TileMapping::soleHolders: a
// layout may give several lanes a copy, and each copy added would count
// twice) makes one relaxed, device-wide add at the element's address,
// behind a branch on the element's validity and holdership. The target
// addresses it (AMDGPU: the pointer argument plus a 32-bit lane offset,
// the SGPR-base form) and emits it (an LLVM atomicrmw, decorated on AMDGPU
// with which memory it may touch so that a float add is one instruction;
// NVIDIA's `red`, which returns nothing).
//
// program_atomic, the acquire-release point of a whole program:
//   every lane: fence release (device)   its own accesses leave its caches
//   barrier                              ... before lane 0 goes on
//   lane 0: fence release (device); old = atomicrmw (device);
//           fence acquire (device); old -> LDS
//   barrier                              the value, and lane 0's acquire
//   every lane: old <- LDS; fence acquire (device)
// Lane 0's fences are the classic pattern (CUDA's threadFenceReduction,
// cooperative groups' grid sync): a fence is cumulative over what its lane
// observed, and the barriers make every lane's accesses observed by lane
// 0 before its release and lane 0's acquire observed by every lane after
// it. The fences are explicit because backends differ in what ordering
// they honour on an atomicrmw (LLVM 22's NVPTX emits a relaxed atom for an
// acq_rel one). The every-lane fences cost little once per program and
// keep the argument free of how each chip's barrier treats caches.
//
//===----------------------------------------------------------------------===//
#include "AccessPlan.h"
#include "TargetInfo.h"

#include "rocdsl/Conversion/Atomics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

Value allOf(OpBuilder &b, Location loc, Value a, Value c) {
  if (!a)
    return c;
  if (!c)
    return a;
  return arith::AndIOp::create(b, loc, a, c);
}

/// i1: `index & mask == 0` (null when mask is 0: always).
Value bitsClear(OpBuilder &b, Location loc, Value index, unsigned mask) {
  if (!mask)
    return {};
  Value masked = arith::AndIOp::create(b, loc, index, constI32(b, loc, mask));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, masked,
                               constI32(b, loc, 0));
}

struct AtomicAddLowering : OpConversionPattern<AtomicAddOp> {
  AtomicAddLowering(TileTypeConverter &converter, MLIRContext *ctx,
                    const TargetInfo &target)
      : OpConversionPattern(converter, ctx), target(target) {}

  LogicalResult
  matchAndRewrite(AtomicAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tileType = op.getValue().getType();
    auto dist = TileDistribution::get(tileType);
    if (!dist)
      return rewriter.notifyMatchFailure(op, "layout has no lowering");
    auto holders = dist->getMapping().soleHolders();
    if (!holders)
      return op.emitOpError()
             << "layout " << tileType.getEncoding()
             << " gives copies of an element to lanes that index bits "
                "cannot tell apart; convert the tile to a blocked layout "
                "first";
    auto plan = planAccess(rewriter, loc, tileType, adaptor.getPtr(),
                           adaptor.getOrigin(), adaptor.getStrides(),
                           adaptor.getBounds(), adaptor.getMask(), /*vec=*/1,
                           /*uniformMask=*/false,
                           target.atomicsUseLaneOffsets()
                               ? AccessForm::LaneOffset
                               : AccessForm::Pointer);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "layout has no lowering");

    Value lane = dist->laneId(rewriter, loc), wave = dist->waveId(rewriter, loc);
    std::map<std::pair<unsigned, unsigned>, Value> holds;
    for (const AccessGroup &group : plan->groups) {
      const TileMapping::SoleHolder &h = (*holders)[group.firstEntry];
      if (h.skip)
        continue;
      Value &mine = holds[{h.laneMask, h.waveMask}];
      if (!mine && (h.laneMask || h.waveMask))
        mine = allOf(rewriter, loc, bitsClear(rewriter, loc, lane, h.laneMask),
                     bitsClear(rewriter, loc, wave, h.waveMask));
      Value value = vector::ExtractOp::create(
          rewriter, loc, adaptor.getValue(), int64_t(group.firstEntry));
      guardedGroupStore(
          rewriter, loc, allOf(rewriter, loc, group.valid, mine),
          [&](OpBuilder &b, Location l) {
            target.emitAtomicAdd(b, l, groupPointer(b, l, *plan, group),
                                 value);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }

  const TargetInfo &target;
};

struct ProgramAtomicLowering : OpConversionPattern<ProgramAtomicOp> {
  ProgramAtomicLowering(TileTypeConverter &converter, MLIRContext *ctx,
                        gpu::GPUModuleOp gpuModule, const TargetInfo &target)
      : OpConversionPattern(converter, ctx), gpuModule(gpuModule),
        target(target) {}

  LogicalResult
  matchAndRewrite(ProgramAtomicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    StringRef scope = target.deviceSyncScope();
    Type i32 = rewriter.getI32Type();
    Value slot = createLdsArray(rewriter, loc, gpuModule,
                                "rocdsl_program_atomic", i32, 1);
    Value address =
        LLVM::GEPOp::create(rewriter, loc, adaptor.getPtr().getType(), i32,
                            adaptor.getPtr(), ValueRange{adaptor.getIndex()});
    // Relaxed: no fences at all. Otherwise lane 0 fences around its
    // update, and every lane too where the barrier does not carry lane 0's
    // fences to the others.
    const bool ordered = !op.getRelaxed();
    const bool everyLane = ordered && !target.barrierCarriesFences();
    auto fence = [&](OpBuilder &b, Location l, LLVM::AtomicOrdering order) {
      if (ordered)
        LLVM::FenceOp::create(b, l, order, scope);
    };
    if (everyLane)
      fence(rewriter, loc, LLVM::AtomicOrdering::release);
    gpu::BarrierOp::create(rewriter, loc);
    Value thread = arith::IndexCastUIOp::create(
        rewriter, loc, i32,
        gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x));
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        thread, constI32(rewriter, loc, 0));
    scf::IfOp::create(rewriter, loc, first, [&](OpBuilder &b, Location l) {
      fence(b, l, LLVM::AtomicOrdering::release);
      Value old = LLVM::AtomicRMWOp::create(
          b, l, getProgramAtomicBinOp(op.getKind()), address, adaptor.getValue(),
          ordered ? LLVM::AtomicOrdering::acq_rel
                  : LLVM::AtomicOrdering::monotonic,
          scope, /*alignment=*/4);
      fence(b, l, LLVM::AtomicOrdering::acquire);
      LLVM::StoreOp::create(b, l, old, slot);
      scf::YieldOp::create(b, l);
    });
    gpu::BarrierOp::create(rewriter, loc);
    Value old = LLVM::LoadOp::create(rewriter, loc, i32, slot);
    if (everyLane)
      fence(rewriter, loc, LLVM::AtomicOrdering::acquire);
    rewriter.replaceOp(op, old);
    return success();
  }

  gpu::GPUModuleOp gpuModule;
  const TargetInfo &target;
};

} // namespace

void TargetInfo::emitAtomicAdd(OpBuilder &b, Location loc, Value ptr,
                               Value value) const {
  auto rmw = LLVM::AtomicRMWOp::create(b, loc,
                                       getAtomicAddBinOp(value.getType()), ptr,
                                       value,
                                       LLVM::AtomicOrdering::monotonic,
                                       deviceSyncScope(), /*alignment=*/4);
  decorateAtomic(rmw);
}

void mlir::rocdsl::populateAtomicPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          gpu::GPUModuleOp gpuModule,
                                          const TargetInfo &target) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<AtomicAddLowering>(converter, ctx, target);
  patterns.add<ProgramAtomicLowering>(converter, ctx, gpuModule, target);
}
