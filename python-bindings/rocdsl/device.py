"""Device memory without a framework: NumPy data on hip or cuda devices.

    x = rocdsl.device_array(np_x, "hip")          # explicit copy to hip:0
    y = rocdsl.empty(np_x.shape, "f32", "hip")     # uninitialized
    kernel[grid](x, y, n)                          # runs on x's device
    out = y.to_host()                              # explicit copy back

Nothing moves between host and device unless one of these calls says so:
a NumPy array passed to a kernel on a GPU is an error, never a silent
copy. bf16 has no NumPy dtype; its host side is a uint16 array of the same
bits (device_array(bits, "hip", dtype="bf16"), to_host() returns one).
"""
import numpy as np

from . import _rocdsl

_HOST_DTYPES = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16),
                "bf16": np.dtype(np.uint16), "i32": np.dtype(np.int32)}
_FROM_NUMPY = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
               np.dtype(np.int32): "i32"}


def _dtype_name(dtype):
    if isinstance(dtype, str):
        if dtype not in _HOST_DTYPES:
            raise ValueError(f"unsupported dtype {dtype!r} (f32, f16, bf16, "
                             f"i32)")
        return dtype
    name = _FROM_NUMPY.get(np.dtype(dtype))
    if name is None:
        raise ValueError(f"unsupported dtype {dtype} (float32, float16, "
                         f"int32, or 'bf16')")
    return name


class DeviceArray:
    """A C-contiguous array in one device's memory (see this module).

    Passed to kernels like a NumPy array; its device decides where the
    kernel runs. The memory is freed when the last reference goes."""

    __slots__ = ("_buffer", "_offset", "shape", "dtype", "__weakref__")

    def __init__(self, buffer, shape, dtype, offset=0):
        self._buffer = buffer
        self._offset = offset  # bytes into the buffer (views)
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    @property
    def device(self):
        """"hip", "hip:1", "cuda", ... (the canonical name)."""
        return self._buffer.device

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def nbytes(self):
        return self.size * _HOST_DTYPES[self.dtype].itemsize

    def data_ptr(self):
        """The device address of the first element."""
        return self._buffer.address + self._offset

    def view(self, start, shape):
        """A C-contiguous DeviceArray of `shape` over the same memory,
        starting `start` elements after this one's first (as a NumPy view
        of the flattened array; it keeps the memory alive)."""
        itemsize = _HOST_DTYPES[self.dtype].itemsize
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        count = 1
        for d in shape:
            count *= d
        if start < 0 or count < 0 or start + count > self.size:
            raise ValueError(f"view of {count} elements at {start} does not "
                             f"fit {self.size} elements")
        return DeviceArray(self._buffer, shape, self.dtype,
                           self._offset + start * itemsize)

    def to_host(self):
        """A new NumPy array with the contents (uint16 bits for bf16)."""
        out = np.empty(self.shape, dtype=_HOST_DTYPES[self.dtype])
        if out.nbytes:
            self._buffer.copy_to(out, self._offset)
        return out

    def copy_from_host(self, array):
        """Overwrites the contents with a NumPy array of the same shape and
        dtype (C-contiguous; never converted)."""
        array = _checked_host(array, self.dtype)
        if array.shape != self.shape:
            raise ValueError(f"copy_from_host: shape {array.shape} does not "
                             f"match {self.shape}")
        if array.nbytes:
            self._buffer.copy_from(array, self._offset)

    def __repr__(self):
        return (f"DeviceArray(shape={self.shape}, dtype={self.dtype}, "
                f"device={self.device!r})")


def _checked_host(array, dtype):
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected a NumPy array, got {type(array).__name__}")
    if array.dtype != _HOST_DTYPES[dtype]:
        raise ValueError(f"array dtype {array.dtype} does not match {dtype} "
                         f"(host side: {_HOST_DTYPES[dtype]})")
    if not array.flags.c_contiguous:
        raise ValueError("the array must be C-contiguous (pass "
                         "np.ascontiguousarray(...); nothing is copied "
                         "implicitly)")
    return array


def empty(shape, dtype, device="hip"):
    """An uninitialized DeviceArray of `shape` and `dtype` ('f32', 'f16',
    'bf16', 'i32' or a NumPy dtype) on `device`."""
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"negative dimension in shape {shape}")
    name = _dtype_name(dtype)
    nbytes = _HOST_DTYPES[name].itemsize
    for d in shape:
        nbytes *= d
    # A zero-element array still has an address (kernels may take it).
    buffer = _rocdsl.DeviceBuffer(device, max(nbytes, 1))
    return DeviceArray(buffer, shape, name)


def device_array(array, device="hip", dtype=None):
    """A DeviceArray on `device` holding a copy of NumPy `array` (dtype
    'bf16' for a uint16 array of bf16 bits)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected a NumPy array, got {type(array).__name__}")
    name = _dtype_name(dtype if dtype is not None else array.dtype)
    array = _checked_host(array, name)
    out = empty(array.shape, name, device)
    out.copy_from_host(array)
    return out
