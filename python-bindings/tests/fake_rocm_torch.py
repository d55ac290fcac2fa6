"""A stand-in for a ROCm build of PyTorch, for testing rocdsl.torch's AMD
path where no ROCm PyTorch exists: `install()` puts a module named `torch`
in sys.modules with what rocdsl.torch and rocdsl.args use of it, and
nothing more. Tensors are rocdsl.DeviceArray memory on the emulated hip
devices, whose device type is "cuda" as on ROCm (torch.version.hip is
set); the current stream of each device is a real hipStream_t of the
emulated runtime, and every stream query is recorded.
"""
import sys
import types

import numpy as np


class dtype:
    def __init__(self, name, rocdsl_name):
        self.name, self.rocdsl = name, rocdsl_name

    def __repr__(self):
        return f"torch.{self.name}"


float32 = dtype("float32", "f32")
float16 = dtype("float16", "f16")
bfloat16 = dtype("bfloat16", "bf16")
int32 = dtype("int32", "i32")


class device:
    def __init__(self, type_, index):
        self.type, self.index = type_, index

    def __eq__(self, other):
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return f"{self.type}:{self.index}"


class Size(tuple):
    pass


class Tensor:
    """A contiguous GPU tensor over a rocdsl.DeviceArray."""

    def __init__(self, array, dtype_, index):
        self.array, self.dtype = array, dtype_
        self.device = device("cuda", index)
        self.shape = Size(array.shape)
        self.requires_grad = False

    is_cuda = True
    is_cpu = False

    def is_contiguous(self):
        return True

    def contiguous(self):
        return self

    def dim(self):
        return len(self.shape)

    def numel(self):
        return self.array.size

    @property
    def nbytes(self):
        return self.array.nbytes

    def stride(self):
        strides, step = [], 1
        for d in reversed(self.shape):
            strides.insert(0, step)
            step *= d
        return tuple(strides)

    def get_device(self):
        return self.device.index

    def data_ptr(self):
        return self.array.data_ptr()

    def zero_(self):
        self.array.copy_from_host(np.zeros(self.shape, self.array.to_host()
                                           .dtype))
        return self


def _device_name(index):
    return "hip" if not index else f"hip:{index}"


def from_host(host, dtype_, index):
    """A Tensor on cuda:index (an emulated hip device) holding `host`
    (bf16 as uint16 bits)."""
    import rocdsl
    return Tensor(rocdsl.device_array(host, _device_name(index),
                                      dtype=dtype_.rocdsl), dtype_, index)


def _poisoned(shape, dtype_, index):
    import rocdsl
    from norm_reference import poison
    a = rocdsl.device_array(poison(tuple(shape), dtype_.rocdsl),
                            _device_name(index), dtype=dtype_.rocdsl)
    return Tensor(a, dtype_, index)


def empty_like(t):
    # Fresh memory is NaN, so an output a kernel skips shows up.
    return _poisoned(t.shape, t.dtype, t.device.index)


def empty(shape, dtype=None, device=None):
    return _poisoned(shape, dtype, device.index)


def zeros_like(t):
    return empty_like(t).zero_()


class _CustomOp:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args)

    def register_fake(self, fn):
        return fn


def _custom_op(name, mutates_args=(), device_types=None):
    assert device_types == "cuda", "ROCm tensors have device type 'cuda'"
    return _CustomOp


class _Function:
    @classmethod
    def apply(cls, *args):
        raise AssertionError("autograd is not faked; call without grad")


stream_queries = []  # device indices the ops asked the stream of
streams = {}         # index -> hipStream_t


def _current_raw_stream(index):
    stream_queries.append(index)
    return streams[index]


class _Stream:
    def __init__(self, index):
        stream_queries.append(index)
        self.cuda_stream = streams[index]


def install(hip_api, device_count):
    """Registers the fake `torch` (with a hipStream_t per device)."""
    for i in range(device_count):
        streams[i] = hip_api.stream(i)
    torch = types.ModuleType("torch")
    torch.__dict__.update(
        Tensor=Tensor, float32=float32, float16=float16, bfloat16=bfloat16,
        int32=int32, empty_like=empty_like, empty=empty,
        zeros_like=zeros_like, is_grad_enabled=lambda: False)
    torch.version = types.SimpleNamespace(hip="6.2.41133", cuda=None)
    torch.library = types.SimpleNamespace(
        custom_op=_custom_op, register_autograd=lambda *a, **k: None)
    torch.autograd = types.SimpleNamespace(
        Function=_Function,
        function=types.SimpleNamespace(once_differentiable=lambda f: f))
    torch.compiler = types.SimpleNamespace(is_compiling=lambda: False)
    torch._C = types.SimpleNamespace(
        _cuda_getCurrentRawStream=_current_raw_stream)
    torch.cuda = types.SimpleNamespace(is_available=lambda: True,
                                       current_stream=_Stream)
    torch.ops = types.SimpleNamespace()
    sys.modules["torch"] = torch
    return torch
