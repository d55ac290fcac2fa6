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
through torch.ops.rocdsl.attention_backward (the attention_bwd kernel: one
deterministic launch).

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

__all__ = ["scaled_dot_product_attention", "fallback_reasons"]

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


def _definitions(q, k, v, causal, window_left, window_right, softcap,
                 align="top_left"):
    b, hq, sq, d = q.shape
    return [f"B={b}", f"Hq={hq}", f"Hkv={k.shape[1]}", f"Sq={sq}",
            f"Sk={k.shape[2]}", f"D={d}", f"Dv={v.shape[3]}",
            f"dtype={_DTYPES[q.dtype]}", f"causal={int(causal)}",
            f"align={align}", f"window_left={window_left}",
            f"window_right={window_right}", f"softcap={softcap!r}"]


def _launch(name, defs, tensors, scale):
    """Runs built-in `name` on (tensor, dtype) arguments in order, on the
    first tensor's device and its current stream."""
    first = tensors[0][0]
    kernel = runtime.builtin(name, defs,
                             torch_device_name(torch, first.device))
    args = [(t.data_ptr(), dtype, tuple(t.shape)) for t, dtype in tensors]
    kernel.launch(args + [float(scale)],
                  stream=torch_raw_stream(torch, first))


@torch.library.custom_op("rocdsl::attention", mutates_args=(),
                         device_types="cuda")
def _attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                  scale: float, causal: bool, window_left: int,
                  window_right: int, softcap: float
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    out = torch.empty(tuple(q.shape[:-1]) + (v.shape[-1],), dtype=q.dtype,
                      device=q.device)
    lse = torch.empty(tuple(q.shape[:-1]), dtype=torch.float32,
                      device=q.device)
    dtype = _DTYPES[q.dtype]
    _launch("attention_fwd",
            _definitions(q, k, v, causal, window_left, window_right, softcap),
            [(q, dtype), (k, dtype), (v, dtype), (out, dtype),
             (lse, "f32")], scale)
    return out, lse


@_attention_op.register_fake
def _(q, k, v, scale, causal, window_left, window_right, softcap):
    return (q.new_empty(q.shape[:-1] + v.shape[-1:]),
            q.new_empty(q.shape[:-1], dtype=torch.float32))


@torch.library.custom_op("rocdsl::attention_backward", mutates_args=(),
                         device_types="cuda")
def _attention_backward_op(dout: torch.Tensor, q: torch.Tensor,
                           k: torch.Tensor, v: torch.Tensor,
                           out: torch.Tensor, lse: torch.Tensor, scale: float,
                           causal: bool, window_left: int, window_right: int,
                           softcap: float
                           ) -> tuple[torch.Tensor, torch.Tensor,
                                      torch.Tensor]:
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    dtype = _DTYPES[q.dtype]
    _launch("attention_bwd",
            _definitions(q, k, v, causal, window_left, window_right, softcap),
            [(q, dtype), (k, dtype), (v, dtype), (out, dtype), (dout, dtype),
             (lse, "f32"), (dq, dtype), (dk, dtype), (dv, dtype)], scale)
    return dq, dk, dv


@_attention_backward_op.register_fake
def _(dout, q, k, v, out, lse, scale, causal, window_left, window_right,
      softcap):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _setup(ctx, inputs, output):
    q, k, v, *params = inputs
    out, lse = output
    ctx.save_for_backward(q, k, v, out, lse)
    ctx.params = params
    ctx.mark_non_differentiable(lse)


def _grad(ctx, dout, _dlse):
    q, k, v, out, lse = ctx.saved_tensors
    # Autograd may hand over a strided gradient (e.g. from a transpose
    # after the op); the kernel reads rows.
    dq, dk, dv = _attention_backward_op(dout.contiguous(), q, k, v, out, lse,
                                        *ctx.params)
    return (dq, dk, dv) + (None,) * len(ctx.params)


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
    out, _ = _attention_op(q, k, v, 0.0 if scale is None else float(scale),
                           bool(is_causal), left, 0 if is_causal else right,
                           float(softcap or 0.0))
    return out.squeeze(0) if squeeze else out
