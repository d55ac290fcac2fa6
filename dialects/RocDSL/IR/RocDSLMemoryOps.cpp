//===- RocDSLMemoryOps.cpp - global and LDS tile accesses -----------------===//
#include "RocDSLVerifyUtils.h"

#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;
using mlir::rocdsl::detail::verifyTileType;

/// Checks what load and store share: element type, addressing operand
/// counts, mask shape and the `vec` promise.
static LogicalResult verifyTileAccess(Operation *op, RankedTensorType tile,
                                      PtrType ptr, size_t numOrigin,
                                      size_t numStrides, ValueRange bounds,
                                      Value mask, unsigned vec,
                                      bool uniformMask) {
  if (uniformMask && !mask)
    return op->emitOpError() << "uniform_mask needs a mask";
  size_t numBounds = bounds.size();
  if (failed(verifyTileType(op, tile, "tile")))
    return failure();
  if (tile.getRank() == 0)
    return op->emitOpError() << "tile accesses need a tile of rank >= 1";
  Type elementType = tile.getElementType();
  if (!elementType.isIntOrFloat() ||
      !llvm::is_contained({8u, 16u, 32u, 64u},
                          elementType.getIntOrFloatBitWidth()))
    return op->emitOpError() << "memory tiles hold 8-, 16-, 32- or 64-bit "
                                "integers or floats, got "
                             << elementType;
  if (ptr.getElementType() != elementType)
    return op->emitOpError()
           << "pointer element type " << ptr.getElementType()
           << " does not match tile element type " << elementType;
  int64_t rank = tile.getRank();
  if (static_cast<int64_t>(numOrigin) != rank)
    return op->emitOpError()
           << "expected " << rank
           << " origin indices (one per tile dimension), got " << numOrigin;
  if (static_cast<int64_t>(numStrides) != rank - 1)
    return op->emitOpError()
           << "expected " << rank - 1
           << " leading strides (the innermost stride is 1), got "
           << numStrides;
  if (numBounds != 0 && static_cast<int64_t>(numBounds) != rank)
    return op->emitOpError()
           << "expected 0 or " << rank << " bounds, got " << numBounds;
  if (mask) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (maskType.getShape() != tile.getShape() ||
        maskType.getEncoding() != tile.getEncoding())
      return op->emitOpError() << "mask " << maskType
                               << " must have the tile's shape and layout "
                                  "(tensor<...xi1> with the same encoding)";
  }
  unsigned bits = elementType.getIntOrFloatBitWidth();
  if (vec == 0 || !llvm::isPowerOf2_32(vec))
    // An i32 attribute read as unsigned: print it as written.
    return op->emitOpError() << "vec must be a power of two, got "
                             << int32_t(vec);
  uint64_t accessBits = uint64_t(vec) * bits;
  if (accessBits > 128)
    return op->emitOpError()
           << "vec = " << vec << " of " << elementType << " is " << accessBits
           << " bits; one access moves at most 128 bits";
  if (tile.getShape().back() % vec != 0)
    return op->emitOpError() << "vec = " << vec
                             << " does not divide the innermost tile "
                                "dimension "
                             << tile.getShape().back();
  APInt innerBound;
  if (vec > 1 && numBounds &&
      matchPattern(bounds.back(), m_ConstantInt(&innerBound)) &&
      innerBound.getSExtValue() % vec != 0)
    return op->emitOpError() << "vec = " << vec << " but the innermost bound "
                             << innerBound.getSExtValue()
                             << " is not a multiple of it; groups would "
                                "cross the bound";
  unsigned contiguous = getContiguousElementsPerThread(tile.getEncoding());
  if (vec > 1 && contiguous % vec != 0)
    return op->emitOpError()
           << "vec = " << vec << " but the layout gives each lane "
           << contiguous << " consecutive innermost element(s)";
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyTileAccess(*this, getType(), getPtr().getType(),
                              getOrigin().size(), getStrides().size(),
                              getBounds(), getMask(), getVecWidth(),
                              getUniformMask())))
    return failure();
  if (getOther() && getOther().getType() != getType().getElementType())
    return emitOpError() << "'other' must be a " << getType().getElementType()
                         << " scalar, got " << getOther().getType();
  return success();
}

LogicalResult StoreOp::verify() {
  return verifyTileAccess(*this, getValue().getType(), getPtr().getType(),
                          getOrigin().size(), getStrides().size(), getBounds(),
                          getMask(), getVecWidth(), getUniformMask());
}

LogicalResult AtomicAddOp::verify() {
  RankedTensorType tile = getValue().getType();
  // Unlike load and store, every stride may be given, the innermost too.
  size_t strides = getStrides().size(), rank = size_t(tile.getRank());
  if (strides != rank && strides + 1 != rank)
    return emitOpError() << "expected " << rank - 1 << " leading strides or "
                         << rank << " (one per dimension), got " << strides;
  if (strides == rank)
    --strides;
  if (failed(verifyTileAccess(*this, tile, getPtr().getType(),
                              getOrigin().size(), strides,
                              getBounds(), getMask(), /*vec=*/1,
                              /*uniformMask=*/false)))
    return failure();
  Type element = tile.getElementType();
  if (!element.isF32() && !element.isSignlessInteger(32))
    return emitOpError() << "adds f32 or i32 elements atomically, got "
                         << element;
  if (!TileMapping::get(tile))
    return emitOpError() << "layout cannot hold a tile of shape "
                         << tile.getShape();
  return success();
}

LogicalResult ProgramAtomicOp::verify() {
  if (!getPtr().getType().getElementType().isSignlessInteger(32))
    return emitOpError() << "updates an i32, got a pointer to "
                         << getPtr().getType().getElementType();
  return success();
}

/// Register tile and LDS tile must hold the same elements.
static LogicalResult verifyLdsMatch(Operation *op, RankedTensorType tile,
                                    LdsTileType lds) {
  if (failed(verifyTileType(op, tile, "register tile")))
    return failure();
  if (tile.getShape() != lds.getShape() ||
      tile.getElementType() != lds.getElementType())
    return op->emitOpError() << "register tile " << tile << " and LDS tile "
                             << lds << " differ in shape or element type";
  return success();
}

LogicalResult LocalAllocOp::verify() {
  if (auto init = getInit())
    return verifyLdsMatch(*this, cast<RankedTensorType>(init.getType()),
                          getType());
  return success();
}

LogicalResult LocalIndexOp::verify() {
  LdsTileType src = getSrc().getType(), dst = getType();
  if (src.getRank() < 2)
    return emitOpError() << "indexes a stack of buffers along the leading "
                            "dimension; "
                         << src << " has rank " << src.getRank();
  if (dst.getElementType() != src.getElementType())
    return emitOpError() << "result " << dst << " must have the element type "
                         << "of " << src;
  auto srcLayout = dyn_cast<SharedAttr>(src.getEncoding());
  auto dstLayout = dyn_cast<SharedAttr>(dst.getEncoding());
  if (!srcLayout || !dstLayout)
    return emitOpError() << "needs #rocdsl.shared layouts on both sides";
  SharedAttr oneBuffer = srcLayout.withoutBufferDim();
  if (srcLayout.getOrder().size() != size_t(src.getRank()) || !oneBuffer)
    return emitOpError() << "the source's leading (buffer) dimension must "
                            "be its slowest: last in the #rocdsl.shared "
                            "order";
  if (dst.getShape() == src.getShape().drop_front()) {
    if (dstLayout != oneBuffer)
      return emitOpError() << "result layout " << dstLayout
                           << " must be the source's " << srcLayout
                           << " without the buffer dimension";
    return success();
  }
  // A view of other buffers over the same bytes: both row-major with one
  // swizzle and one row length, the view's rows a whole number of swizzle
  // periods (so each row keeps its phase) and its elements a divisor of a
  // buffer's.
  auto rowMajor = [](SharedAttr layout) {
    ArrayRef<unsigned> order = layout.getOrder();
    for (unsigned i = 0; i < order.size(); ++i)
      if (order[i] != order.size() - 1 - i)
        return false;
    return true;
  };
  int64_t bufferElements = src.getNumElements() / src.getShape()[0];
  int64_t rows = dst.getNumElements() / dst.getShape().back();
  int64_t period = int64_t(dstLayout.getPerPhase()) * dstLayout.getMaxPhase();
  if (!rowMajor(srcLayout) || !rowMajor(dstLayout) ||
      dstLayout.getVec() != srcLayout.getVec() ||
      dstLayout.getPerPhase() != srcLayout.getPerPhase() ||
      dstLayout.getMaxPhase() != srcLayout.getMaxPhase() ||
      dst.getShape().back() != src.getShape().back() ||
      bufferElements % dst.getNumElements() != 0 || rows % period != 0)
    return emitOpError()
           << "result " << dst << " is neither one buffer of " << src
           << " (its shape without the leading dimension) nor a view of "
              "its bytes: row-major with the same swizzle and row length, "
              "a whole number of swizzle periods of rows, and elements "
              "dividing one buffer's";
  return success();
}

LogicalResult LocalLoadOp::verify() {
  LdsTileType src = getSrc().getType();
  if (!getTrans())
    return verifyLdsMatch(*this, getType(), src);
  if (failed(verifyTileType(*this, getType(), "register tile")))
    return failure();
  if (src.getRank() != 2)
    return emitOpError() << "reads a transpose of 2-D tiles only; " << src
                         << " has rank " << src.getRank();
  ArrayRef<int64_t> shape = getType().getShape();
  if (shape.size() != 2 || shape[0] != src.getShape()[1] ||
      shape[1] != src.getShape()[0] ||
      getType().getElementType() != src.getElementType())
    return emitOpError() << "register tile " << getType()
                         << " is not the transpose of LDS tile " << src
                         << " (its shape reversed, the same element type)";
  return success();
}

LogicalResult LocalStoreOp::verify() {
  return verifyLdsMatch(*this, getValue().getType(), getDst().getType());
}

LogicalResult AsyncCopyOp::verify() {
  RankedTensorType tile = getTileType();
  if (failed(verifyTileAccess(*this, tile, getPtr().getType(),
                              getOrigin().size(), getStrides().size(),
                              getBounds(), getMask(), getVecWidth(),
                              getUniformMask())) ||
      failed(verifyLdsMatch(*this, tile, getDst().getType())))
    return failure();
  return success();
}
