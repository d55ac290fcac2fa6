"""Attention backward: the built-in attention_bwd kernel (through
torch.ops.rocdsl.attention_backward) beside the backward of torch's SDPA
backends (cuDNN, flash, memory-efficient) and a Triton FlashAttention-2
backward on one NVIDIA GPU, in one run (docs/benchmarks.md, "Attention
backward").

    python3 benchmarks/attention_backward_benchmark.py --out table.md
        [--quick] [--configs default,BMxBNxSTEPxWARPS,...]

Tensors in torch's (B, H, S, D) layout. Before anything is timed, ROCDSL's
and each Triton config's dq, dk and dv (outputs poisoned with NaN first)
are compared with float64 gradients on sampled rows of sampled heads. Each
side's time is its backward alone (torch: autograd.grad over a kept graph;
ROCDSL: the backward operator on the forward's out and lse; Triton: its
three launches, delta = rowsum(dO * O), then dK/dV, then dQ, on out and lse
from a Triton forward run once per shape, untimed), the median of
CUDA-event pairs taken in turns. The Triton column is its fastest config,
STEPxTILExWARPSxSTAGES (TRITON_BWD_CONFIGS). TFLOP/s = 2.5 * the forward's
4 * B * Hq * S^2 * D (halved for causal), FlashAttention's convention.
"""
import argparse
import datetime
import math
import pathlib
import sys

import torch
import triton
import triton.language as tl
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gpu_timing import take_turns, event_us  # noqa: E402
from attention_benchmark import triton_attention  # noqa: E402

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
        # The slack is a worst case that grows with the sequence: an error
        # of a few percent in every element fits under it. Rounding noise
        # stays near 2e-3 of the gradient's norm; 2e-2 is the bound.
        rel = float((x - ref).norm() / ref.norm())
        if rel > 2e-2:
            raise AssertionError(f"{name}: L2 relative error {rel:.2e}")


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


# Triton FlashAttention-2 backward. Scores are kept in base 2: the kernels
# scale q.k by scale * log2(e) and lse is log2 of the row's sum of
# exp2(those scores), so P = exp2(scaled score - lse) with no exp. out and
# lse come from attention_benchmark.py's Triton forward (LSE=True).
# (STEP, TILE, num_warps, num_stages): each dK/dV program keeps TILE keys
# and steps over queries STEP rows at a time, each dQ program keeps TILE
# query rows and steps over keys STEP at a time. The fastest of a wider
# sweep on an H100 (D 64 and 128, causal or not); all fit its shared memory.
TRITON_BWD_CONFIGS = [(64, 64, 4, 2), (32, 64, 4, 3), (64, 128, 8, 3),
                      (128, 128, 8, 2)]
TRITON_FWD_BLOCK = 64  # the untimed forward's tile, and the delta kernel's


@triton.jit
def triton_delta(o, do, delta, S, D: tl.constexpr, BM: tl.constexpr):
    """delta = rowsum(dO * O) in float32, BM rows of a head."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    bh = tl.program_id(1)
    offs = (bh * S + rows)[:, None] * D + tl.arange(0, D)[None, :]
    ob = tl.load(o + offs).to(tl.float32)
    dob = tl.load(do + offs).to(tl.float32)
    tl.store(delta + bh * S + rows, tl.sum(ob * dob, 1))


@triton.jit
def dkdv_blocks(dkb, dvb, kb, vb, keys, q, do, lse, delta, bh, S, qk_scale,
                lo, hi, D: tl.constexpr, STEP: tl.constexpr,
                MASK: tl.constexpr):
    """Adds query rows [lo, hi) of flat head bh to one key tile's dK, dV."""
    cols = tl.arange(0, D)
    for m0 in range(lo, hi, STEP):
        rows = m0 + tl.arange(0, STEP)
        offs = (bh * S + rows)[:, None] * D + cols[None, :]
        qb = tl.load(q + offs)
        dob = tl.load(do + offs)
        lrow = tl.load(lse + bh * S + rows)
        drow = tl.load(delta + bh * S + rows)
        # P and dP transposed (keys by queries), so that dV += P^T dO and
        # dK += dS^T Q are plain products into the key tile's accumulators.
        pt = tl.math.exp2(tl.dot(kb, tl.trans(qb)) * qk_scale
                          - lrow[None, :])
        if MASK:  # the diagonal blocks only; where() also drops the
            # overflow of scores above the diagonal, which lse leaves out
            pt = tl.where(keys[:, None] <= rows[None, :], pt, 0.0)
        dvb = tl.dot(pt.to(dob.dtype), dob, dvb)
        dst = pt * (tl.dot(vb, tl.trans(dob)) - drow[None, :])
        dkb = tl.dot(dst.to(qb.dtype), qb, dkb)
    return dkb, dvb


@triton.jit
def triton_dkdv(q, k, v, do, lse, delta, dk, dv, scale, S,
                HKV: tl.constexpr, GROUP: tl.constexpr, D: tl.constexpr,
                STEP: tl.constexpr, TILE: tl.constexpr,
                CAUSAL: tl.constexpr):
    """dK and dV of TILE keys of one (batch, kv head), summed over the GROUP
    query heads that share it within the program, so no atomics."""
    n0 = tl.program_id(0) * TILE
    bkv = tl.program_id(1)
    keys = n0 + tl.arange(0, TILE)
    offs = (bkv * S + keys)[:, None] * D + tl.arange(0, D)[None, :]
    kb = tl.load(k + offs)
    vb = tl.load(v + offs)
    dkb = tl.zeros((TILE, D), tl.float32)
    dvb = tl.zeros((TILE, D), tl.float32)
    qk_scale = scale * 1.4426950408889634
    # Query blocks before lo see none of these keys; those from mid on see
    # all of them; those between straddle the diagonal and are masked.
    lo = 0
    mid = 0
    if CAUSAL:
        lo = n0 // STEP * STEP
        mid = (n0 + TILE + STEP - 1) // STEP * STEP
    bh0 = (bkv // HKV) * (HKV * GROUP) + (bkv % HKV) * GROUP
    for g in range(GROUP):
        if CAUSAL:
            dkb, dvb = dkdv_blocks(dkb, dvb, kb, vb, keys, q, do, lse, delta,
                                   bh0 + g, S, qk_scale, lo, mid, D, STEP,
                                   True)
        dkb, dvb = dkdv_blocks(dkb, dvb, kb, vb, keys, q, do, lse, delta,
                               bh0 + g, S, qk_scale, mid, S, D, STEP, False)
    tl.store(dk + offs, (dkb * scale).to(dk.dtype.element_ty))
    tl.store(dv + offs, dvb.to(dv.dtype.element_ty))


@triton.jit
def dq_blocks(dqb, qb, dob, lrow, drow, rows, k, v, bkv, S, qk_scale, lo, hi,
              D: tl.constexpr, STEP: tl.constexpr, MASK: tl.constexpr):
    """Adds keys [lo, hi) of flat kv head bkv to one query tile's dQ."""
    cols = tl.arange(0, D)
    for n0 in range(lo, hi, STEP):
        keys = n0 + tl.arange(0, STEP)
        offs = (bkv * S + keys)[:, None] * D + cols[None, :]
        kb = tl.load(k + offs)
        vb = tl.load(v + offs)
        p = tl.math.exp2(tl.dot(qb, tl.trans(kb)) * qk_scale - lrow[:, None])
        if MASK:
            p = tl.where(keys[None, :] <= rows[:, None], p, 0.0)
        ds = p * (tl.dot(dob, tl.trans(vb)) - drow[:, None])
        dqb = tl.dot(ds.to(kb.dtype), kb, dqb)
    return dqb


@triton.jit
def triton_dq(q, k, v, do, lse, delta, dq, scale, S, H: tl.constexpr,
              GROUP: tl.constexpr, D: tl.constexpr, STEP: tl.constexpr,
              TILE: tl.constexpr, CAUSAL: tl.constexpr):
    """dQ of TILE query rows of a head."""
    m0 = tl.program_id(0) * TILE
    bh = tl.program_id(1)
    bkv = (bh // H) * (H // GROUP) + (bh % H) // GROUP
    rows = m0 + tl.arange(0, TILE)
    offs = (bh * S + rows)[:, None] * D + tl.arange(0, D)[None, :]
    qb = tl.load(q + offs)
    dob = tl.load(do + offs)
    lrow = tl.load(lse + bh * S + rows)
    drow = tl.load(delta + bh * S + rows)
    dqb = tl.zeros((TILE, D), tl.float32)
    qk_scale = scale * 1.4426950408889634
    # Key blocks before mid are seen by every row of the tile; those from
    # mid to the tile's last row straddle the diagonal and are masked.
    mid = S
    if CAUSAL:
        mid = m0 // STEP * STEP
        dqb = dq_blocks(dqb, qb, dob, lrow, drow, rows, k, v, bkv, S,
                        qk_scale, mid, m0 + TILE, D, STEP, True)
    dqb = dq_blocks(dqb, qb, dob, lrow, drow, rows, k, v, bkv, S, qk_scale,
                    0, mid, D, STEP, False)
    tl.store(dq + offs, (dqb * scale).to(dq.dtype.element_ty))


def triton_forward(q, k, v, causal):
    """out and base-2 lse ((B, Hq, S) float32) for the Triton backward."""
    b, hq, s, d = q.shape
    bm = TRITON_FWD_BLOCK
    assert s % bm == 0, f"Triton forward: S={s} is not a multiple of {bm}"
    out = torch.empty_like(q)
    lse = torch.empty(b, hq, s, dtype=torch.float32, device=q.device)
    triton_attention[(s // bm, b * hq)](
        q, k, v, out, lse, 1 / math.sqrt(d), s, H=hq, G=hq // k.shape[1],
        D=d, BM=bm, BN=bm, CAUSAL=causal, LSE=True, num_warps=4,
        num_stages=2)
    return out, lse


def triton_backward(cfg, q, k, v, dout, out, lse, causal, gen):
    step, tile, warps, stages = cfg
    b, hq, s, d = q.shape
    hkv = k.shape[1]
    block = max(step, tile, TRITON_FWD_BLOCK)
    assert s % block == 0, (f"Triton backward: S={s} is not a multiple of "
                            f"its {block}-row blocks")
    scale = 1 / math.sqrt(d)
    delta = torch.empty_like(lse)
    grads = [torch.empty_like(t) for t in (q, k, v)]
    meta = dict(D=d, STEP=step, TILE=tile, CAUSAL=causal, num_warps=warps,
                num_stages=stages)

    def run():
        dq, dk, dv = grads
        triton_delta[(s // TRITON_FWD_BLOCK, b * hq)](
            out, dout, delta, s, D=d, BM=TRITON_FWD_BLOCK)
        triton_dkdv[(s // tile, b * hkv)](
            q, k, v, dout, lse, delta, dk, dv, scale, s, HKV=hkv,
            GROUP=hq // hkv, **meta)
        triton_dq[(s // tile, b * hq)](
            q, k, v, dout, lse, delta, dq, scale, s, H=hq, GROUP=hq // hkv,
            **meta)
        return grads
    # Poisoned outputs first: an element the kernels skip shows up.
    for t in run():
        t.fill_(float("nan"))
    run()
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
             "| Triton (config) | ROCDSL (config) | ROCDSL/flash "
             "| ROCDSL/cuDNN | ROCDSL/Triton |",
             "|---|---|---|---|---|---|---|---|---|---|"]
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
        try:  # the Triton side's out and lse, once for all its configs
            fwd = triton_forward(q, k, v, causal)
        except Exception as e:
            fwd = None
            print(f"  triton forward: {type(e).__name__}: {str(e)[:300]}")
        for cfg in TRITON_BWD_CONFIGS if fwd is not None else ():
            name = "triton " + "x".join(map(str, cfg))
            try:
                runs[name] = triton_backward(cfg, q, k, v, dout, *fwd,
                                             causal, gen)
            except Exception as e:  # a config that does not compile or fit
                print(f"  {name}: {type(e).__name__}: {str(e)[:300]}")
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

        def best(prefix):
            mine = [n for n in tf if n.startswith(prefix)]
            return max(mine, key=tf.get) if mine else None
        roc, tri = best("rocdsl "), best("triton ")
        fmt = lambda n: f"{tf[n]:.0f}" if n in tf else "failed"
        named = lambda n: (f"{tf[n]:.0f} ({n.split(' ', 1)[1]})" if n
                           else "failed")
        ratio = lambda n: (f"{tf[roc] / tf[n]:.2f}" if roc and n in tf
                           else "-")
        line = (f"| {b} {hq}/{hkv} {s} {d} | {int(causal)} | {fmt('cuDNN')} "
                f"| {fmt('flash')} | {fmt('efficient')} | {named(tri)} | "
                f"{named(roc)} | {ratio('flash')} | {ratio('cuDNN')} | "
                f"{ratio(tri)} |")
        print(line, flush=True)
        lines.append(line)
    header = (f"Attention backward, bf16 (TFLOP/s) on "
              f"{torch.cuda.get_device_name()}, {datetime.date.today()}, "
              f"torch {torch.__version__}, triton {triton.__version__}; "
              f"command: python3 "
              f"benchmarks/attention_backward_benchmark.py "
              f"{' '.join(sys.argv[1:])}")
    text = header + "\n\n" + "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
