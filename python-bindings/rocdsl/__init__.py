"""ROCDSL from Python: run built-in kernels on NumPy arrays.

    import numpy as np, rocdsl
    x = np.random.randn(64, 4096).astype(np.float32)
    w = np.random.randn(4096).astype(np.float32)
    y = rocdsl.rms_norm(x, w, 1e-6)

Kernels are compiled by ROCDSL's JIT on first use and served from its
launcher cache afterwards (in memory, and on disk under ROCDSL_CACHE_DIR).
"""
import numpy as np

from .runtime import builtin, device_available, list_kernels, plan, run

__all__ = ["builtin", "device_available", "list_kernels", "plan", "run",
           "rms_norm"]

# Kernels written in Python (docs/python.md, "Writing kernels in Python").
from . import language
from .errors import CompilationError
from .jit import kernel

__all__ += ["CompilationError", "kernel", "language"]

_DTYPES = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}


def _dtype_name(a):
    try:
        return _DTYPES[a.dtype]
    except KeyError:
        raise ValueError(f"unsupported dtype {a.dtype} (float32 or float16)")


def rms_norm(x, weight, eps=1e-6, device="host"):
    """y = x * rsqrt(mean(x^2, -1) + eps) * weight, for 2-D contiguous x."""
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got shape {x.shape}")
    m, n = x.shape
    y = np.empty_like(x)
    defs = [f"N={n}", f"M={m}", f"dtype={_dtype_name(x)}",
            f"wdtype={_dtype_name(weight)}", f"eps={eps!r}"]
    run("rmsnorm_fwd", defs, [x, weight, y, m, float(eps)], device)
    return y
