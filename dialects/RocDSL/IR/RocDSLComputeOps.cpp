//===- RocDSLComputeOps.cpp - reductions and matrix products --------------===//
#include "RocDSLVerifyUtils.h"

using namespace mlir;
using namespace mlir::rocdsl;
using mlir::rocdsl::detail::verifyTileType;

LogicalResult ReduceOp::verify() {
  auto srcType = getSrc().getType();
  if (failed(verifyTileType(*this, srcType, "operand")))
    return failure();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= srcType.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << srcType.getRank();
  Type elementType = srcType.getElementType();
  if (getKind() != ReduceKind::Add && getKind() != ReduceKind::Mul &&
      getKind() != ReduceKind::Max && getKind() != ReduceKind::Min)
    return emitOpError() << "unknown reduction kind";
  if (srcType.getRank() == 1) {
    if (getType() != elementType)
      return emitOpError() << "reducing a 1-D tile gives a " << elementType
                           << " scalar, got " << getType();
    return success();
  }
  auto resType = dyn_cast<RankedTensorType>(getType());
  SmallVector<int64_t> expected(srcType.getShape());
  expected.erase(expected.begin() + axis);
  if (!resType || resType.getShape() != ArrayRef<int64_t>(expected) ||
      resType.getElementType() != elementType)
    return emitOpError() << "result must be "
                         << RankedTensorType::get(expected, elementType)
                         << " with a slice layout, got " << getType();
  auto expectedLayout =
      SliceAttr::get(getContext(), axis, srcType.getEncoding());
  if (resType.getEncoding() != expectedLayout)
    return emitOpError() << "result layout must be " << expectedLayout
                         << ", got " << resType.getEncoding();
  return success();
}

static bool isDotInputType(Type type) {
  return type.isF16() || type.isBF16() ||
         isa<Float8E4M3FNUZType, Float8E5M2FNUZType, Float8E4M3FNType,
             Float8E5M2Type>(type);
}

static std::string shapeString(RankedTensorType type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(type.getShape(), os, "x");
  return s;
}

LogicalResult DotOp::verify() {
  auto aType = getA().getType(), bType = getB().getType(),
       cType = getC().getType();
  if (failed(verifyTileType(*this, aType, "operand a")) ||
      failed(verifyTileType(*this, bType, "operand b")) ||
      failed(verifyTileType(*this, cType, "accumulator")))
    return failure();
  if (aType.getRank() != 2 || bType.getRank() != 2 || cType.getRank() != 2)
    return emitOpError() << "a, b and the accumulator must be 2-D tiles";
  if (getType() != cType)
    return emitOpError() << "result type " << getType()
                         << " must equal the accumulator type " << cType;

  Attribute accLayout = cType.getEncoding();
  ArrayRef<unsigned> instr;
  if (auto mfma = dyn_cast_or_null<MfmaAttr>(accLayout))
    instr = mfma.getInstrShape();
  else if (auto mma = dyn_cast_or_null<NvidiaMmaAttr>(accLayout))
    instr = mma.getInstrShape();
  else
    return emitOpError() << "accumulator must have a #rocdsl.mfma (AMD) or "
                            "#rocdsl.mma (NVIDIA) layout, got "
                         << accLayout;
  auto checkOperand = [&](RankedTensorType type, unsigned opIdx,
                          StringRef name) -> LogicalResult {
    auto operand = dyn_cast<DotOperandAttr>(type.getEncoding());
    if (!operand || operand.getOpIdx() != opIdx)
      return emitOpError() << "operand " << name
                           << " must have a #rocdsl.dot_operand<opIdx = "
                           << opIdx << ", ...> layout, got "
                           << type.getEncoding();
    if (operand.getParent() != accLayout)
      return emitOpError() << "operand " << name << " layout parent "
                           << operand.getParent()
                           << " differs from the accumulator layout "
                           << accLayout;
    return success();
  };
  if (failed(checkOperand(aType, 0, "a")) ||
      failed(checkOperand(bType, 1, "b")))
    return failure();
  if (cast<DotOperandAttr>(aType.getEncoding()).getKWidth() !=
      cast<DotOperandAttr>(bType.getEncoding()).getKWidth())
    return emitOpError() << "operands a and b must use the same kWidth";

  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1);
  if (bType.getDimSize(0) != k || cType.getDimSize(0) != m ||
      cType.getDimSize(1) != bType.getDimSize(1))
    return emitOpError() << "shape mismatch: a is " << shapeString(aType)
                         << ", b is " << shapeString(bType)
                         << ", accumulator is " << shapeString(cType)
                         << " (expected MxK, KxN, MxN)";
  if (aType.getElementType() != bType.getElementType() ||
      !isDotInputType(aType.getElementType()))
    return emitOpError() << "a and b must share an f16, bf16 or f8 element "
                            "type, got "
                         << aType.getElementType() << " and "
                         << bType.getElementType();
  if (!cType.getElementType().isF32())
    return emitOpError() << "accumulator must be f32, got "
                         << cType.getElementType();
  if (m % instr[0] != 0 || bType.getDimSize(1) % instr[1] != 0 ||
      k % instr[2] != 0)
    return emitOpError() << "tile " << m << "x" << bType.getDimSize(1) << "x"
                         << k << " is not a multiple of the matrix instruction "
                         << instr[0] << "x" << instr[1] << "x" << instr[2];
  return success();
}

/// Whether `type` is laid out in the matrix unit's 128-byte swizzle: rows
/// of 128 bytes (the last dimension, fastest), 16-byte groups XORed with
/// the row index modulo 8, dimensions slower in order.
static bool hasWarpgroupSwizzle(LdsTileType type) {
  auto shared = dyn_cast<SharedAttr>(type.getEncoding());
  unsigned rank = type.getRank();
  if (!shared || shared.getOrder().size() != rank)
    return false;
  for (unsigned i = 0; i < rank; ++i)
    if (shared.getOrder()[i] != rank - 1 - i)
      return false;
  unsigned bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  return shared.getVec() * bytes == 16 && shared.getPerPhase() == 1 &&
         shared.getMaxPhase() == 8 && type.getShape().back() * bytes == 128;
}

/// The accumulator of warpgroup products: a 2-D f32 tile whose
/// #rocdsl.mma warps stack along M in groups of four.
static NvidiaMmaAttr verifyWarpgroupAccumulator(Operation *op,
                                                RankedTensorType type) {
  if (failed(verifyTileType(op, type, "accumulator")))
    return nullptr;
  if (!type.getElementType().isF32() || type.getRank() != 2) {
    op->emitOpError() << "accumulator must be a 2-D f32 tile, got " << type;
    return nullptr;
  }
  auto mma = dyn_cast_or_null<NvidiaMmaAttr>(type.getEncoding());
  if (!mma || mma.getWarpsPerCTA().size() != 2 ||
      mma.getWarpsPerCTA()[1] != 1 || mma.getWarpsPerCTA()[0] % 4 != 0) {
    op->emitOpError() << "accumulator must have a #rocdsl.mma layout with "
                         "warpsPerCTA = [W, 1], W a multiple of 4 (warp "
                         "groups stacked along M), got "
                      << type.getEncoding();
    return nullptr;
  }
  return mma;
}

LogicalResult WarpgroupDotOp::verify() {
  LdsTileType aType = getA().getType(), bType = getB().getType();
  auto cType = getC().getType();
  Type element = aType.getElementType();
  if (element != bType.getElementType() || !(element.isBF16() || element.isF16()))
    return emitOpError() << "a and b must share an f16 or bf16 element type, "
                            "got "
                         << element << " and " << bType.getElementType();
  NvidiaMmaAttr mma = verifyWarpgroupAccumulator(*this, cType);
  if (!mma)
    return failure();
  // A result in flight is not in registers yet: only the matrix unit
  // (another product's accumulator), a wait, or a loop carrying it to one
  // of those may take it.
  if (getPending() > 0)
    for (OpOperand &use : getResult().getUses()) {
      Operation *user = use.getOwner();
      bool chained = isa<WarpgroupDotOp>(user) &&
                     use.getOperandNumber() == getCMutable().getOperandNumber();
      if (!chained && !isa<WarpgroupWaitOp>(user) &&
          !user->hasTrait<OpTrait::IsTerminator>())
        return emitOpError()
               << "result with pending = " << getPending()
               << " is still being computed: it may only be another "
                  "warpgroup_dot's accumulator, a warpgroup_wait's operand "
                  "or a loop's carried value, not an operand of "
               << user->getName();
    }
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  unsigned warps = mma.getWarpsPerCTA()[0];
  if (aType.getRank() != 2 || aType.getDimSize(0) != m ||
      aType.getDimSize(1) != 64)
    return emitOpError() << "a must be an LDS tile of " << m
                         << "x64 (M x K, K fastest), got "
                         << LdsTileType(aType);
  bool panels = bType.getRank() == 3;
  bool bFits = panels ? bType.getDimSize(0) * 64 == n &&
                            bType.getDimSize(1) == 64 &&
                            bType.getDimSize(2) == 64
                      : bType.getRank() == 2 && bType.getDimSize(0) == n &&
                            bType.getDimSize(1) == 64;
  if (!bFits) {
    InFlightDiagnostic diag = emitOpError()
                              << "b must be an LDS tile of " << n
                              << "x64 (N x K, K fastest)";
    if (n % 64 == 0)
      diag << " or " << n / 64
           << "x64x64 (panels of 64 columns, K x N with N fastest)";
    return diag << ", got " << LdsTileType(bType);
  }
  if (m % (16 * warps) != 0 || n % 8 != 0 || n > 256)
    return emitOpError() << "accumulator " << m << "x" << n
                         << ": M must be a multiple of " << 16 * warps
                         << " (16 rows a warp) and N a multiple of 8 up to "
                            "256";
  for (auto [name, type] : {std::pair<StringRef, LdsTileType>{"a", aType},
                            {"b", bType}})
    if (!hasWarpgroupSwizzle(type))
      return emitOpError()
             << "operand " << name
             << " must be laid out in the matrix unit's 128-byte swizzle "
                "(#rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8> with "
                "the last dimension fastest and 128 bytes long), got "
             << type.getEncoding();
  return success();
}

LogicalResult WarpgroupWaitOp::verify() {
  return success(verifyWarpgroupAccumulator(*this, getSrc().getType()) !=
                 nullptr);
}
