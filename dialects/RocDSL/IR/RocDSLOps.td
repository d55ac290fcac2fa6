//===- RocDSLOps.td - rocdsl operations --------------------*- tablegen -*-===//
#ifndef ROCDSL_OPS_TD
#define ROCDSL_OPS_TD

include "RocDSLTypes.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def RocDSL_FuncOp : RocDSL_Op<"func", [
    FunctionOpInterface, IsolatedFromAbove, Symbol]> {
  let summary = "A GPU kernel: one program instance per workgroup";
  let description = [{
    Arguments are `!rocdsl.ptr` buffers and uniform scalars; the kernel
    returns nothing. `num_warps` fixes the workgroup size (waves of 64 lanes
    on AMDGPU). `waves_per_eu` is an occupancy hint passed to the backend.

    ```mlir
    rocdsl.func @copy(%src: !rocdsl.ptr<f32>, %dst: !rocdsl.ptr<f32>)
        attributes {num_warps = 4 : i32} {
      rocdsl.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       I32Attr:$num_warps,
                       OptionalAttr<I32Attr>:$waves_per_eu,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type,
                                 "unsigned":$numWarps)>];
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
  }];
}

def RocDSL_ReturnOp : RocDSL_Op<"return", [Pure, HasParent<"FuncOp">,
                                           ReturnLike, Terminator]> {
  let summary = "End of a kernel";
  let assemblyFormat = "attr-dict";
}

def RocDSL_ProgramIdOp : RocDSL_Op<"program_id", [Pure]> {
  let summary = "Index of this program instance (workgroup) along an axis";
  let description = [{
    ```mlir
    %pid = rocdsl.program_id x : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let hasCustomAssemblyFormat = 1;
}

def RocDSL_NumProgramsOp : RocDSL_Op<"num_programs", [Pure]> {
  let summary = "Number of program instances along an axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Tile construction and shape
//===----------------------------------------------------------------------===//

def RocDSL_SplatOp : RocDSL_Op<"splat", [Pure]> {
  let summary = "A tile with every element equal to a uniform scalar";
  let arguments = (ins AnyType:$value);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def RocDSL_IotaOp : RocDSL_Op<"iota", [Pure]> {
  let summary = "A 1-D tile holding start, start+1, ...";
  let description = [{
    ```mlir
    %cols = rocdsl.iota : tensor<1024xi32, #rocdsl.slice<dim = 0, parent = #blocked>>
    ```
  }];
  let arguments = (ins DefaultValuedAttr<I32Attr, "0">:$start);
  let results = (outs RocDSL_IntTile:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def RocDSL_ExpandDimsOp : RocDSL_Op<"expand_dims", [Pure]> {
  let summary = "Insert a unit dimension at `axis`";
  let description = [{
    The operand's layout must be `#rocdsl.slice<dim = axis, parent = P>`;
    the result has layout `P`. This is how a reduction result or a row of
    column indices is brought back to the tile it came from.
  }];
  let arguments = (ins RocDSL_Tile:$src, I32Attr:$axis);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def RocDSL_BroadcastOp : RocDSL_Op<"broadcast", [Pure]> {
  let summary = "Repeat unit dimensions of a tile";
  let arguments = (ins RocDSL_Tile:$src);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def RocDSL_ConvertLayoutOp : RocDSL_Op<"convert_layout", [Pure]> {
  let summary = "Redistribute a tile to another layout (same shape and type)";
  let arguments = (ins RocDSL_Tile:$src);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def RocDSL_TransOp : RocDSL_Op<"trans", [Pure]> {
  let summary = "Transpose a 2-D tile";
  let description = [{
    Element (i, j) of the result is element (j, i) of the operand. With the
    result in the operand's layout with its dimensions swapped
    (`getTransposedLayout`: for `#rocdsl.blocked`, the per-dimension entries
    exchanged and `order` renamed) no data moves: each lane keeps its
    registers. Any other result layout is reached through LDS, like
    `convert_layout`. Attention's K^T and column-major GEMM operands use it
    instead of a transposed copy in memory.

    ```mlir
    %t = rocdsl.trans %k : tensor<64x128xbf16, #kv> -> tensor<128x64xbf16, #kvT>
    ```
  }];
  let arguments = (ins RocDSL_Tile:$src);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

def RocDSL_LoadOp : RocDSL_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>]> {
  let summary = "Read a tile from global memory";
  let description = [{
    Element `(i0, ..., ik)` of the result is read from
    `ptr + sum_d (origin_d + i_d) * stride_d`, with the last stride 1 and the
    leading ones given in `strides`. An element is valid when
    `origin_d + i_d < bounds_d` for every dimension (if `bounds` is given)
    and its `mask` element is true; invalid elements read `other` (0 when
    absent) and never touch memory.

    Without `vec`, rocdsl-infer-vector-width picks the widest access it
    can prove (1 when it cannot, or when the pass does not run); a given
    `vec` (1 included) is kept as the author's.

    `vec` promises that the base pointer, every stride, the innermost origin
    and the innermost bound are multiples of `vec` elements, so the compiler
    may read `vec` consecutive elements in one access (up to 128 bits). With
    `vec > 1`, bounds are taken per group of `vec` elements (the verifier
    rejects a constant innermost bound that breaks the promise; a run-time
    bound that breaks it is undefined behaviour). Masks are per element: a
    masked access is made one element at a time, unless `uniform_mask`
    promises that the mask is constant over each group of `vec` innermost
    elements (rocdsl-infer-vector-width sets it where it proves that, e.g.
    for `iota + start < n` with `start` and `n` multiples of `vec`); a
    group is then accessed whole or not at all, by its first element's bit.

    Offsets from the tile origin to any element it touches must stay below
    2 GiB (they are 32-bit on the GPU); the origin itself is 64-bit.

    ```mlir
    %x = rocdsl.load %ptr[%row, %c0] strides [%n] bounds [%m, %n] {vec = 8 : i32}
        : !rocdsl.ptr<bf16> -> tensor<4x1024xbf16, #blocked>
    ```
  }];
  let arguments = (ins RocDSL_PtrType:$ptr,
                       Variadic<I32>:$origin,
                       Variadic<I32>:$strides,
                       Variadic<I32>:$bounds,
                       Optional<RocDSL_MaskTile>:$mask,
                       Optional<AnyType>:$other,
                       OptionalAttr<I32Attr>:$vec,
                       UnitAttr:$uniform_mask);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = [{
    $ptr `[` $origin `]` (`strides` `[` $strides^ `]`)? (`bounds` `[` $bounds^ `]`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)? (`other` `(` $other^ `:` type($other) `)`)?
    attr-dict `:` qualified(type($ptr)) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Elements per access: `vec`, 1 when absent.
    unsigned getVecWidth() { return getVec().value_or(1); }
  }];
}

def RocDSL_StoreOp : RocDSL_Op<"store", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite]>]> {
  let summary = "Write a tile to global memory";
  let description = [{
    Addressing, `bounds`, `mask`, `vec` and `uniform_mask` as for
    `rocdsl.load`; invalid elements are not written.

    Lowering rule (hazard-free by construction): no store wider than 64 bits
    is ever emitted with a non-constant SGPR offset. Uniform offsets are
    folded into the buffer base, lane offsets into the VGPR offset.
  }];
  let arguments = (ins RocDSL_Tile:$value,
                       RocDSL_PtrType:$ptr,
                       Variadic<I32>:$origin,
                       Variadic<I32>:$strides,
                       Variadic<I32>:$bounds,
                       Optional<RocDSL_MaskTile>:$mask,
                       OptionalAttr<I32Attr>:$vec,
                       UnitAttr:$uniform_mask);
  let assemblyFormat = [{
    $value `,` $ptr `[` $origin `]` (`strides` `[` $strides^ `]`)? (`bounds` `[` $bounds^ `]`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    attr-dict `:` type($value) `,` qualified(type($ptr))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Elements per access: `vec`, 1 when absent.
    unsigned getVecWidth() { return getVec().value_or(1); }
  }];
}

def RocDSL_AtomicAddOp : RocDSL_Op<"atomic_add", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Add a tile into global memory, each element atomically";
  let description = [{
    Addressing, `bounds` and `mask` as for `rocdsl.store`: each valid
    element is added to the memory it addresses in one atomic
    read-modify-write, so programs may add into the same elements at the
    same time. Each element is added once, however many lanes of the
    layout hold a copy of it. f32 and i32 elements. Unlike a store's,
    `strides` may also give the innermost stride (one per dimension), so a
    tile can be added into memory transposed, e.g. a [D, S] product into
    rows of D elements.

    The updates are relaxed and device-wide: they are ordered only against
    what synchronizes with them, such as a later `rocdsl.program_atomic`
    of the same program (which releases them) and the program that
    acquires that. Float sums therefore come out in an order that may
    differ from run to run; integer sums do not.

    ```mlir
    rocdsl.atomic_add %dw, %acc[%c0] bounds [%n]
        : tensor<1024xf32, #cols>, !rocdsl.ptr<f32>
    ```
  }];
  let arguments = (ins RocDSL_Tile:$value,
                       RocDSL_PtrType:$ptr,
                       Variadic<I32>:$origin,
                       Variadic<I32>:$strides,
                       Variadic<I32>:$bounds,
                       Optional<RocDSL_MaskTile>:$mask);
  let assemblyFormat = [{
    $value `,` $ptr `[` $origin `]` (`strides` `[` $strides^ `]`)? (`bounds` `[` $bounds^ `]`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    attr-dict `:` type($value) `,` qualified(type($ptr))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// One element per update (what accesses shared with stores ask).
    unsigned getVecWidth() { return 1; }
  }];
}

def RocDSL_ProgramAtomicOp : RocDSL_Op<"program_atomic", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "One atomic update for the whole program, ordering its memory accesses";
  let description = [{
    `%old = rocdsl.program_atomic add %counter[%i], %v : !rocdsl.ptr<i32>`
    updates the i32 at `counter + i` once for the program (not once per
    lane): `add`, `xchg` (store `v`) or signed `max`, and gives every lane
    the value it held before.

    It is a device-wide acquire-release point for the whole program: every
    global memory access any of the program's lanes made before it (stores
    and `rocdsl.atomic_add`s included) is visible to a program whose own
    `program_atomic` reads the value this one wrote, once that program's
    `program_atomic` returns; and the accesses this program makes after it
    see what the programs whose values it read made before theirs. Every
    lane of the program must reach it (it contains workgroup barriers).

    The pattern it exists for: each of G programs writes its share,
    `%old = program_atomic add %count[0], 1`, and the program that sees
    `%old == G - 1` is the last one: it reads every share, and may set the
    count back to 0 (`xchg`) so that the next launch finds it as the last
    one left it. Nothing waits on another program, so it cannot deadlock.

    With `relaxed` the update orders nothing (no fences): for that reset,
    which no program of the launch reads again (the launch's end orders it
    before the next launch). It is still one update for the program, and
    every lane gets the old value.
  }];
  let arguments = (ins RocDSL_ProgramAtomicKindAttr:$kind,
                       RocDSL_PtrType:$ptr, I32:$index, I32:$value,
                       UnitAttr:$relaxed);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    $kind (`relaxed` $relaxed^)? $ptr `[` $index `]` `,` $value attr-dict `:`
    qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and matrix products
//===----------------------------------------------------------------------===//

def RocDSL_ReduceOp : RocDSL_Op<"reduce", [Pure]> {
  let summary = "Reduce a tile along one axis";
  let description = [{
    The result drops `axis`; its layout must be
    `#rocdsl.slice<dim = axis, parent = <operand layout>>`. Reducing a 1-D
    tile gives a uniform scalar.

    ```mlir
    %s = rocdsl.reduce add %sq {axis = 1 : i32}
        : tensor<4x1024xf32, #blocked> -> tensor<4xf32, #rocdsl.slice<dim = 1, parent = #blocked>>
    ```
  }];
  let arguments = (ins RocDSL_ReduceKindAttr:$kind, RocDSL_Tile:$src,
                       I32Attr:$axis);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind $src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def RocDSL_DotOp : RocDSL_Op<"dot", [Pure, AllTypesMatch<["c", "result"]>]> {
  let summary = "Tile matrix product on the matrix cores: d = a * b + c";
  let description = [{
    `a` (MxK) and `b` (KxN) carry `#rocdsl.dot_operand` layouts with
    `opIdx` 0 and 1 whose parent is the `#rocdsl.mfma` layout of `c` and the
    result (MxN). Operands are f16, bf16 or 8-bit floats; the accumulator is
    f32.
  }];
  let arguments = (ins RocDSL_Tile:$a, RocDSL_Tile:$b, RocDSL_Tile:$c);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def RocDSL_WarpgroupDotOp : RocDSL_Op<"warpgroup_dot", [
    AllTypesMatch<["c", "result"]>, MemoryEffects<[MemRead]>]> {
  let summary = "Tile matrix product with both operands read from LDS";
  let description = [{
    d = a * b + c where `a` (M x K) and `b` (K x N) are LDS tiles the
    matrix unit reads itself (NVIDIA sm_90a `wgmma.mma_async` through
    shared-memory descriptors: four warps at a time, no operand registers).
    `c` and the result are f32 in a `#rocdsl.mma` layout whose warps all
    stack along M (`warpsPerCTA = [W, 1]`, W a multiple of 4), so each
    group of four warps owns 64 consecutive rows of every 16 W.

    Operands are bf16 or f16, both of one type, in the 128-byte swizzle
    of the matrix unit: `#rocdsl.shared<vec = 8, perPhase = 1,
    maxPhase = 8>` over rows of 128 bytes (64 elements), the tile's bytes
    1024-aligned (the LDS allocator aligns tiles these ops read). `a` is
    M x 64 with K fastest. `b` is either N x 64 with K fastest (B stored
    by columns) or N / 64 panels of 64 x 64, K by N with N fastest
    (`!rocdsl.lds<PxKx64>`: element (k, n) of B is (n / 64, k, n mod 64)).
    K = 64.

    With `pending = 0` (the default) the product is complete when the op
    returns (the lowering waits for the matrix unit), so its LDS reads are
    over and a later write may reuse the bytes after a barrier. With
    `pending = P` > 0 the op returns once at most P of this warp group's
    most recent products are still running, counting its own: P = 1 leaves
    this product in flight and guarantees every earlier one done, so the
    matrix unit keeps working across the caller's next barrier. A result
    in flight is not yet in registers: it may only be the accumulator of
    another `warpgroup_dot` (which chains on the matrix unit) or the
    operand of `rocdsl.warpgroup_wait`, possibly through a loop's carried
    value; and the LDS it reads must not be rewritten before a later op
    has waited for it. LDS written before a barrier is visible to it: on
    kernels with these ops the barrier lowering fences shared memory for
    the matrix unit's (asynchronous) reads first.

    ```mlir
    %d = rocdsl.warpgroup_dot %a, %b, %c
        : !rocdsl.lds<128x64xbf16, #sw>, !rocdsl.lds<2x64x64xbf16, #sw3>,
          tensor<128x128xf32, #mma>
    %e = rocdsl.warpgroup_dot %a2, %b2, %d {pending = 1 : i32} : ...
    %f = rocdsl.warpgroup_wait %e : tensor<128x128xf32, #mma>
    ```
  }];
  let arguments = (ins RocDSL_LdsTileType:$a, RocDSL_LdsTileType:$b,
                       RocDSL_Tile:$c,
                       ConfinedAttr<DefaultValuedAttr<I32Attr, "0">,
                                    [IntMinValue<0>, IntMaxValue<7>]>:$pending);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` type($c)
  }];
  let hasVerifier = 1;
}

def RocDSL_WarpgroupWaitOp : RocDSL_Op<"warpgroup_wait", [
    AllTypesMatch<["src", "result"]>, MemoryEffects<[MemRead]>]> {
  let summary = "Wait for warpgroup products still in flight";
  let description = [{
    Returns `src`, the result of a `warpgroup_dot` with `pending` > 0
    (directly or carried through a loop), once at most `pending` of the
    warp group's most recent products are still running; with the default
    0 every product is done, the result is in registers and the LDS those
    products read may be rewritten after a barrier. The lowering ties the
    accumulator registers to the wait (NVIDIA: `wgmma.wait_group` as
    inline assembly with every register an operand), so no later use of
    the result can be scheduled before it.

    ```mlir
    %sum = rocdsl.warpgroup_wait %inflight : tensor<128x128xf32, #mma>
    ```
  }];
  let arguments = (ins RocDSL_Tile:$src,
                       ConfinedAttr<DefaultValuedAttr<I32Attr, "0">,
                                    [IntMinValue<0>, IntMaxValue<7>]>:$pending);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// LDS
//===----------------------------------------------------------------------===//

def RocDSL_LocalAllocOp : RocDSL_Op<"local_alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "Allocate a tile in LDS, optionally initialised from registers";
  let arguments = (ins Optional<RocDSL_Tile>:$init);
  let results = (outs RocDSL_LdsTileType:$result);
  let assemblyFormat = "($init^ `:` type($init))? attr-dict `->` qualified(type($result))";
  let hasVerifier = 1;
}

def RocDSL_LocalLoadOp : RocDSL_Op<"local_load", [MemoryEffects<[MemRead]>]> {
  let summary = "Read an LDS tile into registers in the result's layout";
  let description = [{
    With `trans` (2-D tiles only) the result is the transpose of `src`:
    element (i, j) is read from (j, i), and the result's shape is `src`'s
    reversed. Nothing moves in LDS; the read walks the stored tile with its
    dimensions exchanged, so a tile written row by row (an asynchronous
    copy of K's rows) can be read as the B operand K^T of a product, with
    the target's matrix loads where the layouts allow (`ldmatrix` on
    NVIDIA).

    ```mlir
    %kt = rocdsl.local_load %k {trans}
        : !rocdsl.lds<32x128xbf16, #shared> -> tensor<128x32xbf16, #opB>
    ```
  }];
  let arguments = (ins RocDSL_LdsTileType:$src, UnitAttr:$trans);
  let results = (outs RocDSL_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` type($result)";
  let hasVerifier = 1;
}

def RocDSL_LocalStoreOp : RocDSL_Op<"local_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "Write a register tile into an LDS tile";
  let arguments = (ins RocDSL_Tile:$value, RocDSL_LdsTileType:$dst);
  let assemblyFormat = "$value `,` $dst attr-dict `:` type($value) `,` qualified(type($dst))";
  let hasVerifier = 1;
}

def RocDSL_LocalIndexOp : RocDSL_Op<"local_index", [Pure]> {
  let summary = "One buffer of an N-buffered LDS tile";
  let description = [{
    `%buf = rocdsl.local_index %tiles[%i] : !rocdsl.lds<2x128x32xbf16, S3>
    -> !rocdsl.lds<128x32xbf16, S2>`: the `%i`-th of the buffers stacked
    along the source's leading dimension. The source's `#rocdsl.shared`
    layout has the leading dimension slowest (last in `order`); the
    result's layout is the same swizzle over the remaining dimensions.
    Buffer `i` occupies elements `[i * n, (i + 1) * n)` of the source, `n`
    the elements of one buffer. An index outside `[0, N)` is undefined
    behaviour, as with any out-of-bounds LDS address.

    The result may also view the same bytes as buffers of another shape:
    both row-major, one swizzle, one row length, the result a whole number
    of swizzle periods of rows and its elements a divisor of one source
    buffer's. Buffer `i` of that view again starts `i * n` elements in
    (`n` the result's elements), so `lds<1x128x64>[%j] -> lds<1x64x64>`
    is rows `[64 j, 64 j + 64)` of the one 128-row buffer, each row keeping
    its swizzle phase (on NVIDIA GPUs only: the host lowering takes whole
    buffers).
  }];
  let arguments = (ins RocDSL_LdsTileType:$src, I32:$index);
  let results = (outs RocDSL_LdsTileType:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def RocDSL_AsyncCopyOp : RocDSL_Op<"async_copy", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Copy a tile from global memory into an LDS tile, asynchronously";
  let description = [{
    Reads the tile `rocdsl.load` with the same operands would read (type
    `tile`: its layout says which lane copies which elements) and writes it
    into `dst`, without passing through the lanes' registers where the
    target can (NVIDIA: `cp.async`, 4, 8 or 16 bytes a group). Invalid
    elements (bounds, mask) are written as zero and never read.

    The copy is only known complete after a `rocdsl.async_commit` that
    follows it and a `rocdsl.async_wait` that leaves fewer groups pending
    than were committed after that one; completion covers this lane's copies
    only, so a workgroup barrier must come between the wait and any read of
    `dst`. Unlike `local_store`, no barrier is placed for the author: a
    copy into a buffer other waves may still be reading needs a barrier
    before it. Targets without asynchronous copies (AMDGPU today, the host)
    load into registers and store to LDS at the copy, and commit and wait
    are no-ops there, so a correctly ordered kernel means the same
    everywhere.

    ```mlir
    rocdsl.async_copy %a[%m0, %k] strides [%K] bounds [%M, %K], %buf {vec = 8 : i32}
        : !rocdsl.ptr<bf16>, tensor<128x32xbf16, #blocked> -> !rocdsl.lds<128x32xbf16, #shared>
    rocdsl.async_commit
    rocdsl.async_wait {pending = 1 : i32}
    ```
  }];
  let arguments = (ins RocDSL_PtrType:$ptr,
                       Variadic<I32>:$origin,
                       Variadic<I32>:$strides,
                       Variadic<I32>:$bounds,
                       Optional<RocDSL_MaskTile>:$mask,
                       RocDSL_LdsTileType:$dst,
                       TypeAttrOf<AnyRankedTensor>:$tile,
                       OptionalAttr<I32Attr>:$vec,
                       UnitAttr:$uniform_mask);
  let assemblyFormat = [{
    $ptr `[` $origin `]` (`strides` `[` $strides^ `]`)? (`bounds` `[` $bounds^ `]`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)? `,` $dst
    attr-dict `:` qualified(type($ptr)) `,` $tile `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Elements per access: `vec`, 1 when absent.
    unsigned getVecWidth() { return getVec().value_or(1); }
    RankedTensorType getTileType() { return cast<RankedTensorType>(getTile()); }
  }];
}

def RocDSL_AsyncCommitOp : RocDSL_Op<"async_commit"> {
  let summary = "Close the group of this lane's async copies issued so far";
  let assemblyFormat = "attr-dict";
}

def RocDSL_AsyncWaitOp : RocDSL_Op<"async_wait"> {
  let summary = "Wait until at most `pending` committed copy groups are in flight";
  let description = [{
    Counts this lane's groups closed by `rocdsl.async_commit`, most recent
    last: `pending = 0` waits for every copy; `pending = N` lets the N
    newest groups run on. A workgroup barrier after it makes the other
    lanes' completed copies visible.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<7>]>:$pending);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Expert escape hatches
//===----------------------------------------------------------------------===//

def RocDSL_WarpIdOp : RocDSL_Op<"warp_id", [Pure]> {
  let summary = "Index of this wave (warp) within its program instance";
  let description = [{
    `%w = rocdsl.warp_id : i32`: 0 for the program's first wave (lanes 0 to
    wave size - 1), up to `num_warps - 1`; the same in every lane of a wave.
    The host runs a program as one thread and rejects it.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def RocDSL_SetPriorityOp : RocDSL_Op<"set_priority"> {
  let summary = "Set this wave's instruction-issue priority (AMDGPU s_setprio)";
  let description = [{
    `rocdsl.set_priority {priority = 1 : i32}` (0 to 3): while several waves
    of one SIMD have instructions ready, the higher priority issues first
    (`s_setprio`). Ping-pong schedules raise it around a wave's cluster of
    matrix instructions so that it is not delayed by the other wave's
    memory instructions. A hint: other targets drop it.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<3>]>:$priority);
  let assemblyFormat = "attr-dict";
}

def RocDSL_BarrierOp : RocDSL_Op<"barrier"> {
  let summary = "Workgroup barrier (all waves; LDS writes become visible)";
  let description = [{
    Every wave of the program waits here until all have arrived; LDS writes
    before it are visible to every wave after it.

    `rocdsl.barrier {unaligned}` may be met by waves standing at different
    barrier ops of the kernel: a schedule that keeps two halves of its
    waves a barrier apart (the gemm's `pingpong`) pairs one half's barrier
    in a loop with the other half's before or after it. The hardware
    counts arrivals either way, but PTX's `bar.sync` promises that every
    thread executes the same instruction, so on NVIDIA an unaligned
    barrier is `barrier.sync 0` (no `.aligned`); AMDGPU's `s_barrier`
    makes no such promise and is the same for both.
  }];
  let arguments = (ins UnitAttr:$unaligned);
  let assemblyFormat = "attr-dict";
}

def RocDSL_WaitOp : RocDSL_Op<"wait"> {
  let summary = "Explicit hardware wait on outstanding memory operations";
  let description = [{
    Waits until at most `vmcnt` vector-memory and `lgkmcnt` LDS/scalar-memory
    operations are outstanding (absent counters are not waited on). Lowers to
    one `s_waitcnt` that the backend keeps (it may only strengthen it).

    ```mlir
    rocdsl.wait {vmcnt = 2 : i32}
    ```
  }];
  let arguments = (ins OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<63>]>>:$vmcnt,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<15>]>>:$lgkmcnt);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def RocDSL_SchedBarrierOp : RocDSL_Op<"sched_barrier"> {
  let summary = "Stop the backend scheduler moving instructions across this point";
  let description = [{
    `mask` says which instruction classes may still cross (0: none), as in
    `llvm.amdgcn.sched.barrier`.
  }];
  let arguments = (ins DefaultValuedAttr<I32Attr, "0">:$mask);
  let assemblyFormat = "attr-dict";
}

def RocDSL_SchedGroupBarrierOp : RocDSL_Op<"sched_group_barrier"> {
  let summary = "Ask the backend scheduler for a group of one instruction class here";
  let description = [{
    As `llvm.amdgcn.sched.group.barrier`: the scheduler fills a group of up
    to `size` instructions of the classes in `mask` (0x2 VALU, 0x4 SALU,
    0x8 MFMA, 0x10 any VMEM, 0x20 VMEM read, 0x40 VMEM write, 0x80 any DS,
    0x100 DS read, 0x200 DS write, 0x400 transcendental) at this point of
    its scheduling region; consecutive groups of one `sync_id` are filled
    in order, so a sequence of them interleaves classes (one MFMA, one LDS
    read, one global load, ...). AMDGPU only: other targets drop it.

    ```mlir
    rocdsl.sched_group_barrier {mask = 8 : i32, size = 1 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<2047>]>:$mask,
                       ConfinedAttr<I32Attr, [IntMinValue<1>]>:$size,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntMinValue<0>]>, "0">:$sync_id);
  let assemblyFormat = "attr-dict";
}

#endif // ROCDSL_OPS_TD
