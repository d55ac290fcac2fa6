//===- RocDSLAttrs.cpp - layout encodings ---------------------------------===//
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;

/// Far above any real tile; catches negative numbers that parsed as huge
/// unsigned values.
static constexpr unsigned kMaxLayoutEntry = 1u << 16;

static unsigned product(ArrayRef<unsigned> values) {
  unsigned result = 1;
  for (unsigned v : values)
    result *= v;
  return result;
}

static LogicalResult
verifyPermutation(function_ref<InFlightDiagnostic()> emitError,
                  ArrayRef<unsigned> order, size_t rank) {
  if (order.size() != rank)
    return emitError() << "order has " << order.size() << " entries, expected "
                       << rank;
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError() << "order must be a permutation of [0, " << rank
                         << ")";
    seen[d] = true;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// BlockedAttr
//===----------------------------------------------------------------------===//

LogicalResult BlockedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<unsigned> sizePerThread,
                                  ArrayRef<unsigned> threadsPerWarp,
                                  ArrayRef<unsigned> warpsPerCTA,
                                  ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0)
    return emitError() << "blocked layout must have rank >= 1";
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank)
    return emitError() << "blocked layout fields must all have " << rank
                       << " entries (sizePerThread has " << rank
                       << ", threadsPerWarp " << threadsPerWarp.size()
                       << ", warpsPerCTA " << warpsPerCTA.size() << ")";
  for (unsigned v :
       llvm::concat<const unsigned>(sizePerThread, threadsPerWarp, warpsPerCTA))
    if (v == 0 || v > kMaxLayoutEntry)
      // Entries are parsed as 32-bit: a negative one arrives wrapped.
      return emitError() << "blocked layout entries must be in [1, "
                         << kMaxLayoutEntry << "], got " << int32_t(v);
  for (unsigned v : llvm::concat<const unsigned>(threadsPerWarp, warpsPerCTA))
    if (!llvm::isPowerOf2_32(v))
      return emitError() << "threadsPerWarp and warpsPerCTA entries must be "
                            "powers of two, got "
                         << v;
  unsigned lanes = product(threadsPerWarp);
  if (lanes != 64 && lanes != 32)
    return emitError() << "threadsPerWarp must multiply to the wave size "
                          "(64, or 32 for NVIDIA targets), got "
                       << lanes;
  return verifyPermutation(emitError, order, rank);
}

unsigned BlockedAttr::getLayoutRank() const {
  return getSizePerThread().size();
}
unsigned BlockedAttr::getLayoutNumWarps() const {
  return product(getWarpsPerCTA());
}
unsigned BlockedAttr::getLayoutWarpSize() const {
  return product(getThreadsPerWarp());
}

BlockedAttr BlockedAttr::getDefault(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                    unsigned numWarps, unsigned warpSize,
                                    unsigned elementBits,
                                    unsigned minPerThread) {
  size_t rank = shape.size();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1), order;
  for (size_t i = 0; i < rank; ++i)
    order.push_back(rank - 1 - i);
  // Up to 128 bits per lane along the innermost dimension, but no more
  // elements per lane than the tile has for each lane of the program: a
  // wider access would leave lanes or waves replicating the tile, each
  // doing the same work again (Triton caps sizePerThread the same way).
  // An access that asks for `minPerThread` elements (an explicit vec)
  // keeps them, replicating if it must.
  unsigned inner = static_cast<unsigned>(shape[rank - 1]);
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= std::max<int64_t>(d, 1);
  int64_t lanes = int64_t(std::max(numWarps, 1u)) * std::max(warpSize, 1u);
  unsigned perThread = std::max(1u, 128u / std::max(elementBits, 1u));
  while (perThread > 1 &&
         (inner % perThread != 0 || inner < perThread ||
          (perThread > minPerThread && elements < int64_t(perThread) * lanes)))
    perThread /= 2;
  spt[rank - 1] = perThread;
  // Lanes: innermost dimension first, the rest on the next dimensions.
  unsigned lanesLeft = warpSize;
  for (size_t i = 0; i < rank && lanesLeft > 1; ++i) {
    size_t d = rank - 1 - i;
    unsigned extent = std::max<int64_t>(1, shape[d] / spt[d]);
    unsigned take = std::min<unsigned>(lanesLeft, llvm::PowerOf2Ceil(extent));
    if (i + 1 == rank)
      take = lanesLeft; // leftover lanes replicate the outermost dimension
    tpw[d] = take;
    lanesLeft /= take;
  }
  // Waves: leading dimension first, then inward.
  unsigned wavesLeft = numWarps;
  for (size_t d = 0; d < rank && wavesLeft > 1; ++d) {
    unsigned extent = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    unsigned take = std::min<unsigned>(wavesLeft, llvm::PowerOf2Ceil(extent));
    if (d + 1 == rank)
      take = wavesLeft;
    wpc[d] = take;
    wavesLeft /= take;
  }
  return BlockedAttr::get(ctx, spt, tpw, wpc, order);
}

//===----------------------------------------------------------------------===//
// SliceAttr
//===----------------------------------------------------------------------===//

LogicalResult SliceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                unsigned dim, Attribute parent) {
  auto layout = dyn_cast<LayoutEncodingAttrInterface>(parent);
  if (!layout)
    return emitError() << "slice parent must be a tile layout, got " << parent;
  if (dim >= layout.getLayoutRank())
    return emitError() << "slice dim " << dim
                       << " out of range for parent of rank "
                       << layout.getLayoutRank();
  return success();
}

unsigned SliceAttr::getLayoutRank() const {
  return cast<LayoutEncodingAttrInterface>(getParent()).getLayoutRank() - 1;
}
unsigned SliceAttr::getLayoutNumWarps() const {
  return cast<LayoutEncodingAttrInterface>(getParent()).getLayoutNumWarps();
}
unsigned SliceAttr::getLayoutWarpSize() const {
  return cast<LayoutEncodingAttrInterface>(getParent()).getLayoutWarpSize();
}

//===----------------------------------------------------------------------===//
// MfmaAttr / DotOperandAttr
//===----------------------------------------------------------------------===//

LogicalResult MfmaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned version, ArrayRef<unsigned> instrShape,
                               ArrayRef<unsigned> warpsPerCTA) {
  if (version != 3 && version != 4)
    return emitError() << "mfma version must be 3 (gfx942) or 4 (gfx950), got "
                       << version;
  if (instrShape.size() != 3)
    return emitError() << "mfma instrShape must be [M, N, K]";
  static const unsigned kShapes[][3] = {
      {32, 32, 8}, {16, 16, 16}, {32, 32, 16}, {16, 16, 32}};
  bool known = llvm::any_of(kShapes, [&](const unsigned(&s)[3]) {
    return s[0] == instrShape[0] && s[1] == instrShape[1] &&
           s[2] == instrShape[2];
  });
  if (!known)
    return emitError() << "unsupported mfma instrShape [" << instrShape[0]
                       << ", " << instrShape[1] << ", " << instrShape[2]
                       << "]; expected one of [32, 32, 8], [16, 16, 16], "
                          "[32, 32, 16], [16, 16, 32]";
  if (warpsPerCTA.size() != 2)
    return emitError() << "mfma warpsPerCTA must have 2 entries";
  for (unsigned w : warpsPerCTA)
    if (w == 0 || !llvm::isPowerOf2_32(w))
      return emitError() << "mfma warpsPerCTA entries must be powers of two";
  return success();
}

unsigned MfmaAttr::getLayoutRank() const { return 2; }
unsigned MfmaAttr::getLayoutNumWarps() const {
  return product(getWarpsPerCTA());
}
unsigned MfmaAttr::getLayoutWarpSize() const { return 64; }

LogicalResult
DotOperandAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       unsigned opIdx, Attribute parent, unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "dot_operand opIdx must be 0 (A) or 1 (B), got "
                       << opIdx;
  if (isa<NvidiaMmaAttr>(parent)) {
    if (kWidth != 2)
      return emitError() << "dot_operand of a #rocdsl.mma parent holds K in "
                            "pairs: kWidth must be 2, got "
                         << kWidth;
    return success();
  }
  if (!isa<MfmaAttr>(parent))
    return emitError() << "dot_operand parent must be #rocdsl.mfma or "
                          "#rocdsl.mma, got "
                       << parent;
  if (kWidth == 0 || kWidth > 16 || !llvm::isPowerOf2_32(kWidth))
    return emitError() << "dot_operand kWidth must be 1, 2, 4, 8 or 16, got "
                       << kWidth;
  ArrayRef<unsigned> instr = cast<MfmaAttr>(parent).getInstrShape();
  unsigned perLane = instr[2] * instr[opIdx == 0 ? 0 : 1] / 64;
  if (kWidth % perLane != 0)
    return emitError() << "dot_operand kWidth " << kWidth
                       << " is not a multiple of the " << perLane
                       << " K elements per lane that a " << instr[0] << "x"
                       << instr[1] << "x" << instr[2]
                       << " matrix instruction reads";
  return success();
}

unsigned DotOperandAttr::getLayoutRank() const { return 2; }
unsigned DotOperandAttr::getLayoutNumWarps() const {
  return cast<LayoutEncodingAttrInterface>(getParent()).getLayoutNumWarps();
}
unsigned DotOperandAttr::getLayoutWarpSize() const {
  return cast<LayoutEncodingAttrInterface>(getParent()).getLayoutWarpSize();
}

ArrayRef<unsigned> DotOperandAttr::getParentInstrShape() const {
  if (auto mma = dyn_cast<NvidiaMmaAttr>(getParent()))
    return mma.getInstrShape();
  return cast<MfmaAttr>(getParent()).getInstrShape();
}

ArrayRef<unsigned> DotOperandAttr::getParentWarpsPerCTA() const {
  if (auto mma = dyn_cast<NvidiaMmaAttr>(getParent()))
    return mma.getWarpsPerCTA();
  return cast<MfmaAttr>(getParent()).getWarpsPerCTA();
}

//===----------------------------------------------------------------------===//
// NvidiaMmaAttr
//===----------------------------------------------------------------------===//

LogicalResult
NvidiaMmaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      unsigned version, ArrayRef<unsigned> instrShape,
                      ArrayRef<unsigned> warpsPerCTA) {
  if (version != 2)
    return emitError() << "mma version must be 2 (mma.sync, sm_80 and "
                          "later), got "
                       << version;
  if (instrShape.size() != 3 || instrShape[0] != 16 || instrShape[1] != 8 ||
      instrShape[2] != 16)
    return emitError() << "mma instrShape must be [16, 8, 16] "
                          "(mma.sync.aligned.m16n8k16)";
  if (warpsPerCTA.size() != 2)
    return emitError() << "mma warpsPerCTA must have 2 entries";
  for (unsigned w : warpsPerCTA)
    if (w == 0 || !llvm::isPowerOf2_32(w))
      return emitError() << "mma warpsPerCTA entries must be powers of two";
  return success();
}

unsigned NvidiaMmaAttr::getLayoutRank() const { return 2; }
unsigned NvidiaMmaAttr::getLayoutNumWarps() const {
  return product(getWarpsPerCTA());
}
unsigned NvidiaMmaAttr::getLayoutWarpSize() const { return 32; }

//===----------------------------------------------------------------------===//
// SharedAttr
//===----------------------------------------------------------------------===//

LogicalResult SharedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 unsigned vec, unsigned perPhase,
                                 unsigned maxPhase, ArrayRef<unsigned> order) {
  if (vec == 0 || perPhase == 0 || maxPhase == 0)
    return emitError() << "shared layout vec, perPhase and maxPhase must be "
                          "positive";
  return verifyPermutation(emitError, order, order.size());
}

SharedAttr SharedAttr::withBufferDim() const {
  SmallVector<unsigned> order;
  for (unsigned d : getOrder())
    order.push_back(d + 1);
  order.push_back(0);
  return get(getContext(), getVec(), getPerPhase(), getMaxPhase(), order);
}

SharedAttr SharedAttr::withoutBufferDim() const {
  ArrayRef<unsigned> stacked = getOrder();
  if (stacked.empty() || stacked.back() != 0)
    return {};
  SmallVector<unsigned> order;
  for (unsigned d : stacked.drop_back())
    order.push_back(d - 1);
  return get(getContext(), getVec(), getPerPhase(), getMaxPhase(), order);
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

Attribute mlir::rocdsl::getTransposedLayout(Attribute layout) {
  auto blocked = dyn_cast_or_null<BlockedAttr>(layout);
  if (!blocked || blocked.getLayoutRank() != 2)
    return {};
  auto swap = [](ArrayRef<unsigned> v) {
    return SmallVector<unsigned>{v[1], v[0]};
  };
  SmallVector<unsigned> order = {1 - blocked.getOrder()[0],
                                 1 - blocked.getOrder()[1]};
  return BlockedAttr::get(layout.getContext(),
                          swap(blocked.getSizePerThread()),
                          swap(blocked.getThreadsPerWarp()),
                          swap(blocked.getWarpsPerCTA()), order);
}

LayoutEncodingAttrInterface mlir::rocdsl::getTileLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  return dyn_cast_or_null<LayoutEncodingAttrInterface>(tensor.getEncoding());
}

unsigned mlir::rocdsl::getContiguousElementsPerThread(Attribute layout) {
  if (auto blocked = dyn_cast<BlockedAttr>(layout)) {
    unsigned inner = blocked.getLayoutRank() - 1;
    return blocked.getOrder()[0] == inner ? blocked.getSizePerThread()[inner]
                                          : 1;
  }
  // A's kWidth consecutive K elements are its innermost dimension.
  if (auto operand = dyn_cast<DotOperandAttr>(layout))
    return operand.getOpIdx() == 0 ? operand.getKWidth() : 1;
  if (auto slice = dyn_cast<SliceAttr>(layout)) {
    auto parent = dyn_cast<BlockedAttr>(slice.getParent());
    if (!parent)
      return 1;
    unsigned rank = slice.getLayoutRank();
    if (rank == 0)
      return 1;
    // The innermost result dimension maps to this parent dimension.
    unsigned parentDim = (rank - 1 < slice.getDim()) ? rank - 1 : rank;
    return parent.getOrder()[0] == parentDim
               ? parent.getSizePerThread()[parentDim]
               : 1;
  }
  return 1;
}

SharedAttr mlir::rocdsl::getSwizzledSharedLayout(MLIRContext *ctx,
                                                 ArrayRef<int64_t> shape,
                                                 unsigned elementBits,
                                                 ArrayRef<unsigned> order,
                                                 unsigned banks,
                                                 unsigned vecBytes) {
  unsigned bytes = std::max(1u, elementBits / 8);
  unsigned vec = std::max(1u, vecBytes / bytes);
  int64_t rowElems = shape[order[0]];
  if (shape.size() < 2 || rowElems % vec != 0)
    return SharedAttr::get(ctx, 1, 1, 1, order);
  // Rows narrower than one pass over the banks share a phase; the phases
  // cover the groups of one such pass, and no more than a row holds.
  unsigned passBytes = banks * 4;
  int64_t rowBytes = rowElems * bytes;
  unsigned perPhase = std::max<int64_t>(1, passBytes / rowBytes);
  unsigned maxPhase =
      std::max<int64_t>(1, passBytes / (vec * bytes) / perPhase);
  int64_t groups = rowElems / vec;
  while (maxPhase > 1 && groups % maxPhase != 0)
    maxPhase /= 2;
  return SharedAttr::get(ctx, vec, perPhase, maxPhase, order);
}

SharedAttr mlir::rocdsl::getMatrixOperandSharedLayout(
    MLIRContext *ctx, ArrayRef<int64_t> shape, unsigned elementBits,
    ArrayRef<unsigned> order, bool kFast, bool nvidia, unsigned kWidth,
    unsigned banks, bool transposeReads) {
  unsigned elemBytes = std::max(1u, elementBits / 8);
  unsigned vecBytes = kFast && !nvidia ? std::min(16u, kWidth * elemBytes) : 16;
  if (!kFast && transposeReads)
    vecBytes = banks * 4 / 4;
  return getSwizzledSharedLayout(ctx, shape, elementBits, order, banks,
                                 vecBytes);
}

LdsTileType mlir::rocdsl::getLdsStackType(LdsTileType one, unsigned count) {
  SmallVector<int64_t> shape = {int64_t(count)};
  llvm::append_range(shape, one.getShape());
  return LdsTileType::get(one.getContext(), shape, one.getElementType(),
                          cast<SharedAttr>(one.getEncoding()).withBufferDim());
}

LdsTileType mlir::rocdsl::getLdsBufferType(LdsTileType stack) {
  return LdsTileType::get(
      stack.getContext(), stack.getShape().drop_front(),
      stack.getElementType(),
      cast<SharedAttr>(stack.getEncoding()).withoutBufferDim());
}
