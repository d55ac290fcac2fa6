//===- RocDSLOps.cpp - kernels, program ids, shape operations -------------===//
#include "RocDSLVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;

#define GET_OP_CLASSES
#include "RocDSL/IR/RocDSLOps.cpp.inc"

LogicalResult mlir::rocdsl::detail::verifyTileType(Operation *op, Type type,
                                                   StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitOpError()
           << what << " must be a tile (ranked tensor), got " << type;
  // "tile tensor<...>", "result tile tensor<...>".
  std::string named =
      what.ends_with("tile") ? what.str() : what.str() + " tile";
  if (!tensor.hasStaticShape() ||
      llvm::any_of(tensor.getShape(), [](int64_t d) { return d < 1; }))
    return op->emitOpError() << named << " " << type
                             << " must have a static shape with every "
                                "dimension at least 1";
  if (!tensor.getEncoding())
    return op->emitOpError() << named << " " << type
                             << " has no layout encoding";
  auto layout = getTileLayout(tensor);
  if (!layout)
    return op->emitOpError() << what << " tile encoding "
                             << tensor.getEncoding() << " is not a tile layout";
  if (layout.getLayoutRank() != tensor.getRank())
    return op->emitOpError()
           << what << " layout has rank " << layout.getLayoutRank()
           << " but the tile has rank " << tensor.getRank();
  // Each lane holds its share of the tile as values; past a few thousand
  // the kernel cannot run (a lane has at most 512 32-bit registers) and
  // lowering it costs time quadratic in the share.
  // (TileMapping::getNumRegisters counts in 32 bits; this product may not.)
  uint64_t perLane = 1;
  if (std::optional<TileMapping> mapping = TileMapping::get(tensor))
    for (const DimMapping &dim : mapping->dims)
      perLane = std::min<uint64_t>(perLane * dim.elems, uint64_t(1) << 40);
  // DimMapping::elems saturates at 2^32 - 1 rather than wrap.
  std::string count = perLane >= UINT32_MAX ? std::string("2^32 or more")
                                            : std::to_string(perLane);
  if (perLane > kMaxTileElementsPerLane)
    return op->emitOpError()
           << named << " " << type << " puts " << count
           << " elements in each lane; at most " << kMaxTileElementsPerLane
           << " (smaller tiles, more waves or a layout with fewer elements "
              "per lane)";
  if (auto func = op->getParentOfType<FuncOp>())
    if (layout.getLayoutNumWarps() != func.getNumWarps())
      return op->emitOpError()
             << what << " layout spreads over " << layout.getLayoutNumWarps()
             << " waves but the kernel has num_warps = " << func.getNumWarps();
  return success();
}

using mlir::rocdsl::detail::verifyTileType;

//===----------------------------------------------------------------------===//
// FuncOp
//===----------------------------------------------------------------------===//

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   FunctionType type, unsigned numWarps) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.addAttribute(getNumWarpsAttrName(state.name),
                     builder.getI32IntegerAttr(numWarps));
  state.addRegion();
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult FuncOp::verify() {
  // The name becomes the kernel's symbol in AMDGPU assembly and in PTX;
  // what both take in common is a C identifier.
  StringRef name = getSymName();
  if (name.empty() || llvm::isDigit(name.front()) ||
      !llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return emitOpError() << "kernel name '" << name
                         << "' is not a symbol every target takes: ASCII "
                            "letters, digits and '_', not starting with a "
                            "digit";
  unsigned numWarps = getNumWarps();
  // 32 warps of 32 lanes fill an NVIDIA block; the conversion checks the
  // chip's workgroup limit (16 waves of 64 on AMD).
  if (numWarps == 0 || numWarps > 32 || !llvm::isPowerOf2_32(numWarps))
    return emitOpError() << "num_warps must be a power of two in [1, 32], got "
                         << int32_t(numWarps); // an i32 attribute, as written
  if (auto waves = getWavesPerEu())
    if (*waves < 1 || *waves > 8)
      return emitOpError() << "waves_per_eu must be in [1, 8], got " << *waves;
  if (!getFunctionType().getResults().empty())
    return emitOpError() << "kernels return nothing; write results through "
                            "!rocdsl.ptr arguments";
  for (auto [i, type] : llvm::enumerate(getFunctionType().getInputs()))
    if (!isa<PtrType, IntegerType, FloatType>(type))
      return emitOpError() << "argument #" << i
                           << " must be a !rocdsl.ptr or a scalar, got "
                           << type;
  if (getBody().empty())
    return emitOpError() << "kernel must have a body";
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramIdOp / NumProgramsOp: `rocdsl.program_id x : i32`
//===----------------------------------------------------------------------===//

static ParseResult parseAxis(OpAsmParser &parser, OperationState &result,
                             StringRef attrName) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  int axis = llvm::StringSwitch<int>(keyword)
                 .Case("x", 0)
                 .Case("y", 1)
                 .Case("z", 2)
                 .Default(-1);
  if (axis < 0)
    return parser.emitError(loc, "expected axis x, y or z, got '")
           << keyword << "'";
  Type type;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  result.addAttribute(attrName, parser.getBuilder().getI32IntegerAttr(axis));
  result.addTypes(type);
  return success();
}

static void printAxis(OpAsmPrinter &p, Operation *op, uint32_t axis,
                      StringRef attrName) {
  p << ' ' << "xyz"[axis];
  p.printOptionalAttrDict(op->getAttrs(), {attrName});
  p << " : " << op->getResult(0).getType();
}

ParseResult ProgramIdOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseAxis(parser, result, getAxisAttrName(result.name));
}
void ProgramIdOp::print(OpAsmPrinter &p) {
  printAxis(p, *this, getAxis(), getAxisAttrName());
}
ParseResult NumProgramsOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseAxis(parser, result, getAxisAttrName(result.name));
}
void NumProgramsOp::print(OpAsmPrinter &p) {
  printAxis(p, *this, getAxis(), getAxisAttrName());
}

//===----------------------------------------------------------------------===//
// SplatOp / IotaOp
//===----------------------------------------------------------------------===//

LogicalResult SplatOp::verify() {
  if (failed(verifyTileType(*this, getType(), "result")))
    return failure();
  if (getValue().getType() != getType().getElementType())
    return emitOpError() << "scalar type " << getValue().getType()
                         << " does not match tile element type "
                         << getType().getElementType();
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  if (auto value = adaptor.getValue())
    if (isa<IntegerAttr, FloatAttr>(value))
      return SplatElementsAttr::get(getType(), value);
  return {};
}

LogicalResult IotaOp::verify() {
  if (failed(verifyTileType(*this, getType(), "result")))
    return failure();
  if (getType().getRank() != 1 || !getType().getElementType().isInteger(32))
    return emitOpError() << "result must be a 1-D tile of i32, got "
                         << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// ExpandDimsOp / BroadcastOp / ConvertLayoutOp
//===----------------------------------------------------------------------===//

/// A splat constant re-typed, so shape-only ops fold through constants.
static OpFoldResult foldSplatConstant(Attribute operand, ShapedType type) {
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(operand))
    return SplatElementsAttr::get(type, splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult ExpandDimsOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = getType();
  if (failed(verifyTileType(*this, srcType, "operand")) ||
      failed(verifyTileType(*this, resType, "result")))
    return failure();
  int64_t axis = getAxis();
  if (axis < 0 || axis > srcType.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << srcType.getRank();
  SmallVector<int64_t> expected(srcType.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (resType.getShape() != ArrayRef<int64_t>(expected) ||
      resType.getElementType() != srcType.getElementType())
    return emitOpError() << "result must be "
                         << RankedTensorType::get(expected,
                                                  srcType.getElementType())
                         << " (the operand with a unit dimension at " << axis
                         << ")";
  auto slice = dyn_cast<SliceAttr>(srcType.getEncoding());
  if (!slice || slice.getDim() != axis)
    return emitOpError() << "operand layout must be #rocdsl.slice<dim = "
                         << axis << ", ...>, got " << srcType.getEncoding();
  if (slice.getParent() != resType.getEncoding())
    return emitOpError() << "result layout " << resType.getEncoding()
                         << " must be the operand's slice parent "
                         << slice.getParent();
  return success();
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  return foldSplatConstant(adaptor.getSrc(), getType());
}

LogicalResult BroadcastOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = getType();
  if (failed(verifyTileType(*this, srcType, "operand")) ||
      failed(verifyTileType(*this, resType, "result")))
    return failure();
  if (srcType.getRank() != resType.getRank())
    return emitOpError() << "operand rank " << srcType.getRank()
                         << " differs from result rank " << resType.getRank()
                         << "; use rocdsl.expand_dims first";
  if (srcType.getElementType() != resType.getElementType())
    return emitOpError() << "element types differ";
  if (srcType.getEncoding() != resType.getEncoding())
    return emitOpError() << "operand and result layouts differ; use "
                            "rocdsl.convert_layout";
  for (auto [i, s, d] : llvm::enumerate(srcType.getShape(), resType.getShape()))
    if (s != d && s != 1)
      return emitOpError() << "dimension " << i << " of size " << s
                           << " cannot broadcast to " << d;
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<BroadcastOp>()) {
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return foldSplatConstant(adaptor.getSrc(), getType());
}

LogicalResult ConvertLayoutOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = getType();
  if (failed(verifyTileType(*this, srcType, "operand")) ||
      failed(verifyTileType(*this, resType, "result")))
    return failure();
  if (srcType.getShape() != resType.getShape() ||
      srcType.getElementType() != resType.getElementType())
    return emitOpError() << "only the layout may change: " << srcType << " vs "
                         << resType;
  if (getTileLayout(srcType).getLayoutWarpSize() !=
      getTileLayout(resType).getLayoutWarpSize())
    return emitOpError() << "layouts assume different wave sizes ("
                         << getTileLayout(srcType).getLayoutWarpSize() << " vs "
                         << getTileLayout(resType).getLayoutWarpSize() << ")";
  return success();
}

LogicalResult TransOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = getType();
  if (failed(verifyTileType(*this, srcType, "operand")) ||
      failed(verifyTileType(*this, resType, "result")))
    return failure();
  if (srcType.getRank() != 2)
    return emitOpError() << "transposes 2-D tiles, got rank "
                         << srcType.getRank();
  if (resType.getRank() != 2 ||
      resType.getDimSize(0) != srcType.getDimSize(1) ||
      resType.getDimSize(1) != srcType.getDimSize(0) ||
      resType.getElementType() != srcType.getElementType())
    return emitOpError() << "result must be the operand with its dimensions "
                            "swapped: "
                         << srcType << " -> " << resType;
  if (getTileLayout(srcType).getLayoutWarpSize() !=
      getTileLayout(resType).getLayoutWarpSize())
    return emitOpError() << "layouts assume different wave sizes";
  return success();
}

OpFoldResult TransOp::fold(FoldAdaptor) {
  // trans(trans(x)) is x when it comes back in x's type.
  if (auto inner = getSrc().getDefiningOp<TransOp>())
    if (inner.getSrc().getType() == getType())
      return inner.getSrc();
  return {};
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return foldSplatConstant(adaptor.getSrc(), getType());
}

namespace {
/// convert_layout(convert_layout(x)) -> convert_layout(x): only the final
/// layout matters, and the intermediate redistribution costs LDS traffic.
struct FoldConvertChain : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, op.getType(),
                                                 inner.getSrc());
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<FoldConvertChain>(context);
}

//===----------------------------------------------------------------------===//
// Escape hatches
//===----------------------------------------------------------------------===//

LogicalResult WaitOp::verify() {
  if (!getVmcnt() && !getLgkmcnt())
    return emitOpError() << "must wait on at least one counter (vmcnt or "
                            "lgkmcnt)";
  return success();
}
