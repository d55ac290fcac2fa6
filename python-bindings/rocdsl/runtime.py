"""Built-in kernels by name on NumPy arrays (host) or device memory.

Specialized kernels are kept per (kernel, definitions, device, chip), so a
repeated call neither re-plans nor re-keys; the runtime's launcher cache
then serves the compiled code from memory.
"""
import numpy as np

from . import _rocdsl
from .compiled import Compiled
from .device import DeviceArray

_kernels = {}


def builtin(kernel, definitions, device="host", chip=""):
    """The built-in `kernel` specialized by NAME=VALUE `definitions` on
    `device` (host, hip, hip:N, cuda, cuda:N)."""
    key = (kernel, tuple(definitions), device, chip)
    k = _kernels.get(key)
    if k is None:
        k = _kernels[key] = _rocdsl.builtin(kernel, list(definitions), device,
                                            chip)
    return k


def _values(args, device):
    """Launch values: DeviceArrays as (address, dtype, shape) on their
    device, which must be the launch's; NumPy arrays only on the host."""
    device = _rocdsl.normalize_device(device)
    values = []
    for i, a in enumerate(args):
        if type(a) is DeviceArray:
            if a.device != device:
                raise ValueError(f"argument {i}: a DeviceArray on "
                                 f"{a.device} cannot be used by a launch on "
                                 f"{device}")
            values.append((a.data_ptr(), a.dtype, a.shape))
            continue
        host = isinstance(a, np.ndarray) or (
            isinstance(a, tuple) and len(a) == 2 and
            isinstance(a[0], np.ndarray))
        if host and device != "host":
            raise ValueError(f"argument {i}: a NumPy array cannot be used by "
                             f"a launch on {device}; copy it with "
                             f"rocdsl.device_array(array, {device!r}) "
                             f"(nothing is copied implicitly)")
        values.append(a)
    return values


def run(kernel, definitions, args, device="host", chip="", check_finite=None):
    """Runs a built-in kernel once, synchronously, on its planned grid.

    Arrays are validated against the specialization (ValueError names the
    argument): NumPy arrays on the host, rocdsl.DeviceArray on a GPU.
    `check_finite` True scans the outputs for NaN/Inf afterwards and raises
    ValueError naming the first bad element; None follows
    ROCDSL_CHECK_FINITE. Returns the cache tier that served the launcher,
    the compile and kernel times, and the launcher's identity.
    """
    k = builtin(kernel, definitions, device, chip)
    k.launch(_values(args, device), check_finite=check_finite)
    return {"tier": k.last_tier, "compile_ms": k.last_compile_ms,
            "kernel_us": k.last_kernel_us, "launcher": k.launcher_id}


def plan(kernel, definitions):
    """Arguments a specialization expects: (name, dtype, shape, is_output)."""
    k = builtin(kernel, definitions)
    return [(name, dtype, shape, is_output)
            for name, _kind, dtype, shape, is_output, _planned in k.args]


def compile(kernel, definitions, chip):
    """Compiles built-in `kernel` (NAME=VALUE `definitions`) for `chip`
    without running it: a rocdsl.Compiled. Needs no GPU."""
    return Compiled(kernel, _rocdsl.compile_builtin(kernel, list(definitions),
                                                    chip))


list_kernels = _rocdsl.list_kernels
device_available = _rocdsl.device_available
device_count = _rocdsl.device_count
describe_device = _rocdsl.describe_device
