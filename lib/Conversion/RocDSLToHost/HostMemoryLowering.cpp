//===- HostMemoryLowering.cpp - rocdsl.load/store on the CPU --------------===//
//
// A tile access is done row by row (the innermost dimension is contiguous).
// Bounded rows copy exactly their valid prefix through a stack buffer with
// llvm.intr.memcpy, so out-of-bounds memory is never touched and no
// per-element masking is needed. Explicitly masked rows copy element by
// element in a loop over the row, guarded by the mask: llvm.masked.load and
// llvm.masked.store would be expanded by LLVM into a branch per element on
// CPUs without masked moves of the element's width (16-bit elements short of
// AVX-512, any element short of AVX), and a 1024-element row then costs
// LLVM's register coalescer minutes.
//
//===----------------------------------------------------------------------===//
#include "HostPatterns.h"
#include "rocdsl/Conversion/Atomics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

Value i64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

Value toI64(OpBuilder &b, Location loc, Value v) {
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
}

/// Everything a row-by-row access needs.
struct RowAccess {
  RankedTensorType tile;
  Value base; // !llvm.ptr at the tile origin
  ValueRange origin, strides, bounds;
  Value mask;         // converted mask (n-D vector of i1) or null
  unsigned alignment; // bytes, from the vec promise

  int64_t rowLength() const { return tile.getShape().back(); }
  unsigned elementBytes() const {
    return tile.getElementType().getIntOrFloatBitWidth() / 8;
  }
  VectorType rowType() const {
    return VectorType::get({rowLength()}, tile.getElementType());
  }
  /// Rows travel through memory as integers of the element's width: CPU
  /// backends cannot legalize every operation on odd-length vectors of
  /// 16-bit floats, which LLVM's memory optimizations would otherwise form.
  VectorType memoryRowType() const {
    return VectorType::get(
        {rowLength()}, IntegerType::get(tile.getContext(), elementBytes() * 8));
  }
  Value toMemory(OpBuilder &b, Location loc, Value row) const {
    return LLVM::BitcastOp::create(b, loc, memoryRowType(), row);
  }
  Value fromMemory(OpBuilder &b, Location loc, Value row) const {
    return LLVM::BitcastOp::create(b, loc, rowType(), row);
  }

  /// Calls `fn(leadingIndex)` for every row of the tile.
  void forEachRow(function_ref<void(ArrayRef<int64_t>)> fn) const {
    ArrayRef<int64_t> shape = tile.getShape().drop_back();
    SmallVector<int64_t> index(shape.size(), 0);
    while (true) {
      fn(index);
      int d = static_cast<int>(shape.size()) - 1;
      for (; d >= 0; --d) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
      if (d < 0)
        return;
    }
  }

  Value rowPointer(OpBuilder &b, Location loc, ArrayRef<int64_t> lead) const {
    Value offset = i64(b, loc, 0);
    for (auto [d, i] : llvm::enumerate(lead))
      offset = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, i64(b, loc, i),
                                toI64(b, loc, strides[d])));
    return LLVM::GEPOp::create(b, loc, base.getType(), tile.getElementType(),
                               base, ValueRange{offset});
  }

  /// i1: this row lies inside the leading bounds.
  Value rowInBounds(OpBuilder &b, Location loc, ArrayRef<int64_t> lead) const {
    Value valid = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (auto [d, i] : llvm::enumerate(lead)) {
      Value at = arith::AddIOp::create(
          b, loc, origin[d], arith::ConstantIntOp::create(b, loc, i, 32));
      valid = arith::AndIOp::create(
          b, loc, valid,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at,
                                bounds[d]));
    }
    return valid;
  }

  /// Bytes of the row that are in bounds: a prefix, clamped to [0, row].
  Value validBytes(OpBuilder &b, Location loc, ArrayRef<int64_t> lead) const {
    Value left = toI64(
        b, loc, arith::SubIOp::create(b, loc, bounds.back(), origin.back()));
    Value count = arith::MaxSIOp::create(
        b, loc, i64(b, loc, 0),
        arith::MinSIOp::create(b, loc, left, i64(b, loc, rowLength())));
    count = arith::SelectOp::create(b, loc, rowInBounds(b, loc, lead), count,
                                    i64(b, loc, 0));
    return arith::MulIOp::create(b, loc, count, i64(b, loc, elementBytes()));
  }

  /// Per-element validity of a row: bounds and mask (all true without
  /// either).
  Value rowMask(OpBuilder &b, Location loc, ArrayRef<int64_t> lead) const {
    auto maskType = VectorType::get({rowLength()}, b.getI1Type());
    Value m;
    if (!mask)
      m = arith::ConstantOp::create(b, loc, maskType,
                                    DenseElementsAttr::get(maskType, true));
    else
      m = lead.empty()
              ? mask
              : vector::ExtractOp::create(b, loc, mask, lead).getResult();
    if (bounds.empty())
      return m;
    SmallVector<int32_t> columns;
    for (int64_t i = 0; i < rowLength(); ++i)
      columns.push_back(i);
    auto i32Row = VectorType::get({rowLength()}, b.getI32Type());
    Value cols = arith::AddIOp::create(
        b, loc,
        arith::ConstantOp::create(
            b, loc, i32Row, DenseElementsAttr::get(i32Row, ArrayRef(columns))),
        vector::BroadcastOp::create(b, loc, i32Row, origin.back()));
    Value inCols = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, cols,
        vector::BroadcastOp::create(b, loc, i32Row, bounds.back()));
    Value inRow = vector::BroadcastOp::create(b, loc, maskType,
                                              rowInBounds(b, loc, lead));
    return arith::AndIOp::create(b, loc, m,
                                 arith::AndIOp::create(b, loc, inCols, inRow));
  }

  /// A row-sized stack buffer, allocated once at function entry.
  Value stackRow(OpBuilder &b, Location loc, Operation *op) const {
    return stackArray(b, loc, op, elementBytes() * 8);
  }

  /// One byte per row element at function entry: the row's mask.
  Value stackMask(OpBuilder &b, Location loc, Operation *op) const {
    return stackArray(b, loc, op, 8);
  }

  /// Copies the valid elements of row `lead` from `from` to `to` (row
  /// pointers of this access's element width): with a mask, element by
  /// element in a loop guarded by the mask, written a byte per element into
  /// `maskBuffer` first; without one, the in-bounds prefix in one memcpy.
  void copyValid(OpBuilder &b, Location loc, Value from, Value to,
                 ArrayRef<int64_t> lead, Value maskBuffer) const {
    if (!mask) {
      LLVM::MemcpyOp::create(b, loc, to, from, validBytes(b, loc, lead),
                             /*isVolatile=*/false);
      return;
    }
    Type element = memoryRowType().getElementType();
    forEachValidElement(b, loc, lead, maskBuffer, [&](Value column) {
      Value value = LLVM::LoadOp::create(b, loc, element,
                                         elementAt(b, loc, from, element, column),
                                         elementBytes());
      LLVM::StoreOp::create(b, loc, value,
                            elementAt(b, loc, to, element, column),
                            elementBytes());
    });
  }

  /// Element `column` of a row array of `element`s at `row`.
  Value elementAt(OpBuilder &b, Location loc, Value row, Type element,
                  Value column) const {
    return LLVM::GEPOp::create(b, loc, base.getType(), element, row,
                               ValueRange{column});
  }

  /// Calls `fn(column)` (an i64) for each valid element of row `lead`, in a
  /// loop over the row guarded by the row's validity, written a byte per
  /// element into `maskBuffer` first.
  void forEachValidElement(OpBuilder &b, Location loc, ArrayRef<int64_t> lead,
                           Value maskBuffer,
                           function_ref<void(Value)> fn) const {
    auto byteRow = VectorType::get({rowLength()}, b.getI8Type());
    LLVM::StoreOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, byteRow, rowMask(b, loc, lead)),
        maskBuffer, 1);
    auto loop = scf::ForOp::create(b, loc, i64(b, loc, 0),
                                   i64(b, loc, rowLength()), i64(b, loc, 1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value column = loop.getInductionVar();
    Value byte = LLVM::LoadOp::create(
        b, loc, b.getI8Type(),
        elementAt(b, loc, maskBuffer, b.getI8Type(), column));
    Value set =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, byte,
                              arith::ConstantIntOp::create(b, loc, 0, 8));
    auto guarded = scf::IfOp::create(b, loc, set, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&guarded.getThenRegion().front());
    fn(column);
  }

private:
  Value stackArray(OpBuilder &b, Location loc, Operation *op,
                   unsigned bits) const {
    OpBuilder::InsertionGuard guard(b);
    auto func = op->getParentOfType<func::FuncOp>();
    b.setInsertionPointToStart(&func.getBody().front());
    auto array = LLVM::LLVMArrayType::get(
        IntegerType::get(tile.getContext(), bits), rowLength());
    return LLVM::AllocaOp::create(b, loc, base.getType(), array, i64(b, loc, 1),
                                  /*alignment=*/16);
  }
};

template <typename OpTy>
RowAccess makeAccess(OpTy op, typename OpTy::Adaptor adaptor,
                     RankedTensorType tile, OpBuilder &b) {
  Location loc = op.getLoc();
  unsigned rank = tile.getRank();
  // atomic_add may give the innermost stride too (strides.size() == rank).
  bool innerStride = adaptor.getStrides().size() == rank;
  Value offset = toI64(b, loc, adaptor.getOrigin()[rank - 1]);
  if (innerStride)
    offset = arith::MulIOp::create(
        b, loc, offset, toI64(b, loc, adaptor.getStrides()[rank - 1]));
  for (unsigned d = 0; d + 1 < rank; ++d)
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, toI64(b, loc, adaptor.getOrigin()[d]),
                              toI64(b, loc, adaptor.getStrides()[d])));
  Value base = LLVM::GEPOp::create(b, loc, adaptor.getPtr().getType(),
                                   tile.getElementType(), adaptor.getPtr(),
                                   ValueRange{offset});
  unsigned bytes = tile.getElementType().getIntOrFloatBitWidth() / 8;
  return RowAccess{tile,
                   base,
                   adaptor.getOrigin(),
                   adaptor.getStrides(),
                   adaptor.getBounds(),
                   adaptor.getMask(),
                   static_cast<unsigned>(op.getVecWidth()) * bytes};
}

struct LoadToHost : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RowAccess access = makeAccess(op, adaptor, op.getType(), rewriter);
    VectorType rowType = access.rowType();
    auto resultType =
        cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    Value padding =
        adaptor.getOther()
            ? vector::BroadcastOp::create(rewriter, loc, rowType,
                                          adaptor.getOther())
                  .getResult()
            : arith::ConstantOp::create(rewriter, loc, rowType,
                                        rewriter.getZeroAttr(rowType))
                  .getResult();
    Value buffer, maskBuffer;
    if (access.mask || !access.bounds.empty())
      buffer = access.stackRow(rewriter, loc, op);
    if (access.mask)
      maskBuffer = access.stackMask(rewriter, loc, op);

    Value result = arith::ConstantOp::create(rewriter, loc, resultType,
                                             rewriter.getZeroAttr(resultType));
    access.forEachRow([&](ArrayRef<int64_t> lead) {
      Value rowPtr = access.rowPointer(rewriter, loc, lead);
      Value row;
      VectorType memoryType = access.memoryRowType();
      if (buffer) {
        LLVM::StoreOp::create(
            rewriter, loc, access.toMemory(rewriter, loc, padding), buffer, 16);
        access.copyValid(rewriter, loc, rowPtr, buffer, lead, maskBuffer);
        row = LLVM::LoadOp::create(rewriter, loc, memoryType, buffer, 16);
      } else {
        row = LLVM::LoadOp::create(rewriter, loc, memoryType, rowPtr,
                                   access.alignment);
      }
      row = access.fromMemory(rewriter, loc, row);
      result = lead.empty()
                   ? row
                   : vector::InsertOp::create(rewriter, loc, row, result, lead)
                         .getResult();
    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StoreToHost : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RowAccess access =
        makeAccess(op, adaptor, op.getValue().getType(), rewriter);
    Value buffer, maskBuffer;
    if (access.mask || !access.bounds.empty())
      buffer = access.stackRow(rewriter, loc, op);
    if (access.mask)
      maskBuffer = access.stackMask(rewriter, loc, op);
    access.forEachRow([&](ArrayRef<int64_t> lead) {
      Value rowPtr = access.rowPointer(rewriter, loc, lead);
      Value row = lead.empty() ? adaptor.getValue()
                               : vector::ExtractOp::create(
                                     rewriter, loc, adaptor.getValue(), lead)
                                     .getResult();
      row = access.toMemory(rewriter, loc, row);
      if (buffer) {
        LLVM::StoreOp::create(rewriter, loc, row, buffer, 16);
        access.copyValid(rewriter, loc, buffer, rowPtr, lead, maskBuffer);
      } else {
        LLVM::StoreOp::create(rewriter, loc, row, rowPtr, access.alignment);
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Each valid element added with its own atomicrmw (programs run on
/// threads of their own), in a loop over the row guarded by the row's
/// validity bytes, like a masked store.
struct AtomicAddToHost : OpConversionPattern<AtomicAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AtomicAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RowAccess access =
        makeAccess(op, adaptor, op.getValue().getType(), rewriter);
    Value buffer = access.stackRow(rewriter, loc, op);
    Value maskBuffer = access.stackMask(rewriter, loc, op);
    Type element = access.tile.getElementType();
    LLVM::AtomicBinOp kind = getAtomicAddBinOp(element);
    access.forEachRow([&](ArrayRef<int64_t> lead) {
      Value rowPtr = access.rowPointer(rewriter, loc, lead);
      Value row = lead.empty() ? adaptor.getValue()
                               : vector::ExtractOp::create(
                                     rewriter, loc, adaptor.getValue(), lead)
                                     .getResult();
      LLVM::StoreOp::create(rewriter, loc, row, buffer, 16);
      access.forEachValidElement(
          rewriter, loc, lead, maskBuffer, [&](Value column) {
            Value value = LLVM::LoadOp::create(
                rewriter, loc, element,
                access.elementAt(rewriter, loc, buffer, element, column));
            Value at = column;
            if (access.strides.size() == size_t(access.tile.getRank()))
              at = arith::MulIOp::create(
                  rewriter, loc, column,
                  toI64(rewriter, loc, access.strides.back()));
            LLVM::AtomicRMWOp::create(
                rewriter, loc, kind,
                access.elementAt(rewriter, loc, rowPtr, element, at),
                value, LLVM::AtomicOrdering::monotonic, StringRef(),
                /*alignment=*/4);
          });
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// One thread runs the program: its own acquire-release atomicrmw orders
/// all of the program's accesses.
struct ProgramAtomicToHost : OpConversionPattern<ProgramAtomicOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ProgramAtomicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value address = LLVM::GEPOp::create(
        rewriter, loc, adaptor.getPtr().getType(), i32, adaptor.getPtr(),
        ValueRange{toI64(rewriter, loc, adaptor.getIndex())});
    rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(
        op, getProgramAtomicBinOp(op.getKind()), address, adaptor.getValue(), LLVM::AtomicOrdering::acq_rel,
        StringRef(), /*alignment=*/4);
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateHostMemoryPatterns(HostTypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<LoadToHost, StoreToHost, AtomicAddToHost, ProgramAtomicToHost>(
      converter, patterns.getContext());
}
