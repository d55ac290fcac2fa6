"""Attention backward: the built-in attention_bwd kernel (through
torch.ops.rocdsl.attention_backward) beside the backward of torch's SDPA
backends (cuDNN, flash, memory-efficient) on one NVIDIA GPU, in one run
(docs/benchmarks.md, "Attention backward").

    python3 benchmarks/attention_backward_benchmark.py --out table.md
        [--quick] [--configs default,BMxBNxSTEPxWARPS,...]

Tensors in torch's (B, H, S, D) layout. Before anything is timed, ROCDSL's
dq, dk and dv (outputs poisoned with NaN first) are compared with float64
gradients on sampled rows of sampled heads. Each side's time is its
backward alone (torch: autograd.grad over a kept graph; ROCDSL: the
backward operator on the forward's out and lse), the median of CUDA-event
pairs taken in turns. TFLOP/s = 2.5 * the forward's 4 * B * Hq * S^2 * D
(halved for causal), FlashAttention's convention.
"""
import argparse
import datetime
import math
import pathlib
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gpu_timing import take_turns, event_us  # noqa: E402

import rocdsl  # noqa: E402,F401
import rocdsl.torch  # noqa: E402,F401  (registers torch.ops.rocdsl.*)

F = torch.nn.functional
# (B, Hq, Hkv, S, D, causal)
SHAPES = [(2, 16, 16, 4096, 128, False), (2, 16, 16, 4096, 128, True),
          (2, 32, 8, 4096, 128, True), (2, 16, 16, 4096, 64, True),
          (8, 16, 16, 1024, 128, True), (1, 16, 16, 16384, 128, True)]


def reference_rows(q, k, v, dout, causal, gen, samples=128):
    """float64 gradients of one (batch, key/value head) group at sampled
    query rows (dq) and sampled keys (dk, dv): ({name: (index, values)})."""
    b, hq, s, d = q.shape
    group = hq // k.shape[1]
    e = int(torch.randint(b, (1,), generator=gen, device="cuda"))
    g = int(torch.randint(k.shape[1], (1,), generator=gen, device="cuda"))
    rows = torch.randperm(s, device="cuda", generator=gen)[:samples]
    keys = torch.randperm(s, device="cuda", generator=gen)[:samples]
    k64, v64 = k[e, g].double(), v[e, g].double()
    scale = 1 / math.sqrt(d)
    pos = torch.arange(s, device="cuda")

    def scores(qrows, idx_q, kk, idx_k):
        sc = qrows @ kk.T * scale
        if causal:
            sc = sc.masked_fill(idx_k[None, :] > idx_q[:, None],
                                float("-inf"))
        return sc

    # Each gradient with its rounding slack: the kernel forms delta from
    # the bf16 output (off by eps * sum|dO * O| a row) and rounds P and dS
    # to bf16 before the products; sums of terms far larger than the
    # gradient (keys every query weighs) keep those errors whole.
    eps = 2.0 ** -8
    zeros = lambda: torch.zeros(samples, d, dtype=torch.float64,
                                device="cuda")
    dk, dv, dk_slack, dv_slack = zeros(), zeros(), zeros(), zeros()
    dq = {}
    for h in range(g * group, (g + 1) * group):
        q64, do64 = q[e, h].double(), dout[e, h].double()
        lse = torch.empty(s, dtype=torch.float64, device="cuda")
        delta, delta_err = torch.empty_like(lse), torch.empty_like(lse)
        for r0 in range(0, s, 1024):  # full rows, 1024 at a time
            idx = pos[r0:r0 + 1024]
            sc = scores(q64[idx], idx, k64, pos)
            lse[idx] = torch.logsumexp(sc, -1)
            o = torch.softmax(sc, -1) @ v64
            delta[idx] = (o * do64[idx]).sum(-1)
            delta_err[idx] = eps * (o * do64[idx]).abs().sum(-1)
        # Columns of P at the sampled keys, over every query row.
        p = torch.exp(scores(q64, pos, k64[keys], keys) - lse[:, None])
        ds = p * (do64 @ v64[keys].T - delta[:, None])
        terms = scale * (p * delta_err[:, None] + eps * ds.abs())
        dk += scale * ds.T @ q64
        dv += p.T @ do64
        dk_slack += terms.T @ q64.abs()
        dv_slack += eps * p.T @ do64.abs()
        # Rows of P at the sampled queries, over every key.
        p = torch.exp(scores(q64[rows], rows, k64, pos) - lse[rows, None])
        ds = p * (do64[rows] @ v64.T - delta[rows, None])
        terms = scale * (p * delta_err[rows, None] + eps * ds.abs())
        dq[h] = (scale * ds @ k64, terms @ k64.abs())
    return e, g, group, rows, keys, dq, (dk, dk_slack), (dv, dv_slack)


def check(dq, dk, dv, q, k, v, dout, causal, gen):
    e, g, group, rows, keys, rdq, rdk, rdv = reference_rows(q, k, v, dout,
                                                           causal, gen)
    got = {"dk": (dk[e, g, keys].double(), rdk),
           "dv": (dv[e, g, keys].double(), rdv)}
    for h, ref in rdq.items():
        got[f"dq head {h}"] = (dq[e, h, rows].double(), ref)
    for name, (x, (ref, slack)) in got.items():
        bound = 2e-2 * (ref.abs() + ref.abs().mean()) + slack + 1e-3
        bad = int(((x - ref).abs() > bound).sum())
        if bad or not bool(torch.isfinite(x).all()):
            raise AssertionError(f"{name}: {bad} elements off")


def torch_backward(backend, q, k, v, dout, causal):
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    with sdpa_kernel([backend]):
        out = F.scaled_dot_product_attention(
            *leaves, is_causal=causal, enable_gqa=k.shape[1] != q.shape[1])
    return lambda: torch.autograd.grad(out, leaves, dout, retain_graph=True)


def rocdsl_backward(cfg, q, k, v, dout, causal, gen):
    # BMxBNxSTEPxWARPS or default, then any ":name=value" extras (e.g.
    # default:wgmma=0, 64x64x64x4:wgmma=1).
    base, *extras = cfg.split(":")
    tile = [] if base == "default" else [
        f"{n}={x}" for n, x in zip(("BM", "BN", "step", "warps"),
                                   base.split("x"))]
    tile += extras
    ops = torch.ops.rocdsl
    params = (0.0, causal, -1, -1, 0.0, "bhsd", "top_left", 0, 0)
    out, lse = ops.attention(q, k, v, None, None, *params)
    if tile:  # other tiles: the kernel itself, at those parameters
        from rocdsl import torch_attention as ta
        shared = ta._definitions(q, k, v, None, params)
        grads = [torch.empty_like(t) for t in (q, k, v)]

        def run():
            # Both launches, as the op makes them (with dq_atomic, zeroed
            # scratch as the op passes it).
            ta._backward(shared, tile, q, k, v, out, dout, lse, grads,
                         (None, None), 0.0)
            return grads
    else:
        def run():
            return ops.attention_backward(dout, q, k, v, out, lse, None,
                                          None, *params)
    # Poisoned outputs first: an element the kernel skips shows up.
    for t in run():
        t.fill_(float("nan"))
    grads = run()
    torch.cuda.synchronize()
    check(*grads, q, k, v, dout, causal, gen)
    return run


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    p.add_argument("--quick", action="store_true",
                   help="two shapes, for a smoke run")
    p.add_argument("--configs", default="default",
                   help="attention_bwd tiles, BMxBNxSTEPxWARPS or default, "
                        "each with optional :name=value extras "
                        "(default:wgmma=0)")
    args = p.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(
        int(datetime.datetime.now().timestamp()))
    shapes = SHAPES[:2] if args.quick else SHAPES
    lines = ["| B Hq/Hkv S D | causal | cuDNN | flash | efficient "
             "| ROCDSL (config) | ROCDSL/flash | ROCDSL/cuDNN |",
             "|---|---|---|---|---|---|---|---|"]
    for b, hq, hkv, s, d, causal in shapes:
        t = torch.bfloat16
        q = torch.randn(b, hq, s, d, generator=gen, device="cuda").to(t)
        k = torch.randn(b, hkv, s, d, generator=gen, device="cuda").to(t)
        v = torch.randn(b, hkv, s, d, generator=gen, device="cuda").to(t)
        dout = torch.randn(b, hq, s, d, generator=gen, device="cuda").to(t)
        flops = 2.5 * 4.0 * b * hq * s * s * d * (0.5 if causal else 1.0)
        runs = {}
        for name, backend in (("cuDNN", SDPBackend.CUDNN_ATTENTION),
                              ("flash", SDPBackend.FLASH_ATTENTION),
                              ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
            try:
                runs[name] = torch_backward(backend, q, k, v, dout, causal)
                runs[name]()
            except Exception as e:  # a backend that cannot run this shape
                runs.pop(name, None)
                print(f"  {name}: {type(e).__name__}: {str(e)[:200]}")
        for cfg in args.configs.split(","):
            try:
                runs[f"rocdsl {cfg}"] = rocdsl_backward(cfg, q, k, v, dout,
                                                        causal, gen)
            except Exception as e:
                print(f"  rocdsl {cfg}: {type(e).__name__}: {str(e)[:300]}")
        us = take_turns(runs, event_us, reps=10, warmup=2)
        tf = {n: flops / (x * 1e-6) / 1e12 for n, x in us.items()}
        for n, x in tf.items():
            print(f"  {n}: {x:.0f} TFLOP/s")
        mine = {n: x for n, x in tf.items() if n.startswith("rocdsl")}
        best = max(mine, key=mine.get) if mine else None
        fmt = lambda n: f"{tf[n]:.0f}" if n in tf else "failed"
        ratio = lambda n: (f"{tf[best] / tf[n]:.2f}" if best and n in tf
                           else "-")
        line = (f"| {b} {hq}/{hkv} {s} {d} | {int(causal)} | {fmt('cuDNN')} "
                f"| {fmt('flash')} | {fmt('efficient')} | "
                f"{fmt(best) if best else 'failed'}"
                f"{f' ({best[7:]})' if best else ''} | {ratio('flash')} | "
                f"{ratio('cuDNN')} |")
        print(line, flush=True)
        lines.append(line)
    header = (f"Attention backward, bf16 (TFLOP/s) on "
              f"{torch.cuda.get_device_name()}, {datetime.date.today()}, "
              f"torch {torch.__version__}; command: python3 "
              f"benchmarks/attention_backward_benchmark.py "
              f"{' '.join(sys.argv[1:])}")
    text = header + "\n\n" + "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
