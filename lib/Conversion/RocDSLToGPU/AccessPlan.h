//===- AccessPlan.h - per-lane groups of a tile access ----------*- C++ -*-===//
//
// What every target's load/store lowering shares: the uniform base pointer
// (tile origin folded in, 64-bit) and, for each group of `vec` entries a
// lane owns, its byte offset from that base and whether it is valid.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_LIB_CONVERSION_ACCESSPLAN_H
#define ROCDSL_LIB_CONVERSION_ACCESSPLAN_H

#include "PatternsInternal.h"

namespace mlir::rocdsl {

struct AccessGroup {
  unsigned firstEntry; // index in the per-lane vector
  Value voffset;       // bytes, i32 (AccessForm::Buffer: redirected when
                       // invalid)
  Value valid;         // i1, or null when always valid
};

/// How a target addresses a tile access.
enum class AccessForm {
  /// A 64-bit base at the tile origin and plain per-lane offsets; `valid`
  /// guards the access (NVIDIA).
  Pointer,
  /// A raw buffer resource at ptr, the origin in the 32-bit per-lane
  /// offsets, and invalid groups redirected out of the resource's range
  /// (AMDGPU: no branch, the hardware drops them).
  Buffer,
  /// The base is ptr and the origin in the 32-bit per-lane offsets (as for
  /// Buffer, so valid offsets stay below kMaxTensorBytes); `valid` guards
  /// the access (AMDGPU global accesses: the address is ptr + zext(offset),
  /// the SGPR-base form, with no 64-bit add).
  LaneOffset,
};

struct AccessPlan {
  Value base; // !llvm.ptr<1>: the tile origin (Pointer), or ptr
  Value rsrc; // AccessForm::Buffer only
  unsigned vec;
  SmallVector<AccessGroup> groups;
};

/// Byte offset given to invalid elements of a buffer access: past the
/// resource's range (even with the largest immediate offset and access
/// added, the sum stays below 2^32), so loads return 0 and stores are
/// dropped. It is the bit pattern of -0.5f, one of the VALU's inline
/// constants: the select of every invalid group encodes it in the
/// instruction (v_cndmask_b32 v, -0.5, v) instead of keeping 0x80000000 in a
/// VGPR for all of them.
constexpr int64_t kInvalidBufferOffset = static_cast<int64_t>(0xBF000000u);

/// A raw buffer resource starting at `base` (!llvm.ptr<1>) whose range
/// covers every valid tile offset (kMaxTensorBytes).
Value makeBufferResource(OpBuilder &b, Location loc, Value base);

/// The integer type one group of `vec` elements travels as.
Type groupTransferType(MLIRContext *ctx, unsigned bits);

/// `raw` (the integer transfer type) as a group of tile elements, and back.
/// Element types LLVM has no type for (the 8-bit floats) go through a
/// vector of integers of their width and arith.bitcast, which the LLVM
/// lowering resolves.
Value bitcastToGroup(OpBuilder &b, Location loc, VectorType groupType,
                     Value raw);
Value bitcastFromGroup(OpBuilder &b, Location loc, Type transfer, Value group);

/// Plans a tile access in `form`. A mask makes it one element wide unless
/// `uniformMask` (the op's promise that it is constant per group).
FailureOr<AccessPlan> planAccess(OpBuilder &b, Location loc,
                                 RankedTensorType tileType, Value ptr,
                                 ValueRange origin, ValueRange strides,
                                 ValueRange bounds, Value mask, unsigned vec,
                                 bool uniformMask, AccessForm form);

/// Produces the value of one group (vector<vec x element>): from memory when
/// valid, else `other` (null when the load has none: zero).
using GroupLoader =
    function_ref<Value(OpBuilder &b, Location loc, const AccessPlan &plan,
                       const AccessGroup &group, VectorType groupType,
                       Type transfer, Value other)>;

/// Lowers a rocdsl.load on any target: plans the access, asks `loadGroup`
/// for each group's value and assembles the per-lane vector.
LogicalResult lowerTileLoad(LoadOp op, LoadOp::Adaptor adaptor,
                            ConversionPatternRewriter &rewriter,
                            const TypeConverter &converter, AccessForm form,
                            GroupLoader loadGroup);

/// Pointer to a group: base + its byte offset (AccessForm::Pointer).
Value groupPointer(OpBuilder &b, Location loc, const AccessPlan &plan,
                   const AccessGroup &group);

/// What an invalid group of a load gives: `other`, or zero without one.
Value loadPadding(OpBuilder &b, Location loc, VectorType groupType,
                  Value other);

/// `load` where `valid` (null: always), else loadPadding(), as a branch
/// around the access.
Value guardedGroupLoad(OpBuilder &b, Location loc, Value valid,
                       VectorType groupType, Value other,
                       function_ref<Value(OpBuilder &, Location)> load);

/// `store` where `valid` (null: always), as a branch around the access.
void guardedGroupStore(OpBuilder &b, Location loc, Value valid,
                       function_ref<void(OpBuilder &, Location)> store);

/// A GroupLoader for AccessForm::Pointer plans: an LLVM load of the group,
/// behind a branch on its validity.
Value loadGroupThroughPointer(OpBuilder &b, Location loc,
                              const AccessPlan &plan, const AccessGroup &group,
                              VectorType groupType, Type transfer, Value other);

/// Stores `data` (the group's transfer type) with an LLVM store, behind a
/// branch on the group's validity.
void storeGroupThroughPointer(OpBuilder &b, Location loc,
                              const AccessPlan &plan, const AccessGroup &group,
                              Value data);

} // namespace mlir::rocdsl

#endif
