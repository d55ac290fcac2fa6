"""ROCDSL's RMSNorm kernels as PyTorch operators on GPU tensors: NVIDIA
GPUs with a CUDA build of PyTorch, AMD GPUs (MI300X, MI355X) with a ROCm
build (torch.version.hip set; its tensors' device type is "cuda" too).

    import rocdsl.torch as rt
    y = rt.rms_norm(x, weight, 1e-6)                      # autograd: dx, dweight
    y, h = rt.fused_add_rms_norm(x, residual, weight, 1e-6)

The ops live in the `rocdsl` namespace of PyTorch's dispatcher
(torch.ops.rocdsl.rms_norm, ...), with fake (meta) implementations, so
torch.compile keeps them as opaque nodes in its graphs, and with autograd
formulas that run ROCDSL's backward kernels. They are native operators
(rocdsl/native/torch_ops.cpp, compiled on first import against this
PyTorch; see rocdsl/torch_native.py and ROCDSL_TORCH_NATIVE): a call is one
trip through the dispatcher into C++ and the autograd node is a C++ node.
Where they cannot be built, rocdsl/_torch_python.py defines the same
operators in Python (NATIVE is then False). Kernels run on the caller's
current stream of the tensors' device (a CUstream, or a hipStream_t on
ROCm) and are captured by CUDA graphs like any other op.

Inputs must be contiguous GPU tensors, all on one device (any index), in
float32, float16 or bfloat16 (the weight may differ from x); anything else
raises, nothing is copied behind the caller's back. On ROCm the kernels are
compiled for the device's own chip (gfx942 or gfx950; others raise). The last dimension is the normalized one;
leading dimensions are flattened (a view, never a copy).
"""
import torch

from . import torch_native

__all__ = ["rms_norm", "fused_add_rms_norm", "matmul",
           "scaled_dot_product_attention", "flash_attn_func",
           "flash_attn_varlen_func", "NATIVE"]

NATIVE = torch_native.load(torch)

if NATIVE:
    # OpOverloads: one Python frame less per call than the packets.
    _rms_norm_op = torch.ops.rocdsl.rms_norm.default
    _fused_op = torch.ops.rocdsl.fused_add_rms_norm.default

    def rms_norm(x, weight, eps=1e-6):
        """y = x * rsqrt(mean(x^2, -1) + eps) * weight, fp32 inside."""
        return _rms_norm_op(x, weight, float(eps))

    def fused_add_rms_norm(x, residual, weight, eps=1e-6):
        """(rms_norm(h, weight, eps), h) with h = x + residual rounded to
        x's dtype: the normalized output and the updated residual stream."""
        return _fused_op(x, residual, weight, float(eps))
else:
    from ._torch_python import fused_add_rms_norm, rms_norm  # noqa: F401


# The GEMM family (rocdsl/torch_gemm.py).
from .torch_gemm import matmul  # noqa: E402

# The attention family (rocdsl/torch_attention.py).
from .torch_attention import (  # noqa: E402
    flash_attn_func, flash_attn_varlen_func, scaled_dot_product_attention)
