"""ROCDSL's RMSNorm kernels as PyTorch operators on CUDA tensors.

    import rocdsl.torch as rt
    y = rt.rms_norm(x, weight, 1e-6)                      # autograd: dx, dweight
    y, h = rt.fused_add_rms_norm(x, residual, weight, 1e-6)

The ops are registered with torch.library in the `rocdsl` namespace
(torch.ops.rocdsl.rms_norm, ...), with fake (meta) implementations, so
torch.compile keeps them as opaque nodes in its graphs, and with autograd
formulas that run ROCDSL's backward kernels. Kernels run on the caller's
current CUDA stream and are captured by CUDA graphs like any other op.

Inputs must be contiguous CUDA tensors on device 0 in float32, float16 or
bfloat16 (the weight may differ from x); anything else raises, nothing is
copied behind the caller's back. The last dimension is the normalized one;
leading dimensions are flattened (a view, never a copy).
"""
import torch

from . import runtime

__all__ = ["rms_norm", "fused_add_rms_norm"]

_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


def _check(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cuda":
        raise ValueError(f"{name}: expected a CUDA tensor, got device {t.device}")
    if t.device.index not in (None, 0):
        raise ValueError(f"{name}: ROCDSL runs on cuda:0 only, got {t.device}")
    if t.dtype not in _DTYPES:
        raise ValueError(f"{name}: unsupported dtype {t.dtype} "
                         "(float32, float16, bfloat16)")
    if not t.is_contiguous():
        raise ValueError(f"{name}: must be contiguous (call .contiguous(); "
                         "ROCDSL does not copy silently)")


def _rows(x, weight):
    if x.dim() < 1 or x.shape[-1] == 0:
        raise ValueError(f"x: expected a non-empty last dimension, got shape "
                         f"{tuple(x.shape)}")
    if weight.dim() != 1 or weight.shape[0] != x.shape[-1]:
        raise ValueError(f"weight: expected shape ({x.shape[-1]},), got "
                         f"{tuple(weight.shape)}")
    n = x.shape[-1]
    return x.numel() // n, n


def _defs(m, n, x, weight):
    return (f"N={n}", f"M={m}", f"dtype={_DTYPES[x.dtype]}",
            f"wdtype={_DTYPES[weight.dtype]}")


def _arg(t, shape):
    return (t.data_ptr(), _DTYPES[t.dtype], shape)


def _stream():
    return torch.cuda.current_stream().cuda_stream


# --- forward -----------------------------------------------------------------

@torch.library.custom_op("rocdsl::rms_norm", mutates_args=(),
                         device_types="cuda")
def _rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    _check("x", x)
    _check("weight", weight)
    m, n = _rows(x, weight)
    y = torch.empty_like(x)
    if m == 0:
        return y
    k = runtime.builtin("rmsnorm_fwd", _defs(m, n, x, weight), "cuda")
    k.launch([_arg(x, (m, n)), _arg(weight, (n,)), _arg(y, (m, n)), m,
              float(eps)], stream=_stream())
    return y


@_rms_norm.register_fake
def _(x, weight, eps):
    return torch.empty_like(x)


# --- backward ----------------------------------------------------------------

def _dweight_partials(step1, n, device):
    """The fp32 [G, N] buffer step 1 writes its per-program sums into."""
    for name, _kind, _dtype, shape, _out, _planned in step1.args:
        if name == "dw_partial":
            return torch.empty(shape, dtype=torch.float32, device=device), shape[0]
    raise RuntimeError("rmsnorm backward kernel without dw_partial")


@torch.library.custom_op("rocdsl::rms_norm_backward", mutates_args=(),
                         device_types="cuda")
def _rms_norm_backward(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor,
                       eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    _check("dy", dy)
    _check("x", x)
    _check("weight", weight)
    m, n = _rows(x, weight)
    dx = torch.empty_like(x)
    dw = torch.empty_like(weight)
    if m == 0:
        dw.zero_()
        return dx, dw
    defs = _defs(m, n, x, weight)
    step1 = runtime.builtin("rmsnorm_bwd", defs, "cuda")
    step2 = runtime.builtin("rmsnorm_bwd_dw", defs, "cuda")
    partial, g = _dweight_partials(step1, n, x.device)
    stream = _stream()
    step1.launch([_arg(x, (m, n)), _arg(weight, (n,)), _arg(dy, (m, n)),
                  _arg(dx, (m, n)), _arg(partial, (g, n)), m, float(eps)],
                 stream=stream)
    step2.launch([_arg(partial, (g, n)), _arg(dw, (n,)), g], stream=stream)
    return dx, dw


@_rms_norm_backward.register_fake
def _(dy, x, weight, eps):
    return torch.empty_like(x), torch.empty_like(weight)


def _rms_norm_setup(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _rms_norm_grad(ctx, dy):
    x, weight = ctx.saved_tensors
    dx, dw = torch.ops.rocdsl.rms_norm_backward(dy.contiguous(), x, weight,
                                                ctx.eps)
    return dx, dw, None


torch.library.register_autograd("rocdsl::rms_norm", _rms_norm_grad,
                                setup_context=_rms_norm_setup)


# --- fused residual add ------------------------------------------------------

@torch.library.custom_op("rocdsl::fused_add_rms_norm", mutates_args=(),
                         device_types="cuda")
def _fused_add_rms_norm(x: torch.Tensor, residual: torch.Tensor,
                        weight: torch.Tensor,
                        eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    _check("x", x)
    _check("residual", residual)
    _check("weight", weight)
    if residual.shape != x.shape or residual.dtype != x.dtype:
        raise ValueError(f"residual: expected {tuple(x.shape)} {x.dtype} like "
                         f"x, got {tuple(residual.shape)} {residual.dtype}")
    m, n = _rows(x, weight)
    y, h = torch.empty_like(x), torch.empty_like(x)
    if m == 0:
        return y, h
    k = runtime.builtin("rmsnorm_add_fwd", _defs(m, n, x, weight), "cuda")
    k.launch([_arg(x, (m, n)), _arg(residual, (m, n)), _arg(weight, (n,)),
              _arg(y, (m, n)), _arg(h, (m, n)), m, float(eps)],
             stream=_stream())
    return y, h


@_fused_add_rms_norm.register_fake
def _(x, residual, weight, eps):
    return torch.empty_like(x), torch.empty_like(x)


@torch.library.custom_op("rocdsl::fused_add_rms_norm_backward", mutates_args=(),
                         device_types="cuda")
def _fused_add_rms_norm_backward(
        dy: torch.Tensor, dh: torch.Tensor, h: torch.Tensor,
        weight: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    for name, t in (("dy", dy), ("dh", dh), ("h", h), ("weight", weight)):
        _check(name, t)
    m, n = _rows(h, weight)
    dx = torch.empty_like(h)
    dw = torch.empty_like(weight)
    if m == 0:
        dw.zero_()
        return dx, dw
    defs = _defs(m, n, h, weight)
    step1 = runtime.builtin("rmsnorm_add_bwd", defs, "cuda")
    step2 = runtime.builtin("rmsnorm_bwd_dw", defs, "cuda")
    partial, g = _dweight_partials(step1, n, h.device)
    stream = _stream()
    step1.launch([_arg(h, (m, n)), _arg(weight, (n,)), _arg(dy, (m, n)),
                  _arg(dh, (m, n)), _arg(dx, (m, n)), _arg(partial, (g, n)),
                  m, float(eps)], stream=stream)
    step2.launch([_arg(partial, (g, n)), _arg(dw, (n,)), g], stream=stream)
    return dx, dw


@_fused_add_rms_norm_backward.register_fake
def _(dy, dh, h, weight, eps):
    return torch.empty_like(h), torch.empty_like(weight)


def _fused_setup(ctx, inputs, output):
    _x, _residual, weight, eps = inputs
    ctx.save_for_backward(output[1], weight)
    ctx.eps = eps


def _fused_grad(ctx, dy, dh):
    h, weight = ctx.saved_tensors
    dy = torch.zeros_like(h) if dy is None else dy.contiguous()
    dh = torch.zeros_like(h) if dh is None else dh.contiguous()
    dx, dw = torch.ops.rocdsl.fused_add_rms_norm_backward(dy, dh, h, weight,
                                                          ctx.eps)
    # h = x + residual: both receive the same gradient (as with eager +).
    return dx, dx, dw, None


torch.library.register_autograd("rocdsl::fused_add_rms_norm", _fused_grad,
                                setup_context=_fused_setup)


def rms_norm(x, weight, eps=1e-6):
    """y = x * rsqrt(mean(x^2, -1) + eps) * weight, fp32 inside."""
    return torch.ops.rocdsl.rms_norm(x, weight, float(eps))


def fused_add_rms_norm(x, residual, weight, eps=1e-6):
    """(rms_norm(h, weight, eps), h) with h = x + residual rounded to x's
    dtype: the normalized output and the updated residual stream."""
    return torch.ops.rocdsl.fused_add_rms_norm(x, residual, weight, float(eps))
