//===- KernelBuilder.cpp - the C++ DSL ------------------------------------===//
#include "rocdsl/DSL/DSL.h"
#include "rocdsl/Dialect/RocDSL/IR/KernelAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

Type dsl::toMLIRType(MLIRContext *ctx, DType dtype) {
  Builder b(ctx);
  switch (dtype) {
  case DType::F32:
    return b.getF32Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I1:
    return b.getI1Type();
  }
  llvm_unreachable("unknown dtype");
}

//===----------------------------------------------------------------------===//
// Scalar
//===----------------------------------------------------------------------===//

template <typename IntOp, typename FloatOp>
static Value binary(OpBuilder &b, Location loc, Value lhs, Value rhs,
                    arith::FastMathFlags flags = arith::FastMathFlags::none) {
  if (isa<FloatType>(getElementTypeOrSelf(lhs.getType())))
    return FloatOp::create(b, loc, lhs, rhs, flags);
  return IntOp::create(b, loc, lhs, rhs);
}

Scalar Scalar::operator+(Scalar rhs) const {
  return {kb, binary<arith::AddIOp, arith::AddFOp>(kb->builder, kb->loc, value,
                                                   rhs.value)};
}
Scalar Scalar::operator-(Scalar rhs) const {
  return {kb, binary<arith::SubIOp, arith::SubFOp>(kb->builder, kb->loc, value,
                                                   rhs.value)};
}
Scalar Scalar::operator*(Scalar rhs) const {
  return {kb, binary<arith::MulIOp, arith::MulFOp>(kb->builder, kb->loc, value,
                                                   rhs.value)};
}
Scalar Scalar::operator/(Scalar rhs) const {
  return {kb, binary<arith::DivSIOp, arith::DivFOp>(kb->builder, kb->loc, value,
                                                    rhs.value)};
}
Scalar Scalar::operator+(int64_t rhs) const { return *this + kb->i32(rhs); }
Scalar Scalar::operator-(int64_t rhs) const { return *this - kb->i32(rhs); }
Scalar Scalar::operator*(int64_t rhs) const { return *this * kb->i32(rhs); }

Scalar KernelBuilder::min(Scalar a, Scalar b) {
  return {this,
          arith::MinSIOp::create(builder, loc, a.getValue(), b.getValue())};
}
Scalar KernelBuilder::max(Scalar a, Scalar b) {
  return {this,
          arith::MaxSIOp::create(builder, loc, a.getValue(), b.getValue())};
}
/// `lhs <cmp> rhs` on tiles or scalars: ordered for floats, signed for
/// integers.
static Value createCompare(OpBuilder &b, Location loc, Cmp cmp, Value lhs,
                           Value rhs) {
  if (isa<FloatType>(getElementTypeOrSelf(lhs.getType()))) {
    static constexpr arith::CmpFPredicate preds[] = {
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE,
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::ONE};
    return arith::CmpFOp::create(b, loc, preds[unsigned(cmp)], lhs, rhs);
  }
  static constexpr arith::CmpIPredicate preds[] = {
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge,
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne};
  return arith::CmpIOp::create(b, loc, preds[unsigned(cmp)], lhs, rhs);
}

Scalar KernelBuilder::rem(Scalar a, Scalar b) {
  return {this,
          arith::RemSIOp::create(builder, loc, a.getValue(), b.getValue())};
}
Scalar KernelBuilder::compare(Cmp cmp, Scalar a, Scalar b) {
  return {this, createCompare(builder, loc, cmp, a.getValue(), b.getValue())};
}
Scalar KernelBuilder::select(Scalar cond, Scalar a, Scalar b) {
  return {this, arith::SelectOp::create(builder, loc, cond.getValue(),
                                        a.getValue(), b.getValue())};
}

//===----------------------------------------------------------------------===//
// Tile
//===----------------------------------------------------------------------===//

Tile Tile::operator+(Tile rhs) const {
  return {kb, binary<arith::AddIOp, arith::AddFOp>(kb->builder, kb->loc, value,
                                                   rhs.value, kb->floatFlags)};
}
Tile Tile::operator-(Tile rhs) const {
  return {kb, binary<arith::SubIOp, arith::SubFOp>(kb->builder, kb->loc, value,
                                                   rhs.value, kb->floatFlags)};
}
Tile Tile::operator*(Tile rhs) const {
  return {kb, binary<arith::MulIOp, arith::MulFOp>(kb->builder, kb->loc, value,
                                                   rhs.value, kb->floatFlags)};
}
Tile Tile::operator/(Tile rhs) const {
  return {kb, binary<arith::DivSIOp, arith::DivFOp>(kb->builder, kb->loc, value,
                                                    rhs.value)};
}
Tile Tile::operator*(Scalar rhs) const {
  return *this * kb->full(getShape(), getLayout(), rhs);
}
Tile Tile::operator+(Scalar rhs) const {
  return *this + kb->full(getShape(), getLayout(), rhs);
}

Tile Tile::operator-(Scalar rhs) const {
  return *this - kb->full(getShape(), getLayout(), rhs);
}
Tile Tile::operator-() const {
  if (isa<FloatType>(getType().getElementType()))
    return {kb, arith::NegFOp::create(kb->builder, kb->loc, value)};
  return kb->zeros(getShape(), getLayout(), DType::I32) - *this;
}
Tile Tile::operator&(Tile rhs) const {
  return {kb, arith::AndIOp::create(kb->builder, kb->loc, value, rhs.value)};
}

Tile Tile::compare(Cmp cmp, Tile rhs) const {
  return {kb, createCompare(kb->builder, kb->loc, cmp, value, rhs.value)};
}
Tile Tile::compare(Cmp cmp, Scalar rhs) const {
  return compare(cmp, kb->full(getShape(), getLayout(), rhs));
}

Tile Tile::maximum(Tile rhs) const {
  return {kb, binary<arith::MaxSIOp, arith::MaximumFOp>(kb->builder, kb->loc,
                                                        value, rhs.value)};
}

Tile Tile::to(DType dtype) const {
  Type target = toMLIRType(kb->getContext(), dtype);
  Type source = getType().getElementType();
  if (source == target)
    return *this;
  auto type = RankedTensorType::get(getShape(), target, getLayout());
  OpBuilder &b = kb->builder;
  if (!isa<FloatType>(source) || !isa<FloatType>(target))
    llvm::report_fatal_error("Tile::to converts between float types only");
  if (target.getIntOrFloatBitWidth() > source.getIntOrFloatBitWidth())
    return {kb, arith::ExtFOp::create(b, kb->loc, type, value)};
  return {kb, arith::TruncFOp::create(b, kb->loc, type, value)};
}

Tile Tile::rsqrt() const {
  return {kb, math::RsqrtOp::create(kb->builder, kb->loc, value)};
}
Tile Tile::exp() const {
  return {kb, math::ExpOp::create(kb->builder, kb->loc, value)};
}

Tile Tile::exp2() const {
  return {kb, math::Exp2Op::create(kb->builder, kb->loc, value,
                                   arith::FastMathFlags::afn)};
}
Tile Tile::log2() const {
  return {kb, math::Log2Op::create(kb->builder, kb->loc, value,
                                   arith::FastMathFlags::afn)};
}

static Tile reduce(KernelBuilder *kb, OpBuilder &b, Location loc, Tile tile,
                   ReduceKind kind, unsigned axis) {
  RankedTensorType type = tile.getType();
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  auto resultType = RankedTensorType::get(
      shape, type.getElementType(),
      SliceAttr::get(b.getContext(), axis, type.getEncoding()));
  return Tile(
      kb, ReduceOp::create(b, loc, resultType, kind, tile.getValue(), axis));
}

Tile Tile::sum(unsigned axis) const {
  return reduce(kb, kb->builder, kb->loc, *this, ReduceKind::Add, axis);
}
Tile Tile::max(unsigned axis) const {
  return reduce(kb, kb->builder, kb->loc, *this, ReduceKind::Max, axis);
}
Scalar Tile::sumAll() const {
  return {kb, ReduceOp::create(kb->builder, kb->loc, getType().getElementType(),
                               ReduceKind::Add, value, 0)};
}

Tile Tile::convertTo(Layout layout) const {
  if (layout == getLayout())
    return *this;
  auto type = RankedTensorType::get(getShape(), getType().getElementType(),
                                    layout);
  return {kb, ConvertLayoutOp::create(kb->builder, kb->loc, type, value)};
}

Tile Tile::transposed(Layout layout) const {
  auto type = RankedTensorType::get({getShape()[1], getShape()[0]},
                                    getType().getElementType(), layout);
  return {kb, TransOp::create(kb->builder, kb->loc, type, value)};
}

Tile Tile::expandDims(unsigned axis) const {
  auto slice = dyn_cast<SliceAttr>(getLayout());
  if (!slice)
    llvm::report_fatal_error("expandDims needs a tile with a slice layout");
  SmallVector<int64_t> shape(getShape());
  shape.insert(shape.begin() + axis, 1);
  auto type = RankedTensorType::get(shape, getType().getElementType(),
                                    slice.getParent());
  return {kb, ExpandDimsOp::create(kb->builder, kb->loc, type, value, axis)};
}

Tile Tile::broadcastTo(ArrayRef<int64_t> shape) const {
  auto type =
      RankedTensorType::get(shape, getType().getElementType(), getLayout());
  if (type == getType())
    return *this;
  return {kb, BroadcastOp::create(kb->builder, kb->loc, type, value)};
}

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

KernelBuilder::KernelBuilder(MLIRContext *ctx, StringRef name,
                             unsigned numWarps, ArrayRef<ArgSpec> args)
    : builder(ctx), loc(NameLoc::get(builder.getStringAttr(name))),
      numWarps(numWarps), argSpecs(args) {
  ctx->loadDialect<RocDSLDialect, arith::ArithDialect, math::MathDialect,
                   scf::SCFDialect>();
  module = ModuleOp::create(loc);
  SmallVector<Type> types;
  for (const ArgSpec &arg : args) {
    Type element = toMLIRType(ctx, arg.dtype);
    types.push_back(arg.isPointer ? PtrType::get(ctx, element) : element);
  }
  builder.setInsertionPointToEnd(module->getBody());
  func = FuncOp::create(builder, loc, name, builder.getFunctionType(types, {}),
                        numWarps);
  Block *entry = builder.createBlock(&func.getBody());
  for (Type type : types)
    entry->addArgument(type, loc);
  builder.setInsertionPointToStart(entry);
}

static unsigned findArg(ArrayRef<ArgSpec> specs, StringRef name,
                        bool wantPointer) {
  for (auto [i, spec] : llvm::enumerate(specs))
    if (spec.name == name) {
      if (spec.isPointer != wantPointer)
        llvm::report_fatal_error(llvm::Twine("kernel argument '") + name +
                                 "' is " +
                                 (spec.isPointer ? "a pointer" : "a scalar"));
      return i;
    }
  llvm::report_fatal_error(llvm::Twine("no kernel argument named '") + name +
                           "'");
}

Ptr KernelBuilder::ptrArg(StringRef name) {
  unsigned i = findArg(argSpecs, name, /*wantPointer=*/true);
  return {func.getBody().getArgument(i), argSpecs[i].dtype};
}

Scalar KernelBuilder::scalarArg(StringRef name) {
  unsigned i = findArg(argSpecs, name, /*wantPointer=*/false);
  return {this, func.getBody().getArgument(i)};
}

Scalar KernelBuilder::i32(int64_t value) {
  return {this, arith::ConstantIntOp::create(builder, loc, value, 32)};
}

Scalar KernelBuilder::f32(double value) {
  return {this, arith::ConstantFloatOp::create(
                    builder, loc, builder.getF32Type(), APFloat(float(value)))};
}

void KernelBuilder::setMinProgramsPerCU(unsigned programs) {
  if (programs)
    func->setAttr(kMinProgramsPerCUAttr, builder.getI32IntegerAttr(programs));
  else
    func->removeAttr(kMinProgramsPerCUAttr);
}

Scalar KernelBuilder::programId(unsigned axis) {
  return {this, ProgramIdOp::create(builder, loc, builder.getI32Type(), axis)};
}

Scalar KernelBuilder::numPrograms(unsigned axis) {
  return {this,
          NumProgramsOp::create(builder, loc, builder.getI32Type(), axis)};
}

Layout KernelBuilder::defaultLayout(ArrayRef<int64_t> shape, DType dtype,
                                   unsigned waveSize) {
  return BlockedAttr::getDefault(getContext(), shape, numWarps, waveSize,
                                 bitWidth(dtype));
}

Layout KernelBuilder::mfma(unsigned version, ArrayRef<unsigned> instrShape,
                           ArrayRef<unsigned> warpsPerCTA) {
  return MfmaAttr::get(getContext(), version, instrShape, warpsPerCTA);
}

Layout KernelBuilder::mma(ArrayRef<unsigned> warpsPerCTA) {
  return NvidiaMmaAttr::get(getContext(), 2, {16, 8, 16}, warpsPerCTA);
}

Layout KernelBuilder::dotOperand(unsigned opIdx, Layout parent,
                                 unsigned kWidth) {
  return DotOperandAttr::get(getContext(), opIdx, parent, kWidth);
}

Layout KernelBuilder::sharedLayout(ArrayRef<int64_t> shape, DType dtype,
                                   ArrayRef<unsigned> order, unsigned banks,
                                   unsigned vecBytes) {
  return getSwizzledSharedLayout(getContext(), shape, bitWidth(dtype), order,
                                 banks, vecBytes);
}

LdsTile KernelBuilder::localAlloc(ArrayRef<int64_t> shape, DType dtype,
                                  Layout shared) {
  auto type = LdsTileType::get(getContext(), shape,
                               toMLIRType(getContext(), dtype), shared);
  return {this, LocalAllocOp::create(builder, loc, type, Value())};
}

LdsTile KernelBuilder::localAllocBuffers(unsigned count,
                                         ArrayRef<int64_t> shape, DType dtype,
                                         Layout shared) {
  auto one = LdsTileType::get(getContext(), shape,
                              toMLIRType(getContext(), dtype), shared);
  return {this, LocalAllocOp::create(builder, loc,
                                     getLdsStackType(one, count), Value())};
}

LdsTile LdsTile::index(Scalar i) const {
  return {kb, LocalIndexOp::create(kb->builder, kb->loc,
                                   getLdsBufferType(getType()), value,
                                   i.getValue())};
}

LdsTile LdsTile::view(Scalar i, ArrayRef<int64_t> shape) const {
  auto shared = cast<SharedAttr>(getType().getEncoding());
  SmallVector<unsigned> order;
  for (unsigned d = shape.size(); d-- > 0;)
    order.push_back(d);
  auto layout = SharedAttr::get(kb->getContext(), shared.getVec(),
                                shared.getPerPhase(), shared.getMaxPhase(),
                                order);
  auto type = LdsTileType::get(kb->getContext(), shape,
                               getType().getElementType(), layout);
  return {kb, LocalIndexOp::create(kb->builder, kb->loc, type, value,
                                   i.getValue())};
}

void LdsTile::store(Tile tile) const {
  LocalStoreOp::create(kb->builder, kb->loc, tile.getValue(), value);
}

Tile LdsTile::load(Layout layout) const {
  auto type =
      RankedTensorType::get(getShape(), getType().getElementType(), layout);
  return {kb, LocalLoadOp::create(kb->builder, kb->loc, type, value)};
}

Tile LdsTile::loadTransposed(Layout layout) const {
  auto type = RankedTensorType::get({getShape()[1], getShape()[0]},
                                    getType().getElementType(), layout);
  auto load = LocalLoadOp::create(kb->builder, kb->loc, type, value);
  load.setTrans(true);
  return {kb, load};
}

Tile KernelBuilder::dot(Tile a, Tile b, Tile c) {
  return wrap(DotOp::create(builder, loc, c.getType(), a.getValue(),
                            b.getValue(), c.getValue()));
}

Tile KernelBuilder::warpgroupDot(LdsTile a, LdsTile b, Tile c,
                                 unsigned pending) {
  return wrap(WarpgroupDotOp::create(builder, loc, c.getType(), a.getValue(),
                                     b.getValue(), c.getValue(), pending));
}

Tile KernelBuilder::warpgroupWait(Tile inFlight, unsigned pending) {
  return wrap(WarpgroupWaitOp::create(builder, loc, inFlight.getType(),
                                      inFlight.getValue(), pending));
}

Layout KernelBuilder::blocked(ArrayRef<unsigned> sizePerThread,
                              ArrayRef<unsigned> threadsPerWarp,
                              ArrayRef<unsigned> warpsPerCTA,
                              ArrayRef<unsigned> order) {
  return BlockedAttr::get(getContext(), sizePerThread, threadsPerWarp,
                          warpsPerCTA, order);
}

Layout KernelBuilder::slice(Layout parent, unsigned dim) {
  return SliceAttr::get(getContext(), dim, parent);
}

Tile KernelBuilder::full(ArrayRef<int64_t> shape, Layout layout, Scalar value) {
  auto type = RankedTensorType::get(shape, value.getType(), layout);
  return wrap(SplatOp::create(builder, loc, type, value.getValue()));
}

Tile KernelBuilder::zeros(ArrayRef<int64_t> shape, Layout layout, DType dtype) {
  auto type =
      RankedTensorType::get(shape, toMLIRType(getContext(), dtype), layout);
  return wrap(
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type)));
}

Tile KernelBuilder::iota(int64_t size, Layout layout) {
  auto type = RankedTensorType::get({size}, builder.getI32Type(), layout);
  return wrap(IotaOp::create(builder, loc, type, 0));
}

Tile KernelBuilder::select(Tile cond, Tile a, Tile b) {
  return wrap(arith::SelectOp::create(builder, loc, cond.getValue(),
                                      a.getValue(), b.getValue()));
}

static SmallVector<Value> values(ArrayRef<Scalar> scalars) {
  return llvm::map_to_vector(scalars, [](Scalar s) { return s.getValue(); });
}

Tile KernelBuilder::load(Ptr ptr, ArrayRef<Scalar> origin,
                         ArrayRef<int64_t> shape, Layout layout,
                         const AccessOptions &options) {
  auto type = RankedTensorType::get(
      shape, toMLIRType(getContext(), ptr.getDType()), layout);
  Value mask = options.mask ? options.mask->getValue() : Value();
  return wrap(LoadOp::create(builder, loc, type, ptr.getValue(), values(origin),
                             values(options.strides), values(options.bounds),
                             mask, /*other=*/Value(),
                             builder.getI32IntegerAttr(options.vec),
                             /*uniform_mask=*/nullptr));
}

void KernelBuilder::asyncCopy(Ptr ptr, ArrayRef<Scalar> origin, Layout layout,
                              LdsTile dst, const AccessOptions &options) {
  auto type = RankedTensorType::get(
      dst.getShape(), toMLIRType(getContext(), ptr.getDType()), layout);
  Value mask = options.mask ? options.mask->getValue() : Value();
  AsyncCopyOp::create(builder, loc, ptr.getValue(), values(origin),
                      values(options.strides), values(options.bounds), mask,
                      dst.getValue(), TypeAttr::get(type),
                      builder.getI32IntegerAttr(options.vec),
                      /*uniform_mask=*/nullptr);
}

void KernelBuilder::asyncCommit() { AsyncCommitOp::create(builder, loc); }

void KernelBuilder::asyncWait(unsigned pending) {
  AsyncWaitOp::create(builder, loc, pending);
}

void KernelBuilder::store(Tile value, Ptr ptr, ArrayRef<Scalar> origin,
                          const AccessOptions &options) {
  Value mask = options.mask ? options.mask->getValue() : Value();
  StoreOp::create(builder, loc, value.getValue(), ptr.getValue(),
                  values(origin), values(options.strides),
                  values(options.bounds), mask,
                  builder.getI32IntegerAttr(options.vec),
                  /*uniform_mask=*/nullptr);
}

void KernelBuilder::atomicAdd(Tile value, Ptr ptr, ArrayRef<Scalar> origin,
                              const AccessOptions &options) {
  Value mask = options.mask ? options.mask->getValue() : Value();
  AtomicAddOp::create(builder, loc, value.getValue(), ptr.getValue(),
                      values(origin), values(options.strides),
                      values(options.bounds), mask);
}

Scalar KernelBuilder::programAtomic(ProgramAtomicKind kind, Ptr ptr,
                                    Scalar index, Scalar value, bool relaxed) {
  return {this, ProgramAtomicOp::create(builder, loc, kind, ptr.getValue(),
                                        index.getValue(), value.getValue(),
                                        relaxed)};
}

SmallVector<Tile> KernelBuilder::forLoop(
    Scalar lb, Scalar ub, Scalar step, ArrayRef<Tile> inits,
    function_ref<SmallVector<Tile>(Scalar, ArrayRef<Tile>)> body) {
  SmallVector<Value> initValues =
      llvm::map_to_vector(inits, [](Tile t) { return t.getValue(); });
  auto loop = scf::ForOp::create(builder, loc, lb.getValue(), ub.getValue(),
                                 step.getValue(), initValues);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(loop.getBody());
    SmallVector<Tile> carried;
    for (Value arg : loop.getRegionIterArgs())
      carried.push_back(wrap(arg));
    SmallVector<Tile> next =
        body(Scalar(this, loop.getInductionVar()), carried);
    SmallVector<Value> yielded =
        llvm::map_to_vector(next, [](Tile t) { return t.getValue(); });
    // The body may have created its own terminator-free block: replace the
    // implicit yield scf.for::create added when there are no iter args.
    if (!loop.getBody()->empty() && isa<scf::YieldOp>(loop.getBody()->back()))
      loop.getBody()->back().erase();
    builder.setInsertionPointToEnd(loop.getBody());
    scf::YieldOp::create(builder, loc, yielded);
  }
  return llvm::map_to_vector(loop.getResults(),
                             [&](Value v) { return wrap(v); });
}

void KernelBuilder::ifThenElse(Scalar cond, function_ref<void()> thenBody,
                               function_ref<void()> elseBody) {
  auto op = scf::IfOp::create(builder, loc, cond.getValue(),
                              /*withElseRegion=*/bool(elseBody));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op.thenBlock()->getTerminator());
  thenBody();
  if (elseBody) {
    builder.setInsertionPoint(op.elseBlock()->getTerminator());
    elseBody();
  }
}

void KernelBuilder::barrier(bool unaligned) {
  BarrierOp::create(builder, loc, unaligned);
}

void KernelBuilder::wait(std::optional<unsigned> vmcnt,
                         std::optional<unsigned> lgkmcnt) {
  auto attr = [&](std::optional<unsigned> v) -> IntegerAttr {
    return v ? builder.getI32IntegerAttr(*v) : IntegerAttr();
  };
  WaitOp::create(builder, loc, attr(vmcnt), attr(lgkmcnt));
}

void KernelBuilder::schedBarrier(unsigned mask) {
  SchedBarrierOp::create(builder, loc, mask);
}

void KernelBuilder::schedGroupBarrier(unsigned mask, unsigned size,
                                      unsigned syncId) {
  SchedGroupBarrierOp::create(builder, loc, mask, size, syncId);
}

Scalar KernelBuilder::warpId() {
  return {this, WarpIdOp::create(builder, loc, builder.getI32Type())};
}

void KernelBuilder::setPriority(unsigned priority) {
  SetPriorityOp::create(builder, loc, priority);
}

OwningOpRef<ModuleOp> KernelBuilder::finish() {
  ReturnOp::create(builder, loc);
  if (failed(verify(*module)))
    return nullptr;
  return std::move(module);
}
