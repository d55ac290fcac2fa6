"""rocdsl.torch.scaled_dot_product_attention: the attention kernels
(kernels/attention) behind torch's SDPA signature, with an explicit
fallback chain.

    import rocdsl.torch as rt
    out = rt.scaled_dot_product_attention(q, k, v, is_causal=True)
    out = rt.scaled_dot_product_attention(q, k, v, window=(256, 0),
                                          softcap=50.0, enable_gqa=True)

Tensors in torch's layout: q [B, Hq, Sq, D] (or [Hq, Sq, D]), k [B, Hkv,
Sk, D], v [B, Hkv, Sk, Dv]; the result [B, Hq, Sq, Dv]. Semantics are
torch's for everything torch has: `is_causal` masks keys right of the
top-left diagonal (query i sees keys j <= i, also when Sq != Sk), `scale`
None means 1/sqrt(D), `enable_gqa` lets Hq be a multiple of Hkv. Beyond
torch: `window=(left, right)` keeps keys j with i - left <= j <= i + right
(FlashAttention's window_size, -1 for no bound, measured from the same
top-left diagonal), and `softcap=c` caps the scaled scores to
c * tanh(s / c) before the mask. Rows that see no key give 0.

Registered as torch.ops.rocdsl.attention (out and the log-sum-exp) with a
fake implementation, so torch.compile keeps it as one node, and autograd
through torch.ops.rocdsl.attention_backward (attention_bwd_delta, then the
deterministic attention_bwd).

The fallback chain: what ROCDSL's kernels cannot serve goes to
torch.nn.functional.scaled_dot_product_attention, which picks its own
backend: an attn_mask, dropout, another dtype than float16/bfloat16, CPU
tensors, non-contiguous inputs (ROCDSL copies nothing behind the caller's
back), head dimensions outside 16..256 in steps of 16 (past 192 when a
gradient is needed), an explicit scale of 0, empty or broadcast batches.
Each reason is logged once per process at ROCDSL_LOG=info. A request torch
cannot honour either (a window or a soft cap on a call that must fall
back) raises ValueError rather than computing full attention.

ROCDSL_ATTENTION picks the side: unset or "rocdsl" for the chain, "torch"
for torch's SDPA on every call (a window or soft cap then raises),
"strict" for ROCDSL only (a call it cannot serve raises ValueError with
the reason).
"""
import math
import os

import torch

from . import _rocdsl, runtime
from .args import torch_device_name, torch_raw_stream

__all__ = ["scaled_dot_product_attention", "flash_attn_func",
           "flash_attn_varlen_func", "fallback_reasons"]

_DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16"}
_MODES = ("rocdsl", "torch", "strict")
# Head dimensions the backward serves (its LDS and registers; the forward
# takes up to 256).
_MAX_BACKWARD_HEAD_DIM = 192

# Reasons calls went to torch's SDPA, with their counts (logged once each).
fallback_reasons = {}


def _mode():
    mode = os.environ.get("ROCDSL_ATTENTION", "").strip().lower() or "rocdsl"
    if mode not in _MODES:
        raise ValueError(f"ROCDSL_ATTENTION={mode!r} is not one of "
                         f"{', '.join(_MODES)}")
    return mode


def _window(window):
    if window is None:
        return -1, -1
    try:
        left, right = (int(w) for w in window)
    except (TypeError, ValueError):
        raise ValueError(f"window: expected (left, right) integers, got "
                         f"{window!r}") from None
    for name, w in (("left", left), ("right", right)):
        if w < -1:
            raise ValueError(f"window {name}={w}: -1 (no bound) or >= 0")
    return left, right


def _why_not(q, k, v, attn_mask, dropout_p, scale, enable_gqa, grad):
    """Why ROCDSL's kernels cannot serve this call (None: they can)."""
    if attn_mask is not None:
        return "an attn_mask (ROCDSL's kernels take causal and window masks)"
    if dropout_p:
        return "dropout_p > 0"
    tensors = (("q", q), ("k", k), ("v", v))
    for name, t in tensors:
        if not isinstance(t, torch.Tensor):
            return f"{name} is not a tensor"
        if t.device.type != "cuda":
            return f"tensors on {t.device.type}"
        if t.dtype not in _DTYPES:
            return f"dtype {t.dtype} (ROCDSL's kernels take float16, bfloat16)"
        if t.dim() not in (3, 4) or t.dim() != q.dim():
            return "inputs not all [B, H, S, D] or all [H, S, D]"
        if t.numel() == 0:
            return "empty inputs"
        if not t.is_contiguous():
            return (f"{name} is not contiguous (ROCDSL's kernels read "
                    f"[B, H, S, D] rows and copy nothing)")
    if len({t.dtype for _, t in tensors}) > 1:
        return "q, k and v of different dtypes"
    if len({t.device for _, t in tensors}) > 1:
        return "q, k and v on different devices"
    if k.shape[:-1] != v.shape[:-1] or k.shape[:-3] != q.shape[:-3] or \
            q.shape[-1] != k.shape[-1]:
        return "shapes torch broadcasts or rejects"
    hq, hkv = q.shape[-3], k.shape[-3]
    if hq != hkv and (not enable_gqa or hq % hkv):
        return "head counts torch rejects"
    for name, d in (("D", q.shape[-1]), ("Dv", v.shape[-1])):
        limit = _MAX_BACKWARD_HEAD_DIM if grad else 256
        if d % 16 or not 16 <= d <= limit:
            return (f"head dimension {name}={d} (ROCDSL's kernels take "
                    f"multiples of 16 up to {limit}"
                    f"{' with a gradient' if grad else ''})")
    if scale is not None and float(scale) == 0.0:
        return "scale=0"
    return None


def _fall_back(reason, q, k, v, attn_mask, dropout_p, is_causal, scale,
               enable_gqa, window, softcap):
    missing = [what for what, asked in (("window", window is not None),
                                        ("softcap", softcap is not None))
               if asked]
    if missing:
        raise ValueError(f"{' and '.join(missing)} cannot be honoured: "
                         f"ROCDSL's kernels cannot serve this call ({reason}) "
                         f"and torch's SDPA has no {' or '.join(missing)}")
    if reason not in fallback_reasons:
        _rocdsl.log("info", f"attention: torch SDPA serves calls with "
                            f"{reason}")
    fallback_reasons[reason] = fallback_reasons.get(reason, 0) + 1
    kwargs = {"enable_gqa": enable_gqa} if enable_gqa else {}
    return torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=attn_mask, dropout_p=dropout_p,
        is_causal=is_causal, scale=scale, **kwargs)


def _definitions(q, k, v, cu_q, params):
    """The kernels' NAME=VALUE definitions for these tensors and the op's
    parameters (_Params)."""
    p = _Params(*params)
    if p.layout == "bhsd":
        b, hq, sq, d = q.shape
        hkv, sk = k.shape[1], k.shape[2]
        extra = []
    elif p.layout == "bshd":
        b, sq, hq, d = q.shape
        sk, hkv = k.shape[1], k.shape[2]
        extra = []
    else:  # varlen: [T, H, D] with the longest lengths given
        (tq, hq, d), (tk, hkv) = q.shape, k.shape[:2]
        b, sq, sk = cu_q.shape[0] - 1, p.max_seqlen_q, p.max_seqlen_k
        extra = [f"Tq={tq}", f"Tk={tk}"]
    return [f"B={b}", f"Hq={hq}", f"Hkv={hkv}", f"Sq={sq}", f"Sk={sk}",
            f"D={d}", f"Dv={v.shape[-1]}", f"dtype={_DTYPES[q.dtype]}",
            f"causal={int(p.causal)}", f"align={p.align}",
            f"window_left={p.window_left}",
            f"window_right={p.window_right}", f"softcap={p.softcap!r}",
            f"layout={p.layout}"] + extra


class _Params:
    """The op's parameters after its tensors, in schema order."""

    def __init__(self, scale, causal, window_left, window_right, softcap,
                 layout, align, max_seqlen_q, max_seqlen_k):
        self.scale, self.causal = scale, causal
        self.window_left, self.window_right = window_left, window_right
        self.softcap, self.layout, self.align = softcap, layout, align
        self.max_seqlen_q, self.max_seqlen_k = max_seqlen_q, max_seqlen_k


def _lse_shape(q, layout):
    if layout == "bhsd":
        return tuple(q.shape[:-1])
    if layout == "bshd":
        return (q.shape[0], q.shape[2], q.shape[1])
    return (q.shape[1], q.shape[0])  # varlen: [Hq, Tq]


_SCRATCH_DTYPES = {"f32": torch.float32, "i32": torch.int32}


def _launch(name, defs, tensors, cu, scale):
    """Runs built-in `name` on (tensor, dtype) arguments in order, then the
    cu_seqlens (varlen), on the first tensor's device and current stream.
    Tensors the plan takes after those are scratch the kernel needs zero
    on entry (attention_bwd's dq_accum and dq_count with dq_atomic): fresh
    zeros each call, from the caching allocator, on the same stream."""
    first = tensors[0][0]
    kernel = runtime.builtin(name, defs,
                             torch_device_name(torch, first.device))
    tensors = tensors + [(t, "i32") for t in cu if t is not None]
    planned = [a for a in kernel.args if a[1] == "tensor"]
    for _name, _kind, dtype, shape, _out, _p in planned[len(tensors):]:
        tensors.append((torch.zeros(tuple(shape),
                                    dtype=_SCRATCH_DTYPES[dtype],
                                    device=first.device), dtype))
    args = [(t.data_ptr(), dtype, tuple(t.shape)) for t, dtype in tensors]
    if scale is not None:  # attention_bwd_delta takes no scale
        args.append(float(scale))
    kernel.launch(args, stream=torch_raw_stream(torch, first))


@torch.library.custom_op("rocdsl::attention", mutates_args=(),
                         device_types="cuda")
def _attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                  cu_seqlens_q: torch.Tensor | None,
                  cu_seqlens_k: torch.Tensor | None, scale: float,
                  causal: bool, window_left: int, window_right: int,
                  softcap: float, layout: str, align: str,
                  max_seqlen_q: int, max_seqlen_k: int
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    params = (scale, causal, window_left, window_right, softcap, layout,
              align, max_seqlen_q, max_seqlen_k)
    out = torch.empty(tuple(q.shape[:-1]) + (v.shape[-1],), dtype=q.dtype,
                      device=q.device)
    lse = torch.empty(_lse_shape(q, layout), dtype=torch.float32,
                      device=q.device)
    dtype = _DTYPES[q.dtype]
    _launch("attention_fwd", _definitions(q, k, v, cu_seqlens_q, params),
            [(q, dtype), (k, dtype), (v, dtype), (out, dtype),
             (lse, "f32")], (cu_seqlens_q, cu_seqlens_k), scale)
    return out, lse


@_attention_op.register_fake
def _(q, k, v, cu_seqlens_q, cu_seqlens_k, scale, causal, window_left,
      window_right, softcap, layout, align, max_seqlen_q, max_seqlen_k):
    return (q.new_empty(q.shape[:-1] + v.shape[-1:]),
            q.new_empty(_lse_shape(q, layout), dtype=torch.float32))


@torch.library.custom_op("rocdsl::attention_backward", mutates_args=(),
                         device_types="cuda")
def _attention_backward_op(dout: torch.Tensor, q: torch.Tensor,
                           k: torch.Tensor, v: torch.Tensor,
                           out: torch.Tensor, lse: torch.Tensor,
                           cu_seqlens_q: torch.Tensor | None,
                           cu_seqlens_k: torch.Tensor | None, scale: float,
                           causal: bool, window_left: int, window_right: int,
                           softcap: float, layout: str, align: str,
                           max_seqlen_q: int, max_seqlen_k: int
                           ) -> tuple[torch.Tensor, torch.Tensor,
                                      torch.Tensor]:
    params = (scale, causal, window_left, window_right, softcap, layout,
              align, max_seqlen_q, max_seqlen_k)
    grads = tuple(torch.empty_like(t) for t in (q, k, v))
    _backward(_definitions(q, k, v, cu_seqlens_q, params), [], q, k, v, out,
              dout, lse, grads, (cu_seqlens_q, cu_seqlens_k), scale)
    return grads


def _backward(defs, tiles, q, k, v, out, dout, lse, grads, cu, scale):
    """Both backward launches on the current stream into `grads` (dq, dk,
    dv): attention_bwd_delta (delta = rowsum(dout * out) per query row,
    fp32 in lse's shape; rows outside every packed sequence stay unwritten
    and nothing reads them), then attention_bwd with `tiles` added to the
    shared definitions `defs`."""
    delta = torch.empty(tuple(lse.shape), dtype=torch.float32,
                        device=lse.device)
    dtype = _DTYPES[q.dtype]
    _launch("attention_bwd_delta", defs,
            [(out, dtype), (dout, dtype), (delta, "f32")], cu, None)
    dq, dk, dv = grads
    _launch("attention_bwd", defs + tiles,
            [(q, dtype), (k, dtype), (v, dtype), (dout, dtype),
             (lse, "f32"), (delta, "f32"), (dq, dtype), (dk, dtype),
             (dv, dtype)], cu, scale)


@_attention_backward_op.register_fake
def _(dout, q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k, scale, causal,
      window_left, window_right, softcap, layout, align, max_seqlen_q,
      max_seqlen_k):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _setup(ctx, inputs, output):
    q, k, v, cu_q, cu_k, *params = inputs
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse, cu_q, cu_k)
    ctx.params = params
    ctx.mark_non_differentiable(lse)


def _grad(ctx, dout, _dlse):
    q, k, v, out, lse, cu_q, cu_k = ctx.saved_tensors
    # Autograd may hand over a strided gradient (e.g. from a transpose
    # after the op); the kernel reads rows.
    dq, dk, dv = _attention_backward_op(dout.contiguous(), q, k, v, out, lse,
                                        cu_q, cu_k, *ctx.params)
    return (dq, dk, dv) + (None,) * (2 + len(ctx.params))


torch.library.register_autograd("rocdsl::attention", _grad,
                                setup_context=_setup)


def scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None,
                                 enable_gqa=False, *, window=None,
                                 softcap=None):
    """torch.nn.functional.scaled_dot_product_attention on ROCDSL's
    kernels, with a window and a soft cap; see the module docstring."""
    left, right = _window(window)
    if is_causal and right > 0:
        raise ValueError(f"window right={right} with is_causal=True: causal "
                         f"attention sees no key right of the diagonal")
    if softcap is not None and not (math.isfinite(softcap) and softcap > 0):
        raise ValueError(f"softcap={softcap!r}: a positive cap (None: none)")
    if scale is not None and not math.isfinite(scale):
        raise ValueError(f"scale={scale!r} is not finite")
    mode = _mode()
    grad = torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad for t in (q, k, v))
    reason = "ROCDSL_ATTENTION=torch" if mode == "torch" else _why_not(
        q, k, v, attn_mask, dropout_p, scale, enable_gqa, grad)
    if reason is not None:
        if mode == "strict":
            raise ValueError(f"ROCDSL_ATTENTION=strict: ROCDSL's kernels "
                             f"cannot serve this call: {reason}")
        return _fall_back(reason, q, k, v, attn_mask, dropout_p, is_causal,
                          scale, enable_gqa, window, softcap)
    squeeze = q.dim() == 3
    if squeeze:  # [H, S, D]: one batch entry (views, no copies)
        q, k, v = q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0)
    out, _ = _attention_op(q, k, v, None, None,
                           0.0 if scale is None else float(scale),
                           bool(is_causal), left, 0 if is_causal else right,
                           float(softcap or 0.0), "bhsd", "top_left", 0, 0)
    return out.squeeze(0) if squeeze else out


def _check_flash(tensors, unsupported):
    """FlashAttention-style entries have no fallback: what the kernels
    cannot run is a ValueError naming it."""
    for what, asked in unsupported:
        if asked:
            raise ValueError(f"{what} is not supported by ROCDSL's attention "
                             f"kernels")
    first = tensors[0][1]
    for name, t in tensors:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name}: expected a torch.Tensor, got "
                            f"{type(t).__name__}")
        if t.device.type != "cuda":
            raise ValueError(f"{name}: expected a GPU tensor, got device "
                             f"{t.device}")
        if t.device != first.device:
            raise ValueError(f"{name}: on {t.device}, but q is on "
                             f"{first.device} (all inputs on one device)")
        if not t.is_contiguous():
            raise ValueError(f"{name}: must be contiguous (call "
                             f".contiguous(); ROCDSL does not copy silently)")
    dtypes = {t.dtype for name, t in tensors if not name.startswith("cu_")}
    if len(dtypes) != 1 or not dtypes <= set(_DTYPES):
        raise ValueError(f"q, k, v: one dtype of float16 or bfloat16, got "
                         f"{', '.join(str(d) for d in dtypes)}")


def _flash_params(q, softmax_scale, causal, window_size, softcap, layout,
                  max_q=0, max_k=0):
    left, right = _window(window_size)
    if causal and right > 0:
        raise ValueError(f"window_size right={right} with causal=True")
    if softcap is None or softcap < 0 or not math.isfinite(softcap):
        raise ValueError(f"softcap={softcap!r}: 0 (none) or a positive cap")
    if softmax_scale is not None and not math.isfinite(softmax_scale):
        raise ValueError(f"softmax_scale={softmax_scale!r} is not finite")
    if softmax_scale is not None and float(softmax_scale) == 0.0:
        raise ValueError("softmax_scale=0 is not supported (None selects "
                         "1/sqrt(D))")
    return (0.0 if softmax_scale is None else float(softmax_scale),
            bool(causal), left, 0 if causal else right, float(softcap),
            layout, "bottom_right", int(max_q), int(max_k))


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False,
                    window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                    deterministic=False, return_attn_probs=False):
    """FlashAttention's flash_attn_func on ROCDSL's kernels: q [B, Sq, Hq,
    D], k [B, Sk, Hkv, D], v [B, Sk, Hkv, Dv] (Hq a multiple of Hkv), the
    result [B, Sq, Hq, Dv]. Causal and window masks are FlashAttention's:
    aligned to the bottom-right corner when Sq != Sk. The backward is
    deterministic whatever `deterministic` says. Dropout, ALiBi and
    returned probabilities raise ValueError."""
    _check_flash((("q", q), ("k", k), ("v", v)),
                 (("dropout_p > 0", dropout_p),
                  ("alibi_slopes", alibi_slopes is not None),
                  ("return_attn_probs", return_attn_probs)))
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ValueError(f"expected q, k, v of [B, S, H, D], got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, "
                         f"{tuple(v.shape)}")
    out, _ = _attention_op(q, k, v, None, None,
                           *_flash_params(q, softmax_scale, causal,
                                          window_size, softcap, "bshd"))
    return out


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                           max_seqlen_k, dropout_p=0.0, softmax_scale=None,
                           causal=False, window_size=(-1, -1), softcap=0.0,
                           alibi_slopes=None, deterministic=False,
                           return_attn_probs=False):
    """FlashAttention's flash_attn_varlen_func on ROCDSL's kernels: packed
    sequences q [Tq, Hq, D], k [Tk, Hkv, D], v [Tk, Hkv, Dv], entry b's
    rows from cu_seqlens_q[b] to cu_seqlens_q[b + 1] (int32 [B + 1] on the
    device, nondecreasing from 0), no longer than max_seqlen_q (and _k for
    keys); the result [Tq, Hq, Dv]. Masks per entry, bottom-right aligned.
    Offsets outside the packed rows are clamped into them (no access
    outside the tensors); rows past max_seqlen or outside every sequence
    are not written."""
    _check_flash((("q", q), ("k", k), ("v", v), ("cu_seqlens_q", cu_seqlens_q),
                  ("cu_seqlens_k", cu_seqlens_k)),
                 (("dropout_p > 0", dropout_p),
                  ("alibi_slopes", alibi_slopes is not None),
                  ("return_attn_probs", return_attn_probs)))
    if q.dim() != 3 or k.dim() != 3 or v.dim() != 3:
        raise ValueError(f"expected q, k, v of [T, H, D], got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, "
                         f"{tuple(v.shape)}")
    for name, cu in (("cu_seqlens_q", cu_seqlens_q),
                     ("cu_seqlens_k", cu_seqlens_k)):
        if cu.dtype != torch.int32 or cu.dim() != 1 or cu.shape[0] < 2:
            raise ValueError(f"{name}: expected int32 [B + 1], got "
                             f"{cu.dtype} {tuple(cu.shape)}")
    if cu_seqlens_q.shape != cu_seqlens_k.shape:
        raise ValueError("cu_seqlens_q and cu_seqlens_k differ in length")
    for name, n in (("max_seqlen_q", max_seqlen_q),
                    ("max_seqlen_k", max_seqlen_k)):
        if int(n) < 1:
            raise ValueError(f"{name}={n}: at least 1")
    out, _ = _attention_op(q, k, v, cu_seqlens_q, cu_seqlens_k,
                           *_flash_params(q, softmax_scale, causal,
                                          window_size, softcap, "varlen",
                                          max_seqlen_q, max_seqlen_k))
    return out
