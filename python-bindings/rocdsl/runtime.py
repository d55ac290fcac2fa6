"""Built-in kernels by name on NumPy arrays (host) or device memory.

Specialized kernels are kept per (kernel, definitions, device, chip), so a
repeated call neither re-plans nor re-keys; the runtime's launcher cache
then serves the compiled code from memory.
"""
from . import _rocdsl

_kernels = {}


def builtin(kernel, definitions, device="host", chip=""):
    """The built-in `kernel` specialized by NAME=VALUE `definitions`."""
    key = (kernel, tuple(definitions), device, chip)
    k = _kernels.get(key)
    if k is None:
        k = _kernels[key] = _rocdsl.builtin(kernel, list(definitions), device,
                                            chip)
    return k


def run(kernel, definitions, args, device="host", chip="", check_finite=None):
    """Runs a built-in kernel once, synchronously, on its planned grid.

    Arrays are validated against the specialization (ValueError names the
    argument). `check_finite` True scans the outputs for NaN/Inf afterwards
    and raises ValueError naming the first bad element; None follows
    ROCDSL_CHECK_FINITE. Returns the cache tier that served the launcher,
    the compile and kernel times, and the launcher's identity.
    """
    k = builtin(kernel, definitions, device, chip)
    k.launch(args, check_finite=check_finite)
    return {"tier": k.last_tier, "compile_ms": k.last_compile_ms,
            "kernel_us": k.last_kernel_us, "launcher": k.launcher_id}


def plan(kernel, definitions):
    """Arguments a specialization expects: (name, dtype, shape, is_output)."""
    k = builtin(kernel, definitions)
    return [(name, dtype, shape, is_output)
            for name, _kind, dtype, shape, is_output, _planned in k.args]


list_kernels = _rocdsl.list_kernels
device_available = _rocdsl.device_available
