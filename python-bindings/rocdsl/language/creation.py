"""Values made from nothing: program ids, iota, constant tiles, barriers."""
from ..errors import error
from . import tracing
from .types import DTYPES
from .values import Scalar, as_scalar, make_tile, new_tile_type, splat

_AXES = "xyz"


def _axis(axis):
    axis = tracing.static_int(axis, "axis")
    if not 0 <= axis <= 2:
        raise error(f"axis must be 0, 1 or 2, got {axis}")
    return _AXES[axis]


def program_id(axis=0):
    """This program's index along grid `axis` (i32)."""
    return Scalar(tracing.builder().op("i32", f"rocdsl.program_id "
                                       f"{_axis(axis)} : i32"))


def warp_id():
    """This wave's (warp's) index in the program, 0 to num_warps - 1 (i32,
    the same in every lane of a wave). Not on the host, which runs a
    program as one thread."""
    return Scalar(tracing.builder().op("i32", "rocdsl.warp_id : i32"))


def num_programs(axis=0):
    """The grid's size along `axis` (i32)."""
    return Scalar(tracing.builder().op("i32", f"rocdsl.num_programs "
                                       f"{_axis(axis)} : i32"))


def iota(n, start=0, layout=None):
    """The 1-D i32 tile [start, start + 1, ..., start + n - 1]."""
    shape = tracing.static_shape([n], "iota size")
    start = tracing.static_int(start, "iota start")
    t = new_tile_type(shape, "i32", layout)
    attr = f" {{start = {start} : i32}}" if start else ""
    return make_tile(tracing.builder().op(t, f"rocdsl.iota{attr} : ", t))


def _dtype(d):
    d = str(d)
    if d not in DTYPES:
        raise error(f"unknown dtype {d!r} (one of {', '.join(DTYPES)})")
    return d


def full(shape, value, dtype=None, layout=None):
    """A tile of `shape` filled with `value` (a scalar or a Python number;
    numbers default to f32 for floats and i32 for ints)."""
    shape = tracing.static_shape(shape)
    if dtype is None:
        if isinstance(value, Scalar):
            dtype = value.dtype
        elif isinstance(value, bool):
            dtype = "i1"
        else:
            dtype = "f32" if tracing.is_float(value) else "i32"
    scalar = as_scalar(value, _dtype(dtype), "rl.full")
    t = new_tile_type(shape, scalar.dtype, layout)
    return splat(scalar, shape, t.layout)


def zeros(shape, dtype="f32", layout=None):
    """A tile of zeros (an arith.constant, as the C++ DSL's zeros)."""
    shape = tracing.static_shape(shape)
    dtype = _dtype(dtype)
    zero = {"i32": "0", "i1": "false"}.get(dtype, "0.0")
    t = new_tile_type(shape, dtype, layout)
    return make_tile(tracing.builder().op(t, f"arith.constant dense<{zero}> : ",
                                          t))


def barrier():
    """Workgroup barrier (rocdsl.barrier); for kernels that order LDS use."""
    tracing.builder().op(None, "rocdsl.barrier")

