//===- KernelLowering.cpp - kernels, program ids, escape hatches ----------===//
#include "PatternsInternal.h"
#include "rocdsl/Dialect/RocDSL/IR/KernelAttrs.h"
#include "rocdsl/Support/WaitFences.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// rocdsl.func -> gpu.func kernel inside the shared gpu.module.
struct FuncLowering : OpConversionPattern<FuncOp> {
  FuncLowering(TileTypeConverter &converter, MLIRContext *ctx,
               gpu::GPUModuleOp gpuModule, unsigned waveSize)
      : OpConversionPattern(converter, ctx), gpuModule(gpuModule),
        waveSize(waveSize) {}

  LogicalResult
  matchAndRewrite(FuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TypeConverter::SignatureConversion signature(op.getNumArguments());
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes())) {
      Type converted = getTypeConverter()->convertType(type);
      if (!converted)
        return rewriter.notifyMatchFailure(op, "unconvertible argument");
      signature.addInputs(i, converted);
    }
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(gpuModule.getBody());
    auto type = rewriter.getFunctionType(signature.getConvertedTypes(), {});
    auto kernel =
        gpu::GPUFuncOp::create(rewriter, op.getLoc(), op.getName(), type);
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    rewriter.getUnitAttr());
    int32_t threads = static_cast<int32_t>(op.getNumWarps() * waveSize);
    kernel.setKnownBlockSizeAttr(
        rewriter.getDenseI32ArrayAttr({threads, 1, 1}));
    if (auto waves = op.getWavesPerEu())
      kernel->setAttr("rocdl.waves_per_eu", rewriter.getI32IntegerAttr(*waves));
    if (auto programs = op->getAttrOfType<IntegerAttr>(kMinProgramsPerCUAttr))
      kernel->setAttr(kMinProgramsPerCUAttr, programs);
    if (auto argAttrs = op.getArgAttrsAttr())
      kernel.setAllArgAttrs(argAttrs);

    rewriter.eraseBlock(&kernel.getBody().front());
    rewriter.inlineRegionBefore(op.getBody(), kernel.getBody(),
                                kernel.getBody().end());
    rewriter.applySignatureConversion(&kernel.getBody().front(), signature,
                                      getTypeConverter());
    rewriter.eraseOp(op);
    return success();
  }

  mutable gpu::GPUModuleOp gpuModule;
  unsigned waveSize;
};

template <typename SourceOp, typename Lowering>
struct SimpleLowering : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Lowering::rewrite(op, adaptor, rewriter);
    return success();
  }
};

struct ReturnRewrite {
  static void rewrite(ReturnOp op, ReturnOp::Adaptor,
                      ConversionPatternRewriter &rewriter) {
    rewriter.replaceOpWithNewOp<gpu::ReturnOp>(op);
  }
};

static gpu::Dimension toDimension(uint32_t axis) {
  return axis == 0 ? gpu::Dimension::x
                   : (axis == 1 ? gpu::Dimension::y : gpu::Dimension::z);
}

struct ProgramIdRewrite {
  static void rewrite(ProgramIdOp op, ProgramIdOp::Adaptor,
                      ConversionPatternRewriter &rewriter) {
    Value id = gpu::BlockIdOp::create(rewriter, op.getLoc(),
                                      toDimension(op.getAxis()));
    rewriter.replaceOpWithNewOp<arith::IndexCastUIOp>(op, rewriter.getI32Type(),
                                                      id);
  }
};

struct NumProgramsRewrite {
  static void rewrite(NumProgramsOp op, NumProgramsOp::Adaptor,
                      ConversionPatternRewriter &rewriter) {
    Value n = gpu::GridDimOp::create(rewriter, op.getLoc(),
                                     toDimension(op.getAxis()));
    rewriter.replaceOpWithNewOp<arith::IndexCastUIOp>(op, rewriter.getI32Type(),
                                                      n);
  }
};

struct BarrierRewrite {
  static void rewrite(BarrierOp op, BarrierOp::Adaptor,
                      ConversionPatternRewriter &rewriter) {
    rewriter.replaceOpWithNewOp<gpu::BarrierOp>(op);
  }
};

struct WaitRewrite {
  static void rewrite(WaitOp op, WaitOp::Adaptor,
                      ConversionPatternRewriter &rewriter) {
    rewriter.replaceOpWithNewOp<ROCDL::SWaitcntOp>(
        op, gfx9WaitcntBits(op.getVmcnt(), op.getLgkmcnt()));
  }
};

struct SchedBarrierRewrite {
  static void rewrite(SchedBarrierOp op, SchedBarrierOp::Adaptor,
                      ConversionPatternRewriter &rewriter) {
    rewriter.replaceOpWithNewOp<ROCDL::SchedBarrier>(op, op.getMask());
  }
};

struct SetPriorityRewrite {
  static void rewrite(SetPriorityOp op, SetPriorityOp::Adaptor,
                      ConversionPatternRewriter &rewriter) {
    rewriter.replaceOpWithNewOp<ROCDL::SetPrioOp>(
        op, rewriter.getI16IntegerAttr(int16_t(op.getPriority())));
  }
};

/// The lane's thread index over the wave size: uniform in a wave.
struct WarpIdLowering : OpConversionPattern<WarpIdOp> {
  WarpIdLowering(TileTypeConverter &converter, MLIRContext *ctx,
                 unsigned waveSize)
      : OpConversionPattern(converter, ctx), waveSize(waveSize) {}

  LogicalResult
  matchAndRewrite(WarpIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value lane = arith::IndexCastUIOp::create(rewriter, loc,
                                              rewriter.getI32Type(), thread);
    Value size = arith::ConstantOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(int32_t(waveSize)));
    rewriter.replaceOpWithNewOp<arith::DivUIOp>(op, lane, size);
    return success();
  }

  unsigned waveSize;
};

struct SchedGroupBarrierRewrite {
  static void rewrite(SchedGroupBarrierOp op, SchedGroupBarrierOp::Adaptor,
                      ConversionPatternRewriter &rewriter) {
    rewriter.replaceOpWithNewOp<ROCDL::SchedGroupBarrier>(
        op, op.getMask(), op.getSize(), op.getSyncId());
  }
};

} // namespace

void mlir::rocdsl::populateKernelPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          gpu::GPUModuleOp gpuModule,
                                          unsigned waveSize) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<FuncLowering>(converter, ctx, gpuModule, waveSize);
  patterns.add<WarpIdLowering>(converter, ctx, waveSize);
  patterns.add<SimpleLowering<ReturnOp, ReturnRewrite>,
               SimpleLowering<ProgramIdOp, ProgramIdRewrite>,
               SimpleLowering<NumProgramsOp, NumProgramsRewrite>,
               SimpleLowering<BarrierOp, BarrierRewrite>,
               SimpleLowering<WaitOp, WaitRewrite>,
               SimpleLowering<SchedBarrierOp, SchedBarrierRewrite>,
               SimpleLowering<SchedGroupBarrierOp, SchedGroupBarrierRewrite>,
               SimpleLowering<SetPriorityOp, SetPriorityRewrite>>(
      converter, ctx);
}
