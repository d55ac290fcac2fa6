//===- NvidiaWarpgroupDot.cpp - rocdsl.warpgroup_dot on sm_90a wgmma -------===//
//
// Each group of four warps multiplies its 64 rows of every 16 W (the
// accumulator's #rocdsl.mma<warpsPerCTA = [W, 1]>) with one
// wgmma.mma_async.m64nNk16 per 16-wide K block, both operands read by the
// matrix unit from shared memory through descriptors (PTX ISA,
// "Matrix Descriptor Format"): start address, leading- and stride-
// dimension byte offsets (LBO, SBO) and the swizzle mode, all in 16-byte
// units but the mode. The operands are in the 128-byte swizzle (rows of
// 128 bytes, 8-row atoms of 1024 bytes):
//   - K-major (A, and B stored N x K): SBO = 1024 steps from one 8-row atom
//     to the next along M (N); LBO is unused (the 16-wide K block lies in
//     one 128-byte row); K block kb starts kb * 32 bytes into the rows.
//   - B in panels of 64 columns (K x N, N fastest; transposed in the
//     instruction): SBO = 1024 steps 8 K rows, LBO = one panel's bytes
//     steps 64 columns; K block kb starts 16 rows (2048 bytes) further.
// The swizzle is applied by the hardware to address bits, which is why
// the tiles are 1024-aligned (LdsAllocation.cpp).
//
// Accumulator register d[4j + q] of a warp is row lane / 4 + 8 (q / 2),
// column 8 j + 2 (lane mod 4) + q mod 2: the mma.sync fragment of each
// 8-column block, which is what #rocdsl.mma describes per warp.
//
// The op then waits with wgmma.wait_group `pending`: with 0 its result is
// plain registers and its LDS reads are over when it returns; with P > 0
// up to P groups (its own included) may still run, and the result, still
// being written by the matrix unit, only flows on to the next product's
// accumulator (which the unit chains without a wait) or to
// rocdsl.warpgroup_wait. That wait is inline assembly taking and
// redefining every accumulator register, so no use of the values can be
// scheduled above it, which the intrinsic (no operands) could not prevent.
//
//===----------------------------------------------------------------------===//
#include "PatternsInternal.h"
#include "TileDistribution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

constexpr int64_t kSwizzleRowBytes = 128, kAtomBytes = 1024;

/// The descriptor of an operand block starting `byteOffset` bytes into the
/// tile at `base` (a shared-memory pointer).
Value descriptor(OpBuilder &b, Location loc, Value base, Value byteOffset,
                 int64_t lbo, int64_t sbo) {
  Type i64 = b.getI64Type();
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), base);
  address = arith::AddIOp::create(b, loc, address, byteOffset);
  address = arith::ExtUIOp::create(b, loc, i64, address);
  // (address & 0x3FFFF) >> 4 in bits 0-13.
  Value start = arith::ShRUIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, address,
                            arith::ConstantIntOp::create(b, loc, i64, 0x3FFFF)),
      arith::ConstantIntOp::create(b, loc, i64, 4));
  uint64_t fields = (uint64_t(lbo >> 4) & 0x3FFF) << 16 |
                    (uint64_t(sbo >> 4) & 0x3FFF) << 32 |
                    uint64_t(1) << 62; // 128-byte swizzle
  return arith::OrIOp::create(
      b, loc, start,
      arith::ConstantIntOp::create(b, loc, i64, int64_t(fields)));
}

struct WarpgroupDotLowering : OpConversionPattern<WarpgroupDotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpgroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto cType = op.getC().getType();
    LdsTileType aType = op.getA().getType(), bType = op.getB().getType();
    auto c = TileMapping::get(cType);
    auto dist = TileDistribution::get(cType);
    if (!c || !dist)
      return rewriter.notifyMatchFailure(op, "no register mapping");
    auto mma = cast<NvidiaMmaAttr>(cType.getEncoding());
    int64_t warps = mma.getWarpsPerCTA()[0];
    int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
    int64_t k = aType.getDimSize(1);
    int64_t reps = m / (16 * warps);
    int64_t elementBytes = aType.getElementType().getIntOrFloatBitWidth() / 8;
    bool bPanels = bType.getRank() == 3;
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    auto i32Const = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, i32, v).getResult();
    };

    // This warp group's first row: 64 of every 16 W rows.
    Value group = arith::DivUIOp::create(
        rewriter, loc, dist->waveId(rewriter, loc), i32Const(4));
    Value groupRow = arith::MulIOp::create(rewriter, loc, group, i32Const(64));

    auto type = aType.getElementType().isBF16() ? NVVM::WGMMATypes::bf16
                                                : NVVM::WGMMATypes::f16;
    auto accType = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(n / 2, f32));
    Value cv = adaptor.getC();
    auto entryIndex = [&](int64_t rep, int64_t i) {
      int64_t j = i / 4, q = i % 4;
      return int64_t(c->linearize(
          {unsigned(2 * rep + q / 2), unsigned(2 * j + q % 2)}));
    };

    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    SmallVector<Value> accs;
    for (int64_t rep = 0; rep < reps; ++rep) {
      Value acc = LLVM::UndefOp::create(rewriter, loc, accType);
      for (int64_t i = 0; i < n / 2; ++i) {
        Value e = vector::ExtractOp::create(rewriter, loc, cv,
                                            entryIndex(rep, i));
        acc = LLVM::InsertValueOp::create(rewriter, loc, acc, e,
                                          ArrayRef<int64_t>{i});
      }
      Value rowBytes = arith::MulIOp::create(
          rewriter, loc,
          arith::AddIOp::create(rewriter, loc, groupRow,
                                i32Const(rep * 16 * warps)),
          i32Const(kSwizzleRowBytes));
      for (int64_t kb = 0; kb < k / 16; ++kb) {
        Value aOffset = arith::AddIOp::create(
            rewriter, loc, rowBytes, i32Const(kb * 16 * elementBytes));
        Value descA = descriptor(rewriter, loc, adaptor.getA(), aOffset,
                                 /*lbo=*/16, kAtomBytes);
        Value descB =
            bPanels ? descriptor(rewriter, loc, adaptor.getB(),
                                 i32Const(kb * 16 * kSwizzleRowBytes),
                                 /*lbo=*/bType.getDimSize(1) * kSwizzleRowBytes,
                                 kAtomBytes)
                    : descriptor(rewriter, loc, adaptor.getB(),
                                 i32Const(kb * 16 * elementBytes),
                                 /*lbo=*/16, kAtomBytes);
        acc = NVVM::WgmmaMmaAsyncOp::create(
            rewriter, loc, accType, acc, descA, descB,
            NVVM::MMAShapeAttr::get(getContext(), 64, int(n), 16),
            NVVM::WGMMATypesAttr::get(getContext(), type),
            NVVM::WGMMATypesAttr::get(getContext(), type),
            NVVM::WGMMATypesAttr::get(getContext(), NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(getContext(),
                                         NVVM::WGMMAScaleOut::one),
            NVVM::WGMMAScaleInAttr::get(getContext(), NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(getContext(), NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(getContext(), NVVM::MMALayout::row),
            NVVM::MMALayoutAttr::get(getContext(), bPanels
                                                       ? NVVM::MMALayout::row
                                                       : NVVM::MMALayout::col),
            /*satfinite=*/nullptr);
      }
      accs.push_back(acc);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getPending());

    SmallVector<Value> result(c->getNumRegisters());
    for (int64_t rep = 0; rep < reps; ++rep)
      for (int64_t i = 0; i < n / 2; ++i)
        result[entryIndex(rep, i)] = LLVM::ExtractValueOp::create(
            rewriter, loc, accs[rep], ArrayRef<int64_t>{i});
    Type vectorType = getTypeConverter()->convertType(cType);
    rewriter.replaceOp(op, vector::FromElementsOp::create(rewriter, loc,
                                                          vectorType, result));
    return success();
  }
};

struct WarpgroupWaitLowering : OpConversionPattern<WarpgroupWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpgroupWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getSrc();
    auto vectorType = dyn_cast<VectorType>(src.getType());
    if (!vectorType || vectorType.getRank() != 1 ||
        !vectorType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not an f32 register vector");
    int64_t count = vectorType.getNumElements();
    // "=f" for each register, then each input tied to its output ("0",
    // "1", ...): the registers go through the wait unchanged.
    std::string constraints;
    SmallVector<Value> inputs;
    for (int64_t i = 0; i < count; ++i) {
      constraints += "=f,";
      inputs.push_back(vector::ExtractOp::create(rewriter, loc, src, i));
    }
    for (int64_t i = 0; i < count; ++i)
      constraints += std::to_string(i) + (i + 1 < count ? "," : "");
    Type f32 = rewriter.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(count, f32));
    auto wait = ptxAsm(rewriter, loc, resultType, inputs,
                       "wgmma.wait_group.sync.aligned " +
                           std::to_string(op.getPending()) + ";",
                       constraints);
    SmallVector<Value> result;
    for (int64_t i = 0; i < count; ++i)
      result.push_back(LLVM::ExtractValueOp::create(
          rewriter, loc, wait.getResult(0), ArrayRef<int64_t>{i}));
    rewriter.replaceOp(
        op, vector::FromElementsOp::create(rewriter, loc, vectorType, result));
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateNvidiaWarpgroupDotPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<WarpgroupDotLowering, WarpgroupWaitLowering>(
      converter, patterns.getContext());
}

void mlir::rocdsl::fenceSharedMemoryForWarpgroupMma(
    gpu::GPUModuleOp gpuModule) {
  // Shared memory written through the generic proxy (stores, cp.async)
  // and read by wgmma through the async proxy needs a proxy fence by the
  // writers before the barrier that publishes the writes.
  gpuModule.walk([](gpu::GPUFuncOp func) {
    bool hasWgmma = false;
    func.walk([&](NVVM::WgmmaMmaAsyncOp) { hasWgmma = true; });
    if (!hasWgmma)
      return;
    func.walk([](gpu::BarrierOp barrier) {
      OpBuilder b(barrier);
      NVVM::FenceProxyOp::create(
          b, barrier.getLoc(), NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
    });
  });
}
