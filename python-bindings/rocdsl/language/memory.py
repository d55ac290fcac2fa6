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


def _strides(strides, rank):
    if strides is None:
        strides = []
    if not isinstance(strides, (list, tuple)):
        strides = [strides]
    strides = list(strides)
    # A full list whose innermost stride is literally 1 is accepted too.
    if len(strides) == rank and rank and tracing.is_int(strides[-1]) \
            and strides[-1] == 1:
        strides.pop()
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


def _addressing(ptr, origin, shape, strides, bounds, mask, layout, vec):
    rank = len(shape)
    pieces = [ptr.value, "["]
    pieces += tracing.joined(tracing.index_list(origin, rank, "origin"))
    pieces.append("]")
    strides = _strides(strides, rank)
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


def store(value, ptr, origin, strides=None, bounds=None, mask=None,
          vec=None):
    """Stores tile `value` so that its element [0, ...] lands at ptr[origin]."""
    ptr = _pointer(ptr, "rl.store")
    if not isinstance(value, Tile):
        raise error(f"rl.store stores a tile, got {type(value).__name__}; "
                    "make one with rl.full")
    if value.dtype != ptr.dtype:
        raise error(f"storing {value.describe()} through {ptr.describe()}; "
                    f"convert with .to({str(ptr.dtype)!r})")
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
