//===- NvidiaDotLowering.cpp - rocdsl.dot on NVIDIA tensor cores ----------===//
//
// #rocdsl.mma and its operands are the PTX fragments of
// mma.sync.aligned.m16n8k16 (RocDSLTileMapping.cpp), so a dot is one
// nvvm.mma.sync per (M, N) instruction tile and 16-wide K block, its
// operands gathered from the lane's registers in PTX order: A's a0..a7 at
// (row, K) entries (0,0) (0,1) (1,0) (1,1) (0,2) (0,3) (1,2) (1,3), B's
// b0..b3 at K entries 0..3, the accumulator's c0..c3 at (0,0) (0,1) (1,0)
// (1,1); pairs travel as one 32-bit register.
//
//===----------------------------------------------------------------------===//
#include "PatternsInternal.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

struct NvidiaDotLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = op.getA().getType(), bType = op.getB().getType(),
         cType = op.getC().getType();
    if (!isa<NvidiaMmaAttr>(cType.getEncoding()))
      return failure();
    auto a = TileMapping::get(aType), b = TileMapping::get(bType),
         c = TileMapping::get(cType);
    if (!a || !b || !c)
      return rewriter.notifyMatchFailure(op, "no register mapping");
    Type element = aType.getElementType();
    bool bf16 = element.isBF16();
    auto pairType = VectorType::get({2}, element);
    Type i32 = rewriter.getI32Type();
    Type f32 = rewriter.getF32Type();

    Value av = adaptor.getA(), bv = adaptor.getB(), cv = adaptor.getC();
    auto entry = [&](Value v, const TileMapping &m, unsigned i, unsigned j) {
      return vector::ExtractOp::create(rewriter, loc, v,
                                       int64_t(m.linearize({i, j})));
    };
    // Two entries as one .b32 register: f16x2 as a vector, bf16x2 as i32.
    auto pair = [&](Value v, const TileMapping &m, unsigned i0, unsigned j0,
                    unsigned i1, unsigned j1) -> Value {
      Value p = vector::FromElementsOp::create(
          rewriter, loc, pairType,
          ValueRange{entry(v, m, i0, j0), entry(v, m, i1, j1)});
      return bf16 ? LLVM::BitcastOp::create(rewriter, loc, i32, p).getResult()
                  : p;
    };

    unsigned mTiles = c->dim(0).elems / 2, nTiles = c->dim(1).elems / 2;
    unsigned kBlocks = a->dim(1).elems / 4;
    auto resultType = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(4, f32));
    auto ptxType = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    SmallVector<Value> result(c->getNumRegisters());
    for (unsigned m = 0; m < mTiles; ++m) {
      for (unsigned n = 0; n < nTiles; ++n) {
        SmallVector<Value> acc;
        for (unsigned r = 0; r < 4; ++r)
          acc.push_back(entry(cv, *c, 2 * m + r / 2, 2 * n + r % 2));
        for (unsigned kb = 0; kb < kBlocks; ++kb) {
          unsigned k = 4 * kb;
          SmallVector<Value> aRegs = {
              pair(av, *a, 2 * m, k, 2 * m, k + 1),
              pair(av, *a, 2 * m + 1, k, 2 * m + 1, k + 1),
              pair(av, *a, 2 * m, k + 2, 2 * m, k + 3),
              pair(av, *a, 2 * m + 1, k + 2, 2 * m + 1, k + 3)};
          SmallVector<Value> bRegs = {pair(bv, *b, k, n, k + 1, n),
                                      pair(bv, *b, k + 2, n, k + 3, n)};
          Value d = NVVM::MmaOp::create(
              rewriter, loc, resultType, aRegs, bRegs, acc, {16, 8, 16},
              std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (unsigned r = 0; r < 4; ++r)
            acc[r] = LLVM::ExtractValueOp::create(rewriter, loc, d,
                                                  ArrayRef<int64_t>{r});
        }
        for (unsigned r = 0; r < 4; ++r)
          result[c->linearize({2 * m + r / 2, 2 * n + r % 2})] = acc[r];
      }
    }
    Type vectorType = getTypeConverter()->convertType(cType);
    rewriter.replaceOp(op, vector::FromElementsOp::create(
                               rewriter, loc, vectorType, result));
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateNvidiaDotPatterns(TileTypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<NvidiaDotLowering>(converter, patterns.getContext());
}
