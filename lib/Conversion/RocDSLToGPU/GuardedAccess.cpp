//===- GuardedAccess.cpp - tile groups through plain pointers -------------===//
//
// One group of a tile access as an ordinary LLVM load or store at
// base + byte offset, behind a branch on the group's validity when it has
// one. NVIDIA takes this form for groups its predicated PTX cannot carry;
// AMDGPU for accesses of one group per lane, where a single branch is
// cheaper than building a buffer resource per pointer.
//
//===----------------------------------------------------------------------===//
#include "AccessPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::rocdsl;

Value mlir::rocdsl::groupPointer(OpBuilder &b, Location loc,
                                 const AccessPlan &plan,
                                 const AccessGroup &group) {
  Value offset = arith::ExtUIOp::create(b, loc, b.getI64Type(), group.voffset);
  return LLVM::GEPOp::create(b, loc, plan.base.getType(), b.getI8Type(),
                             plan.base, ValueRange{offset});
}

Value mlir::rocdsl::loadPadding(OpBuilder &b, Location loc,
                                VectorType groupType, Value other) {
  if (other)
    return other;
  return arith::ConstantOp::create(b, loc, groupType, b.getZeroAttr(groupType))
      .getResult();
}

Value mlir::rocdsl::guardedGroupLoad(
    OpBuilder &b, Location loc, Value valid, VectorType groupType,
    Value other, function_ref<Value(OpBuilder &, Location)> load) {
  if (!valid)
    return load(b, loc);
  Value padding = loadPadding(b, loc, groupType, other);
  return scf::IfOp::create(
             b, loc, valid,
             [&](OpBuilder &t, Location l) {
               scf::YieldOp::create(t, l, load(t, l));
             },
             [&](OpBuilder &e, Location l) {
               scf::YieldOp::create(e, l, padding);
             })
      .getResult(0);
}

void mlir::rocdsl::guardedGroupStore(
    OpBuilder &b, Location loc, Value valid,
    function_ref<void(OpBuilder &, Location)> store) {
  if (!valid) {
    store(b, loc);
    return;
  }
  scf::IfOp::create(b, loc, valid, [&](OpBuilder &t, Location l) {
    store(t, l);
    scf::YieldOp::create(t, l);
  });
}

/// The alignment of a group of a transfer type (iN, or vector<k x i32>):
/// its width up to 16 bytes. The access's vector width promises that (the
/// promise that lets NVIDIA use ld.global.v4); no promise goes past 16.
static unsigned groupAlignment(Type transfer) {
  unsigned bytes = 0;
  if (auto v = dyn_cast<VectorType>(transfer))
    bytes = v.getNumElements() * v.getElementTypeBitWidth() / 8;
  else
    bytes = transfer.getIntOrFloatBitWidth() / 8;
  return std::min(bytes, 16u);
}

Value mlir::rocdsl::loadGroupThroughPointer(OpBuilder &b, Location loc,
                                            const AccessPlan &plan,
                                            const AccessGroup &group,
                                            VectorType groupType,
                                            Type transfer, Value other) {
  Value pointer = groupPointer(b, loc, plan, group);
  return guardedGroupLoad(b, loc, group.valid, groupType, other,
                          [&](OpBuilder &t, Location l) -> Value {
                            Value raw = LLVM::LoadOp::create(
                                t, l, transfer, pointer,
                                groupAlignment(transfer));
                            return bitcastToGroup(t, l, groupType, raw);
                          });
}

void mlir::rocdsl::storeGroupThroughPointer(OpBuilder &b, Location loc,
                                            const AccessPlan &plan,
                                            const AccessGroup &group,
                                            Value data) {
  Value pointer = groupPointer(b, loc, plan, group);
  guardedGroupStore(b, loc, group.valid, [&](OpBuilder &t, Location l) {
    LLVM::StoreOp::create(t, l, data, pointer, groupAlignment(data.getType()));
  });
}
