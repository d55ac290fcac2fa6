//===- DotLowering.cpp - rocdsl.dot on AMD matrix cores (amdgpu.mfma) -----===//
//
// The operands already sit in the registers the instruction reads
// (#rocdsl.dot_operand is defined from the instruction's lane layout, see
// RocDSLTileMapping.cpp), so a dot is only the loop over instruction
// tiles: for each (M, N) instruction tile a lane owns, one amdgpu.mfma per
// kPerLane-wide step of K, accumulating in place.
//
//===----------------------------------------------------------------------===//
#include "PatternsInternal.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

std::optional<MatrixOperand> mlir::rocdsl::matrixOperandOf(Type type) {
  if (type.isF16())
    return MatrixOperand::F16;
  if (type.isBF16())
    return MatrixOperand::BF16;
  if (isa<Float8E4M3FNUZType>(type))
    return MatrixOperand::F8E4M3FNUZ;
  if (isa<Float8E5M2FNUZType>(type))
    return MatrixOperand::F8E5M2FNUZ;
  if (isa<Float8E4M3FNType>(type))
    return MatrixOperand::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return MatrixOperand::F8E5M2;
  return std::nullopt;
}

LogicalResult mlir::rocdsl::checkMatrixOps(ModuleOp module,
                                           const ChipInfo &chip) {
  WalkResult result = module.walk([&](DotOp op) {
    Attribute layout = op.getC().getType().getEncoding();
    Type element = op.getA().getType().getElementType();
    auto mma = dyn_cast<NvidiaMmaAttr>(layout);
    if (chip.isNVIDIA() != bool(mma)) {
      op.emitError() << "rocdsl.dot with a "
                     << (mma ? "#rocdsl.mma layout runs on NVIDIA tensor "
                               "cores"
                             : "#rocdsl.mfma layout runs on AMD matrix cores")
                     << "; " << chip.name << " has "
                     << (mma ? "MFMA" : "no MFMA")
                     << " (its matrix instructions: " << listMatrixInstrs(chip)
                     << ")";
      return WalkResult::interrupt();
    }
    ArrayRef<unsigned> shape = mma ? mma.getInstrShape()
                                   : cast<MfmaAttr>(layout).getInstrShape();
    auto mfma = dyn_cast<MfmaAttr>(layout);
    if (mfma && mfma.getVersion() > chip.matrixCoreVersion) {
      op.emitError() << "#rocdsl.mfma<version = " << mfma.getVersion()
                     << "> needs a newer matrix core than " << chip.name
                     << "'s (version " << chip.matrixCoreVersion << ")";
      return WalkResult::interrupt();
    }
    std::optional<MatrixOperand> operand = matrixOperandOf(element);
    if (!operand) {
      op.emitError() << "rocdsl.dot of " << element << " operands has no "
                     << "matrix instruction on " << chip.name;
      return WalkResult::interrupt();
    }
    if (!findMatrixInstr(chip, shape[0], shape[1], shape[2], *operand)) {
      op.emitError() << chip.name << " has no " << shape[0] << "x" << shape[1]
                     << "x" << shape[2] << " matrix instruction for "
                     << element << " operands; its "
                     << toString(*operand) << " instructions: "
                     << listMatrixInstrs(chip, *operand);
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  result = module.walk([&](WarpgroupWaitOp op) {
    if (chip.warpgroupMma)
      return WalkResult::advance();
    op.emitError() << "rocdsl.warpgroup_wait needs warpgroup MMA (wgmma, "
                      "sm_90a); "
                   << chip.name << " has none";
    return WalkResult::interrupt();
  });
  if (result.wasInterrupted())
    return failure();
  result = module.walk([&](WarpgroupDotOp op) {
    if (!chip.warpgroupMma) {
      op.emitError() << "rocdsl.warpgroup_dot needs warpgroup MMA (wgmma, "
                        "sm_90a); "
                     << chip.name << " has none (its matrix instructions: "
                     << listMatrixInstrs(chip) << ")";
      return WalkResult::interrupt();
    }
    // The allocator aligns the tiles it sees this op read (the hardware
    // swizzles address bits); a tile passed through anything else could
    // land on any 16 bytes.
    for (auto [name, tile] : {std::pair<StringRef, Value>{"a", op.getA()},
                              {"b", op.getB()}}) {
      Operation *def = tile.getDefiningOp();
      while (auto index = dyn_cast_or_null<LocalIndexOp>(def))
        def = index.getSrc().getDefiningOp();
      if (!isa_and_nonnull<LocalAllocOp>(def)) {
        op.emitError() << "rocdsl.warpgroup_dot operand " << name
                       << " must come straight from rocdsl.local_alloc "
                          "(through rocdsl.local_index), which the LDS "
                          "allocator then aligns to 1024 bytes for the "
                          "matrix unit's swizzle";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {

struct DotLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = op.getA().getType(), bType = op.getB().getType(),
         cType = op.getC().getType();
    auto a = TileDistribution::get(aType), b = TileDistribution::get(bType),
         c = TileDistribution::get(cType);
    if (!a || !b || !c)
      return rewriter.notifyMatchFailure(op, "no register mapping");
    auto mfma = dyn_cast<MfmaAttr>(cType.getEncoding());
    if (!mfma)
      return failure();
    auto operandA = cast<DotOperandAttr>(aType.getEncoding());
    ArrayRef<unsigned> instr = mfma.getInstrShape();
    unsigned kPerLane = operandA.getInstrKPerLane();
    unsigned regsPerInstr = instr[0] * instr[1] / 64;
    // Entries per lane: A is [M reps][K entries] with K fastest, B [N
    // reps][K entries] with K fastest, C [N reps][M reps * regsPerInstr]
    // with M fastest (see the layouts' register orders).
    unsigned kEntries = a->getElemsPerThread()[1];
    unsigned kEntriesB = b->getElemsPerThread()[0];
    unsigned mReps = a->getElemsPerThread()[0];
    unsigned nReps = b->getElemsPerThread()[1];
    unsigned mEntries = c->getElemsPerThread()[0];
    auto accType = VectorType::get({regsPerInstr}, rewriter.getF32Type());

    Value av = adaptor.getA(), bv = adaptor.getB();
    auto slice = [&](Value v, unsigned first, unsigned count) -> Value {
      SmallVector<int64_t> lanes;
      for (unsigned i = 0; i < count; ++i)
        lanes.push_back(first + i);
      return vector::ShuffleOp::create(rewriter, loc, v, v, lanes);
    };
    SmallVector<Value> result(c->getNumElements());
    for (unsigned n = 0; n < nReps; ++n) {
      for (unsigned m = 0; m < mReps; ++m) {
        unsigned accFirst = n * mEntries + m * regsPerInstr;
        Value acc = slice(adaptor.getC(), accFirst, regsPerInstr);
        // kWidth groups, each split into instruction-wide steps.
        for (unsigned k = 0; k < kEntries; k += kPerLane) {
          Value ak = slice(av, m * kEntries + k, kPerLane);
          Value bk = slice(bv, n * kEntriesB + k, kPerLane);
          acc = amdgpu::MFMAOp::create(rewriter, loc, accType, instr[0],
                                       instr[1], instr[2], /*blocks=*/1, ak,
                                       bk, acc);
        }
        for (unsigned r = 0; r < regsPerInstr; ++r)
          result[accFirst + r] =
              vector::ExtractOp::create(rewriter, loc, acc, int64_t(r));
      }
    }
    Type resultType = getTypeConverter()->convertType(cType);
    rewriter.replaceOp(op, vector::FromElementsOp::create(
                               rewriter, loc, resultType, result));
    return success();
  }
};

} // namespace

void mlir::rocdsl::populateMfmaDotPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<DotLowering>(converter, patterns.getContext());
}
