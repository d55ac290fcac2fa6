"""Launch arguments: NumPy arrays, torch tensors and numbers, converted to
what SourceKernel.launch takes (addresses, ints, floats).

One converter per kernel parameter is made when the kernel is decorated,
so a launch only dispatches on each argument's type. A converter appends
what the launch passes to `values` and returns a tag: for pointers the
element type ("f32"), with "@" and the device ("@cuda", "@hip:1")
appended for device memory and "%16" when the device address is 16-byte
aligned; for i32 scalars "d16" when the value is a multiple of 16, "d8"
when it is a multiple of 8 only (rows of 1000 f32 or bf16 still start on
16 or 8 bytes when the base is aligned), else None; None for f32 scalars.
The tags are the launch facts a kernel is specialized on (as Triton
does): a launch whose facts differ finds
another specialization, never one compiled for facts it lacks. Host NumPy
arrays carry no alignment fact (the host target is for numerics, and
reading their address would slow every launch). Launches find their specialization by the tags, so
dtype and device checks against the kernel's annotations happen once per
new combination, not per launch.
Nothing is ever copied: a non-contiguous array is an error naming the
argument. Pointers travel as addresses (arr.ctypes.data, t.data_ptr()),
except contiguous writable NumPy arrays of a dtype NumPy has: those are
passed as they are, since the extension reads an array's address faster
than arr.ctypes.data does (read-only arrays would be refused there).
"""
import sys

import numpy as np

from . import _rocdsl
from .device import DeviceArray

_NUMPY_DTYPES = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
                 np.dtype(np.int32): "i32"}
_ITEM_SIZES = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4}
_I32_MIN, _I32_MAX = -2**31, 2**31 - 1
# Kernels address a tensor with 32-bit byte offsets: a larger one would be
# read and written at wrapped offsets, so it is refused.
_MAX_BYTES = _rocdsl.max_tensor_bytes()


def _error(name, message):
    return ValueError(f"argument '{name}': {message}")


def _too_large(name, nbytes):
    return _error(name, f"{nbytes} bytes; a kernel addresses at most "
                        f"{_MAX_BYTES} bytes per tensor (32-bit offsets): "
                        f"split the launch")


def _numpy(name, a, tag):
    if tag is None:
        raise _error(name, f"unsupported array dtype {a.dtype} (float32, "
                           f"float16, int32, or (uint16 array, 'bf16'))")
    if not a.flags.c_contiguous:
        raise _error(name, f"expected a C-contiguous array, got strides "
                           f"{a.strides} for shape {a.shape}; pass "
                           f"np.ascontiguousarray(...) (arrays are never "
                           f"copied implicitly)")
    if a.nbytes > _MAX_BYTES:
        raise _too_large(name, a.nbytes)
    return a.ctypes.data, tag


def _named_array(name, pair):
    """(array, "bf16"): element types NumPy lacks travel as same-size
    integer arrays, named explicitly."""
    a, dtype = pair
    if not isinstance(a, np.ndarray) or dtype not in _ITEM_SIZES:
        raise _error(name, "a (array, dtype) pair needs a NumPy array and "
                           f"one of {', '.join(_ITEM_SIZES)}")
    if a.itemsize != _ITEM_SIZES[dtype]:
        raise _error(name, f"array item size {a.itemsize} does not match "
                           f"dtype {dtype}")
    return _numpy(name, a, dtype)


_torch_dtypes = None
# (dtype, is_cuda, is_cpu, device index) -> (tag, tag when 16-byte
# aligned): a launch only looks its tensors' tags up. Both flags are in the
# key so that no other device (meta, xpu:0, ...) shares a CPU or CUDA entry.
_torch_tags = {}


def _torch(name, t):
    key = (t.dtype, t.is_cuda, t.is_cpu, t.get_device())
    tags = _torch_tags.get(key)
    if tags is None:
        tags = _torch_tags_for(name, t, key)
    if not t.is_contiguous():
        raise _error(name, f"expected a contiguous tensor, got strides "
                           f"{tuple(t.stride())} for shape {tuple(t.shape)}; "
                           f"pass t.contiguous() (tensors are never copied "
                           f"implicitly)")
    if t.nbytes > _MAX_BYTES:
        raise _too_large(name, t.nbytes)
    address = t.data_ptr()
    return address, tags[address % 16 == 0]


def _torch_tags_for(name, t, key):
    global _torch_dtypes
    torch = sys.modules["torch"]
    if _torch_dtypes is None:
        _torch_dtypes = {torch.float32: "f32", torch.float16: "f16",
                         torch.bfloat16: "bf16", torch.int32: "i32"}
    tag = _torch_dtypes.get(t.dtype)
    if tag is None:
        raise _error(name, f"unsupported tensor dtype {t.dtype} (float32, "
                           f"float16, bfloat16, int32)")
    if t.is_cuda:
        tag += "@" + torch_device_name(torch, t.device)
        tags = (tag, tag + ALIGNED)
    elif t.device.type != "cpu":
        raise _error(name, f"tensors on {t.device} are not supported")
    else:
        tags = (tag, tag)  # host memory carries no alignment fact
    _torch_tags[key] = tags
    _torch_classes.add(type(t))
    return tags


def torch_device_name(torch, device):
    """ROCDSL's name for a torch "cuda" device: a ROCm build of PyTorch
    (torch.version.hip set) calls AMD GPUs "cuda" too."""
    kind = "hip" if getattr(torch.version, "hip", None) else "cuda"
    index = device.index or 0
    return f"{kind}:{index}" if index else kind


def torch_raw_stream(torch, tensor):
    """The current stream (a CUstream or hipStream_t) of `tensor`'s device,
    without building a torch.cuda.Stream object where PyTorch allows."""
    index = tensor.get_device()
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(index)
    return torch.cuda.current_stream(index).cuda_stream  # older PyTorch


ALIGNED = "%16"


def _device_array(name, a):
    if a.nbytes > _MAX_BYTES:
        raise _too_large(name, a.nbytes)
    address = a.data_ptr()
    if a.device == "host":
        return address, a.dtype
    return address, (f"{a.dtype}@{a.device}" +
                     (ALIGNED if address % 16 == 0 else ""))


def _is_torch_tensor(a):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(a, torch.Tensor)


def _other(name, a):
    if type(a) is DeviceArray:
        return _device_array(name, a)
    if isinstance(a, tuple) and len(a) == 2:
        return _named_array(name, a)
    if _is_torch_tensor(a):
        return _torch(name, a)
    if isinstance(a, np.ndarray):
        return _numpy(name, a, _NUMPY_DTYPES.get(a.dtype))
    raise _error(name, f"expected a NumPy array, an (array, dtype) pair, "
                       f"a rocdsl.DeviceArray or a torch tensor, got "
                       f"{type(a).__name__}")


# Tensor classes seen by _torch (torch.Tensor, nn.Parameter, ...): a
# pointer converter goes straight to _torch for them.
_torch_classes = set()


def pointer(name):
    def convert(a, values):
        if type(a) in _torch_classes:
            address, tag = _torch(name, a)
            values.append(address)
            return tag
        if type(a) is np.ndarray:
            tag = _NUMPY_DTYPES.get(a.dtype)
            flags = a.flags
            if (tag is not None and flags.c_contiguous and flags.writeable
                    and a.nbytes <= _MAX_BYTES):
                values.append(a)  # the extension reads the address
                return tag
            address, tag = _numpy(name, a, tag)
        else:
            address, tag = _other(name, a)
        values.append(address)
        return tag
    return convert


DIVISIBLE = "d16"
DIVISIBLE_8 = "d8"
#: The divisibility an i32 tag states.
DIVISIBILITY = {DIVISIBLE: 16, DIVISIBLE_8: 8}


def i32(name):
    def convert(a, values):
        if type(a) is not int or not _I32_MIN <= a <= _I32_MAX:
            if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
                raise _error(name, f"expected an int (i32), got "
                                   f"{type(a).__name__}")
            a = int(a)
            if not _I32_MIN <= a <= _I32_MAX:
                raise _error(name, f"{a} does not fit in i32")
        values.append(a)
        if a % 8:
            return None
        return DIVISIBLE if a % 16 == 0 else DIVISIBLE_8
    return convert


def f32(name):
    def convert(a, values):
        if type(a) is not float:
            if isinstance(a, bool) or not isinstance(
                    a, (int, float, np.integer, np.floating)):
                raise _error(name, f"expected a float (f32), got "
                                   f"{type(a).__name__}")
            a = float(a)
        values.append(a)
    return convert


def split_tag(tag):
    """(dtype, memory, aligned): ("f32", "host", False) from "f32",
    ("f32", "cuda", True) from "f32@cuda%16"."""
    aligned = tag.endswith(ALIGNED)
    if aligned:
        tag = tag[:-len(ALIGNED)]
    dtype, _, device = tag.partition("@")
    return dtype, device or "host", aligned
