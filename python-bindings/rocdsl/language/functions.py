"""Function forms of the elementwise math, reduction and shape methods."""
from .values import (broadcast_to as _broadcast_to, expand_dims as _expand,
                     maximum, minimum, reduce as _reduce, unary, where)


def exp(x): return unary("exp", x)
def exp2(x): return unary("exp2", x)
def log(x): return unary("log", x)
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
           "min", "expand_dims", "broadcast_to", "maximum", "minimum", "where"]
