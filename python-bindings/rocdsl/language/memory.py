"""rl.load and rl.store: tiles addressed structurally (see docs/dialect.md).

Element `idx` of a tile lives at ptr[sum((origin + idx) * stride)], with
the innermost stride 1 and `strides` giving the leading ones. `bounds`
(extents of the whole array, one per dimension) and `mask` (an i1 tile,
broadcast to the tile's shape) switch elements off: loads give `other`
(0 by default), stores skip them. Without `vec` the compiler picks the
widest access the launch facts prove (rocdsl-infer-vector-width: 128-bit
where pointers are aligned, sizes divisible and masks uniform); `vec` is
the author's promise that groups of `vec` innermost elements are
contiguous and aligned (vec=1 forces element accesses); the verifier
checks it against the layout.
"""
from .. import ir, layouts
from ..errors import error
from . import tracing
from .values import (Pointer, Scalar, Tile, as_scalar, broadcast_to,
                     make_tile, new_tile_type, splat, unify)


def _pointer(p, what):
    if not isinstance(p, Pointer):
        raise error(f"{what} needs a pointer argument (`NAME: rl.ptr(...)`), "
                    f"got {type(p).__name__}")
    return p


def _strides(strides, rank, inner=False):
    """The leading strides; with `inner` (rl.atomic_add) a full list, the
    innermost stride included, is kept as given."""
    if strides is None:
        strides = []
    if not isinstance(strides, (list, tuple)):
        strides = [strides]
    strides = list(strides)
    # A full list whose innermost stride is literally 1 is accepted too.
    if len(strides) == rank and rank and tracing.is_int(strides[-1]) \
            and strides[-1] == 1:
        strides.pop()
    if inner and len(strides) == rank:
        return [tracing.index(s, "a stride") for s in strides]
    if inner and len(strides) != rank - 1:
        raise error(f"strides lists the {rank - 1} leading stride(s) of a "
                    f"rank-{rank} tile, or all {rank} (the innermost too), "
                    f"got {len(strides)}")
    if len(strides) != rank - 1:
        raise error(f"strides lists the {rank - 1} leading stride(s) of a "
                    f"rank-{rank} tile (the innermost stride is 1), got "
                    f"{len(strides)}")
    return [tracing.index(s, "a stride") for s in strides]


def _bounds(bounds, rank):
    if bounds is None:
        return []
    return tracing.index_list(bounds, rank, "bounds")


def _vec(vec):
    if vec is None:
        return None
    vec = tracing.static_int(vec, "vec")
    if vec < 1 or vec & (vec - 1):
        raise error(f"vec must be a power of two, got {vec}")
    return vec


def _mask(mask, shape, layout):
    """The mask as an i1 tile of the access's shape and layout."""
    if mask is None:
        return None
    if isinstance(mask, Scalar):
        if mask.dtype != "i1":
            raise error(f"mask must be i1 (a comparison), got "
                        f"{mask.describe()}")
        return splat(mask, shape, layout)
    if not isinstance(mask, Tile) or mask.dtype != "i1":
        raise error("mask must be an i1 tile (a comparison such as "
                    "`cols < n`)")
    mask = broadcast_to(mask, shape)
    unify(mask.type.layout, layout, "the mask and the accessed tile")
    return mask


def _addressing(ptr, origin, shape, strides, bounds, mask, layout, vec,
                inner_stride=False):
    rank = len(shape)
    pieces = [ptr.value, "["]
    pieces += tracing.joined(tracing.index_list(origin, rank, "origin"))
    pieces.append("]")
    strides = _strides(strides, rank, inner_stride)
    if strides:
        pieces += [" strides ["] + tracing.joined(strides) + ["]"]
    bounds = _bounds(bounds, rank)
    if bounds:
        pieces += [" bounds ["] + tracing.joined(bounds) + ["]"]
    mask = _mask(mask, shape, layout)
    if mask is not None:
        pieces += [" mask(", mask.value, " : ", mask.value.type, ")"]
    return pieces, _vec(vec)


def load(ptr, origin, shape, strides=None, bounds=None, mask=None,
         other=None, vec=None, layout=None):
    """Loads a `shape` tile whose element [0, ...] is ptr[origin]."""
    ptr = _pointer(ptr, "rl.load")
    shape = tracing.static_shape(shape, "load shape")
    tile_type = new_tile_type(shape, ptr.dtype, layout)
    pieces, vec = _addressing(ptr, origin, shape, strides, bounds, mask,
                              tile_type.layout, vec)
    if vec is not None:
        layouts.add_member(tile_type.layout, shape, ir.DTYPE_BITS[ptr.dtype],
                           True, vec)
    if other is not None:
        other = as_scalar(other, ptr.dtype, "the load's `other`")
        pieces += [" other(", other.value, f" : {ptr.dtype})"]
    if vec is not None:
        pieces.append(f" {{vec = {vec} : i32}}")
    pieces += [" : ", ir.PtrType(ptr.dtype), " -> ", tile_type]
    b = tracing.builder()
    return make_tile(b.op(tile_type, "rocdsl.load ", *pieces), memory=True)


def _written(value, ptr, op, verb, gerund):
    """`ptr` checked as the pointer an op writes through, and `value` as a
    tile of its element type."""
    ptr = _pointer(ptr, op)
    if not isinstance(value, Tile):
        raise error(f"{op} {verb} a tile, got {type(value).__name__}; "
                    "make one with rl.full")
    if value.dtype != ptr.dtype:
        raise error(f"{gerund} {value.describe()} through {ptr.describe()}; "
                    f"convert with .to({str(ptr.dtype)!r})")
    return ptr


def store(value, ptr, origin, strides=None, bounds=None, mask=None,
          vec=None):
    """Stores tile `value` so that its element [0, ...] lands at ptr[origin]."""
    ptr = _written(value, ptr, "rl.store", "stores", "storing")
    pieces, vec = _addressing(ptr, origin, value.shape, strides, bounds, mask,
                              value.type.layout, vec)
    # The access's element width (and explicit vec) count when the layout
    # is chosen.
    layouts.add_member(value.type.layout, value.shape,
                       ir.DTYPE_BITS[value.type.dtype], layouts.STORE, vec)
    if vec is not None:
        pieces.append(f" {{vec = {vec} : i32}}")
    pieces += [" : ", value.type, ", ", ir.PtrType(ptr.dtype)]
    tracing.builder().op(None, "rocdsl.store ", value.value, ", ", *pieces)


def atomic_add(value, ptr, origin, strides=None, bounds=None, mask=None):
    """Adds f32 or i32 tile `value` into memory at ptr[origin] (addressed as
    rl.store), each valid element in one atomic update (rocdsl.atomic_add):
    programs may add into the same elements at once. `strides` may also
    list every dimension's stride, the innermost too (e.g. [1, rows] adds
    a tile transposed). Relaxed: a later rl.program_atomic of the program
    publishes the sums; float sums come out in an order that can differ
    between runs."""
    ptr = _written(value, ptr, "rl.atomic_add", "adds", "adding")
    if str(value.dtype) not in ("f32", "i32"):
        raise error(f"rl.atomic_add adds f32 or i32 elements, got "
                    f"{value.describe()}; accumulate in f32")
    pieces, _ = _addressing(ptr, origin, value.shape, strides, bounds, mask,
                            value.type.layout, None, inner_stride=True)
    layouts.add_member(value.type.layout, value.shape,
                       ir.DTYPE_BITS[value.type.dtype], layouts.STORE, 1)
    pieces += [" : ", value.type, ", ", ir.PtrType(ptr.dtype)]
    tracing.builder().op(None, "rocdsl.atomic_add ", value.value, ", ",
                         *pieces)


_PROGRAM_ATOMIC_KINDS = ("add", "xchg", "max")


def program_atomic(kind, ptr, index, value):
    """One update of the i32 at ptr[index] for the whole program
    (rocdsl.program_atomic): "add", "xchg" or signed "max"; returns the
    value before it. Everything the program's lanes wrote before it is
    visible to a program that reads its update through its own
    program_atomic, from that call on: the last of G programs to arrive
    (`rl.program_atomic("add", count, 0, 1) == G - 1`) sees every other
    program's results. Every lane must reach it."""
    ptr = _pointer(ptr, "rl.program_atomic")
    if kind not in _PROGRAM_ATOMIC_KINDS:
        raise error(f"rl.program_atomic kind must be one of "
                    f"{', '.join(_PROGRAM_ATOMIC_KINDS)}, got {kind!r}")
    if str(ptr.dtype) != "i32":
        raise error(f"rl.program_atomic updates an i32, got "
                    f"{ptr.describe()}")
    index = tracing.index(index, "the program_atomic index")
    value = as_scalar(value, "i32", "the program_atomic value")
    return Scalar(tracing.builder().op(
        "i32", f"rocdsl.program_atomic {kind} ", ptr.value, "[", index,
        "], ", value.value, " : ", ir.PtrType(ptr.dtype)))
