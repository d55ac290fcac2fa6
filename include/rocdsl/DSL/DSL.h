//===- DSL.h - C++ builder API for rocdsl kernels ---------------*- C++ -*-===//
//
// Kernel authors write tile programs with value types instead of raw MLIR:
//
//   KernelBuilder kb(ctx, "scale", /*numWarps=*/4,
//                    {ArgSpec::ptr("x", DType::F32), ArgSpec::scalar("n",
//                    DType::I32)});
//   Ptr x = kb.ptrArg("x");
//   Layout layout = kb.defaultLayout({1024}, DType::F32);
//   AccessOptions masked;
//   masked.bounds = {kb.scalarArg("n")};
//   Tile t = kb.load(x, {kb.i32(0)}, {1024}, layout, masked);
//   kb.store(t * t, x, {kb.i32(0)}, masked);
//   OwningOpRef<ModuleOp> module = kb.finish();
//
// Tiles, scalars and pointers are distinct C++ types, so mixing them up is a
// compile error; shape and layout mistakes are reported by the op verifiers
// when the module is finished.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_DSL_DSL_H
#define ROCDSL_DSL_DSL_H

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"
#include "rocdsl/Support/DType.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir::rocdsl::dsl {

/// The MLIR element type of `dtype` (DType and its names: Support/DType.h).
Type toMLIRType(MLIRContext *ctx, DType dtype);

class KernelBuilder;

/// Elementwise comparisons (signed for integers, ordered for floats).
enum class Cmp { LT, LE, GT, GE, EQ, NE };

/// A uniform scalar (i32 or a float).
class Scalar {
public:
  Scalar() = default;
  Scalar(KernelBuilder *kb, Value value) : kb(kb), value(value) {}
  Value getValue() const { return value; }
  Type getType() const { return value.getType(); }

  Scalar operator+(Scalar rhs) const;
  Scalar operator-(Scalar rhs) const;
  Scalar operator*(Scalar rhs) const;
  Scalar operator/(Scalar rhs) const; // signed for integers
  Scalar operator+(int64_t rhs) const;
  Scalar operator-(int64_t rhs) const;
  Scalar operator*(int64_t rhs) const;

private:
  KernelBuilder *kb = nullptr;
  Value value;
};

/// A kernel argument pointing to global memory.
class Ptr {
public:
  Ptr() = default;
  Ptr(Value value, DType dtype) : value(value), dtype(dtype) {}
  Value getValue() const { return value; }
  DType getDType() const { return dtype; }

private:
  Value value;
  DType dtype = DType::F32;
};

/// A tile layout attribute (#rocdsl.blocked, #rocdsl.slice, ...).
using Layout = Attribute;

/// A distributed tile value.
class Tile {
public:
  Tile() = default;
  Tile(KernelBuilder *kb, Value value) : kb(kb), value(value) {}
  Value getValue() const { return value; }
  RankedTensorType getType() const {
    return cast<RankedTensorType>(value.getType());
  }
  ArrayRef<int64_t> getShape() const { return getType().getShape(); }
  Layout getLayout() const { return getType().getEncoding(); }

  Tile operator+(Tile rhs) const;
  Tile operator-(Tile rhs) const;
  Tile operator*(Tile rhs) const;
  Tile operator/(Tile rhs) const;
  /// Elementwise with a uniform scalar (splatted).
  Tile operator*(Scalar rhs) const;
  Tile operator+(Scalar rhs) const;
  Tile operator-(Scalar rhs) const;
  /// Negation (floats: exact, the sign flipped).
  Tile operator-() const;
  /// Logical and of two i1 tiles.
  Tile operator&(Tile rhs) const;
  /// An i1 tile: `this <cmp> rhs` element by element.
  Tile compare(Cmp cmp, Tile rhs) const;
  Tile compare(Cmp cmp, Scalar rhs) const;
  /// Elementwise maximum (floats: NaN-propagating, as arith.maximumf).
  Tile maximum(Tile rhs) const;

  /// Element type conversion (float extend/truncate).
  Tile to(DType dtype) const;
  Tile rsqrt() const;
  Tile exp() const;
  /// 2^x and log2(x) in the hardware's approximations (fastmath afn: one
  /// instruction on every GPU target).
  Tile exp2() const;
  Tile log2() const;
  /// Reductions along `axis`; the result has the slice layout.
  Tile sum(unsigned axis) const;
  Tile max(unsigned axis) const;
  /// Reductions of a 1-D tile to a scalar.
  Scalar sumAll() const;
  Tile expandDims(unsigned axis) const;
  Tile broadcastTo(ArrayRef<int64_t> shape) const;
  /// The same tile in another layout (rocdsl.convert_layout).
  Tile convertTo(Layout layout) const;
  /// The 2-D transpose in `layout` (rocdsl.trans; free into
  /// getTransposedLayout of this tile's layout).
  Tile transposed(Layout layout) const;

private:
  KernelBuilder *kb = nullptr;
  Value value;
};

/// A tile in LDS (rocdsl.local_alloc): written from and read into register
/// tiles of its shape. Each write sits between two workgroup barriers, so
/// no wave reads it half-written or overwrites what another still reads.
class LdsTile {
public:
  LdsTile() = default;
  LdsTile(KernelBuilder *kb, Value value) : kb(kb), value(value) {}
  Value getValue() const { return value; }
  LdsTileType getType() const { return cast<LdsTileType>(value.getType()); }
  ArrayRef<int64_t> getShape() const { return getType().getShape(); }

  /// rocdsl.local_store of `tile` (same shape and element type).
  void store(Tile tile) const;
  /// rocdsl.local_load into `layout`.
  Tile load(Layout layout) const;
  /// rocdsl.local_load {trans}: the transpose of this 2-D tile, in `layout`.
  Tile loadTransposed(Layout layout) const;
  /// rocdsl.local_index: buffer `i` of a stack from localAllocBuffers.
  LdsTile index(Scalar i) const;
  /// rocdsl.local_index viewing the same bytes as buffers of `shape`
  /// (row-major, this tile's swizzle; see the op): buffer `i` of them.
  LdsTile view(Scalar i, ArrayRef<int64_t> shape) const;

private:
  KernelBuilder *kb = nullptr;
  Value value;
};

struct ArgSpec {
  std::string name;
  DType dtype;
  bool isPointer;
  static ArgSpec ptr(StringRef name, DType dtype) {
    return {name.str(), dtype, true};
  }
  static ArgSpec scalar(StringRef name, DType dtype) {
    return {name.str(), dtype, false};
  }
};

/// Addressing of a tile access (see rocdsl.load): leading strides, optional
/// bounds, optional mask, and the `vec` alignment promise.
struct AccessOptions {
  SmallVector<Scalar> strides;
  SmallVector<Scalar> bounds;
  std::optional<Tile> mask;
  unsigned vec = 1;
};

class KernelBuilder {
public:
  KernelBuilder(MLIRContext *ctx, StringRef name, unsigned numWarps,
                ArrayRef<ArgSpec> args);

  MLIRContext *getContext() { return builder.getContext(); }
  OpBuilder &getBuilder() { return builder; }
  Location getLoc() const { return loc; }
  unsigned getNumWarps() const { return numWarps; }

  // Arguments, by name. Asking for a pointer as a scalar is a fatal error.
  Ptr ptrArg(StringRef name);
  Scalar scalarArg(StringRef name);

  // Scalars.
  Scalar i32(int64_t value);
  Scalar f32(double value);
  /// Occupancy hint: `programs` workgroups should fit on one CU or SM at
  /// once (rocdsl.min_programs_per_cu; ptxas keeps registers within it on
  /// NVIDIA). 0 removes it.
  void setMinProgramsPerCU(unsigned programs);
  Scalar programId(unsigned axis = 0);
  /// Signed minimum, maximum and remainder of i32 scalars.
  Scalar min(Scalar a, Scalar b);
  Scalar max(Scalar a, Scalar b);
  Scalar rem(Scalar a, Scalar b);
  /// An i1 scalar: `a <cmp> b`; and `cond ? a : b`.
  Scalar compare(Cmp cmp, Scalar a, Scalar b);
  Scalar select(Scalar cond, Scalar a, Scalar b);
  Scalar numPrograms(unsigned axis = 0);

  // Layouts.
  Layout defaultLayout(ArrayRef<int64_t> shape, DType dtype,
                       unsigned waveSize = 64);
  Layout blocked(ArrayRef<unsigned> sizePerThread,
                 ArrayRef<unsigned> threadsPerWarp,
                 ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order);
  Layout slice(Layout parent, unsigned dim);
  /// Matrix-core layouts: an AMD MFMA accumulator, an NVIDIA mma.sync
  /// accumulator, and the A (opIdx 0) or B (opIdx 1) operand of either.
  Layout mfma(unsigned version, ArrayRef<unsigned> instrShape,
              ArrayRef<unsigned> warpsPerCTA);
  Layout mma(ArrayRef<unsigned> warpsPerCTA);
  Layout dotOperand(unsigned opIdx, Layout parent, unsigned kWidth);
  /// The #rocdsl.shared layout of an LDS tile of `shape` and `dtype` whose
  /// dimensions are strided along `order` (fastest first): groups of
  /// `vecBytes` along the fastest dimension XOR-swizzled so that the groups
  /// a matrix-operand read takes from consecutive rows fall on distinct
  /// banks of an LDS of `banks` 4-byte banks. `vecBytes` is the width of
  /// one lane's read (a narrower group splits 16-byte writes). Unswizzled
  /// where the rows do not hold whole groups.
  Layout sharedLayout(ArrayRef<int64_t> shape, DType dtype,
                      ArrayRef<unsigned> order, unsigned banks,
                      unsigned vecBytes = 16);

  /// An uninitialised LDS tile.
  LdsTile localAlloc(ArrayRef<int64_t> shape, DType dtype, Layout shared);
  /// `count` uninitialised LDS tiles of `shape` stacked along a new leading
  /// dimension (`shared` is one tile's layout), for N-buffering: pick one
  /// with LdsTile::index.
  LdsTile localAllocBuffers(unsigned count, ArrayRef<int64_t> shape,
                            DType dtype, Layout shared);

  // Tiles.
  Tile full(ArrayRef<int64_t> shape, Layout layout, Scalar value);
  Tile zeros(ArrayRef<int64_t> shape, Layout layout, DType dtype);
  Tile iota(int64_t size, Layout layout);
  /// `cond ? a : b` element by element (arith.select).
  Tile select(Tile cond, Tile a, Tile b);
  Tile load(Ptr ptr, ArrayRef<Scalar> origin, ArrayRef<int64_t> shape,
            Layout layout, const AccessOptions &options = {});
  void store(Tile value, Ptr ptr, ArrayRef<Scalar> origin,
             const AccessOptions &options = {});

  /// rocdsl.atomic_add: each valid element of an f32 or i32 tile added to
  /// memory atomically, once (options.vec is ignored: one element each).
  void atomicAdd(Tile value, Ptr ptr, ArrayRef<Scalar> origin,
                 const AccessOptions &options = {});
  /// rocdsl.program_atomic: one update of the i32 at ptr[index] for the
  /// whole program, an acquire-release point of all its accesses (none
  /// with `relaxed`: for resetting a count no one reads again this
  /// launch); the old value.
  Scalar programAtomic(ProgramAtomicKind kind, Ptr ptr, Scalar index,
                       Scalar value, bool relaxed = false);

  /// rocdsl.async_copy: the tile `load` would read (`layout` says which
  /// lane copies what) written into `dst` without passing through
  /// registers where the target can; no barrier is placed (see the op).
  void asyncCopy(Ptr ptr, ArrayRef<Scalar> origin, Layout layout, LdsTile dst,
                 const AccessOptions &options = {});
  /// Closes this lane's group of copies issued so far.
  void asyncCommit();
  /// Waits until at most `pending` committed groups are in flight.
  void asyncWait(unsigned pending);

  /// d = a * b + c on the matrix units (rocdsl.dot): a and b in the
  /// dot-operand layouts of c's.
  Tile dot(Tile a, Tile b, Tile c);
  /// rocdsl.warpgroup_dot: c + a * b with both operands read from LDS by
  /// the matrix unit (sm_90a wgmma; layouts in the op's documentation).
  /// `pending` > 0 returns with up to that many products still running
  /// (this one included): the result may then only feed another
  /// warpgroupDot's `c` or warpgroupWait.
  Tile warpgroupDot(LdsTile a, LdsTile b, Tile c, unsigned pending = 0);
  /// rocdsl.warpgroup_wait: `inFlight` once at most `pending` products
  /// are still running (0: all done, the result in registers).
  Tile warpgroupWait(Tile inFlight, unsigned pending = 0);

  /// scf.for from `lb` to `ub` by `step` carrying `inits`; `body` returns
  /// the next values of the carried tiles.
  SmallVector<Tile> forLoop(
      Scalar lb, Scalar ub, Scalar step, ArrayRef<Tile> inits,
      function_ref<SmallVector<Tile>(Scalar iv, ArrayRef<Tile> carried)> body);

  /// scf.if on a uniform i1 scalar (every lane of the program takes the
  /// same side, so barriers inside either body are sound). Tiles made in a
  /// body stay there: each body ends in its own stores.
  void ifThenElse(Scalar cond, function_ref<void()> thenBody,
                  function_ref<void()> elseBody = nullptr);

  /// From here on, tile adds, subtracts and multiplies of floats may
  /// contract into fused multiply-adds (fastmath contract: one rounding
  /// instead of two, and one instruction).
  void allowContraction() { floatFlags = arith::FastMathFlags::contract; }

  /// Escape hatches.
  /// A workgroup barrier; `unaligned` where waves may meet it at another
  /// barrier op of the kernel (phase-shifted halves; rocdsl.barrier).
  void barrier(bool unaligned = false);
  void wait(std::optional<unsigned> vmcnt, std::optional<unsigned> lgkmcnt);
  void schedBarrier(unsigned mask = 0);
  /// A group of up to `size` instructions of the classes in `mask` (MFMA
  /// 0x8, VMEM read 0x20, DS read 0x100, ...; rocdsl.sched_group_barrier)
  /// that the AMDGPU scheduler places here, in order with the other groups
  /// of `syncId`.
  void schedGroupBarrier(unsigned mask, unsigned size, unsigned syncId = 0);
  /// This wave's index in the program (rocdsl.warp_id).
  Scalar warpId();
  /// This wave's issue priority, 0-3 (rocdsl.set_priority, s_setprio).
  void setPriority(unsigned priority);

  /// Terminates the kernel and verifies the module; on failure the
  /// diagnostics went to the context's handler and the result is null.
  OwningOpRef<ModuleOp> finish();

private:
  friend class Tile;
  friend class Scalar;
  friend class LdsTile;
  Tile wrap(Value v) { return Tile(this, v); }

  OpBuilder builder;
  Location loc;
  unsigned numWarps;
  OwningOpRef<ModuleOp> module;
  FuncOp func;
  arith::FastMathFlags floatFlags = arith::FastMathFlags::none;
  SmallVector<ArgSpec> argSpecs;
};

} // namespace mlir::rocdsl::dsl

#endif
