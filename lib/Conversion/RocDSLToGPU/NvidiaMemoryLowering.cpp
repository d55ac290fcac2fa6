//===- NvidiaMemoryLowering.cpp - rocdsl.load/store for NVIDIA GPUs -------===//
//
// NVIDIA GPUs have no buffer resources with range checks, so each group of
// `vec` entries is one (up to 128-bit, e.g. ld.global.v4.b32) access guarded
// by its validity: invalid groups never touch memory, loads give `other`.
// The guard is a PTX predicate on the access itself (`@p ld.global`), as
// Triton emits it, not a branch: LLVM's NVPTX backend has no predicated
// load or store, and lowers an `scf.if` per group to a branch around each
// access, which leaves masked rows (N not a multiple of the vector width)
// with one branch per element. Groups of 8-bit elements keep the branch
// (PTX has no 8-bit register operand for inline assembly).
//
//===----------------------------------------------------------------------===//
#include "AccessPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

/// How a group travels through inline PTX: `words` registers of `bits`
/// (16 or 32) each, with the PTX type and constraint letter of one.
struct PtxWords {
  unsigned words;
  unsigned bits;
  StringRef type;       // b16, b32
  char constraint;      // h, r
};

/// The PTX registers of a transfer type (i16, i32, vector<N x i32>), or
/// nothing for 8-bit transfers.
std::optional<PtxWords> ptxWordsOf(Type transfer) {
  if (auto v = dyn_cast<VectorType>(transfer))
    return PtxWords{static_cast<unsigned>(v.getNumElements()), 32, "b32", 'r'};
  switch (transfer.getIntOrFloatBitWidth()) {
  case 16:
    return PtxWords{1, 16, "b16", 'h'};
  case 32:
    return PtxWords{1, 32, "b32", 'r'};
  default:
    return std::nullopt;
  }
}

/// The register operand list of an access: `$k` or `{$k, $k+1, ...}`.
std::string ptxRegisterList(unsigned first, unsigned words) {
  std::string list = words > 1 ? "{" : "";
  for (unsigned i = 0; i < words; ++i)
    list += (i ? ", $" : "$") + std::to_string(first + i);
  return words > 1 ? list + "}" : list;
}

/// `count` operand constraints of one register class, each preceded by
/// `prefix` ("=" for outputs): ",=r,=r" or ",h".
std::string ptxRegisterConstraints(StringRef prefix, char letter,
                                   unsigned count) {
  std::string constraints;
  for (unsigned i = 0; i < count; ++i)
    constraints += "," + prefix.str() + letter;
  return constraints;
}

std::string ptxVectorSuffix(unsigned words) {
  return words > 1 ? ".v" + std::to_string(words) : "";
}

/// `value` (the transfer type) as its PTX words.
SmallVector<Value> transferWords(OpBuilder &b, Location loc, Value value) {
  auto v = dyn_cast<VectorType>(value.getType());
  if (!v)
    return {value};
  SmallVector<Value> words;
  for (int64_t i = 0; i < v.getNumElements(); ++i)
    words.push_back(vector::ExtractOp::create(b, loc, value, i));
  return words;
}

/// `@valid ld.global` of one group into registers preset to `otherRaw`.
Value predicatedLoad(OpBuilder &b, Location loc, const PtxWords &regs,
                     Type transfer, Value pointer, Value valid,
                     Value otherRaw) {
  // Operands: $0..$(w-1) the results, $w the address, $(w+1) the
  // predicate, then the preset words.
  unsigned w = regs.words;
  std::string text;
  for (unsigned i = 0; i < w; ++i)
    text += "mov." + regs.type.str() + " $" + std::to_string(i) + ", $" +
            std::to_string(w + 2 + i) + ";\n\t";
  text += "@$" + std::to_string(w + 1) + " ld.global" + ptxVectorSuffix(w) +
          "." + regs.type.str() + " " + ptxRegisterList(0, w) + ", [$" +
          std::to_string(w) + "];";
  std::string constraints =
      ptxRegisterConstraints("=", regs.constraint, w).substr(1) + ",l,b" +
      ptxRegisterConstraints("", regs.constraint, w);
  Type word = b.getIntegerType(regs.bits);
  SmallVector<Value> operands = {pointer, valid};
  llvm::append_range(operands, transferWords(b, loc, otherRaw));
  Type result = w > 1 ? LLVM::LLVMStructType::getLiteral(
                            b.getContext(), SmallVector<Type>(w, word))
                      : word;
  Value raw = ptxAsm(b, loc, result, operands, text, constraints).getResult(0);
  if (w == 1)
    return raw;
  SmallVector<Value> words;
  for (unsigned i = 0; i < w; ++i)
    words.push_back(
        LLVM::ExtractValueOp::create(b, loc, raw, ArrayRef<int64_t>{i}));
  return vector::FromElementsOp::create(b, loc, cast<VectorType>(transfer),
                                        words);
}

/// `@valid st.global` of one group.
void predicatedStore(OpBuilder &b, Location loc, const PtxWords &regs,
                     Value data, Value pointer, Value valid) {
  unsigned w = regs.words;
  std::string text = "@$0 st.global" + ptxVectorSuffix(w) + "." +
                     regs.type.str() + " [$1], " + ptxRegisterList(2, w) + ";";
  std::string constraints =
      "b,l" + ptxRegisterConstraints("", regs.constraint, w);
  SmallVector<Value> operands = {valid, pointer};
  llvm::append_range(operands, transferWords(b, loc, data));
  ptxAsm(b, loc, TypeRange(), operands, text, constraints);
}

struct NvidiaLoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerTileLoad(
        op, adaptor, rewriter, *getTypeConverter(), AccessForm::Pointer,
        [](OpBuilder &rewriter, Location loc, const AccessPlan &plan,
           const AccessGroup &group, VectorType groupType, Type transfer,
           Value other) -> Value {
          std::optional<PtxWords> regs = ptxWordsOf(transfer);
          if (!group.valid || !regs)
            return loadGroupThroughPointer(rewriter, loc, plan, group,
                                           groupType, transfer, other);
          Value pointer = groupPointer(rewriter, loc, plan, group);
          Value padding = loadPadding(rewriter, loc, groupType, other);
          return bitcastToGroup(
              rewriter, loc, groupType,
              predicatedLoad(rewriter, loc, *regs, transfer, pointer,
                             group.valid,
                             bitcastFromGroup(rewriter, loc, transfer,
                                              padding)));
        });
  }
};

struct NvidiaStoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tileType = op.getValue().getType();
    auto plan = planAccess(rewriter, loc, tileType, adaptor.getPtr(),
                           adaptor.getOrigin(), adaptor.getStrides(),
                           adaptor.getBounds(), adaptor.getMask(), op.getVecWidth(),
                           op.getUniformMask(), AccessForm::Pointer);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "layout has no lowering");
    unsigned vec = plan->vec;
    unsigned bits = vec * tileType.getElementType().getIntOrFloatBitWidth();
    Type transfer = groupTransferType(getContext(), bits);
    for (const AccessGroup &group : plan->groups) {
      SmallVector<int64_t> lanes;
      for (unsigned j = 0; j < vec; ++j)
        lanes.push_back(group.firstEntry + j);
      Value part = vector::ShuffleOp::create(rewriter, loc, adaptor.getValue(),
                                             adaptor.getValue(), lanes);
      Value data = bitcastFromGroup(rewriter, loc, transfer, part);
      std::optional<PtxWords> regs = ptxWordsOf(transfer);
      if (group.valid && regs)
        predicatedStore(rewriter, loc, *regs, data,
                        groupPointer(rewriter, loc, *plan, group), group.valid);
      else
        storeGroupThroughPointer(rewriter, loc, *plan, group, data);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

LLVM::InlineAsmOp mlir::rocdsl::ptxAsm(OpBuilder &b, Location loc,
                                       TypeRange results, ValueRange operands,
                                       StringRef text, StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, results, operands, b.getStringAttr(text),
      b.getStringAttr(constraints), b.getUnitAttr(), UnitAttr(),
      LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr());
}

void mlir::rocdsl::populateNvidiaMemoryPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<NvidiaLoadLowering, NvidiaStoreLowering>(converter,
                                                        patterns.getContext());
}
