"""The kernel being traced, and conversions every op needs.

Ops of rocdsl.language append to the Builder of the kernel being traced;
outside a trace they raise, since there is nothing to emit into.
"""
import contextlib
import numbers
import threading

from ..errors import CompilationError, error

_state = threading.local()  # each thread traces its own kernels


def _builders():
    stack = getattr(_state, "builders", None)
    if stack is None:
        stack = _state.builders = []
    return stack


@contextlib.contextmanager
def tracing(builder):
    stack = _builders()
    stack.append(builder)
    try:
        yield builder
    finally:
        stack.pop()


def builder():
    stack = _builders()
    if not stack:
        raise CompilationError(
            "rocdsl.language ops run only while a @rocdsl.kernel function "
            "is traced (launch it with kernel[grid](...) or call kernel.ir())")
    return stack[-1]


def is_int(x):
    """Python and NumPy integers (constexprs may be either), not bools."""
    return type(x) is int or (isinstance(x, numbers.Integral)
                              and not isinstance(x, bool))


def is_float(x):
    return isinstance(x, numbers.Real) and not is_int(x) \
        and not isinstance(x, bool)


def static_int(x, what):
    """A trace-time Python int, or a CompilationError naming `what`."""
    from .values import Scalar
    if is_int(x):
        return int(x)
    if isinstance(x, Scalar):
        raise error(f"{what} must be known when the kernel is traced, but "
                    f"{x.describe()} is a run-time value; make it a "
                    f"constexpr parameter (`NAME: rl.constexpr`)")
    raise error(f"{what} must be a Python int, got {type(x).__name__}")


def static_shape(shape, what="shape"):
    if is_int(shape):
        shape = [shape]
    if not isinstance(shape, (list, tuple)) or not shape:
        raise error(f"{what} must be a non-empty list of ints, got {shape!r}")
    dims = tuple(static_int(d, what) for d in shape)
    for d in dims:
        if d <= 0:
            raise error(f"{what} {list(dims)} has a non-positive dimension")
    return dims


def index(x, what):
    """An i32 ir.Value from an int or an i32 scalar (origins, bounds,
    strides, loop bounds)."""
    from .values import Scalar
    if isinstance(x, Scalar):
        if x.dtype != "i32":
            raise error(f"{what} must be i32, got a {x.dtype} scalar")
        return x.value
    if is_int(x):
        return builder().constant(int(x), "i32")
    raise error(f"{what} must be an int or an i32 scalar, got "
                f"{type(x).__name__}")


def index_list(xs, count, what):
    if xs is None:
        xs = []
    if not isinstance(xs, (list, tuple)):
        xs = [xs]
    if len(xs) != count:
        raise error(f"{what} needs {count} entries, got {len(xs)}")
    return [index(x, what) for x in xs]


def joined(values):
    """Pieces printing `values` separated by commas."""
    pieces = []
    for i, v in enumerate(values):
        if i:
            pieces.append(", ")
        pieces.append(v)
    return pieces
