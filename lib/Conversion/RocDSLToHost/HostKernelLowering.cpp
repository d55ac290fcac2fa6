//===- HostKernelLowering.cpp - kernels, program ids, tile ops on the CPU -===//
//
// On the host one thread runs a whole program instance, so a tile is simply
// an n-D vector: shape ops are vector reshapes and broadcasts, reductions are
// vector.multi_reduction, and dot is vector.contract.
//
//===----------------------------------------------------------------------===//
#include "HostPatterns.h"
#include "rocdsl/Conversion/TileElementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

HostTypeConverter::HostTypeConverter(MLIRContext *ctx) {
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type) -> Type {
    return VectorType::get(type.getShape(), type.getElementType());
  });
  addConversion(
      [ctx](PtrType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
  // LDS tiles are row-major arrays on the stack; the offset is dynamic so
  // that one buffer of a stack (local_index) has the same type as a tile
  // of its own.
  addConversion([ctx](LdsTileType type) -> Type {
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (int64_t d = type.getRank() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * type.getShape()[d + 1];
    return MemRefType::get(
        type.getShape(), type.getElementType(),
        StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides));
  });
  addUnrealizedCastMaterializations(*this);
}

namespace {

struct FuncToHost : OpConversionPattern<FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TypeConverter::SignatureConversion signature(op.getNumArguments());
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes()))
      signature.addInputs(i, getTypeConverter()->convertType(type));
    SmallVector<Type> inputs(signature.getConvertedTypes());
    inputs.append(kHostGridArgs, rewriter.getI32Type());
    auto func = func::FuncOp::create(rewriter, op.getLoc(), op.getName(),
                                     rewriter.getFunctionType(inputs, {}));
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    Block *entry = rewriter.applySignatureConversion(
        &func.getBody().front(), signature, getTypeConverter());
    for (unsigned i = 0; i < kHostGridArgs; ++i)
      entry->addArgument(rewriter.getI32Type(), op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The i-th grid argument of the enclosing host function.
Value gridArg(Operation *op, unsigned i) {
  auto func = op->getParentOfType<func::FuncOp>();
  Block &entry = func.getBody().front();
  return entry.getArgument(entry.getNumArguments() - kHostGridArgs + i);
}

struct ProgramIdToHost : OpConversionPattern<ProgramIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ProgramIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, gridArg(op, op.getAxis()));
    return success();
  }
};

struct NumProgramsToHost : OpConversionPattern<NumProgramsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NumProgramsOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, gridArg(op, 3 + op.getAxis()));
    return success();
  }
};

struct ReturnToHost : OpConversionPattern<ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReturnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<func::ReturnOp>(op);
    return success();
  }
};

/// Barriers, waits and scheduling fences order lanes and memory traffic of
/// one workgroup; a single host thread needs none of them.
template <typename OpTy> struct EraseOnHost : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

template <typename OpTy, typename Fn>
struct LambdaPattern : OpConversionPattern<OpTy> {
  LambdaPattern(const TypeConverter &converter, MLIRContext *ctx, Fn fn)
      : OpConversionPattern<OpTy>(converter, ctx), fn(fn) {}
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type =
        op->getNumResults()
            ? this->getTypeConverter()->convertType(op->getResult(0).getType())
            : Type();
    Value result = fn(op, adaptor, type, rewriter);
    if (op->getNumResults() == 0) {
      rewriter.eraseOp(op);
      return success();
    }
    if (!result)
      return failure();
    rewriter.replaceOp(op, result);
    return success();
  }
  Fn fn;
};

template <typename OpTy, typename Fn>
void addLambda(RewritePatternSet &patterns, const TypeConverter &converter,
               Fn fn) {
  patterns.add(std::make_unique<LambdaPattern<OpTy, Fn>>(
      converter, patterns.getContext(), fn));
}

vector::CombiningKind toCombiningKind(ReduceKind kind, bool isFloat) {
  switch (kind) {
  case ReduceKind::Add:
    return vector::CombiningKind::ADD;
  case ReduceKind::Mul:
    return vector::CombiningKind::MUL;
  case ReduceKind::Max:
    return isFloat ? vector::CombiningKind::MAXIMUMF
                   : vector::CombiningKind::MAXSI;
  case ReduceKind::Min:
    return isFloat ? vector::CombiningKind::MINIMUMF
                   : vector::CombiningKind::MINSI;
  }
  llvm_unreachable("unknown reduce kind");
}

SmallVector<Value> zeroIndices(OpBuilder &b, Location loc, unsigned rank) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return SmallVector<Value>(rank, zero);
}

/// A stack buffer of `type` allocated once at the entry of `op`'s function,
/// so a dot inside a loop does not grow the stack each iteration.
Value entryBuffer(OpBuilder &b, Operation *op, MemRefType type) {
  OpBuilder::InsertionGuard guard(b);
  auto func = op->getParentOfType<func::FuncOp>();
  b.setInsertionPointToStart(&func.getBody().front());
  return memref::AllocaOp::create(b, op->getLoc(), type);
}

/// dot: a (MxK) and b (KxN), widened to f32, go to stack buffers; a loop
/// over rows adds a[i, k] * b[k, :] to row i of the accumulator in k order,
/// the order of a sequential contraction (the results equal the
/// vector.contract this replaced bit for bit). Code size is constant in the
/// tile: the unrolled contraction of a 64x64x32 tile was 4096 reductions
/// and took LLVM close to two minutes to optimize.
Value lowerDot(DotOp op, DotOp::Adaptor adaptor, Type type,
               ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  auto spill = [&](Value v) -> Value {
    auto vt = cast<VectorType>(v.getType());
    if (!vt.getElementType().isF32())
      v = arith::ExtFOp::create(rewriter, loc, vt.clone(f32), v);
    Value buffer =
        entryBuffer(rewriter, op, MemRefType::get(vt.getShape(), f32));
    vector::TransferWriteOp::create(rewriter, loc, v, buffer,
                                    zeroIndices(rewriter, loc, 2));
    return buffer;
  };
  Value a = spill(adaptor.getA()), b = spill(adaptor.getB()),
        c = spill(adaptor.getC());
  auto accType = cast<VectorType>(adaptor.getC().getType());
  int64_t rows = accType.getDimSize(0);
  int64_t depth = cast<VectorType>(adaptor.getA().getType()).getDimSize(1);
  auto rowType = VectorType::get({accType.getDimSize(1)}, f32);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value pad =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
  auto readRow = [&](OpBuilder &bld, Value buffer, Value row) -> Value {
    return vector::TransferReadOp::create(bld, loc, rowType, buffer,
                                          ValueRange{row, zero}, pad);
  };
  scf::ForOp::create(
      rewriter, loc, zero, arith::ConstantIndexOp::create(rewriter, loc, rows),
      one, ValueRange{}, [&](OpBuilder &bld, Location, Value i, ValueRange) {
        auto inner = scf::ForOp::create(
            bld, loc, zero, arith::ConstantIndexOp::create(bld, loc, depth),
            one, ValueRange{readRow(bld, c, i)},
            [&](OpBuilder &body, Location, Value k, ValueRange acc) {
              Value aik =
                  memref::LoadOp::create(body, loc, a, ValueRange{i, k});
              Value product = arith::MulFOp::create(
                  body, loc,
                  vector::BroadcastOp::create(body, loc, rowType, aik),
                  readRow(body, b, k));
              scf::YieldOp::create(
                  body, loc,
                  ValueRange{arith::AddFOp::create(body, loc, acc[0], product)
                                 .getResult()});
            });
        vector::TransferWriteOp::create(bld, loc, inner.getResult(0), c,
                                        ValueRange{i, zero});
        scf::YieldOp::create(bld, loc);
      });
  return vector::TransferReadOp::create(rewriter, loc, cast<VectorType>(type),
                                        c, zeroIndices(rewriter, loc, 2), pad);
}

} // namespace

void mlir::rocdsl::populateHostKernelPatterns(HostTypeConverter &converter,
                                              RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<FuncToHost, ProgramIdToHost, NumProgramsToHost, ReturnToHost,
               EraseOnHost<BarrierOp>, EraseOnHost<WaitOp>,
               EraseOnHost<SchedBarrierOp>,
               EraseOnHost<SchedGroupBarrierOp>,
               EraseOnHost<SetPriorityOp>>(converter, ctx);
}

void mlir::rocdsl::populateHostTilePatterns(HostTypeConverter &converter,
                                            RewritePatternSet &patterns) {
  using Rewriter = ConversionPatternRewriter;
  addLambda<SplatOp>(
      patterns, converter,
      [](SplatOp op, SplatOp::Adaptor a, Type t, Rewriter &r) -> Value {
        return vector::BroadcastOp::create(r, op.getLoc(), t, a.getValue());
      });
  addLambda<IotaOp>(
      patterns, converter,
      [](IotaOp op, IotaOp::Adaptor, Type t, Rewriter &r) -> Value {
        SmallVector<int32_t> values;
        for (int64_t i = 0; i < op.getType().getDimSize(0); ++i)
          values.push_back(op.getStart() + i);
        return arith::ConstantOp::create(
            r, op.getLoc(), t,
            DenseElementsAttr::get(cast<VectorType>(t), ArrayRef(values)));
      });
  addLambda<ExpandDimsOp>(patterns, converter,
                          [](ExpandDimsOp op, ExpandDimsOp::Adaptor a, Type t,
                             Rewriter &r) -> Value {
                            return vector::ShapeCastOp::create(r, op.getLoc(),
                                                               t, a.getSrc());
                          });
  addLambda<BroadcastOp>(
      patterns, converter,
      [](BroadcastOp op, BroadcastOp::Adaptor a, Type t, Rewriter &r) -> Value {
        return vector::BroadcastOp::create(r, op.getLoc(), t, a.getSrc());
      });
  addLambda<ConvertLayoutOp>(
      patterns, converter,
      [](ConvertLayoutOp, ConvertLayoutOp::Adaptor a, Type,
         Rewriter &) -> Value {
        return a.getSrc(); // one thread holds the whole tile in any layout
      });
  addLambda<TransOp>(
      patterns, converter,
      [](TransOp op, TransOp::Adaptor a, Type t, Rewriter &r) -> Value {
        return vector::TransposeOp::create(r, op.getLoc(), a.getSrc(),
                                           ArrayRef<int64_t>{1, 0});
      });
  addLambda<ReduceOp>(
      patterns, converter,
      [](ReduceOp op, ReduceOp::Adaptor a, Type t, Rewriter &r) -> Value {
        Type element = op.getSrc().getType().getElementType();
        auto kind = toCombiningKind(op.getKind(), isa<FloatType>(element));
        if (op.getSrc().getType().getRank() == 1)
          return vector::ReductionOp::create(r, op.getLoc(), kind, a.getSrc());
        auto vt = cast<VectorType>(t);
        Value init = arith::ConstantOp::create(
            r, op.getLoc(), vt,
            SplatElementsAttr::get(
                vt, getReductionIdentity(op.getKind(), element)));
        SmallVector<bool> reduced(op.getSrc().getType().getRank(), false);
        reduced[op.getAxis()] = true;
        return vector::MultiDimReductionOp::create(r, op.getLoc(), a.getSrc(),
                                                   init, reduced, kind);
      });
  addLambda<DotOp>(patterns, converter, lowerDot);
  addLambda<LocalAllocOp>(
      patterns, converter,
      [](LocalAllocOp op, LocalAllocOp::Adaptor a, Type t,
         Rewriter &r) -> Value {
        auto type = cast<MemRefType>(t);
        Value buffer = memref::CastOp::create(
            r, op.getLoc(), type,
            memref::AllocaOp::create(
                r, op.getLoc(),
                MemRefType::get(type.getShape(), type.getElementType())));
        if (a.getInit())
          vector::TransferWriteOp::create(
              r, op.getLoc(), a.getInit(), buffer,
              zeroIndices(r, op.getLoc(), op.getType().getRank()));
        return buffer;
      });
  addLambda<LocalLoadOp>(
      patterns, converter,
      [](LocalLoadOp op, LocalLoadOp::Adaptor a, Type t, Rewriter &r) -> Value {
        auto vt = cast<VectorType>(t);
        Value pad = arith::ConstantOp::create(
            r, op.getLoc(), r.getZeroAttr(vt.getElementType()));
        SmallVector<Value> origin = zeroIndices(r, op.getLoc(), vt.getRank());
        if (!op.getTrans())
          return vector::TransferReadOp::create(r, op.getLoc(), vt,
                                                a.getSrc(), origin, pad);
        // The transpose: the read's dimensions map to the array's swapped.
        AffineMap swap = AffineMap::getPermutationMap(
            ArrayRef<unsigned>{1, 0}, r.getContext());
        return vector::TransferReadOp::create(
            r, op.getLoc(), vt, a.getSrc(), origin, pad, swap,
            /*inBounds=*/ArrayRef<bool>{true, true});
      });
  addLambda<LocalIndexOp>(
      patterns, converter,
      [](LocalIndexOp op, LocalIndexOp::Adaptor a, Type t,
         Rewriter &r) -> Value {
        Location loc = op.getLoc();
        auto stack = cast<MemRefType>(a.getSrc().getType());
        if (op.getType().getShape() != stack.getShape().drop_front()) {
          op.emitOpError() << "viewing LDS bytes as buffers of another "
                              "shape has no host lowering";
          return Value();
        }
        SmallVector<OpFoldResult> offsets(stack.getRank(), r.getIndexAttr(0));
        offsets[0] =
            arith::IndexCastOp::create(r, loc, r.getIndexType(), a.getIndex())
                .getResult();
        SmallVector<OpFoldResult> sizes,
            strides(stack.getRank(), r.getIndexAttr(1));
        sizes.push_back(r.getIndexAttr(1));
        for (int64_t d : stack.getShape().drop_front())
          sizes.push_back(r.getIndexAttr(d));
        return memref::SubViewOp::create(r, loc, cast<MemRefType>(t),
                                         a.getSrc(), offsets, sizes, strides);
      });
  addLambda<LocalStoreOp>(
      patterns, converter,
      [](LocalStoreOp op, LocalStoreOp::Adaptor a, Type, Rewriter &r) -> Value {
        vector::TransferWriteOp::create(
            r, op.getLoc(), a.getValue(), a.getDst(),
            zeroIndices(r, op.getLoc(), op.getDst().getType().getRank()));
        return Value();
      });
}
