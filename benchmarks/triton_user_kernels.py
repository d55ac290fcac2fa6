"""The user kernels of user_kernels.py written in Triton, the same algorithm
line for line (one row or one block per program, a power-of-two block
masked to the row), as a Triton user writes them: Triton's own defaults
for vector widths, layouts and math, and the best of 4/8/16 warps."""
import math

import triton
import triton.language as tl

_GELU_C = math.sqrt(2.0 / math.pi)


@triton.jit
def softmax(x, y, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    t = tl.load(x + row * N + cols, mask=mask, other=float("-inf")).to(tl.float32)
    t = t - tl.max(t, axis=0)
    e = tl.exp(t)
    out = e / tl.sum(e, axis=0)
    tl.store(y + row * N + cols, out.to(y.dtype.element_ty), mask=mask)


@triton.jit
def layernorm(x, w, b, y, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    t = tl.load(x + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(t, axis=0) / N
    d = tl.where(mask, t - mean, 0.0)
    var = tl.sum(d * d, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    wv = tl.load(w + cols, mask=mask, other=0.0).to(tl.float32)
    bv = tl.load(b + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y + row * N + cols, (d * rstd * wv + bv).to(y.dtype.element_ty),
             mask=mask)


@triton.jit
def rmsnorm(x, w, y, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    t = tl.load(x + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(t * t, axis=0) / N + eps)
    wv = tl.load(w + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y + row * N + cols, (t * rstd * wv).to(y.dtype.element_ty),
             mask=mask)


@triton.jit
def swiglu(a, g, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    av = tl.load(a + offs, mask=mask, other=0.0).to(tl.float32)
    gv = tl.load(g + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y + offs, (av / (1.0 + tl.exp(-av)) * gv).to(y.dtype.element_ty),
             mask=mask)


@triton.jit
def gelu_tanh(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x + offs, mask=mask, other=0.0).to(tl.float32)
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    tanh = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)
    tl.store(y + offs, (0.5 * v * (1.0 + tanh)).to(y.dtype.element_ty),
             mask=mask)


@triton.jit
def residual_add(x, r, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = (tl.load(x + offs, mask=mask, other=0.0).to(tl.float32)
         + tl.load(r + offs, mask=mask, other=0.0).to(tl.float32))
    tl.store(y + offs, v.to(y.dtype.element_ty), mask=mask)


@triton.jit
def cross_entropy(logits, target, loss, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    t = tl.load(logits + row * N + cols, mask=mask,
                other=float("-inf")).to(tl.float32)
    m = tl.max(t, axis=0)
    lse = m + tl.log(tl.sum(tl.where(mask, tl.exp(t - m), 0.0), axis=0))
    tgt = tl.load(target + row)
    picked = tl.sum(tl.where(cols == tgt, t, 0.0), axis=0)
    tl.store(loss + row, lse - picked)


KERNELS = {"softmax": softmax, "layernorm": layernorm, "rmsnorm": rmsnorm,
           "swiglu": swiglu, "gelu_tanh": gelu_tanh,
           "residual_add": residual_add, "cross_entropy": cross_entropy}
