"""Traced values: tiles, uniform scalars and pointers, with their operators.

Operators mirror the C++ DSL's op choices (arith.addf/addi, ..., rocdsl.splat
for a scalar operand, math.exp/rsqrt). Operands must share a dtype; a Python
number takes the other operand's dtype. Tiles broadcast as in NumPy: a
missing leading dimension is added with expand_dims, size-1 dimensions
with broadcast. A tile reduced along an inner axis therefore has to be
expanded explicitly (`m.expand_dims(1)`, `t[:, None]`, or `keepdims=True`).
"""
from .. import ir, layouts
from ..errors import error
from . import tracing
from .types import DTYPES, Layout

_FLOAT = ir.FLOAT_DTYPES

# op: (float op, integer op); None where the dtype has no such op.
_ARITH = {
    "+": ("arith.addf", "arith.addi"),
    "-": ("arith.subf", "arith.subi"),
    "*": ("arith.mulf", "arith.muli"),
    "/": ("arith.divf", None),
    "//": (None, "arith.divsi"),
    "%": (None, "arith.remsi"),
    "&": (None, "arith.andi"),
    "|": (None, "arith.ori"),
    "^": (None, "arith.xori"),
    "maximum": ("arith.maximumf", "arith.maxsi"),
    "minimum": ("arith.minimumf", "arith.minsi"),
}
_MASK_OPS = ("&", "|", "^")
# comparison: (float predicate, integer predicate); floats compare ordered
# (false with a NaN) except !=.
_COMPARE = {
    "<": ("olt", "slt"), "<=": ("ole", "sle"), ">": ("ogt", "sgt"),
    ">=": ("oge", "sge"), "==": ("oeq", "eq"), "!=": ("une", "ne"),
}
_REDUCE_KINDS = {"sum": "add", "prod": "mul", "max": "max", "min": "min"}


class _Traced:
    """What tiles and scalars share: operators and the errors for Python
    uses that have no meaning on run-time values."""
    __slots__ = ()
    __hash__ = None

    def __add__(self, o): return binary("+", self, o)
    def __radd__(self, o): return binary("+", o, self)
    def __sub__(self, o): return binary("-", self, o)
    def __rsub__(self, o): return binary("-", o, self)
    def __mul__(self, o): return binary("*", self, o)
    def __rmul__(self, o): return binary("*", o, self)
    def __truediv__(self, o): return binary("/", self, o)
    def __rtruediv__(self, o): return binary("/", o, self)
    def __floordiv__(self, o): return binary("//", self, o)
    def __rfloordiv__(self, o): return binary("//", o, self)
    def __mod__(self, o): return binary("%", self, o)
    def __rmod__(self, o): return binary("%", o, self)
    def __and__(self, o): return binary("&", self, o)
    def __rand__(self, o): return binary("&", o, self)
    def __or__(self, o): return binary("|", self, o)
    def __ror__(self, o): return binary("|", o, self)
    def __xor__(self, o): return binary("^", self, o)
    def __rxor__(self, o): return binary("^", o, self)
    def __lt__(self, o): return binary("<", self, o)
    def __le__(self, o): return binary("<=", self, o)
    def __gt__(self, o): return binary(">", self, o)
    def __ge__(self, o): return binary(">=", self, o)
    def __eq__(self, o): return binary("==", self, o)
    def __ne__(self, o): return binary("!=", self, o)
    def __neg__(self): return negate(self)
    def __pos__(self): return self
    def __invert__(self): return invert(self)
    def __abs__(self): return unary("abs", self)

    def __pow__(self, o): raise _unsupported("**")
    __rpow__ = __pow__
    def __lshift__(self, o): raise _unsupported("<<")
    __rlshift__ = __lshift__
    def __rshift__(self, o): raise _unsupported(">>")
    __rrshift__ = __rshift__

    def __bool__(self):
        raise error(f"{self.describe()} has no truth value while the kernel "
                    "is traced: Python `if`/`while`/`and`/`or` on run-time "
                    "values are not supported; use masks or rl.where")

    def __index__(self):
        raise error(f"{self.describe()} is a run-time value and cannot be "
                    "used as a Python int; make it a constexpr parameter "
                    "(`NAME: rl.constexpr`)")
    __int__ = __index__

    def __float__(self):
        raise error(f"{self.describe()} is a run-time value and cannot be "
                    "used as a Python float")

    def __iter__(self):
        raise error(f"cannot iterate over {self.describe()}; loop with "
                    "rl.for_loop, or over a constexpr range")

    def to(self, target):
        return cast(self, target)

    def exp(self): return unary("exp", self)
    def exp2(self): return unary("exp2", self)
    def log(self): return unary("log", self)
    def sqrt(self): return unary("sqrt", self)
    def rsqrt(self): return unary("rsqrt", self)
    def abs(self): return unary("abs", self)


def _unsupported(op):
    return error(f"operator {op} is not supported on tiles and scalars")


class Scalar(_Traced):
    """A uniform (per program) i32, f32, f16, bf16 or i1 value."""
    __slots__ = ("value", "name")

    def __init__(self, value, name=None):
        self.value = value  # ir.Value with a dtype str type
        self.name = name    # the kernel parameter it came from, if any

    @property
    def dtype(self):
        return DTYPES[self.value.type]

    def describe(self):
        if self.name:
            return f"`{self.name}` (a {self.dtype} argument)"
        return f"a {self.dtype} scalar"

    def __repr__(self):
        return f"Scalar({self.dtype})"


class Tile(_Traced):
    """A tile: a statically shaped block of values spread over the program's
    lanes. Shape and dtype are known when tracing."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value  # ir.Value with an ir.TileType

    @property
    def type(self):
        return self.value.type

    @property
    def shape(self):
        return self.value.type.shape

    @property
    def dtype(self):
        return DTYPES[self.value.type.dtype]

    @property
    def ndim(self):
        return len(self.value.type.shape)

    @property
    def layout(self):
        """This tile's layout, to give another tile the same one."""
        return Layout(self.value.type.layout)

    def describe(self):
        return f"a {list(self.shape)} {self.dtype} tile"

    def __repr__(self):
        return f"Tile({list(self.shape)}, {self.dtype})"

    def __len__(self):
        return self.shape[0]

    def __matmul__(self, other):
        from .dot import dot
        return dot(self, other)

    def sum(self, axis=None, keepdims=False):
        return reduce(self, "sum", axis, keepdims)

    def prod(self, axis=None, keepdims=False):
        return reduce(self, "prod", axis, keepdims)

    def max(self, axis=None, keepdims=False):
        return reduce(self, "max", axis, keepdims)

    def min(self, axis=None, keepdims=False):
        return reduce(self, "min", axis, keepdims)

    def expand_dims(self, axis):
        return expand_dims(self, axis)

    def broadcast_to(self, shape):
        return broadcast_to(self, shape)

    @property
    def T(self):
        return trans(self)

    def __getitem__(self, index):
        """`t[:, None]` and `t[None, :]` insert unit dimensions."""
        if not isinstance(index, tuple):
            index = (index,)
        kept = sum(1 for i in index if i is not None)
        if kept > self.ndim:
            raise error(f"too many indices for {self.describe()}")
        result, dim = self, 0
        for i in index:
            if i is None:
                result = expand_dims(result, dim)
            elif not (isinstance(i, slice) and i == slice(None)):
                raise error("tiles support only `:` and `None` indices "
                            "(to add unit dimensions); address memory "
                            "with rl.load")
            dim += 1
        return result


class Pointer:
    """A pointer kernel argument. Tiles are addressed from it with the
    origin, strides and bounds of rl.load and rl.store."""
    __slots__ = ("value", "name")

    def __init__(self, value, name):
        self.value = value
        self.name = name

    @property
    def dtype(self):
        return DTYPES[self.value.type.dtype]

    def describe(self):
        return f"`{self.name}` (a ptr<{self.dtype}>)"

    def __repr__(self):
        return f"Pointer({self.name}: ptr<{self.dtype}>)"

    def _no_arithmetic(self, *_):
        raise error("pointer arithmetic is not supported: address tiles "
                    "with the origin and strides of rl.load / rl.store")
    __add__ = __radd__ = __sub__ = __mul__ = __getitem__ = _no_arithmetic


# Construction ---------------------------------------------------------------

def make_tile(value, memory=False):
    t = value.type
    layouts.add_member(t.layout, t.shape, ir.DTYPE_BITS[t.dtype], memory)
    return Tile(value)


def new_tile_type(shape, dtype, layout=None):
    """A tile type with a fresh layout variable, bound to `layout` if
    given (a Layout)."""
    var = layouts.Var()
    if layout is not None:
        if not isinstance(layout, Layout):
            raise error(f"layout= takes an rl.Layout (rl.blocked(...), "
                        f"tile.layout, layout.slice(d)), got "
                        f"{type(layout).__name__}")
        unify(var, layout.var(), "the requested layout")
    return ir.TileType(shape, dtype, var)


def unify(a, b, what):
    try:
        layouts.unify(a, b)
    except layouts.LayoutConflict as e:
        raise error(f"incompatible layouts for {what}: {e}") from None


def scalar_const(x, dtype):
    return Scalar(tracing.builder().constant(x, dtype))


def as_scalar(x, dtype, what):
    """`x` (a Scalar or a Python number) as a Scalar of `dtype`."""
    if isinstance(x, Scalar):
        if x.dtype != dtype:
            raise error(f"dtype mismatch in {what}: {x.describe()} with "
                        f"{dtype}; convert with .to({dtype!r})")
        return x
    if isinstance(x, bool):
        if dtype != "i1":
            raise error(f"a bool constant in {what} needs an i1 operand, "
                        f"got {dtype}")
        return scalar_const(x, "i1")
    if tracing.is_int(x):
        if dtype == "i1":
            raise error(f"an int constant in {what} with an i1 mask")
        return scalar_const(x if dtype == "i32" else float(x), dtype)
    if tracing.is_float(x):
        if dtype not in _FLOAT:
            raise error(f"a float constant in {what} with a {dtype} value; "
                        f"convert with .to('f32') first")
        return scalar_const(x, dtype)
    if isinstance(x, Pointer):
        raise error(f"{x.describe()} cannot be an operand of {what}")
    raise error(f"unsupported operand of type {type(x).__name__} in {what}")


def splat(scalar, shape, var):
    t = ir.TileType(shape, scalar.value.type, var)
    return make_tile(tracing.builder().op(
        t, "rocdsl.splat ", scalar.value, f" : {scalar.value.type} -> ", t))


# Shape ops ------------------------------------------------------------------

def expand_dims(t, axis):
    """Inserts a unit dimension at `axis`; the tile's layout must be the
    slice along `axis` (as a reduction along `axis` produces)."""
    axis = tracing.static_int(axis, "expand_dims axis")
    rank = t.ndim
    if axis < 0:
        axis += rank + 1
    if not 0 <= axis <= rank:
        raise error(f"expand_dims axis {axis} out of range for "
                    f"{t.describe()}")
    shape = t.shape[:axis] + (1,) + t.shape[axis:]
    result = ir.TileType(shape, t.type.dtype, layouts.Var())
    try:
        layouts.unify(t.type.layout, layouts.sliced(axis, result.layout))
    except layouts.LayoutConflict:
        dim = layouts.slice_dim(t.type.layout)
        hint = (f"it was reduced along axis {dim}: use expand_dims({dim})"
                if dim is not None else
                "its layout is not a slice along that axis")
        raise error(f"cannot insert a dimension at axis {axis} into "
                    f"{t.describe()}: {hint}") from None
    return make_tile(tracing.builder().op(
        result, "rocdsl.expand_dims ", t.value,
        f" {{axis = {axis} : i32}} : ", t.type, " -> ", result))


def trans(t):
    """The transpose of a 2-D tile (t.T). The result takes its own layout;
    where that is the source's with the dimensions swapped no data moves,
    else the lowering goes through LDS."""
    if not isinstance(t, Tile) or t.ndim != 2:
        raise error(f"trans takes a 2-D tile, got "
                    f"{getattr(t, 'describe', lambda: repr(t))()}")
    result = ir.TileType((t.shape[1], t.shape[0]), t.type.dtype, layouts.Var())
    return make_tile(tracing.builder().op(
        result, "rocdsl.trans ", t.value, " : ", t.type, " -> ", result))


def broadcast_to(t, shape):
    """Broadcasts as NumPy does (leading dimensions added, size-1 dimensions
    repeated)."""
    shape = tracing.static_shape(shape, "broadcast_to shape")
    if len(shape) < t.ndim:
        raise error(f"cannot broadcast {t.describe()} to {list(shape)}")
    while t.ndim < len(shape):
        t = expand_dims(t, 0)
    for have, want in zip(t.shape, shape):
        if have != want and have != 1:
            raise error(f"cannot broadcast {t.describe()} to {list(shape)}")
    if t.shape == shape:
        return t
    result = ir.TileType(shape, t.type.dtype, t.type.layout)
    return make_tile(tracing.builder().op(
        result, "rocdsl.broadcast ", t.value, " : ", t.type, " -> ", result))


def broadcast_shapes(shapes, what):
    rank = max(len(s) for s in shapes)
    out = [1] * rank
    for s in shapes:
        for i, d in enumerate((1,) * (rank - len(s)) + tuple(s)):
            if d != 1:
                if out[i] not in (1, d):
                    raise error(f"shape mismatch in {what}: "
                                + " vs ".join(str(list(x)) for x in shapes))
                out[i] = d
    return tuple(out)


def broadcast_tiles(tiles, what):
    """Tiles broadcast to one shape and one layout."""
    shape = broadcast_shapes([t.shape for t in tiles], what)
    out = [broadcast_to(t, shape) for t in tiles]
    for t in out[1:]:
        unify(out[0].type.layout, t.type.layout, f"the operands of {what}")
    return out


def like(x, shape_tile, what):
    """`x` (tile, scalar or number) as a tile of `shape_tile`'s shape,
    layout and dtype."""
    if isinstance(x, Tile):
        return broadcast_tiles([x, shape_tile], what)[0]
    s = as_scalar(x, shape_tile.dtype, what)
    return splat(s, shape_tile.shape, shape_tile.type.layout)


# Elementwise ----------------------------------------------------------------

def _operands(op, x, y):
    """Both operands as tiles of one shape/layout, or both as scalars."""
    what = f"'{op}'"
    if isinstance(x, Tile) and isinstance(y, Tile):
        if x.dtype != y.dtype:
            raise error(f"dtype mismatch in {what}: {x.describe()} and "
                        f"{y.describe()}; convert one with .to()")
        return broadcast_tiles([x, y], what)
    if isinstance(x, Tile):
        return x, like(y, x, what)
    if isinstance(y, Tile):
        return like(x, y, what), y
    dtype = x.dtype if isinstance(x, Scalar) else y.dtype
    return as_scalar(x, dtype, what), as_scalar(y, dtype, what)


def _wrap(value):
    return make_tile(value) if type(value.type) is ir.TileType else Scalar(value)


def binary(op, x, y, flags=None):
    """x op y. `flags` (fast-math flags, e.g. "afn") apply to float ops;
    None takes the kernel's default for `/` (see ir.Builder)."""
    x, y = _operands(op, x, y)
    dtype = x.dtype
    type_ = x.value.type
    b = tracing.builder()
    if op in _COMPARE:
        pred = _COMPARE[op][0 if dtype in _FLOAT else 1]
        if dtype == "i1" and op not in ("==", "!="):
            raise error(f"'{op}' on i1 masks; compare with == or != only")
        name = "arith.cmpf" if dtype in _FLOAT else "arith.cmpi"
        result = (type_.with_dtype("i1") if type(type_) is ir.TileType
                  else "i1")
        return _wrap(b.op(result, f"{name} {pred}, ", x.value, ", ", y.value,
                          " : ", type_))
    if dtype == "i1" and op not in _MASK_OPS:
        raise error(f"'{op}' on i1 masks; convert with .to('i32') first")
    name = _ARITH[op][0 if dtype in _FLOAT else 1]
    if name is None:
        hint = {"/": "use // for integer division (truncates toward zero)",
                "//": "use / for float division"}.get(op, "")
        raise error(f"'{op}' is not defined for {dtype}"
                    + (f"; {hint}" if hint else ""))
    if flags is None and op == "/" and dtype == "f32" and b.fast_div:
        flags = "arcp"
    elif flags is None and op in _CONTRACTIBLE and b.contract:
        flags = "contract"
    math = f" fastmath<{flags}>" if flags and dtype in _FLOAT else ""
    return _wrap(b.op(type_, f"{name} ", x.value, ", ", y.value, math, " : ",
                      type_))


# Float ops that may fuse into an fma (fastmath<contract>).
_CONTRACTIBLE = ("+", "-", "*")

_UNARY = {"exp": "math.exp", "exp2": "math.exp2", "log": "math.log",
          "sqrt": "math.sqrt", "rsqrt": "math.rsqrt", "abs": "math.absf"}


def _traced(x, what):
    if not isinstance(x, (Tile, Scalar)):
        raise error(f"{what} takes a tile or a scalar, got "
                    f"{type(x).__name__}")
    return x


def unary(fn, x, flags=None):
    """fn(x); `flags` as for binary (None: the kernel's default for exp)."""
    x = _traced(x, fn)
    if x.dtype not in _FLOAT:
        if fn == "abs" and x.dtype == "i32":
            name = "math.absi"
        else:
            raise error(f"{fn} needs a float operand, got {x.describe()}; "
                        f"convert with .to('f32')")
    else:
        name = _UNARY[fn]
    type_ = x.value.type
    b = tracing.builder()
    if (flags is None and fn in ("exp", "exp2") and x.dtype == "f32" and
            b.fast_exp):
        flags = "afn"
    math = f" fastmath<{flags}>" if flags else ""
    return _wrap(b.op(type_, f"{name} ", x.value, math, " : ", type_))


def negate(x):
    if x.dtype in _FLOAT:
        type_ = x.value.type
        return _wrap(tracing.builder().op(type_, "arith.negf ", x.value,
                                          " : ", type_))
    return binary("-", 0, x)


def invert(x):
    if x.dtype == "i1":
        return binary("^", x, True)
    if x.dtype == "i32":
        return binary("^", x, -1)
    raise error(f"'~' needs an i1 or i32 operand, got {x.describe()}")


def where(cond, x, y):
    """Elementwise `x if cond else y` (arith.select); all three broadcast."""
    if not isinstance(cond, (Tile, Scalar)) or cond.dtype != "i1":
        raise error("rl.where needs an i1 condition (a comparison)")
    traced = [v for v in (x, y) if isinstance(v, (Tile, Scalar))]
    if not traced:
        raise error("rl.where needs a tile or a scalar among its values")
    dtype = traced[0].dtype
    for v in traced:
        if v.dtype != dtype:
            raise error(f"dtype mismatch in rl.where: {traced[0].describe()} "
                        f"and {v.describe()}")
    operands = [cond, x, y]
    tiles = [v for v in operands if isinstance(v, Tile)]
    if tiles:
        tiles = iter(broadcast_tiles(tiles, "rl.where"))
        operands = [next(tiles) if isinstance(v, Tile) else v
                    for v in operands]
        shape_tile = next(v for v in operands if isinstance(v, Tile))
        operands = [v if isinstance(v, Tile) else
                    splat(as_scalar(v, "i1" if i == 0 else dtype, "rl.where"),
                          shape_tile.shape, shape_tile.type.layout)
                    for i, v in enumerate(operands)]
        cond, x, y = operands
        types = (" : ", cond.value.type, ", ", x.value.type)
    else:
        x, y = as_scalar(x, dtype, "rl.where"), as_scalar(y, dtype, "rl.where")
        types = (" : ", x.value.type)
    return _wrap(tracing.builder().op(x.value.type, "arith.select ",
                                      cond.value, ", ", x.value, ", ",
                                      y.value, *types))


def maximum(x, y):
    return binary("maximum", x, y)


def minimum(x, y):
    return binary("minimum", x, y)


# Casts ----------------------------------------------------------------------

def cast(x, target):
    """Converts the element type: float<->float (extf/truncf), i32<->float
    (sitofp/fptosi), i1->i32/float (extui/uitofp), anything->i1 (!= 0)."""
    x = _traced(x, ".to()")
    target = str(target)
    if target not in DTYPES:
        raise error(f"unknown dtype {target!r} (one of {', '.join(DTYPES)})")
    source = x.dtype
    if source == target:
        return x
    if target == "i1":
        return binary("!=", x, 0)
    if source in _FLOAT and target in _FLOAT:
        if ir.DTYPE_BITS[source] == ir.DTYPE_BITS[target]:  # f16 <-> bf16
            return cast(cast(x, "f32"), target)
        name = ("arith.extf" if ir.DTYPE_BITS[target] > ir.DTYPE_BITS[source]
                else "arith.truncf")
    elif source == "i32":
        name = "arith.sitofp"
    elif target == "i32" and source in _FLOAT:
        name = "arith.fptosi"
    elif source == "i1":
        name = "arith.extui" if target == "i32" else "arith.uitofp"
    else:
        raise error(f"cannot convert {source} to {target}")
    src_type = x.value.type
    dst_type = (src_type.with_dtype(target) if type(src_type) is ir.TileType
                else target)
    return _wrap(tracing.builder().op(dst_type, f"{name} ", x.value, " : ",
                                      src_type, " to ", dst_type))


# Reductions -----------------------------------------------------------------

def reduce(t, fn, axis=None, keepdims=False):
    """sum/prod/max/min along `axis`. The result's layout is the slice of
    the operand's; a 1-D tile reduces to a scalar. axis=None reduces every
    axis to a scalar."""
    if not isinstance(t, Tile):
        raise error(f"{fn} reduces a tile, got {type(t).__name__}")
    if t.dtype == "i1":
        raise error(f"{fn} of an i1 mask; convert with .to('i32') first")
    if axis is None:
        if keepdims:
            raise error("keepdims needs an axis")
        while t.ndim > 1:
            t = reduce(t, fn, t.ndim - 1)
        return reduce(t, fn, 0)
    axis = tracing.static_int(axis, f"{fn} axis")
    rank = t.ndim
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise error(f"{fn} axis {axis} out of range for {t.describe()}")
    kind = _REDUCE_KINDS[fn]
    b = tracing.builder()
    if rank == 1:
        if keepdims:
            raise error("keepdims on a 1-D tile; it reduces to a scalar")
        return Scalar(b.op(t.type.dtype, f"rocdsl.reduce {kind} ", t.value,
                           " {axis = 0 : i32} : ", t.type,
                           f" -> {t.type.dtype}"))
    shape = t.shape[:axis] + t.shape[axis + 1:]
    result_type = ir.TileType(shape, t.type.dtype,
                              layouts.sliced(axis, t.type.layout))
    result = make_tile(b.op(result_type, f"rocdsl.reduce {kind} ", t.value,
                            f" {{axis = {axis} : i32}} : ", t.type, " -> ",
                            result_type))
    return expand_dims(result, axis) if keepdims else result
