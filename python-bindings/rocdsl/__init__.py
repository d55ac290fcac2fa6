"""ROCDSL from Python: run built-in kernels on NumPy arrays or device
memory, write kernels in Python, and compile for a chip without a GPU.

    import numpy as np, rocdsl
    x = np.random.randn(64, 4096).astype(np.float32)
    w = np.random.randn(4096).astype(np.float32)
    y = rocdsl.rms_norm(x, w, 1e-6)                     # on the host
    xd, wd = rocdsl.device_array(x, "hip"), rocdsl.device_array(w, "hip")
    y = rocdsl.rms_norm(xd, wd, 1e-6).to_host()         # on an AMD GPU
    c = rocdsl.compile("rmsnorm_fwd", ["N=4096"], chip="gfx942")

Kernels are compiled by ROCDSL's JIT on first use and served from its
launcher cache afterwards (in memory, and on disk under ROCDSL_CACHE_DIR).
"""
import numpy as np

from . import _rocdsl

from .runtime import (builtin, compile, describe_device, device_available,
                      device_count, list_kernels, plan, run)
from .device import DeviceArray, device_array, empty
from .compiled import Compiled

__all__ = ["builtin", "compile", "describe_device", "device_available",
           "device_count", "list_kernels", "plan", "run", "rms_norm",
           "DeviceArray", "device_array", "empty", "Compiled"]

# Kernels written in Python (docs/python.md, "Writing kernels in Python").
from . import language
from .errors import CompilationError
from .jit import kernel

__all__ += ["CompilationError", "kernel", "language"]

_DTYPES = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}


def _dtype_name(a):
    if type(a) is DeviceArray:
        return a.dtype
    try:
        return _DTYPES[a.dtype]
    except KeyError:
        raise ValueError(f"unsupported dtype {a.dtype} (float32 or float16)")


def rms_norm(x, weight, eps=1e-6, device=None):
    """y = x * rsqrt(mean(x^2, -1) + eps) * weight, for 2-D contiguous x.

    NumPy arrays run on the host and give a NumPy array; rocdsl.DeviceArray
    inputs run on their device and give a DeviceArray there. `device`, when
    given, must be where the inputs are."""
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got shape {x.shape}")
    on_device = type(x) is DeviceArray
    where = x.device if on_device else "host"
    if device is not None and (_rocdsl.normalize_device(device) != where):
        raise ValueError(f"x is on {where}, not {device}; copy it with "
                         f"rocdsl.device_array (nothing moves implicitly)")
    m, n = x.shape
    y = empty(x.shape, x.dtype, where) if on_device else np.empty_like(x)
    defs = [f"N={n}", f"M={m}", f"dtype={_dtype_name(x)}",
            f"wdtype={_dtype_name(weight)}", f"eps={eps!r}"]
    run("rmsnorm_fwd", defs, [x, weight, y, m, float(eps)], where)
    return y
