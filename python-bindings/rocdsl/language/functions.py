"""Function forms of the elementwise math, reduction and shape methods."""
from .values import (binary, broadcast_to as _broadcast_to,
                     expand_dims as _expand, maximum, minimum, trans,
                     reduce as _reduce, unary, where)


def exp(x): return unary("exp", x)
def exp2(x): return unary("exp2", x)
def log(x): return unary("log", x)


# Math with a chosen accuracy, whatever the kernel's fast_math default
# (docs/python.md, "Math"):
def div_rn(x, y):
    """x / y correctly rounded (IEEE) on every target."""
    return binary("/", x, y, flags="")


def fast_div(x, y):
    """x / y approximated: div.approx.f32 (NVIDIA), v_rcp_f32 * x (AMD)."""
    return binary("/", x, y, flags="afn")


def exp_accurate(x):
    """exp(x) with the target's accurate (range-reduced) lowering."""
    return unary("exp", x, flags="")


def fast_exp(x):
    """exp(x) as the hardware's exp2(x * log2 e): v_exp_f32, ex2.approx."""
    return unary("exp", x, flags="afn")


def sqrt(x): return unary("sqrt", x)
def rsqrt(x): return unary("rsqrt", x)
def abs(x): return unary("abs", x)


def sum(x, axis=None, keepdims=False): return _reduce(x, "sum", axis, keepdims)
def prod(x, axis=None, keepdims=False): return _reduce(x, "prod", axis, keepdims)
def max(x, axis=None, keepdims=False): return _reduce(x, "max", axis, keepdims)
def min(x, axis=None, keepdims=False): return _reduce(x, "min", axis, keepdims)


def expand_dims(x, axis): return _expand(x, axis)
def broadcast_to(x, shape): return _broadcast_to(x, shape)


__all__ = ["exp", "exp2", "log", "sqrt", "rsqrt", "abs", "sum", "prod", "max",
           "div_rn", "fast_div", "exp_accurate", "fast_exp",
           "min", "expand_dims", "broadcast_to", "maximum", "minimum", "where",
           "trans"]
