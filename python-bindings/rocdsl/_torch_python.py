"""rocdsl.torch's operators defined in Python: the path taken where the
native ones (rocdsl/native/torch_ops.cpp) cannot be built or are turned off
(ROCDSL_TORCH_NATIVE=0). Same schemas, checks, fake implementations and
autograd formulas; more host time per call."""
import torch

from . import runtime
from .args import torch_device_name, torch_raw_stream

_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


def _check(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cuda":
        raise ValueError(f"{name}: expected a GPU tensor (device type "
                         f"'cuda', also on ROCm), got device {t.device}")
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


def _stream(tensor):
    return torch_raw_stream(torch, tensor)


class _Launches:
    """The kernels of one op for one (shapes, dtypes, device), found and
    checked on first use; later calls only re-check what can change between
    calls with equal keys (contiguity)."""

    def __init__(self, kernels, m, n, dtype, wdtype):
        self.kernels, self.m, self.n = kernels, m, n
        self.dtype, self.wdtype = dtype, wdtype
        self.rows = (m, n)
        self.cols = (n,)
        # The backward's fp32 [G, N] buffer of per-program dweight sums.
        self.partial = None
        if len(kernels) == 2:
            self.partial = _dw_partials(kernels[0])


_launches = {}


def _prepare(op, names, tensors, kernel_names):
    """The _Launches for `op` on `tensors` (the first is the [.., N]
    activation, the last the weight)."""
    key = (op,) + tuple((t.shape, t.dtype, t.get_device()) for t in tensors)
    entry = _launches.get(key)
    if entry is not None:
        for name, t in zip(names, tensors):
            if not t.is_contiguous():
                _check(name, t)
        return entry
    for name, t in zip(names, tensors):
        _check(name, t)
    x, weight = tensors[0], tensors[-1]
    for name, t in zip(names[1:], tensors[1:]):
        if t.device != x.device:
            raise ValueError(f"{name}: on {t.device}, but {names[0]} is on "
                             f"{x.device} (all inputs on one device)")
    for name, t in zip(names[1:-1], tensors[1:-1]):
        if t.shape != x.shape or t.dtype != x.dtype:
            raise ValueError(f"{name}: expected {tuple(x.shape)} {x.dtype} "
                             f"like {names[0]}, got {tuple(t.shape)} "
                             f"{t.dtype}")
    m, n = _rows(x, weight)
    device = torch_device_name(torch, x.device)  # "cuda", "hip:1", ...
    defs = _defs(max(m, 1), n, x, weight)
    kernels = [runtime.builtin(k, defs, device) for k in kernel_names]
    if len(kernels) == 2 and _dw_partials(kernels[0])[0] == 1:
        # One program (M up to a row tile): it writes dw itself
        # (direct_dw), one launch instead of two. Rows too long for
        # registers (N > 8192) have no such kernel and keep both.
        try:
            kernels = [runtime.builtin(kernel_names[0],
                                       [*defs, "direct_dw=1"], device)]
        except ValueError:
            pass
    entry = _launches[key] = _Launches(kernels, m, n, _DTYPES[x.dtype],
                                       _DTYPES[weight.dtype])
    return entry


def _dw_partials(step1):
    """Shape of the fp32 [G, N] buffer step 1 writes its per-program sums
    into."""
    for name, _kind, _dtype, shape, _out, _planned in step1.args:
        if name == "dw_partial":
            return tuple(shape)
    raise RuntimeError("rmsnorm backward kernel without dw_partial")


# --- implementations (shared by the custom ops and the eager path) -----------

def _forward(x, weight, eps):
    e = _prepare("fwd", ("x", "weight"), (x, weight), ("rmsnorm_fwd",))
    y = torch.empty_like(x)
    if e.m:
        e.kernels[0].launch(
            [(x.data_ptr(), e.dtype, e.rows),
             (weight.data_ptr(), e.wdtype, e.cols),
             (y.data_ptr(), e.dtype, e.rows), e.m, eps],
            stream=_stream(x))
    return y


def _backward(dy, x, weight, eps):
    e = _prepare("bwd", ("dy", "x", "weight"), (dy, x, weight),
                 ("rmsnorm_bwd", "rmsnorm_bwd_dw"))
    return _launch_backward(e, x, weight, eps, dy, None)


def _fused_forward(x, residual, weight, eps):
    e = _prepare("addfwd", ("x", "residual", "weight"), (x, residual, weight),
                 ("rmsnorm_add_fwd",))
    y, h = torch.empty_like(x), torch.empty_like(x)
    if e.m:
        e.kernels[0].launch(
            [(x.data_ptr(), e.dtype, e.rows),
             (residual.data_ptr(), e.dtype, e.rows),
             (weight.data_ptr(), e.wdtype, e.cols),
             (y.data_ptr(), e.dtype, e.rows), (h.data_ptr(), e.dtype, e.rows),
             e.m, eps], stream=_stream(x))
    return y, h


def _fused_backward(dy, dh, h, weight, eps):
    e = _prepare("addbwd", ("dy", "dresidual_out", "h", "weight"),
                 (dy, dh, h, weight), ("rmsnorm_add_bwd", "rmsnorm_bwd_dw"))
    return _launch_backward(e, h, weight, eps, dy, dh)


def _launch_backward(e, x, weight, eps, dy, dh):
    """dx (with dh added, fused) and dweight: kernel 1 writes dx and fp32
    per-program column sums, kernel 2 reduces them and casts (or, with one
    program, kernel 1 writes dw)."""
    dx = torch.empty_like(x)
    dw = torch.empty_like(weight)
    if not e.m:
        return dx, dw.zero_()
    stream = _stream(x)
    rows, dt = e.rows, e.dtype
    args = [(x.data_ptr(), dt, rows), (weight.data_ptr(), e.wdtype, e.cols),
            (dy.data_ptr(), dt, rows)]
    if dh is not None:
        args.append((dh.data_ptr(), dt, rows))
    args.append((dx.data_ptr(), dt, rows))
    if len(e.kernels) == 1:  # one program, which writes dw itself
        e.kernels[0].launch(args + [(dw.data_ptr(), e.wdtype, e.cols), e.m,
                                    eps], stream=stream)
        return dx, dw
    step1, step2 = e.kernels
    shape = e.partial
    partial = torch.empty(shape, dtype=torch.float32, device=x.device)
    args += [(partial.data_ptr(), "f32", shape), e.m, eps]
    step1.launch(args, stream=stream)
    step2.launch([(partial.data_ptr(), "f32", shape),
                  (dw.data_ptr(), e.wdtype, e.cols), shape[0]], stream=stream)
    return dx, dw



# --- torch.library ops ---------------------------------------------------------

@torch.library.custom_op("rocdsl::rms_norm", mutates_args=(),
                         device_types="cuda")
def _rms_norm_op(x: torch.Tensor, weight: torch.Tensor,
                 eps: float) -> torch.Tensor:
    return _forward(x, weight, eps)


@_rms_norm_op.register_fake
def _(x, weight, eps):
    return torch.empty_like(x)


@torch.library.custom_op("rocdsl::rms_norm_backward", mutates_args=(),
                         device_types="cuda")
def _rms_norm_backward_op(dy: torch.Tensor, x: torch.Tensor,
                          weight: torch.Tensor,
                          eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return _backward(dy, x, weight, eps)


@_rms_norm_backward_op.register_fake
def _(dy, x, weight, eps):
    return torch.empty_like(x), torch.empty_like(weight)


def _rms_norm_setup(ctx, inputs, output):
    x, weight, eps = inputs
    ctx.save_for_backward(x, weight)
    ctx.eps = eps


def _refuse_double_backward(op, *tensors):
    """The backward kernels have no derivative: a backward that records a
    graph (create_graph=True) raises, as the native operators do, rather
    than handing back a gradient taken as constant."""
    if torch.is_grad_enabled() and any(t is not None and t.requires_grad
                                       for t in tensors):
        raise RuntimeError(f"rocdsl::{op}: no derivative (double backward, "
                           f"create_graph=True, is not supported)")


def _rms_norm_grad(ctx, dy):
    x, weight = ctx.saved_tensors
    _refuse_double_backward("rms_norm_backward", dy, x, weight)
    dx, dw = torch.ops.rocdsl.rms_norm_backward(dy.contiguous(), x, weight,
                                                ctx.eps)
    return dx, dw, None


torch.library.register_autograd("rocdsl::rms_norm", _rms_norm_grad,
                                setup_context=_rms_norm_setup)


@torch.library.custom_op("rocdsl::fused_add_rms_norm", mutates_args=(),
                         device_types="cuda")
def _fused_add_rms_norm_op(
        x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
        eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return _fused_forward(x, residual, weight, eps)


@_fused_add_rms_norm_op.register_fake
def _(x, residual, weight, eps):
    return torch.empty_like(x), torch.empty_like(x)


@torch.library.custom_op("rocdsl::fused_add_rms_norm_backward", mutates_args=(),
                         device_types="cuda")
def _fused_add_rms_norm_backward_op(
        dy: torch.Tensor, dh: torch.Tensor, h: torch.Tensor,
        weight: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return _fused_backward(dy, dh, h, weight, eps)


@_fused_add_rms_norm_backward_op.register_fake
def _(dy, dh, h, weight, eps):
    return torch.empty_like(h), torch.empty_like(weight)


def _fused_setup(ctx, inputs, output):
    _x, _residual, weight, eps = inputs
    ctx.save_for_backward(output[1], weight)
    ctx.eps = eps


def _grads_or_zeros(h, dy, dh):
    dy = torch.zeros_like(h) if dy is None else dy.contiguous()
    dh = torch.zeros_like(h) if dh is None else dh.contiguous()
    return dy, dh


def _fused_grad(ctx, dy, dh):
    h, weight = ctx.saved_tensors
    _refuse_double_backward("fused_add_rms_norm_backward", dy, dh, h, weight)
    dy, dh = _grads_or_zeros(h, dy, dh)
    dx, dw = torch.ops.rocdsl.fused_add_rms_norm_backward(dy, dh, h, weight,
                                                          ctx.eps)
    # h = x + residual: both receive the same gradient (as with eager +).
    return dx, dx, dw, None


torch.library.register_autograd("rocdsl::fused_add_rms_norm", _fused_grad,
                                setup_context=_fused_setup)


# --- the eager path ------------------------------------------------------------

class _RMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return _forward(x, weight, eps)

    @staticmethod
    def backward(ctx, dy):
        x, weight = ctx.saved_tensors
        _refuse_double_backward("rms_norm_backward", dy, x, weight)
        dx, dw = _backward(dy.contiguous(), x, weight, ctx.eps)
        return dx, dw, None


class _FusedAddRMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, residual, weight, eps):
        y, h = _fused_forward(x, residual, weight, eps)
        ctx.save_for_backward(h, weight)
        ctx.eps = eps
        return y, h

    @staticmethod
    def backward(ctx, dy, dh):
        h, weight = ctx.saved_tensors
        _refuse_double_backward("fused_add_rms_norm_backward", dy, dh, h,
                                weight)
        dy, dh = _grads_or_zeros(h, dy, dh)
        dx, dw = _fused_backward(dy, dh, h, weight, ctx.eps)
        return dx, dx, dw, None


_is_compiling = torch.compiler.is_compiling


def _needs_grad(*tensors):
    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


def rms_norm(x, weight, eps=1e-6):
    """y = x * rsqrt(mean(x^2, -1) + eps) * weight, fp32 inside."""
    eps = float(eps)
    if _is_compiling():
        return torch.ops.rocdsl.rms_norm(x, weight, eps)
    if _needs_grad(x, weight):
        return _RMSNorm.apply(x, weight, eps)
    return _forward(x, weight, eps)


def fused_add_rms_norm(x, residual, weight, eps=1e-6):
    """(rms_norm(h, weight, eps), h) with h = x + residual rounded to x's
    dtype: the normalized output and the updated residual stream."""
    eps = float(eps)
    if _is_compiling():
        return torch.ops.rocdsl.fused_add_rms_norm(x, residual, weight, eps)
    if _needs_grad(x, residual, weight):
        return _FusedAddRMSNorm.apply(x, residual, weight, eps)
    return _fused_forward(x, residual, weight, eps)


