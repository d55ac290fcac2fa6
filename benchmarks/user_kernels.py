"""Kernels written in the Python DSL the way a Triton user writes them: no
vector widths, no layouts, no num_warps, one row (or one block) per
program, a power-of-two block masked to the row. They are shared by the
user-kernel benchmark (user_kernels_benchmark.py), the numerics tests
(python-bindings/tests/test_user_kernels.py) and the ISA tests
(test/Target/AMDGCN/user-kernels.test).

Each entry of KERNELS says how to launch the kernel on (M, N) and its
float64 reference on NumPy arrays.
"""
import math
import pathlib
import sys

import numpy as np

# bf16 bits, random inputs and float64 widening shared with the tests.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] /
                       "python-bindings" / "tests"))
import norm_reference as R  # noqa: E402

import rocdsl
import rocdsl.language as rl


def block_for(n):
    """The next power of two >= n (Triton's triton.next_power_of_2)."""
    return 1 << max(n - 1, 0).bit_length()


@rocdsl.kernel
def softmax(x: rl.ptr, y: rl.ptr, N: rl.i32, BLOCK: rl.constexpr):
    row = rl.program_id(0)
    cols = rl.iota(BLOCK)
    mask = cols < N
    t = rl.load(x, [row, 0], shape=[1, BLOCK], strides=[N], mask=mask,
                other=float("-inf")).to("f32")
    t = t - t.max(axis=1, keepdims=True)
    e = rl.exp(t)
    out = e / e.sum(axis=1, keepdims=True)
    rl.store(out.to(y.dtype), y, [row, 0], strides=[N], mask=mask)


@rocdsl.kernel
def layernorm(x: rl.ptr, w: rl.ptr, b: rl.ptr, y: rl.ptr, N: rl.i32,
              eps: rl.f32, BLOCK: rl.constexpr):
    row = rl.program_id(0)
    cols = rl.iota(BLOCK)
    mask = cols < N
    t = rl.load(x, [row, 0], shape=[1, BLOCK], strides=[N], mask=mask
                ).to("f32")
    mean = t.sum(axis=1, keepdims=True) / N.to("f32")
    d = rl.where(mask[None, :], t - mean, 0.0)
    var = (d * d).sum(axis=1, keepdims=True) / N.to("f32")
    rstd = rl.rsqrt(var + eps)
    wv = rl.load(w, [0], shape=[BLOCK], mask=mask).to("f32")
    bv = rl.load(b, [0], shape=[BLOCK], mask=mask).to("f32")
    out = d * rstd * wv[None, :] + bv[None, :]
    rl.store(out.to(y.dtype), y, [row, 0], strides=[N], mask=mask)


@rocdsl.kernel
def rmsnorm(x: rl.ptr, w: rl.ptr, y: rl.ptr, N: rl.i32, eps: rl.f32,
            BLOCK: rl.constexpr):
    row = rl.program_id(0)
    cols = rl.iota(BLOCK)
    mask = cols < N
    t = rl.load(x, [row, 0], shape=[1, BLOCK], strides=[N], mask=mask
                ).to("f32")
    rstd = rl.rsqrt((t * t).sum(axis=1, keepdims=True) / N.to("f32") + eps)
    wv = rl.load(w, [0], shape=[BLOCK], mask=mask).to("f32")
    rl.store((t * rstd * wv[None, :]).to(y.dtype), y, [row, 0], strides=[N],
             mask=mask)


@rocdsl.kernel
def swiglu(a: rl.ptr, g: rl.ptr, y: rl.ptr, n: rl.i32, BLOCK: rl.constexpr):
    start = rl.program_id(0) * BLOCK
    mask = rl.iota(BLOCK) + start < n
    av = rl.load(a, [start], shape=[BLOCK], mask=mask).to("f32")
    gv = rl.load(g, [start], shape=[BLOCK], mask=mask).to("f32")
    out = av / (1.0 + rl.exp(-av)) * gv
    rl.store(out.to(y.dtype), y, [start], mask=mask)


_GELU_C = math.sqrt(2.0 / math.pi)


@rocdsl.kernel
def gelu_tanh(x: rl.ptr, y: rl.ptr, n: rl.i32, BLOCK: rl.constexpr):
    start = rl.program_id(0) * BLOCK
    mask = rl.iota(BLOCK) + start < n
    v = rl.load(x, [start], shape=[BLOCK], mask=mask).to("f32")
    u = _GELU_C * (v + 0.044715 * v * v * v)
    tanh = 1.0 - 2.0 / (rl.exp(2.0 * u) + 1.0)
    rl.store((0.5 * v * (1.0 + tanh)).to(y.dtype), y, [start], mask=mask)


@rocdsl.kernel
def residual_add(x: rl.ptr, r: rl.ptr, y: rl.ptr, n: rl.i32,
                 BLOCK: rl.constexpr):
    start = rl.program_id(0) * BLOCK
    mask = rl.iota(BLOCK) + start < n
    v = (rl.load(x, [start], shape=[BLOCK], mask=mask).to("f32")
         + rl.load(r, [start], shape=[BLOCK], mask=mask).to("f32"))
    rl.store(v.to(y.dtype), y, [start], mask=mask)


@rocdsl.kernel
def cross_entropy(logits: rl.ptr, target: rl.ptr("i32"), loss: rl.ptr("f32"),
                  N: rl.i32, BLOCK: rl.constexpr):
    row = rl.program_id(0)
    cols = rl.iota(BLOCK)
    mask = cols < N
    t = rl.load(logits, [row, 0], shape=[1, BLOCK], strides=[N], mask=mask,
                other=float("-inf")).to("f32")
    m = t.max(axis=1, keepdims=True)
    lse = m + rl.log(rl.where(mask[None, :], rl.exp(t - m), 0.0)
                     .sum(axis=1, keepdims=True))
    tgt = rl.load(target, [row], shape=[1])
    hit = cols[None, :] == tgt[:, None]
    picked = rl.where(hit, t, 0.0).sum(axis=1, keepdims=True)
    rl.store((lse - picked).sum(axis=1), loss, [row])


# --- launches and float64 references ---------------------------------------

class Case:
    """One kernel: `inputs(M, N, dtype, rng)` gives host arrays (bf16 as
    uint16 bits) with their float64 values, `outputs` the output shapes
    and dtypes, `launch(k, args, M, N)` runs it, `reference` is float64."""

    def __init__(self, name, kernel, inputs, outputs, launch, reference,
                 tolerance_scale=1.0):
        self.name, self.kernel = name, kernel
        self.inputs, self.outputs = inputs, outputs
        self.launch, self.reference = launch, reference
        self.tolerance_scale = tolerance_scale


def _randn(shape, dtype, rng, scale=1.0):
    return R.random(shape, dtype, rng, scale)


def _rows_launch(kernel, extra=()):
    def launch(args, m, n):
        kernel[(m,)](*args, n, *extra, BLOCK=block_for(n))
    return launch


def _flat_launch(kernel):
    def launch(args, m, n):
        count = m * n
        kernel[((count + 1023) // 1024,)](*args, count, BLOCK=1024)
    return launch


def _softmax_ref(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _layernorm_ref(x, w, b, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def _rmsnorm_ref(x, w, eps=1e-5):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def _gelu_ref(x):
    return 0.5 * x * (1 + np.tanh(_GELU_C * (x + 0.044715 * x ** 3)))


def _ce_ref(logits, target):
    m = logits.max(-1, keepdims=True)
    lse = (m + np.log(np.exp(logits - m).sum(-1, keepdims=True)))[:, 0]
    return lse - logits[np.arange(len(target)), target]


def _cases():
    eps = 1e-5

    def same(shape_of_out):
        return lambda m, n, dt: [(shape_of_out(m, n), dt)]

    return {
        "softmax": Case(
            "softmax", softmax,
            lambda m, n, dt, rng: [_randn((m, n), dt, rng, 3)],
            same(lambda m, n: (m, n)), _rows_launch(softmax),
            lambda x: _softmax_ref(x)),
        "layernorm": Case(
            "layernorm", layernorm,
            lambda m, n, dt, rng: [_randn((m, n), dt, rng),
                                   _randn((n,), dt, rng),
                                   _randn((n,), dt, rng)],
            same(lambda m, n: (m, n)), _rows_launch(layernorm, (eps,)),
            lambda x, w, b: _layernorm_ref(x, w, b, eps)),
        "rmsnorm": Case(
            "rmsnorm", rmsnorm,
            lambda m, n, dt, rng: [_randn((m, n), dt, rng),
                                   _randn((n,), dt, rng)],
            same(lambda m, n: (m, n)), _rows_launch(rmsnorm, (eps,)),
            lambda x, w: _rmsnorm_ref(x, w, eps)),
        "swiglu": Case(
            "swiglu", swiglu,
            lambda m, n, dt, rng: [_randn((m, n), dt, rng, 3),
                                   _randn((m, n), dt, rng)],
            same(lambda m, n: (m, n)), _flat_launch(swiglu),
            lambda a, g: a / (1 + np.exp(-a)) * g),
        "gelu_tanh": Case(
            "gelu_tanh", gelu_tanh,
            lambda m, n, dt, rng: [_randn((m, n), dt, rng, 3)],
            same(lambda m, n: (m, n)), _flat_launch(gelu_tanh), _gelu_ref),
        "residual_add": Case(
            "residual_add", residual_add,
            lambda m, n, dt, rng: [_randn((m, n), dt, rng),
                                   _randn((m, n), dt, rng)],
            lambda m, n, dt: [((m, n), "bf16" if dt == "f32" else "f32")],
            _flat_launch(residual_add), lambda x, r: x + r),
        "cross_entropy": Case(
            "cross_entropy", cross_entropy,
            lambda m, n, dt, rng: [
                _randn((m, n), dt, rng, 4),
                (lambda t: (t, t.astype(np.float64)))(
                    rng.integers(0, n, m).astype(np.int32))],
            lambda m, n, dt: [((m,), "f32")], _rows_launch(cross_entropy),
            lambda logits, t: _ce_ref(logits, t.astype(np.int64)),
            tolerance_scale=4.0),
    }


KERNELS = _cases()
