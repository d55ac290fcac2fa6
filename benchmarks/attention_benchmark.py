"""Attention forward: the built-in attention_fwd kernel beside torch's SDPA
backends (cuDNN, flash, memory-efficient) and a Triton FlashAttention-2
forward on one NVIDIA GPU, in one run (docs/benchmarks.md, "Attention").

    python3 benchmarks/attention_benchmark.py --out table.md [--quick]
        [--configs default,BMxBNxWARPS[xPREFETCH][:NAME=VALUE...],...] [--all]
        [--dtypes bf16,f16]

Tensors are torch's (B, H, S, D) layout. Every side's output is compared
with float64 attention on sampled heads before anything is timed (outputs
poisoned with NaN first); times are the median of CUDA-event pairs taken in
turns; TFLOP/s = 4 * B * Hq * Sq * Sk * D over the time (halved for causal,
the FlashAttention convention).
"""
import argparse
import datetime
import math
import pathlib
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gpu_timing import interleaved_event_us  # noqa: E402

import rocdsl  # noqa: E402

# (B, Hq, Hkv, S, D, causal)
SHAPES = [(2, 16, 16, 4096, 128, False), (2, 16, 16, 4096, 128, True),
          (2, 32, 8, 4096, 128, True), (2, 16, 16, 4096, 64, True),
          (8, 16, 16, 1024, 128, True), (1, 16, 16, 16384, 128, True)]
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


@triton.jit
def triton_attention(q, k, v, o, lse, scale, S, H: tl.constexpr,
                     G: tl.constexpr, D: tl.constexpr, BM: tl.constexpr,
                     BN: tl.constexpr, CAUSAL: tl.constexpr,
                     LSE: tl.constexpr = False):
    """FlashAttention-2 forward, one program per BM query rows of a head;
    with LSE, also each row's log-sum-exp in base 2 of its scores times
    log2(e) (what attention_backward_benchmark.py's Triton backward reads;
    the timed forward passes LSE=False and stores none)."""
    start = tl.program_id(0) * BM
    bh = tl.program_id(1)
    kvh = (bh // H) * (H // G) + (bh % H) // G
    rows = start + tl.arange(0, BM)
    cols = tl.arange(0, D)
    qt = tl.load(q + (bh * S + rows)[:, None] * D + cols[None, :],
                 mask=rows[:, None] < S, other=0.0)
    m = tl.full((BM,), float("-inf"), tl.float32)
    l = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    qk_scale = scale * 1.4426950408889634
    end = tl.minimum(start + BM, S) if CAUSAL else S
    for n0 in range(0, end, BN):
        keys = n0 + tl.arange(0, BN)
        kt = tl.load(k + (kvh * S + keys)[None, :] * D + cols[:, None],
                     mask=keys[None, :] < S, other=0.0)
        s = tl.dot(qt, kt) * qk_scale
        seen = keys[None, :] < S
        if CAUSAL:
            seen = seen & (keys[None, :] <= rows[:, None])
        s = tl.where(seen, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))
        alpha = tl.math.exp2(m - m_new)
        p = tl.math.exp2(s - m_new[:, None])
        l = l * alpha + tl.sum(p, 1)
        vt = tl.load(v + (kvh * S + keys)[:, None] * D + cols[None, :],
                     mask=keys[:, None] < S, other=0.0)
        acc = tl.dot(p.to(vt.dtype), vt, acc * alpha[:, None])
        m = m_new
    tl.store(o + (bh * S + rows)[:, None] * D + cols[None, :],
             (acc / l[:, None]).to(o.dtype.element_ty),
             mask=rows[:, None] < S)
    if LSE:
        tl.store(lse + bh * S + rows, m + tl.math.log2(l), mask=rows < S)


TRITON_CONFIGS = [(128, 64, 4, 3), (128, 64, 8, 3), (64, 64, 4, 3),
                  (128, 128, 8, 2)]


def triton_run(cfg, causal):
    bm, bn, warps, stages = cfg

    def run(q, k, v, o):
        b, h, s, d = q.shape
        triton_attention[(triton.cdiv(s, bm), b * h)](
            q, k, v, o, o, 1 / math.sqrt(d), s, H=h, G=h // k.shape[1], D=d,
            BM=bm, BN=bn, CAUSAL=causal, num_warps=warps, num_stages=stages)
    return run


def builtin_run(dtype, cfg, causal):
    """The built-in attention_fwd at tile `cfg` (BMxBNxWARPS[xPREFETCH] or
    default),
    launched on torch's current stream; the lse goes to a scratch tensor."""
    # BMxBNxWARPS[xPREFETCH] or default, then any ":name=value" extras
    # (e.g. 128x64x8:stages=3, default:stages=2).
    base, *extras = cfg.split(":")
    tile = [] if base == "default" else [
        f"{k}={v}" for k, v in zip(("BM", "BN", "warps", "prefetch"),
                                   base.split("x"))]
    tile += extras
    lse = {}

    def run(q, k, v, o):
        b, hq, s, d = q.shape
        hkv = k.shape[1]
        kernel = rocdsl.runtime.builtin(
            "attention_fwd",
            [f"B={b}", f"Hq={hq}", f"Hkv={hkv}", f"Sq={s}", f"D={d}",
             f"dtype={dtype}", f"causal={int(causal)}"] + tile, "cuda")
        if (b, hq, s) not in lse:
            lse[(b, hq, s)] = torch.empty(b, hq, s, device="cuda")
        kernel.launch([(q.data_ptr(), dtype, tuple(q.shape)),
                       (k.data_ptr(), dtype, tuple(k.shape)),
                       (v.data_ptr(), dtype, tuple(v.shape)),
                       (o.data_ptr(), dtype, tuple(o.shape)),
                       (lse[(b, hq, s)].data_ptr(), "f32", (b, hq, s)), 0.0],
                      stream=torch.cuda.current_stream().cuda_stream)
    return run


def sdpa_run(backend, causal):
    def run(q, k, v, o):
        with sdpa_kernel([backend]):
            o.copy_(F.scaled_dot_product_attention(
                q, k, v, is_causal=causal,
                enable_gqa=k.shape[1] != q.shape[1]))
    return run


def check(name, o, q, k, v, causal, gen):
    """Two sampled (batch, head) pairs against float64: bf16/f16 rounding
    of the output plus that of P (a weighted mean of |v|)."""
    b, hq, s, d = q.shape
    group = hq // k.shape[1]
    for _ in range(2):
        e = int(torch.randint(b, (1,), generator=gen, device="cuda"))
        h = int(torch.randint(hq, (1,), generator=gen, device="cuda"))
        rows = torch.randperm(s, device="cuda", generator=gen)[:128]
        qs = q[e, h, rows].double()
        ks, vs = k[e, h // group].double(), v[e, h // group].double()
        scores = qs @ ks.T / math.sqrt(d)
        if causal:
            keys = torch.arange(s, device="cuda")
            scores = scores.masked_fill(keys[None, :] > rows[:, None],
                                        float("-inf"))
        p = torch.softmax(scores, -1)
        ref = p @ vs
        bound = 1e-2 * (p @ vs.abs()) + 1e-2
        got = o[e, h, rows].double()
        bad = int(((got - ref).abs() > bound).sum())
        if bad or not bool(torch.isfinite(got).all()):
            raise AssertionError(f"{name}: {bad} elements off")


def measure(runs, q, k, v, o, causal, flops, gen, show):
    """{name: TFLOP/s} of the runs that compile and pass the check."""
    ok = {}
    for name, run in runs:
        try:
            o.fill_(float("nan"))
            run(q, k, v, o)
            torch.cuda.synchronize()
            check(name, o, q, k, v, causal, gen)
            ok[name] = lambda run=run: run(q, k, v, o)
        except Exception as e:  # a backend or tile that cannot run this
            print(f"  {name}: {type(e).__name__}: {str(e)[:200]}")
    us = interleaved_event_us(ok, reps=20, warmup=3)
    tflops = {n: flops / (t * 1e-6) / 1e12 for n, t in us.items()}
    if show:
        for n, t in tflops.items():
            print(f"  {n}: {t:.0f} TFLOP/s", flush=True)
    return tflops


def best(tflops, prefix):
    mine = {n: t for n, t in tflops.items() if n.startswith(prefix)}
    if not mine:
        return None
    name = max(mine, key=mine.get)
    return mine[name], name[len(prefix):].strip()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    p.add_argument("--quick", action="store_true",
                   help="one shape and dtype, for a smoke run")
    p.add_argument("--configs", default="default",
                   help="built-in attention_fwd tiles, BMxBNxWARPS[xPREFETCH] "
                   "or default, each with optional :NAME=VALUE parameters "
                   "(e.g. 128x64x8:stages=3)")
    p.add_argument("--all", action="store_true",
                   help="print every side's TFLOP/s")
    p.add_argument("--dtypes", default=",".join(DTYPES),
                   help="comma-separated dtypes to run (bf16, f16)")
    args = p.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(
        int(datetime.datetime.now().timestamp()))
    shapes = SHAPES[:2] if args.quick else SHAPES
    dtypes = ["bf16"] if args.quick else args.dtypes.split(",")
    for dtype in dtypes:
        if dtype not in DTYPES:
            p.error(f"--dtypes: {dtype} is not one of {', '.join(DTYPES)}")
    lines = ["| dtype | B Hq/Hkv S D | causal | cuDNN | flash | efficient "
             "| Triton (config) | ROCDSL (config) | ROCDSL/flash "
             "| ROCDSL/cuDNN |", "|---|---|---|---|---|---|---|---|---|---|"]
    for dtype in dtypes:
        t = DTYPES[dtype]
        for b, hq, hkv, s, d, causal in shapes:
            q = torch.randn(b, hq, s, d, generator=gen, device="cuda").to(t)
            k = torch.randn(b, hkv, s, d, generator=gen, device="cuda").to(t)
            v = torch.randn(b, hkv, s, d, generator=gen, device="cuda").to(t)
            o = torch.empty_like(q)
            flops = 4.0 * b * hq * s * s * d * (0.5 if causal else 1.0)
            runs = [("cuDNN", sdpa_run(SDPBackend.CUDNN_ATTENTION, causal)),
                    ("flash", sdpa_run(SDPBackend.FLASH_ATTENTION, causal)),
                    ("efficient",
                     sdpa_run(SDPBackend.EFFICIENT_ATTENTION, causal))]
            runs += [(f"triton {cfg}", triton_run(cfg, causal))
                     for cfg in TRITON_CONFIGS]
            runs += [(f"rocdsl {cfg}", builtin_run(dtype, cfg, causal))
                     for cfg in args.configs.split(",")]
            r = measure(runs, q, k, v, o, causal, flops, gen, args.all)
            fmt = lambda x: "failed" if x is None else f"{x[0]:.0f}"
            cfg = lambda x: "" if x is None else f" ({x[1]})"
            ratio = lambda x, y: ("-" if x is None or y is None
                                  else f"{x[0] / y[0]:.2f}")
            sdpa = {n: best(r, n) for n in ("cuDNN", "flash", "efficient")}
            tri, roc = best(r, "triton"), best(r, "rocdsl")
            line = (f"| {dtype} | {b} {hq}/{hkv} {s} {d} | {int(causal)} | "
                    f"{fmt(sdpa['cuDNN'])} | {fmt(sdpa['flash'])} | "
                    f"{fmt(sdpa['efficient'])} | {fmt(tri)}{cfg(tri)} | "
                    f"{fmt(roc)}{cfg(roc)} | {ratio(roc, sdpa['flash'])} | "
                    f"{ratio(roc, sdpa['cuDNN'])} |")
            print(line, flush=True)
            lines.append(line)
    header = (f"Attention forward (TFLOP/s) on {torch.cuda.get_device_name()}"
              f", {datetime.date.today()}, torch {torch.__version__}, triton "
              f"{triton.__version__}; command: python3 "
              f"benchmarks/attention_benchmark.py {' '.join(sys.argv[1:])}")
    text = header + "\n\n" + "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
