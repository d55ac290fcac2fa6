//===- AmdAsyncCopy.cpp - rocdsl.async_copy as direct-to-LDS loads --------===//
//
// On gfx942 and gfx950 a buffer load can write LDS instead of VGPRs
// (`buffer_load_dword... lds`): lane L of one instruction writes its
// `size` bytes at M0 + L * size, so the 64 lanes fill one contiguous run
// of LDS. A copy is therefore planned from the LDS side: instruction j of
// wave w fills chunks (j * waves + w) * 64 .. + 63 of the tile's LDS
// array, and each lane loads the global bytes that belong in its chunk
// (the `shared` swizzle undone: XOR is its own inverse). Invalid chunks
// (bounds) read past the buffer resource, which writes zeros.
//
// Completion is counted by vmcnt, which covers every VMEM operation in
// issue order. The waits are planned here, from the structure of the
// kernel: a group (the copies between two commits) is G loads, and
// `async_wait {pending = N}` must retire everything but the N newest
// groups, so it becomes `s_waitcnt vmcnt(N * G)`. Other VMEM operations
// issued among those groups only make that wait stricter, never
// insufficient; a group that could issue fewer than G loads (a copy
// under a branch, groups of different sizes) makes every wait drain
// instead. The invariant the plan rests on -- each of the N newest groups
// is G VMEM instructions in the final code, none moved across a commit or
// a wait -- is checked on the emitted assembly (WaitCheck.h), where
// commits and planned waits leave marks (Support/WaitFences.h).
//
// A kernel where some copy cannot be a direct load (a mask, a transposed
// LDS layout, accesses narrower than the chip's direct widths, a tile
// that does not fill whole instructions) copies through registers
// instead, as before: the commits and waits then vanish.
//
//===----------------------------------------------------------------------===//
#include "AccessPlan.h"
#include "rocdsl/Conversion/AmdAsyncCopies.h"
#include "rocdsl/Conversion/AsyncCopies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

constexpr unsigned kLanes = 64;

struct DirectCopy {
  unsigned bytes = 0;        // per lane and instruction
  unsigned instructions = 0; // per wave
};

/// How `copy` goes straight to LDS on `chip`, or nullopt.
std::optional<DirectCopy> planDirectCopy(AsyncCopyOp copy,
                                         const ChipInfo &chip) {
  if (!chip.isAMD() || !chip.directToLdsDwordMask || copy.getMask())
    return std::nullopt;
  RankedTensorType tile = copy.getTileType();
  LdsTileType dst = copy.getDst().getType();
  auto shared = dyn_cast_or_null<SharedAttr>(dst.getEncoding());
  auto dist = TileDistribution::get(tile);
  if (!dist || !shared || tile.getRank() != 2 ||
      shared.getOrder().size() != 2 || shared.getOrder()[0] != 1 ||
      dst.getShape() != tile.getShape())
    return std::nullopt;
  unsigned elementBytes = tile.getElementType().getIntOrFloatBitWidth() / 8;
  if (elementBytes == 0 || elementBytes > 4)
    return std::nullopt;
  int64_t rows = tile.getShape()[0], cols = tile.getShape()[1];
  int64_t total = rows * cols * elementBytes;
  unsigned waves = dist->getNumWarps();
  // The author's `vec` promises groups that are valid together and
  // aligned; the swizzle keeps `vec` elements together.
  unsigned promised = copy.getVecWidth() * elementBytes;
  unsigned together = shared.getMaxPhase() > 1
                          ? shared.getVec() * elementBytes
                          : 1u << 30; // no swizzle: any width stays together
  // Widest first; three dwords would split 16-byte swizzle groups.
  for (unsigned dwords : {4u, 2u, 1u}) {
    unsigned bytes = dwords * 4;
    if (!(chip.directToLdsDwordMask >> dwords & 1) || bytes > promised ||
        together % bytes != 0 || (cols * elementBytes) % bytes != 0 ||
        total % (int64_t(kLanes) * bytes * waves) != 0)
      continue;
    return DirectCopy{bytes,
                      unsigned(total / (int64_t(kLanes) * bytes * waves))};
  }
  return std::nullopt;
}

constexpr char kDirectBytesAttr[] = "rocdsl.direct_bytes";
constexpr char kDirectLoadsAttr[] = "rocdsl.direct_loads";

/// Direct-to-LDS loads of one wave for `copy`.
struct DirectCopyLowering : OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto bytesAttr = op->getAttrOfType<IntegerAttr>(kDirectBytesAttr);
    auto loadsAttr = op->getAttrOfType<IntegerAttr>(kDirectLoadsAttr);
    if (!bytesAttr || !loadsAttr)
      return rewriter.notifyMatchFailure(op, "not planned as a direct copy");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    RankedTensorType tile = op.getTileType();
    auto shared = cast<SharedAttr>(op.getDst().getType().getEncoding());
    auto dist = TileDistribution::get(tile);
    unsigned elementBytes = tile.getElementType().getIntOrFloatBitWidth() / 8;
    int64_t cols = tile.getShape()[1];
    unsigned bytes = bytesAttr.getInt(), waves = dist->getNumWarps();
    unsigned perChunk = bytes / elementBytes;

    Value lane = dist->laneId(b, loc);
    // The wave index is uniform: say so, so that the LDS address (M0) and
    // everything derived from it stay scalar.
    Value wave = ROCDL::ReadfirstlaneOp::create(b, loc, b.getI32Type(),
                                                dist->waveId(b, loc));
    Value rsrc = makeBufferResource(b, loc, adaptor.getPtr());
    Value zero = constI32(b, loc, 0);
    Value invalid = constI32(b, loc, kInvalidBufferOffset);
    ValueRange origin = adaptor.getOrigin(), bounds = adaptor.getBounds();
    Value rowStride = adaptor.getStrides().empty()
                          ? constI32(b, loc, cols)
                          : adaptor.getStrides()[0];
    auto i8 = b.getI8Type();
    // The first chunk instruction j of this wave fills (uniform).
    auto firstChunk = [&](unsigned j) {
      return arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, wave, constI32(b, loc, j * waves)),
          constI32(b, loc, kLanes));
    };
    // The tile coordinate of the first element of the lane's chunk in
    // instruction j (the swizzle undone).
    auto coordinates = [&](unsigned j) {
      Value chunk = arith::AddIOp::create(b, loc, firstChunk(j), lane);
      Value element =
          arith::MulIOp::create(b, loc, chunk, constI32(b, loc, perChunk));
      Value row =
          arith::DivUIOp::create(b, loc, element, constI32(b, loc, cols));
      Value col =
          arith::RemUIOp::create(b, loc, element, constI32(b, loc, cols));
      if (shared.getMaxPhase() > 1) {
        Value vec = constI32(b, loc, shared.getVec());
        Value phase = arith::RemUIOp::create(
            b, loc,
            arith::DivUIOp::create(b, loc, row,
                                   constI32(b, loc, shared.getPerPhase())),
            constI32(b, loc, shared.getMaxPhase()));
        Value group = arith::XOrIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, col, vec), phase);
        col = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, group, vec),
            arith::RemUIOp::create(b, loc, col, vec));
      }
      return std::pair<Value, Value>{
          arith::AddIOp::create(b, loc, origin[0], row),
          arith::AddIOp::create(b, loc, origin[1], col)};
    };
    auto byteOffset = [&](Value row, Value col) {
      return arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, row, rowStride), col),
          constI32(b, loc, elementBytes));
    };
    auto inBounds = [&](unsigned d, Value position) -> Value {
      if (bounds.empty())
        return {};
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                   position, bounds[d]);
    };
    auto both = [&](Value x, Value y) -> Value {
      return x && y ? arith::AndIOp::create(b, loc, x, y).getResult()
                    : (x ? x : y);
    };
    // When one round of loads (all waves) covers whole rows and a whole
    // number of swizzle periods, instruction j reads what instruction 0
    // reads, `j * rowsPerRound` rows further down: the lane's column, and
    // whether it is in bounds, are the same for every j, and its offset
    // grows by a uniform step (an SGPR add instead of a division, a
    // remainder and a swizzle per load).
    int64_t elementsPerRound = int64_t(kLanes) * waves * perChunk;
    int64_t period = shared.getMaxPhase() > 1
                         ? int64_t(shared.getPerPhase()) * shared.getMaxPhase()
                         : 1;
    int64_t rowsPerRound = elementsPerRound / cols;
    bool stepsByRows =
        elementsPerRound % cols == 0 && rowsPerRound % period == 0;
    Value row0, col0, offset0, colValid, rowStep;
    if (stepsByRows) {
      std::tie(row0, col0) = coordinates(0);
      offset0 = byteOffset(row0, col0);
      colValid = inBounds(1, col0);
      rowStep = arith::MulIOp::create(
          b, loc, rowStride, constI32(b, loc, rowsPerRound * elementBytes));
    }
    for (unsigned j = 0; j < loadsAttr.getInt(); ++j) {
      Value offset, valid;
      if (stepsByRows) {
        Value row = arith::AddIOp::create(
            b, loc, row0, constI32(b, loc, j * rowsPerRound));
        offset = j == 0 ? offset0
                        : arith::AddIOp::create(
                              b, loc, offset0,
                              arith::MulIOp::create(b, loc, rowStep,
                                                    constI32(b, loc, j)))
                              .getResult();
        valid = both(inBounds(0, row), colValid);
      } else {
        auto [row, col] = coordinates(j);
        offset = byteOffset(row, col);
        valid = both(inBounds(0, row), inBounds(1, col));
      }
      if (valid)
        offset = arith::SelectOp::create(b, loc, valid, offset, invalid);
      // This instruction's LDS run (uniform: M0).
      Value ldsBytes =
          arith::MulIOp::create(b, loc, firstChunk(j), constI32(b, loc, bytes));
      Value lds = LLVM::GEPOp::create(b, loc, adaptor.getDst().getType(), i8,
                                      adaptor.getDst(), ValueRange{ldsBytes});
      ROCDL::RawPtrBufferLoadLdsOp::create(
          b, loc, rsrc, lds, constI32(b, loc, bytes), offset, zero, zero, zero,
          /*alias_scopes=*/nullptr, /*noalias_scopes=*/nullptr,
          /*tbaa=*/nullptr);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The commit mark (WaitFences.h), where waits are planned; nothing with
/// drained waits.
struct CommitLowering : OpConversionPattern<AsyncCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->hasAttr(kPlannedCommitAttr))
      rewriter.replaceOpWithNewOp<ROCDL::SWaitcntOp>(
          op, gfx9WaitcntBits(std::nullopt, std::nullopt, kCommitExpcnt));
    else
      rewriter.eraseOp(op);
    return success();
  }
};

struct WaitLowering : OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto vmcnt = op->getAttrOfType<IntegerAttr>(kPlannedVmcntAttr);
    if (!vmcnt)
      return rewriter.notifyMatchFailure(op, "wait not planned");
    // A planned wait names the groups it leaves running (its expcnt);
    // a drain is a plain vmcnt(0), as LLVM would write it.
    std::optional<unsigned> pending;
    if (auto planned = op->getAttrOfType<IntegerAttr>(kPlannedPendingAttr))
      pending = planned.getInt();
    Location loc = op.getLoc();
    ROCDL::SchedBarrier::create(rewriter, loc, kWaitFenceMask);
    // LLVM merges adjacent s_waitcnt into one (the smaller of each count):
    // a commit mark right before would vanish into this wait, and with it
    // the group boundary the ISA check counts. One s_nop keeps them apart.
    if (pending)
      ROCDL::SNopOp::create(rewriter, loc, 0);
    ROCDL::SWaitcntOp::create(
        rewriter, loc, gfx9WaitcntBits(vmcnt.getInt(), std::nullopt, pending));
    rewriter.replaceOpWithNewOp<ROCDL::SchedBarrier>(op, kWaitFenceMask);
    return success();
  }
};

/// Loads each commit closes, or nullopt where a group's size is not the
/// same on every path (copies or commits under a branch or loop of their
/// own, copies left uncommitted at the end of a block).
std::optional<SmallVector<unsigned>> groupSizes(ModuleOp module) {
  SmallVector<unsigned> sizes;
  bool regular = true;
  module.walk([&](Block *block) {
    unsigned pending = 0;
    for (Operation &op : *block) {
      if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
        pending += copy->getAttrOfType<IntegerAttr>(kDirectLoadsAttr).getInt();
      } else if (isa<AsyncCommitOp>(op)) {
        // A commit in a nested block counts as that block's own; its
        // groups are only regular if the block holds all their copies.
        sizes.push_back(pending);
        pending = 0;
      } else if (op.getNumRegions() && !isa<scf::ForOp, FuncOp>(op)) {
        bool copies = false;
        op.walk([&](Operation *inner) {
          copies |= isa<AsyncCopyOp, AsyncCommitOp>(inner);
        });
        regular &= !copies;
      }
    }
    regular &= pending == 0;
  });
  if (!regular)
    return std::nullopt;
  return sizes;
}

/// gpu.barrier becomes a workgroup release fence, s_barrier and a
/// workgroup acquire fence. On chips with direct-to-LDS loads LLVM makes
/// every workgroup release on LDS wait for all of them (the memory
/// legalizer's S_WAITCNT_lds_direct): a vmcnt(0) before each barrier,
/// which drains the copies a pipelined loop keeps in flight across it.
/// With planned waits the copies do not need it: rocdsl.async_copy's
/// contract has the kernel wait for a copy before the barrier that
/// publishes it, and the plan (checked on the ISA) retires exactly the
/// groups the next step reads. So a kernel with planned waits releases
/// only what a workgroup fence on LDS still has to: its own LDS reads and
/// writes, complete before the barrier (an explicit lgkmcnt(0); SMEM
/// shares the counter). The release fence stays, at wavefront scope, where
/// it keeps LLVM from moving memory accesses across the barrier without
/// asking for any wait; the acquire fence is unchanged.
void publishLdsAtBarriersWithoutDrainingCopies(gpu::GPUModuleOp gpuModule) {
  SmallVector<gpu::BarrierOp> barriers;
  gpuModule.walk([&](gpu::BarrierOp barrier) { barriers.push_back(barrier); });
  for (gpu::BarrierOp barrier : barriers) {
    OpBuilder b(barrier);
    Location loc = barrier.getLoc();
    ROCDL::SWaitcntOp::create(b, loc, gfx9WaitcntBits(std::nullopt, 0));
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "wavefront");
    ROCDL::SBarrierOp::create(b, loc);
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "workgroup");
    barrier.erase();
  }
}

} // namespace

void mlir::rocdsl::separateDirectCopiesFromLdsAccesses(
    gpu::GPUModuleOp gpuModule) {
  SmallVector<ROCDL::RawPtrBufferLoadLdsOp> copies;
  gpuModule.walk(
      [&](ROCDL::RawPtrBufferLoadLdsOp copy) { copies.push_back(copy); });
  if (copies.empty())
    return;
  MLIRContext *ctx = gpuModule.getContext();
  auto domain = LLVM::AliasScopeDomainAttr::get(
      ctx, StringAttr::get(ctx, "rocdsl.async_copies"));
  auto scope = ArrayAttr::get(ctx, {LLVM::AliasScopeAttr::get(domain)});
  for (ROCDL::RawPtrBufferLoadLdsOp copy : copies)
    copy.setAliasScopesAttr(scope);
  auto isLds = [](Value ptr) {
    auto type = dyn_cast<LLVM::LLVMPointerType>(ptr.getType());
    return type && type.getAddressSpace() == 3;
  };
  // The kernel's own order makes these disjoint from the copies in flight:
  // an LDS tile a copy writes is read only after a wait that retired the
  // copy and a barrier, and written again only after a barrier that
  // follows every read of it (rocdsl.async_copy's contract).
  gpuModule.walk([&](Operation *op) {
    if (auto load = dyn_cast<LLVM::LoadOp>(op); load && isLds(load.getAddr()))
      load.setNoaliasScopesAttr(scope);
    else if (auto store = dyn_cast<LLVM::StoreOp>(op);
             store && isLds(store.getAddr()))
      store.setNoaliasScopesAttr(scope);
    else if (auto read = dyn_cast<ROCDL::ds_read_tr16_b64>(op))
      read.setNoaliasScopesAttr(scope);
  });
  // Only planned waits say which copies a barrier may leave running; with
  // drained waits (--waits=llvm, irregular groups) the barriers stay as
  // LLVM would write them. Planned kernels carry commit marks.
  bool planned = false;
  uint32_t commitMark =
      gfx9WaitcntBits(std::nullopt, std::nullopt, kCommitExpcnt);
  gpuModule.walk([&](ROCDL::SWaitcntOp wait) {
    planned |= wait.getBitfield() == commitMark;
  });
  if (planned)
    publishLdsAtBarriersWithoutDrainingCopies(gpuModule);
}

std::optional<WaitsMode> mlir::rocdsl::parseWaitsMode(StringRef text) {
  if (text == "explicit")
    return WaitsMode::Explicit;
  if (text == "llvm")
    return WaitsMode::Llvm;
  if (text == "weakened-for-testing")
    return WaitsMode::WeakenedForTesting;
  return std::nullopt;
}

void mlir::rocdsl::prepareAmdAsyncCopies(ModuleOp module, const ChipInfo &chip,
                                         WaitsMode mode) {
  bool direct = true;
  SmallVector<std::pair<AsyncCopyOp, DirectCopy>> copies;
  module.walk([&](AsyncCopyOp copy) {
    if (auto plan = planDirectCopy(copy, chip))
      copies.push_back({copy, *plan});
    else
      direct = false;
  });
  if (!direct) {
    expandAsyncCopies(module);
    return;
  }
  Builder b(module.getContext());
  for (auto [copy, plan] : copies) {
    copy->setAttr(kDirectBytesAttr, b.getI32IntegerAttr(plan.bytes));
    copy->setAttr(kDirectLoadsAttr, b.getI32IntegerAttr(plan.instructions));
  }
  // One size for every group, or the waits drain.
  std::optional<unsigned> perGroup;
  if (auto sizes = groupSizes(module); sizes && !sizes->empty() &&
                                       llvm::all_equal(*sizes))
    perGroup = sizes->front();
  bool planned = mode != WaitsMode::Llvm && perGroup;
  if (planned)
    module.walk([&](AsyncCommitOp commit) {
      commit->setAttr(kPlannedCommitAttr, b.getUnitAttr());
    });
  SmallVector<AsyncWaitOp> waits;
  module.walk([&](AsyncWaitOp wait) {
    unsigned pending = wait.getPending(), count = 0;
    if (planned) {
      // More groups in flight than the mark can name: drain instead.
      if (pending > kMaxPlannedPending)
        pending = 0;
      count = std::min<unsigned>(pending * *perGroup, kMaxPlannedVmcnt);
      wait->setAttr(kPlannedPendingAttr, b.getI32IntegerAttr(pending));
    }
    wait->setAttr(kPlannedVmcntAttr, b.getI32IntegerAttr(count));
    waits.push_back(wait);
  });
  if (mode == WaitsMode::WeakenedForTesting) {
    // The steady state's wait if there is one (a loop's waits run most),
    // else the first: one count looser.
    auto weakenable = [](AsyncWaitOp wait) {
      auto count = wait->getAttrOfType<IntegerAttr>(kPlannedVmcntAttr);
      return wait->hasAttr(kPlannedPendingAttr) &&
             count.getInt() < kMaxPlannedVmcnt;
    };
    auto inLoop = [](AsyncWaitOp wait) {
      return wait->getParentOfType<scf::ForOp>() != nullptr;
    };
    auto it = llvm::find_if(
        waits, [&](AsyncWaitOp w) { return weakenable(w) && inLoop(w); });
    if (it == waits.end())
      it = llvm::find_if(waits, weakenable);
    if (it != waits.end()) {
      auto count = (*it)->getAttrOfType<IntegerAttr>(kPlannedVmcntAttr);
      (*it)->setAttr(kPlannedVmcntAttr,
                     b.getI32IntegerAttr(count.getInt() + 1));
    }
  }
}

void mlir::rocdsl::populateAmdAsyncCopyPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<DirectCopyLowering, CommitLowering, WaitLowering>(
      converter, patterns.getContext());
}
