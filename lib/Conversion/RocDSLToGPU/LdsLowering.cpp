//===- LdsLowering.cpp - LDS tiles and layout conversion ------------------===//
//
// LDS tiles are LLVM globals in address space 3; a lane reads and writes
// the elements its layout gives it, `g` consecutive elements per access
// where both the register layout and the LDS swizzle keep them together
// (ds_read_b128/ds_write_b128 for eight 16-bit elements), or with the
// target's own matrix loads where it has them (ldmatrix on NVIDIA).
//
// Synchronization rule: every LDS write (local_store, local_alloc with an
// initial value, the write half of convert_layout) is preceded by a
// workgroup barrier, so no wave still reads what it overwrites, and
// followed by one, so every wave sees it before reading. Consecutive
// local_stores with nothing between them that touches LDS share them (one
// barrier before the first, one after the last), and a barrier with no
// memory access since the previous one in its block folds away.
//
// convert_layout between layouts that place every element in the same
// register of the same lane is free, and so is a transpose into the
// swapped layout (a register renaming); otherwise both go through LDS
// scratch. LDS tiles and scratch share one arena per kernel, reused where
// live ranges are disjoint (LdsAllocation.cpp).
//
//===----------------------------------------------------------------------===//
#include "TargetInfo.h"
#include "rocdsl/Conversion/AsyncCopies.h"
#include "rocdsl/Conversion/SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;

/// Widest LDS access in bytes (ds_read_b128 / ds_write_b128).
constexpr unsigned kMaxLdsAccessBytes = 16;

Value mlir::rocdsl::createLdsArray(OpBuilder &b, Location loc,
                                   gpu::GPUModuleOp gpuModule,
                                   StringRef prefix, Type elementType,
                                   int64_t count) {
  auto arrayType = LLVM::LLVMArrayType::get(elementType, count);
  std::string name;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(gpuModule.getBody());
    unsigned id = 0;
    do
      name = (prefix + Twine(id++)).str();
    while (SymbolTable::lookupSymbolIn(gpuModule, name));
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/false,
                           LLVM::Linkage::Internal, name, Attribute(),
                           /*alignment=*/16, /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), name);
}

std::optional<std::string> mlir::rocdsl::checkSharedLayout(LdsTileType type) {
  auto shared = dyn_cast<SharedAttr>(type.getEncoding());
  if (!shared)
    return "an LDS tile needs a #rocdsl.shared layout";
  ArrayRef<int64_t> shape = type.getShape();
  if (shared.getOrder().size() != shape.size())
    return "the #rocdsl.shared order has " +
           std::to_string(shared.getOrder().size()) +
           " entries for a tile of rank " + std::to_string(shape.size());
  if (shape.size() < 2 || shared.getMaxPhase() == 1)
    return std::nullopt;
  int64_t fast = shape[shared.getOrder()[0]];
  unsigned vec = shared.getVec(), maxPhase = shared.getMaxPhase();
  if (!llvm::isPowerOf2_32(maxPhase) || fast % vec != 0 ||
      (fast / vec) % maxPhase != 0)
    return "the XOR swizzle of #rocdsl.shared<vec = " + std::to_string(vec) +
           ", maxPhase = " + std::to_string(maxPhase) +
           "> needs a power-of-two maxPhase and a fastest dimension that is "
           "a multiple of vec * maxPhase (" +
           std::to_string(vec * maxPhase) + "), got " + std::to_string(fast);
  return std::nullopt;
}

namespace {

/// How a tile sits in an LDS array: dimensions strided along `order`
/// (fastest first), rows of the fastest dimension padded by `pad`
/// elements, and the optional XOR swizzle of #rocdsl.shared (groups of
/// `vec` along the fastest dimension XORed with (row / perPhase) %
/// maxPhase of the next).
struct LdsLayout {
  SmallVector<unsigned> order;
  int64_t pad = 0;
  unsigned vec = 1, perPhase = 1, maxPhase = 1;

  static LdsLayout of(SharedAttr shared) {
    LdsLayout l;
    l.order.assign(shared.getOrder().begin(), shared.getOrder().end());
    l.vec = shared.getVec();
    l.perPhase = shared.getPerPhase();
    l.maxPhase = shared.getMaxPhase();
    return l;
  }
  /// The conversion scratch of a 2-D (or 1-D) tile: fastest along `fast`;
  /// with `padRows`, rows padded by 16 bytes where they are a multiple of
  /// 16 bytes. Rows of a power-of-two size put the lanes of a
  /// matrix-operand read (8 rows x 4 pairs) on a few banks; 16 more bytes
  /// spread them over all 32 and keep 128-bit accesses aligned.
  static LdsLayout scratch(ArrayRef<int64_t> shape, unsigned fast,
                           unsigned elementBytes, bool padRows) {
    LdsLayout l;
    l.order.push_back(fast);
    for (unsigned d = shape.size(); d-- > 0;)
      if (d != fast)
        l.order.push_back(d);
    if (padRows && shape.size() >= 2 &&
        (shape[fast] * elementBytes) % 16 == 0)
      l.pad = 16 / elementBytes;
    return l;
  }
  /// The same 2-D array seen with its dimensions exchanged: element
  /// (i, j) of the view is (j, i) of this layout.
  LdsLayout transposed() const {
    LdsLayout l = *this;
    for (unsigned &d : l.order)
      d = unsigned(order.size()) - 1 - d;
    return l;
  }
  bool swizzled() const { return order.size() >= 2 && maxPhase > 1; }
  int64_t numElements(ArrayRef<int64_t> shape) const {
    int64_t n = 1;
    for (unsigned d : order)
      n *= shape[d] + (d == order[0] ? pad : 0);
    return n;
  }
};

/// Element offset of tile coordinate `coord` in an LDS array of `shape`
/// laid out by `layout`.
Value ldsOffset(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                const LdsLayout &layout, ArrayRef<Value> coord) {
  ArrayRef<unsigned> order = layout.order;
  SmallVector<Value> c(coord.begin(), coord.end());
  if (layout.swizzled()) {
    unsigned fast = order[0], next = order[1];
    Value phase = arith::RemUIOp::create(
        b, loc,
        arith::DivUIOp::create(b, loc, c[next],
                               constI32(b, loc, layout.perPhase)),
        constI32(b, loc, layout.maxPhase));
    Value vec = constI32(b, loc, layout.vec);
    Value group = arith::DivUIOp::create(b, loc, c[fast], vec);
    Value within = arith::RemUIOp::create(b, loc, c[fast], vec);
    Value swizzled = arith::XOrIOp::create(b, loc, group, phase);
    c[fast] = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, swizzled, vec), within);
  }
  Value offset;
  int64_t stride = 1;
  for (unsigned d : order) {
    Value term = stride == 1 ? c[d]
                             : arith::MulIOp::create(b, loc, c[d],
                                                     constI32(b, loc, stride))
                                   .getResult();
    offset = offset ? arith::AddIOp::create(b, loc, offset, term).getResult()
                    : term;
    stride *= shape[d] + (d == order[0] ? layout.pad : 0);
  }
  return offset;
}

/// Elements per LDS access for a register tile `dist` of `elementType` in
/// an LDS array laid out by `layout`: consecutive in the registers, in
/// LDS (within one swizzle group) and at most 128 bits. `transposed`: the
/// tile's (i, j) is stored at (j, i).
unsigned ldsAccessWidth(const TileDistribution &dist, Type elementType,
                        const LdsLayout &layout, bool transposed = false) {
  unsigned rank = dist.getRank();
  unsigned fast = layout.order[0];
  if (transposed)
    fast = rank - 1 - fast;
  unsigned g = dist.getMapping().contiguousAlong(fast);
  if (layout.swizzled())
    g = std::min<unsigned>(g, 1u << llvm::countr_zero(layout.vec));
  unsigned bytes = std::max(1u, elementType.getIntOrFloatBitWidth() / 8);
  g = std::max(1u, std::min(g, kMaxLdsAccessBytes / bytes));
  // A group starts g-aligned within its row; the rows must keep that
  // alignment too (the access is emitted with alignment g * bytes).
  SmallVector<int64_t> shape(dist.getShape());
  if (transposed)
    std::reverse(shape.begin(), shape.end());
  int64_t row = shape[layout.order[0]] + layout.pad;
  while (g > 1 && layout.order.size() > 1 && row % g != 0)
    g /= 2;
  return g;
}

/// The element offset in LDS of each group of `g` entries of a lane
/// (`transposed`: of element (j, i) of the row-major array).
SmallVector<Value> ldsGroupOffsets(OpBuilder &b, Location loc,
                                   const TileDistribution &dist,
                                   const LdsLayout &layout, unsigned g,
                                   bool transposed = false) {
  SmallVector<Value> laneBase;
  for (unsigned d = 0; d < dist.getRank(); ++d)
    laneBase.push_back(dist.laneCoordBase(b, loc, d));
  SmallVector<int64_t> shape(dist.getShape());
  if (transposed)
    std::reverse(shape.begin(), shape.end());
  SmallVector<Value> offsets;
  for (unsigned f = 0; f < dist.getNumElements(); f += g) {
    SmallVector<unsigned> index = dist.delinearize(f);
    SmallVector<Value> coord;
    for (unsigned d = 0; d < dist.getRank(); ++d)
      coord.push_back(dist.coord(b, loc, d, index[d], laneBase[d]));
    if (transposed)
      std::reverse(coord.begin(), coord.end());
    offsets.push_back(ldsOffset(b, loc, shape, layout, coord));
  }
  return offsets;
}

/// How an element sits in LDS: itself, or as an integer of its width where
/// LLVM has no type for it (the 8-bit floats).
Type ldsStorageType(Type element) {
  if (LLVM::isCompatibleType(element))
    return element;
  return IntegerType::get(element.getContext(),
                          element.getIntOrFloatBitWidth());
}

/// `value` (an element or a vector of them) retyped to or from its storage.
Value toStorage(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  Type element = getElementTypeOrSelf(type);
  Type storage = ldsStorageType(element);
  if (storage == element)
    return value;
  Type target = isa<VectorType>(type)
                    ? Type(VectorType::get(cast<VectorType>(type).getShape(),
                                           storage))
                    : storage;
  return arith::BitcastOp::create(b, loc, target, value);
}

Value ldsElementPtr(OpBuilder &b, Location loc, Value base, Type elementType,
                    Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(),
                             ldsStorageType(elementType), base,
                             ValueRange{offset});
}

/// Writes register tile `value` (type `tileType`) to the LDS array at
/// `base`, between barriers (see the file comment) unless `barriers` says
/// a neighbouring store places them.
void writeTile(OpBuilder &b, Location loc, Value value,
               RankedTensorType tileType, Value base, const LdsLayout &layout,
               const TileDistribution &dist, StoreBarriers barriers = {}) {
  Type element = tileType.getElementType();
  unsigned g = ldsAccessWidth(dist, element, layout);
  unsigned bytes = std::max(1u, element.getIntOrFloatBitWidth() / 8);
  if (barriers.leading)
    gpu::BarrierOp::create(b, loc);
  SmallVector<Value> offsets = ldsGroupOffsets(b, loc, dist, layout, g);
  for (auto [i, offset] : llvm::enumerate(offsets)) {
    SmallVector<int64_t> lanes;
    for (unsigned j = 0; j < g; ++j)
      lanes.push_back(i * g + j);
    Value data = g == 1 ? vector::ExtractOp::create(b, loc, value,
                                                    int64_t(i))
                              .getResult()
                        : vector::ShuffleOp::create(b, loc, value, value,
                                                    lanes)
                              .getResult();
    LLVM::StoreOp::create(b, loc, toStorage(b, loc, data),
                          ldsElementPtr(b, loc, base, element, offset),
                          /*alignment=*/g * bytes);
  }
  if (barriers.trailing)
    gpu::BarrierOp::create(b, loc);
}

/// Elements that stay together along the fastest LDS dimension from any
/// multiple of the result, which is also the alignment (in elements) of
/// each such run: the swizzle group and the padded row length keep them.
unsigned alignedRun(ArrayRef<int64_t> shape, const LdsLayout &layout) {
  unsigned run = kMaxLdsAccessBytes;
  if (layout.swizzled())
    run = std::min<unsigned>(run, 1u << llvm::countr_zero(layout.vec));
  if (layout.order.size() > 1) {
    int64_t row = shape[layout.order[0]] + layout.pad;
    run = std::min<unsigned>(run, 1u << llvm::countr_zero(uint64_t(row)));
  }
  return run;
}

/// Reads register tile `tileType` from the LDS array at `base`
/// (`transposed`: element (i, j) from (j, i) of a row-major array). The
/// target's own instructions come first where it has them.
Value readTile(OpBuilder &b, Location loc, RankedTensorType tileType,
               Type vectorType, Value base, const LdsLayout &layout,
               const TileDistribution &dist, const TargetInfo &target,
               bool transposed = false) {
  Type element = tileType.getElementType();
  if (!transposed && LLVM::isCompatibleType(element)) {
    ArrayRef<int64_t> shape = tileType.getShape();
    auto offsetOf = [&](OpBuilder &ob, Location l, ArrayRef<Value> coord) {
      return ldsOffset(ob, l, shape, layout, coord);
    };
    LdsTileRead read{dist,     element,         base,
                     offsetOf, layout.order[0], alignedRun(shape, layout)};
    if (Value v =
            target.readLdsTile(b, loc, read, cast<VectorType>(vectorType)))
      return v;
  }
  unsigned g = ldsAccessWidth(dist, element, layout, transposed);
  unsigned bytes = std::max(1u, element.getIntOrFloatBitWidth() / 8);
  Type storage = ldsStorageType(element);
  Type groupType =
      g == 1 ? element : Type(VectorType::get({int64_t(g)}, element));
  Type storedType =
      g == 1 ? storage : Type(VectorType::get({int64_t(g)}, storage));
  SmallVector<Value> entries;
  for (Value offset : ldsGroupOffsets(b, loc, dist, layout, g, transposed)) {
    Value group = LLVM::LoadOp::create(
        b, loc, storedType, ldsElementPtr(b, loc, base, element, offset),
        /*alignment=*/g * bytes);
    if (storedType != groupType)
      group = arith::BitcastOp::create(b, loc, groupType, group);
    if (g == 1) {
      entries.push_back(group);
      continue;
    }
    for (unsigned j = 0; j < g; ++j)
      entries.push_back(vector::ExtractOp::create(b, loc, group, int64_t(j)));
  }
  return vector::FromElementsOp::create(b, loc, cast<VectorType>(vectorType),
                                        entries);
}

/// Whether two mappings put every element in the same register of the
/// same lane and wave (then a conversion moves nothing).
bool sameMapping(const TileMapping &a, const TileMapping &b) {
  if (a.getNumRegisters() != b.getNumRegisters() ||
      a.getWarpSize() != b.getWarpSize() || a.getNumWarps() != b.getNumWarps())
    return false;
  for (unsigned w = 0; w < a.getNumWarps(); ++w)
    for (unsigned l = 0; l < a.getWarpSize(); ++l)
      for (unsigned r = 0; r < a.getNumRegisters(); ++r)
        if (a.coordOf(r, l, w) != b.coordOf(r, l, w))
          return false;
  return true;
}

/// For a transpose that moves no data: result register r' of every lane
/// holds what source register perm[r'] holds (element (j, i) for (i, j)).
std::optional<SmallVector<int64_t>> freeTransposePermutation(
    const TileMapping &src, const TileMapping &dst) {
  unsigned n = dst.getNumRegisters();
  if (src.getNumRegisters() != n || src.getWarpSize() != dst.getWarpSize() ||
      src.getNumWarps() != dst.getNumWarps())
    return std::nullopt;
  // Lane 0 of wave 0 fixes the candidate permutation (by coordinate, in
  // one pass); every other lane must agree with it.
  llvm::DenseMap<std::pair<int64_t, int64_t>, unsigned> srcRegOf;
  for (unsigned q = 0; q < n; ++q) {
    SmallVector<int64_t> s = src.coordOf(q, 0, 0);
    srcRegOf.try_emplace({s[0], s[1]}, q);
  }
  SmallVector<int64_t> perm(n, -1);
  for (unsigned r = 0; r < n; ++r) {
    SmallVector<int64_t> c = dst.coordOf(r, 0, 0);
    auto it = srcRegOf.find({c[1], c[0]});
    if (it == srcRegOf.end())
      return std::nullopt;
    perm[r] = it->second;
  }
  for (unsigned w = 0; w < dst.getNumWarps(); ++w)
    for (unsigned l = 0; l < dst.getWarpSize(); ++l)
      for (unsigned r = 0; r < n; ++r) {
        SmallVector<int64_t> c = dst.coordOf(r, l, w);
        SmallVector<int64_t> s = src.coordOf(perm[r], l, w);
        if (s[0] != c[1] || s[1] != c[0])
          return std::nullopt;
      }
  return perm;
}

/// The address of `op`'s LDS buffer (its kernel's arena plus the offset).
Value slotAddress(OpBuilder &b, Location loc, const LdsSlots &slots,
                  Operation *op) {
  const LdsSlot &slot = slots.find(op)->second;
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value arena = LLVM::AddressOfOp::create(b, loc, ptrType, slot.arena);
  if (!slot.offset)
    return arena;
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), arena,
                             ArrayRef<LLVM::GEPArg>{int32_t(slot.offset)});
}

struct LocalAllocLowering : OpConversionPattern<LocalAllocOp> {
  LocalAllocLowering(TileTypeConverter &converter, MLIRContext *ctx,
                     const LdsSlots &slots)
      : OpConversionPattern(converter, ctx), slots(slots) {}
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LdsTileType type = op.getType();
    Value base = slotAddress(rewriter, loc, slots, op);
    if (Value init = op.getInit()) {
      auto dist = TileDistribution::get(cast<RankedTensorType>(init.getType()));
      if (!dist)
        return rewriter.notifyMatchFailure(op, "no register mapping");
      writeTile(rewriter, loc, adaptor.getInit(),
                cast<RankedTensorType>(init.getType()), base,
                LdsLayout::of(cast<SharedAttr>(type.getEncoding())), *dist);
    }
    rewriter.replaceOp(op, base);
    return success();
  }
  const LdsSlots &slots;
};

/// Buffer i of a stack starts i buffers' elements after the stack's base
/// (the buffer dimension is the slowest, unpadded).
struct LocalIndexLowering : OpConversionPattern<LocalIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LdsTileType type = op.getType();
    Value offset =
        arith::MulIOp::create(rewriter, loc, adaptor.getIndex(),
                              constI32(rewriter, loc, type.getNumElements()));
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, LLVM::LLVMPointerType::get(getContext(), 3), type.getElementType(),
        adaptor.getSrc(), ValueRange{offset});
    return success();
  }
};

struct LocalStoreLowering : OpConversionPattern<LocalStoreOp> {
  LocalStoreLowering(TileTypeConverter &converter, MLIRContext *ctx,
                     llvm::DenseMap<Operation *, StoreBarriers> barriers)
      : OpConversionPattern(converter, ctx), barriers(std::move(barriers)) {}
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tileType = op.getValue().getType();
    auto dist = TileDistribution::get(tileType);
    if (!dist)
      return rewriter.notifyMatchFailure(op, "no register mapping");
    writeTile(
        rewriter, op.getLoc(), adaptor.getValue(), tileType, adaptor.getDst(),
        LdsLayout::of(cast<SharedAttr>(op.getDst().getType().getEncoding())),
        *dist,
        op->hasAttr(kAuthorOrderedAttr) ? StoreBarriers{false, false}
                                        : barriers.lookup(op));
    rewriter.eraseOp(op);
    return success();
  }
  llvm::DenseMap<Operation *, StoreBarriers> barriers;
};

struct LocalLoadLowering : OpConversionPattern<LocalLoadOp> {
  LocalLoadLowering(TileTypeConverter &converter, MLIRContext *ctx,
                    const TargetInfo &target)
      : OpConversionPattern(converter, ctx), target(target) {}
  LogicalResult
  matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tileType = op.getType();
    auto dist = TileDistribution::get(tileType);
    if (!dist)
      return rewriter.notifyMatchFailure(op, "no register mapping");
    // A transposed read is an ordinary read of the same array through
    // the exchanged layout, so the target's matrix loads still apply.
    LdsLayout layout =
        LdsLayout::of(cast<SharedAttr>(op.getSrc().getType().getEncoding()));
    if (op.getTrans())
      layout = layout.transposed();
    rewriter.replaceOp(op, readTile(rewriter, op.getLoc(), tileType,
                                    getTypeConverter()->convertType(tileType),
                                    adaptor.getSrc(), layout, *dist, target));
    return success();
  }
  const TargetInfo &target;
};

/// The scratch layout of a conversion of a tile of `srcShape` (a transpose
/// is stored in the source's coordinates): row-major. (Running it along the
/// dimension a B operand's reads run in, K, made the reads wide but the
/// writes 16-bit and 8-way bank-conflicted: the gemm kernel went from 115
/// to 78 TFLOP/s on an H200.) Rows are padded for reads into
/// matrix-operand layouts only; other conversions keep the smaller array.
LdsLayout scratchLayout(ArrayRef<int64_t> srcShape, unsigned elementBytes,
                        bool padRows) {
  return LdsLayout::scratch(srcShape, srcShape.size() - 1, elementBytes,
                            padRows);
}

unsigned elementBytes(RankedTensorType type) {
  return std::max(1u, type.getElementTypeBitWidth() / 8);
}

/// `value` (layout `src`) written to the scratch and read back in layout
/// `dst` (`transposed`: element (i, j) from (j, i)).
Value throughScratch(ConversionPatternRewriter &rewriter, Operation *op,
                     const TypeConverter &converter, const LdsSlots &slots,
                     const TargetInfo &target, Value value,
                     RankedTensorType srcType, const TileDistribution &src,
                     RankedTensorType dstType, const TileDistribution &dst,
                     bool transposed) {
  Location loc = op->getLoc();
  Value scratch = slotAddress(rewriter, loc, slots, op);
  LdsLayout layout =
      scratchLayout(srcType.getShape(), elementBytes(srcType),
                    isa<DotOperandAttr>(dstType.getEncoding()));
  writeTile(rewriter, loc, value, srcType, scratch, layout, src);
  return readTile(rewriter, loc, dstType, converter.convertType(dstType),
                  scratch, layout, dst, target, transposed);
}

struct ConvertLayoutLowering : OpConversionPattern<ConvertLayoutOp> {
  ConvertLayoutLowering(TileTypeConverter &converter, MLIRContext *ctx,
                        const LdsSlots &slots, const TargetInfo &target)
      : OpConversionPattern(converter, ctx), slots(slots), target(target) {}
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = op.getSrc().getType(), dstType = op.getType();
    auto src = TileDistribution::get(srcType),
         dst = TileDistribution::get(dstType);
    if (!src || !dst)
      return rewriter.notifyMatchFailure(op, "no register mapping");
    if (sameMapping(src->getMapping(), dst->getMapping())) {
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    rewriter.replaceOp(op, throughScratch(rewriter, op, *getTypeConverter(),
                                          slots, target, adaptor.getSrc(),
                                          srcType, *src, dstType, *dst,
                                          /*transposed=*/false));
    return success();
  }
  const LdsSlots &slots;
  const TargetInfo &target;
};

struct TransLowering : OpConversionPattern<TransOp> {
  TransLowering(TileTypeConverter &converter, MLIRContext *ctx,
                const LdsSlots &slots, const TargetInfo &target)
      : OpConversionPattern(converter, ctx), slots(slots), target(target) {}
  LogicalResult
  matchAndRewrite(TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = op.getSrc().getType(), dstType = op.getType();
    auto src = TileDistribution::get(srcType),
         dst = TileDistribution::get(dstType);
    if (!src || !dst)
      return rewriter.notifyMatchFailure(op, "no register mapping");
    Location loc = op.getLoc();
    if (auto perm =
            freeTransposePermutation(src->getMapping(), dst->getMapping())) {
      rewriter.replaceOp(op, vector::ShuffleOp::create(
                                 rewriter, loc, adaptor.getSrc(),
                                 adaptor.getSrc(), *perm));
      return success();
    }
    rewriter.replaceOp(op, throughScratch(rewriter, op, *getTypeConverter(),
                                          slots, target, adaptor.getSrc(),
                                          srcType, *src, dstType, *dst,
                                          /*transposed=*/true));
    return success();
  }
  const LdsSlots &slots;
  const TargetInfo &target;
};

} // namespace

/// The matrix unit applies its 128-byte swizzle to address bits, so the
/// tiles it reads start on 1024 bytes (8 rows of 128).
constexpr int64_t kWarpgroupTileAlignment = 1024;

/// Whether rocdsl.warpgroup_dot reads `tile` or one of its buffers.
static bool readByWarpgroupDot(Value tile) {
  return !walkLdsTileUsers(
      tile, [](Operation *user) { return !isa<WarpgroupDotOp>(user); });
}

LdsSlots mlir::rocdsl::createLdsArenas(ModuleOp module,
                                       gpu::GPUModuleOp gpuModule,
                                       const ChipInfo &chip) {
  OpBuilder b(module.getContext());
  LdsSlots slots;
  for (FuncOp func : module.getOps<FuncOp>()) {
    SmallVector<LdsBuffer> buffers;
    auto scratch = [&](Operation *op, RankedTensorType srcType,
                       RankedTensorType dstType, bool transposed) {
      auto src = TileMapping::get(srcType);
      auto dst = TileMapping::get(dstType);
      if (!src || !dst ||
          (transposed ? bool(freeTransposePermutation(*src, *dst))
                      : sameMapping(*src, *dst)))
        return;
      LdsLayout layout =
          scratchLayout(srcType.getShape(), elementBytes(srcType),
                        isa<DotOperandAttr>(dstType.getEncoding()));
      buffers.push_back(
          {op, layout.numElements(srcType.getShape()) * elementBytes(srcType)});
    };
    func.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
        LdsTileType type = alloc.getType();
        buffers.push_back(
            {op,
             type.getNumElements() *
                 std::max(1u, type.getElementTypeBitWidth() / 8),
             readByWarpgroupDot(alloc.getResult()) ? kWarpgroupTileAlignment
                                                   : 16});
      } else if (auto convert = dyn_cast<ConvertLayoutOp>(op)) {
        scratch(op, convert.getSrc().getType(), convert.getType(), false);
      } else if (auto trans = dyn_cast<TransOp>(op)) {
        scratch(op, trans.getSrc().getType(), trans.getType(), true);
      }
    });
    if (buffers.empty())
      continue;
    llvm::DenseMap<Operation *, int64_t> offsets;
    int64_t bytes = assignLdsOffsets(func, buffers, offsets);
    int64_t alignment = 16;
    for (const LdsBuffer &buffer : buffers)
      alignment = std::max(alignment, buffer.alignment);
    std::string arena = ("__rocdsl_lds_" + func.getName()).str();
    b.setInsertionPointToStart(gpuModule.getBody());
    // Past the static limit the arena is dynamic (NVIDIA): external and
    // unsized, with its size in a constant the runtime reads at load time.
    // Above even the opt-in limit it stays static, and the pass's LDS
    // check reports it.
    bool dynamic = chip.sharedMemoryOptInBytes &&
                   bytes > int64_t(chip.sharedMemoryBytes) &&
                   bytes <= int64_t(chip.sharedMemoryOptInBytes);
    LLVM::GlobalOp::create(
        b, func.getLoc(),
        LLVM::LLVMArrayType::get(b.getI8Type(), dynamic ? 0 : bytes),
        /*isConstant=*/false,
        dynamic ? LLVM::Linkage::External : LLVM::Linkage::Internal, arena,
        Attribute(), alignment, /*addrSpace=*/3);
    if (dynamic)
      LLVM::GlobalOp::create(b, func.getLoc(), b.getI32Type(),
                             /*isConstant=*/true, LLVM::Linkage::External,
                             dynamicSharedBytesSymbol(func.getName()),
                             b.getI32IntegerAttr(int32_t(bytes)),
                             /*alignment=*/4, /*addrSpace=*/4);
    for (auto [op, offset] : offsets)
      slots[op] = {arena, offset};
  }
  return slots;
}

LdsGroupAddresses mlir::rocdsl::ldsGroupAddresses(OpBuilder &b, Location loc,
                                                  const TileDistribution &dist,
                                                  Type elementType, Value base,
                                                  LdsTileType dst,
                                                  unsigned maxWidth) {
  LdsLayout layout = LdsLayout::of(cast<SharedAttr>(dst.getEncoding()));
  LdsGroupAddresses groups;
  groups.width = std::min(ldsAccessWidth(dist, elementType, layout), maxWidth);
  for (Value offset : ldsGroupOffsets(b, loc, dist, layout, groups.width))
    groups.addresses.push_back(
        ldsElementPtr(b, loc, base, elementType, offset));
  return groups;
}

/// Whether `op` may sit between two local_stores that share barriers: it
/// touches no LDS (global loads and stores, arithmetic, matrix products;
/// not conversions, transposes or reductions, which may go through LDS).
static bool touchesNoLds(Operation &op) {
  if (op.getNumRegions() ||
      isa<ConvertLayoutOp, TransOp, ReduceOp, BarrierOp, LocalAllocOp,
          LocalLoadOp, LocalStoreOp, AsyncCopyOp>(op))
    return false;
  return isa<LoadOp, StoreOp>(op) || isMemoryEffectFree(&op);
}

llvm::DenseMap<Operation *, StoreBarriers>
mlir::rocdsl::findStoresSharingBarriers(ModuleOp module) {
  // Stores with nothing that touches LDS between them write before any
  // wave reads: one barrier before the first and one after the last order
  // them against earlier reads and later reads alike.
  llvm::DenseMap<Operation *, StoreBarriers> found;
  module.walk([&](LocalStoreOp store) {
    for (Operation *op = store->getNextNode(); op; op = op->getNextNode()) {
      if (auto next = dyn_cast<LocalStoreOp>(op)) {
        found[store].trailing = false;
        found[next].leading = false;
        return;
      }
      if (!touchesNoLds(*op))
        return;
    }
  });
  return found;
}

void mlir::rocdsl::populateLdsPatterns(TileTypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       ModuleOp module, const LdsSlots &slots,
                                       const TargetInfo &target) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<LocalAllocLowering>(converter, ctx, slots);
  patterns.add<LocalStoreLowering>(converter, ctx,
                                   findStoresSharingBarriers(module));
  patterns.add<LocalLoadLowering>(converter, ctx, target);
  patterns.add<LocalIndexLowering>(converter, ctx);
  patterns.add<ConvertLayoutLowering, TransLowering>(converter, ctx, slots,
                                                     target);
}

void mlir::rocdsl::foldAdjacentBarriers(gpu::GPUModuleOp gpuModule) {
  SmallVector<gpu::BarrierOp> redundant;
  gpuModule.walk([&](Block *block) {
    // A barrier with no memory access (and no region, which might hold
    // one) since the last barrier of this block orders nothing new.
    bool afterBarrier = false;
    for (Operation &op : *block) {
      if (auto barrier = dyn_cast<gpu::BarrierOp>(op)) {
        if (afterBarrier)
          redundant.push_back(barrier);
        afterBarrier = true;
      } else if (op.getNumRegions() || !isMemoryEffectFree(&op)) {
        afterBarrier = false;
      }
    }
  });
  for (gpu::BarrierOp op : redundant)
    op.erase();
}
