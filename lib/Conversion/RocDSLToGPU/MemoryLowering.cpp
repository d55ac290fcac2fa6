//===- MemoryLowering.cpp - rocdsl.load/store via raw buffer resources ----===//
//
// One buffer resource per access, based at ptr, with the tile origin in
// every lane's 32-bit VGPR offset, and soffset the constant 0. That is the
// hazard-free store form: LLVM protects wide buffer stores with a constant
// soffset, and never needs to for this pattern.
// Invalid elements (out of bounds or masked off) get a VGPR offset past the
// resource's range: loads return 0 and stores are dropped by the hardware.
//
// The exception: a masked access of which each lane holds one group (an
// elementwise kernel's block) is a global load or store behind one
// branch, as Triton emits it. A buffer resource costs three SALU per
// pointer and each distinct offset a select; the branches of a kernel's
// accesses share their condition, and LLVM merges them into one.
//
//===----------------------------------------------------------------------===//
#include "AccessPlan.h"
#include "TileDistribution.h"

#include "rocdsl/Conversion/Addressing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

/// Resource range: every valid byte offset of a tile must stay below it
/// (launches refuse larger tensors, Addressing.h).
constexpr int64_t kNumRecords = kMaxTensorBytes;
static_assert(kInvalidBufferOffset > kNumRecords + 4096 + 16,
              "invalid offsets must stay out of range");

Type mlir::rocdsl::groupTransferType(MLIRContext *ctx, unsigned bits) {
  if (bits <= 32)
    return IntegerType::get(ctx, bits);
  return VectorType::get({static_cast<int64_t>(bits / 32)},
                         IntegerType::get(ctx, 32));
}

/// The same-width integer vector of a group whose elements LLVM has no
/// type for, else null.
static VectorType integerGroupType(VectorType groupType) {
  Type element = groupType.getElementType();
  if (LLVM::isCompatibleType(element))
    return {};
  return VectorType::get(
      groupType.getShape(),
      IntegerType::get(groupType.getContext(),
                       element.getIntOrFloatBitWidth()));
}

Value mlir::rocdsl::bitcastToGroup(OpBuilder &b, Location loc,
                                   VectorType groupType, Value raw) {
  VectorType ints = integerGroupType(groupType);
  if (!ints)
    return LLVM::BitcastOp::create(b, loc, groupType, raw);
  return arith::BitcastOp::create(
      b, loc, groupType, LLVM::BitcastOp::create(b, loc, ints, raw));
}

Value mlir::rocdsl::bitcastFromGroup(OpBuilder &b, Location loc,
                                     Type transfer, Value group) {
  if (VectorType ints = integerGroupType(cast<VectorType>(group.getType())))
    group = arith::BitcastOp::create(b, loc, ints, group);
  return LLVM::BitcastOp::create(b, loc, transfer, group);
}

namespace {

/// Entries `lanes` of `value`. When `value` is a narrowing conversion of a
/// wider vector (f32 -> bf16 before a store), the slice is taken before the
/// conversion and converted on its own: each group is then converted just
/// before its store, as it would be written by hand, instead of the whole
/// per-lane vector first. With the groups kept in order (StoreLowering),
/// only one group's conversion temporaries are live at a time: on gfx942,
/// where bf16 is rounded in software, a 16-entry bf16 row takes 34 VGPRs
/// instead of 50. Only when the store is the conversion's one user
/// (`soleUse`): otherwise the whole conversion stays for the others, and
/// converting again per group would do the work twice.
Value sliceForStore(OpBuilder &b, Location loc, Value value,
                    ArrayRef<int64_t> lanes, bool soleUse) {
  Operation *def = value.getDefiningOp();
  if (soleUse && def && isa<arith::TruncFOp, arith::TruncIOp>(def)) {
    Value wide = def->getOperand(0);
    Value slice = vector::ShuffleOp::create(b, loc, wide, wide, lanes);
    auto narrow = VectorType::get(
        {int64_t(lanes.size())},
        cast<VectorType>(value.getType()).getElementType());
    OperationState state(loc, def->getName(), ValueRange{slice}, {narrow},
                         def->getAttrs());
    return b.create(state)->getResult(0);
  }
  return vector::ShuffleOp::create(b, loc, value, value, lanes);
}

} // namespace

Value mlir::rocdsl::makeBufferResource(OpBuilder &b, Location loc, Value base) {
  auto rsrcType = LLVM::LLVMPointerType::get(b.getContext(), 8);
  return ROCDL::MakeBufferRsrcOp::create(
      b, loc, rsrcType, base, arith::ConstantIntOp::create(b, loc, 0, 16),
      arith::ConstantIntOp::create(b, loc, kNumRecords, 64),
      arith::ConstantIntOp::create(b, loc, kGfx9BufferFlags, 32));
}

FailureOr<AccessPlan>
mlir::rocdsl::planAccess(OpBuilder &b, Location loc, RankedTensorType tileType,
                         Value ptr, ValueRange origin, ValueRange strides,
                         ValueRange bounds, Value mask, unsigned vec,
                         bool uniformMask, AccessForm form) {
  auto dist = TileDistribution::get(tileType);
  if (!dist)
    return failure();
  // A mask is per element: accesses stay one element wide so that every
  // element's mask bit decides (bounds keep the group-wide vec promise),
  // unless the op promises the mask is constant per group: then the
  // group's first bit decides for all of it.
  if (mask && !uniformMask)
    vec = 1;
  bool buffer = form == AccessForm::Buffer;
  bool originInOffsets = form != AccessForm::Pointer;
  Type elementType = tileType.getElementType();
  unsigned bytes = elementType.getIntOrFloatBitWidth() / 8;
  unsigned rank = tileType.getRank();
  if (vec > 1 && dist->getMapping().contiguousAlong(rank - 1) % vec != 0)
    return failure();
  // rocdsl.atomic_add may give every stride, the innermost included; its
  // accesses are one element wide.
  bool innerStride = strides.size() == rank;
  if (innerStride && vec > 1)
    return failure();
  auto strideOf = [&](unsigned d) -> Value {
    return d + 1 < rank || innerStride ? strides[d] : Value();
  };

  // With a buffer resource (or a global access at ptr plus a 32-bit lane
  // offset) the tile origin goes into every lane's 32-bit offset and the
  // base is ptr: a valid element's byte offset from ptr is
  // below kMaxTensorBytes (launches refuse larger tensors), and the lane's
  // position origin + coord is computed for the mask anyway, so no 64-bit
  // add per access (and per buffer resource) is needed. Otherwise the
  // uniform part ptr + sum(origin_d * stride_d) is added once, in 64 bits.
  Value base = ptr;
  if (!originInOffsets) {
    Type llvmElement = elementType;
    if (!LLVM::isCompatibleType(llvmElement))
      llvmElement = b.getIntegerType(bytes * 8);
    Value elemOffset =
        arith::ExtSIOp::create(b, loc, b.getI64Type(), origin[rank - 1]);
    if (innerStride)
      elemOffset = arith::MulIOp::create(
          b, loc, elemOffset,
          arith::ExtSIOp::create(b, loc, b.getI64Type(), strides[rank - 1]));
    for (unsigned d = 0; d + 1 < rank; ++d) {
      Value o = arith::ExtSIOp::create(b, loc, b.getI64Type(), origin[d]);
      Value s = arith::ExtSIOp::create(b, loc, b.getI64Type(), strides[d]);
      elemOffset = arith::AddIOp::create(b, loc, elemOffset,
                                         arith::MulIOp::create(b, loc, o, s));
    }
    base = LLVM::GEPOp::create(b, loc, ptr.getType(), llvmElement, ptr,
                               ValueRange{elemOffset});
  }
  Value rsrc = buffer ? makeBufferResource(b, loc, base) : Value();

  AccessPlan plan{base, rsrc, vec, {}};
  SmallVector<Value> laneBase;
  for (unsigned d = 0; d < rank; ++d)
    laneBase.push_back(dist->laneCoordBase(b, loc, d));
  Value invalid = buffer ? constI32(b, loc, kInvalidBufferOffset) : Value();
  for (unsigned f = 0; f < dist->getNumElements(); f += vec) {
    SmallVector<unsigned> index = dist->delinearize(f);
    Value offset;
    Value valid;
    for (unsigned d = 0; d < rank; ++d) {
      Value c = dist->coord(b, loc, d, index[d], laneBase[d]);
      Value position;
      if (originInOffsets || !bounds.empty())
        position = arith::AddIOp::create(b, loc, origin[d], c);
      Value along = originInOffsets ? position : c;
      Value stride = strideOf(d);
      Value term =
          stride ? arith::MulIOp::create(b, loc, along, stride).getResult()
                 : along;
      offset = offset ? arith::AddIOp::create(b, loc, offset, term).getResult()
                      : term;
      if (!bounds.empty()) {
        Value inBounds = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, position, bounds[d]);
        valid = valid
                    ? arith::AndIOp::create(b, loc, valid, inBounds).getResult()
                    : inBounds;
      }
    }
    if (mask) {
      Value m = vector::ExtractOp::create(b, loc, mask, int64_t(f));
      valid = valid ? arith::AndIOp::create(b, loc, valid, m).getResult() : m;
    }
    offset = arith::MulIOp::create(b, loc, offset, constI32(b, loc, bytes));
    if (valid && buffer)
      offset = arith::SelectOp::create(b, loc, valid, offset, invalid);
    plan.groups.push_back({f, offset, valid});
  }
  return plan;
}

LogicalResult mlir::rocdsl::lowerTileLoad(LoadOp op, LoadOp::Adaptor adaptor,
                                          ConversionPatternRewriter &rewriter,
                                          const TypeConverter &converter,
                                          AccessForm form,
                                          GroupLoader loadGroup) {
  Location loc = op.getLoc();
  RankedTensorType tileType = op.getType();
  auto plan =
      planAccess(rewriter, loc, tileType, adaptor.getPtr(), adaptor.getOrigin(),
                 adaptor.getStrides(), adaptor.getBounds(), adaptor.getMask(),
                 op.getVecWidth(), op.getUniformMask(), form);
  if (failed(plan))
    return rewriter.notifyMatchFailure(op, "layout has no memory lowering");
  auto resultType = cast<VectorType>(converter.convertType(tileType));
  Type elementType = tileType.getElementType();
  unsigned vec = plan->vec;
  auto groupType = VectorType::get({vec}, elementType);
  Type transfer = groupTransferType(rewriter.getContext(),
                                    vec * elementType.getIntOrFloatBitWidth());
  Value other;
  if (op.getOther())
    other = vector::BroadcastOp::create(rewriter, loc, groupType,
                                        adaptor.getOther());
  SmallVector<Value> entries;
  for (const AccessGroup &group : plan->groups) {
    Value value =
        loadGroup(rewriter, loc, *plan, group, groupType, transfer, other);
    for (unsigned j = 0; j < vec; ++j)
      entries.push_back(
          vector::ExtractOp::create(rewriter, loc, value, int64_t(j)));
  }
  rewriter.replaceOp(
      op, vector::FromElementsOp::create(rewriter, loc, resultType, entries));
  return success();
}

namespace {

/// One group through the access's buffer resource. Invalid groups read
/// past the resource range, which returns zeros; only a non-zero `other`
/// needs a select.
Value loadBufferGroup(OpBuilder &b, Location loc, const AccessPlan &plan,
                      const AccessGroup &group, VectorType groupType,
                      Type transfer, Value other) {
  Value zero32 = constI32(b, loc, 0);
  Value raw = ROCDL::RawPtrBufferLoadOp::create(
      b, loc, transfer, plan.rsrc, group.voffset, zero32, zero32,
      /*alias_scopes=*/nullptr, /*noalias_scopes=*/nullptr,
      /*tbaa=*/nullptr);
  Value value = bitcastToGroup(b, loc, groupType, raw);
  if (other && group.valid)
    value = arith::SelectOp::create(b, loc, group.valid, value, other);
  return value;
}

/// Whether each lane's part of an access is one group guarded by a mask
/// (see the file comment). Only masked accesses, as kernels written like
/// Triton's make them: accesses checked against `bounds` alone (the
/// built-in kernels') keep the buffer form and its hazard-free stores.
bool oneGuardedGroup(RankedTensorType tileType, Value mask, unsigned vec,
                     bool uniformMask) {
  if (!mask)
    return false;
  auto dist = TileDistribution::get(tileType);
  if (!dist)
    return false;
  return dist->getNumElements() == (uniformMask ? vec : 1);
}

struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (oneGuardedGroup(op.getType(), adaptor.getMask(), op.getVecWidth(),
                        op.getUniformMask()))
      return lowerTileLoad(op, adaptor, rewriter, *getTypeConverter(),
                           AccessForm::LaneOffset, loadGroupThroughPointer);
    return lowerTileLoad(op, adaptor, rewriter, *getTypeConverter(),
                         AccessForm::Buffer, loadBufferGroup);
  }
};

struct StoreLowering : OpConversionPattern<StoreOp> {
  StoreLowering(TileTypeConverter &converter, MLIRContext *ctx,
                StoreOptions options)
      : OpConversionPattern(converter, ctx), options(options) {}
  StoreOptions options;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tileType = op.getValue().getType();
    Type elementType = tileType.getElementType();
    unsigned bits = elementType.getIntOrFloatBitWidth();
    bool oneGroup = oneGuardedGroup(tileType, adaptor.getMask(),
                                    op.getVecWidth(), op.getUniformMask());
    auto plan = planAccess(
        rewriter, loc, tileType, adaptor.getPtr(), adaptor.getOrigin(),
        adaptor.getStrides(), adaptor.getBounds(), adaptor.getMask(),
        op.getVecWidth(), op.getUniformMask(),
        oneGroup ? AccessForm::LaneOffset : AccessForm::Buffer);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "layout has no memory lowering");
    if (oneGroup)
      return storeOneGuardedGroup(op, adaptor, *plan, rewriter);
    unsigned vec = plan->vec;
    // soffset is always this constant: see the file comment.
    Value zero32 = constI32(rewriter, loc, 0);
    // The conservative form splits each group into stores of at most
    // maxStoreBits. Part k goes through a resource based k parts further on,
    // with the same VGPR offset: the backend would otherwise merge the parts
    // (same resource, adjacent offsets) back into one wide store.
    unsigned part = std::max(1u, std::min(vec, options.maxStoreBits / bits));
    Type partTransfer = groupTransferType(getContext(), part * bits);
    SmallVector<Value> partResources = {plan->rsrc};
    for (unsigned first = part; first < vec; first += part) {
      Value shifted = LLVM::GEPOp::create(
          rewriter, loc, plan->base.getType(), rewriter.getI8Type(), plan->base,
          ArrayRef<LLVM::GEPArg>{int32_t(first * bits / 8)});
      partResources.push_back(makeBufferResource(rewriter, loc, shifted));
    }
    for (const AccessGroup &group : plan->groups) {
      for (unsigned first = 0; first < vec; first += part) {
        SmallVector<int64_t> lanes;
        for (unsigned j = 0; j < part; ++j)
          lanes.push_back(group.firstEntry + first + j);
        Value slice = sliceForStore(rewriter, loc, adaptor.getValue(), lanes,
                                    op.getValue().hasOneUse());
        Value data = bitcastFromGroup(rewriter, loc, partTransfer, slice);
        ROCDL::RawPtrBufferStoreOp::create(rewriter, loc, data,
                                           partResources[first / part],
                                           group.voffset, zero32, zero32,
                                           /*alias_scopes=*/nullptr,
                                           /*noalias_scopes=*/nullptr,
                                           /*tbaa=*/nullptr);
        if (options.padWideStores && part * bits > 64)
          LLVM::InlineAsmOp::create(
              rewriter, loc, TypeRange(), ValueRange(),
              rewriter.getStringAttr("s_nop 1"), rewriter.getStringAttr(""),
              rewriter.getUnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
              LLVM::AsmDialectAttr(), ArrayAttr());
      }
      // Groups stay in order: LLVM clusters buffer stores through one
      // resource, which sinks every group's store to the last one and keeps
      // all their data (and, converted here, the conversions' temporaries)
      // live at once.
      if (&group != &plan->groups.back())
        ROCDL::SchedBarrier::create(rewriter, loc, 0);
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// The one group of each lane (a LaneOffset `plan`) as a global store
  /// behind its branch. Not split: LLVM protects wide global stores (it
  /// inserts the s_nop the wide-store hazard needs), and the checked
  /// compile verifies that.
  LogicalResult storeOneGuardedGroup(StoreOp op, OpAdaptor adaptor,
                                     const AccessPlan &plan,
                                     ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    RankedTensorType tileType = op.getValue().getType();
    const AccessGroup &group = plan.groups.front();
    SmallVector<int64_t> lanes;
    for (unsigned j = 0; j < plan.vec; ++j)
      lanes.push_back(group.firstEntry + j);
    Value slice = sliceForStore(rewriter, loc, adaptor.getValue(), lanes,
                                op.getValue().hasOneUse());
    Type transfer = groupTransferType(
        getContext(),
        plan.vec * tileType.getElementType().getIntOrFloatBitWidth());
    storeGroupThroughPointer(rewriter, loc, plan, group,
                             bitcastFromGroup(rewriter, loc, transfer, slice));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateMemoryPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          StoreOptions storeOptions) {
  patterns.add<LoadLowering>(converter, patterns.getContext());
  patterns.add<StoreLowering>(converter, patterns.getContext(), storeOptions);
}
