//===- TargetMath.cpp - approximate float math on each target -------------===//
//
// Fast-math flags on f32 ops choose the hardware's approximations, as the
// field's compilers do by default (docs/dsl.md, "Math"):
//   math.exp {afn}   exp2(x * log2(e)) in hardware: v_exp_f32 on AMDGPU
//                    (llvm.amdgcn.exp2, no denormal range fix-up),
//                    ex2.approx.f32 on NVIDIA (llvm.nvvm.ex2.approx.f32,
//                    not libdevice, which may be absent)
//   math.exp2 {afn}  the same instruction
//   math.log2 {afn}  v_log_f32 (llvm.amdgcn.log), lg2.approx.f32 on NVIDIA
//                    (otherwise a libdevice or ocml call)
//   arith.divf {arcp} (without afn) on NVIDIA: div.full.f32 (full range,
//                    2 ulp), Triton's `/`; AMDGPU: LLVM's arcp division
//   arith.divf {afn} LLVM's approximate division (div.approx.f32, v_rcp_f32)
//   math.rsqrt       rsqrt.approx.f32 on NVIDIA (LLVM would expand it)
// Ops without flags keep LLVM's accurate lowering (IEEE division, exp
// with range reduction).
//
//===----------------------------------------------------------------------===//
#include "PatternsInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

bool hasFlag(arith::FastMathFlagsAttr flags, arith::FastMathFlags flag) {
  return flags && arith::bitEnumContainsAll(flags.getValue(), flag);
}

/// Replaces `op` (f32 scalar or 1-D f32 vector result) by the f32
/// intrinsic `name` applied element by element to its operands.
LogicalResult replaceByIntrinsic(PatternRewriter &rewriter, Operation *op,
                                 StringRef name) {
  Location loc = op->getLoc();
  Type type = op->getResult(0).getType();
  if (!getElementTypeOrSelf(type).isF32())
    return failure();
  auto intrinsic = rewriter.getStringAttr(name);
  auto call = [&](ValueRange args) -> Value {
    return LLVM::CallIntrinsicOp::create(rewriter, loc, rewriter.getF32Type(),
                                         intrinsic, args)
        .getResult(0);
  };
  auto vectorType = dyn_cast<VectorType>(type);
  if (!vectorType) {
    rewriter.replaceOp(op, call(op->getOperands()));
    return success();
  }
  if (vectorType.getRank() != 1)
    return failure();
  SmallVector<Value> lanes;
  for (int64_t i = 0; i < vectorType.getDimSize(0); ++i) {
    SmallVector<Value> args;
    for (Value operand : op->getOperands())
      args.push_back(vector::ExtractOp::create(rewriter, loc, operand, i));
    lanes.push_back(call(args));
  }
  rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vectorType, lanes);
  return success();
}

/// exp(x) = exp2(x * log2(e)), approximate: straight to the hardware
/// instruction (the rewrite walk visits each op once).
struct ApproxExpToExp2 : OpRewritePattern<math::ExpOp> {
  ApproxExpToExp2(MLIRContext *ctx, StringRef intrinsic)
      : OpRewritePattern(ctx), intrinsic(intrinsic) {}
  std::string intrinsic;
  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasFlag(op.getFastmathAttr(), arith::FastMathFlags::afn) ||
        !getElementTypeOrSelf(op.getType()).isF32())
      return failure();
    Location loc = op.getLoc();
    Type type = op.getType();
    FloatAttr scalar = rewriter.getF32FloatAttr(llvm::numbers::log2e);
    TypedAttr attr = scalar;
    if (auto shaped = dyn_cast<ShapedType>(type))
      attr = DenseElementsAttr::get(shaped, ArrayRef<Attribute>{scalar});
    Value log2e = arith::ConstantOp::create(rewriter, loc, attr);
    Value scaled = arith::MulFOp::create(rewriter, loc, op.getOperand(), log2e,
                                         op.getFastmathAttr());
    auto exp2 = rewriter.replaceOpWithNewOp<math::Exp2Op>(
        op, scaled, op.getFastmathAttr());
    (void)replaceByIntrinsic(rewriter, exp2, intrinsic);
    return success();
  }
};

/// An approximate (fastmath afn) f32 op straight to the hardware
/// instruction's intrinsic: exp2, log2.
template <typename MathOp> struct ApproxToHardware : OpRewritePattern<MathOp> {
  ApproxToHardware(MLIRContext *ctx, StringRef intrinsic)
      : OpRewritePattern<MathOp>(ctx), intrinsic(intrinsic) {}
  std::string intrinsic;
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasFlag(op.getFastmathAttr(), arith::FastMathFlags::afn))
      return failure();
    return replaceByIntrinsic(rewriter, op, intrinsic);
  }
};

struct FullRangeDivToPTX : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    auto flags = op.getFastmathAttr();
    if (!hasFlag(flags, arith::FastMathFlags::arcp) ||
        hasFlag(flags, arith::FastMathFlags::afn))
      return failure();
    return replaceByIntrinsic(rewriter, op, "llvm.nvvm.div.full");
  }
};

struct RsqrtToPTX : OpRewritePattern<math::RsqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::RsqrtOp op,
                                PatternRewriter &rewriter) const override {
    return replaceByIntrinsic(rewriter, op, "llvm.nvvm.rsqrt.approx.f");
  }
};

} // namespace

void mlir::rocdsl::populateHardwareMathPatterns(RewritePatternSet &patterns,
                                                StringRef exp2Intrinsic,
                                                StringRef log2Intrinsic) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ApproxExpToExp2, ApproxToHardware<math::Exp2Op>>(ctx,
                                                                exp2Intrinsic);
  patterns.add<ApproxToHardware<math::Log2Op>>(ctx, log2Intrinsic);
}

void mlir::rocdsl::populatePtxApproxMathPatterns(RewritePatternSet &patterns) {
  patterns.add<FullRangeDivToPTX, RsqrtToPTX>(patterns.getContext());
}
