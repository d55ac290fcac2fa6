"""Kernels users write, ROCDSL beside Triton and PyTorch on one NVIDIA GPU,
in one run (docs/benchmarks.md, "Kernels users write").

    python3 benchmarks/user_kernels_benchmark.py --out table.md [--amd-asm DIR]

The ROCDSL kernels are benchmarks/user_kernels.py (no vector widths, no
layouts, no num_warps), the Triton kernels the same algorithms
(triton_user_kernels.py, best of 4/8/16 warps), PyTorch its own ops. Every
output is checked against a float64 reference on fresh random inputs (NaN
poisoned outputs) before anything is timed. Times are CUDA-graph replays
(20 launches per graph, median of 10 replays, per launch), so host
overhead is out and device time is what is compared.

--amd-asm DIR also writes Triton's gfx942/gfx950 code for the kernels
(triton_amd_asm.py) for the AMD instruction comparison.
"""
import argparse
import datetime
import math
import os
import pathlib
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import triton

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import triton_user_kernels as T  # noqa: E402
import user_kernels as U  # noqa: E402

SHAPES = [(4096, 1000, "f32"), (16384, 4096, "bf16"), (32768, 8192, "bf16"),
          (1024, 32000, "f32")]
TORCH = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
TOL = {"f32": (2e-5, 2e-5), "f16": (2e-3, 2e-3), "bf16": (1.6e-2, 1.6e-2)}
ROW_KERNELS = ("softmax", "layernorm", "rmsnorm", "cross_entropy")
EPS = 1e-5


def make_inputs(name, m, n, dtype, gen):
    t = TORCH[dtype]
    randn = lambda *s, scale=1.0: (torch.randn(*s, generator=gen,
                                               device="cuda") * scale).to(t)
    if name == "softmax":
        return [randn(m, n, scale=3)]
    if name == "layernorm":
        return [randn(m, n), randn(n), randn(n)]
    if name == "rmsnorm":
        return [randn(m, n), randn(n)]
    if name in ("swiglu", "residual_add"):
        return [randn(m, n, scale=3), randn(m, n)]
    if name == "gelu_tanh":
        return [randn(m, n, scale=3)]
    if name == "cross_entropy":
        return [randn(m, n, scale=4),
                torch.randint(0, n, (m,), generator=gen, device="cuda",
                              dtype=torch.int32)]
    raise KeyError(name)


def out_spec(name, m, n, dtype):
    if name == "cross_entropy":
        return (m,), torch.float32
    if name == "residual_add":
        return (m, n), torch.bfloat16 if dtype == "f32" else torch.float32
    return (m, n), TORCH[dtype]


def torch_op(name, ins):
    if name == "softmax":
        return lambda: torch.softmax(ins[0], -1)
    if name == "layernorm":
        x, w, b = ins
        return lambda: F.layer_norm(x, (x.shape[-1],), w, b, EPS)
    if name == "rmsnorm":
        x, w = ins
        return lambda: F.rms_norm(x, (x.shape[-1],), w, EPS)
    if name == "swiglu":
        return lambda: F.silu(ins[0]) * ins[1]
    if name == "gelu_tanh":
        return lambda: F.gelu(ins[0], approximate="tanh")
    if name == "residual_add":
        dt = torch.bfloat16 if ins[0].dtype == torch.float32 else torch.float32
        return lambda: (ins[0] + ins[1]).to(dt)
    if name == "cross_entropy":
        logits, target = ins
        t64 = target.long()
        return lambda: F.cross_entropy(logits, t64, reduction="none")
    raise KeyError(name)


def reference(name, ins):
    d = [i.double() if i.is_floating_point() else i.long() for i in ins]
    if name == "softmax":
        return torch.softmax(d[0], -1)
    if name == "layernorm":
        return F.layer_norm(d[0], (d[0].shape[-1],), d[1], d[2], EPS)
    if name == "rmsnorm":
        x, w = d
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + EPS) * w
    if name == "swiglu":
        return F.silu(d[0]) * d[1]
    if name == "gelu_tanh":
        return F.gelu(d[0], approximate="tanh")
    if name == "residual_add":
        return d[0] + d[1]
    if name == "cross_entropy":
        return F.cross_entropy(d[0], d[1], reduction="none")
    raise KeyError(name)


def rocdsl_launch(name, ins, out, m, n):
    case = U.KERNELS[name]
    return lambda: case.launch(ins + [out], m, n)


def triton_launch(name, ins, out, m, n, warps):
    k = T.KERNELS[name]
    if name in ROW_KERNELS:
        block = triton.next_power_of_2(n)
        extra = (EPS,) if name in ("layernorm", "rmsnorm") else ()
        return lambda: k[(m,)](*ins, out, n, *extra, BLOCK=block,
                               num_warps=warps)
    count = m * n
    return lambda: k[(triton.cdiv(count, 1024),)](*ins, out, count,
                                                   BLOCK=1024, num_warps=warps)


def warm_up_gpu(seconds=0.5):
    """Keeps the GPU busy for a while before anything is timed, so that the
    first row is not measured while clocks and caches are still cold."""
    a = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            b.copy_(a)
        torch.cuda.synchronize()


def graph_us(fn, per_graph=20, replays=30):
    """Per-launch device time of `fn`, from CUDA-graph replays."""
    fn()  # compile and warm up outside the capture
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(per_graph):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0 / per_graph)
    return statistics.median(times)


_TOL_OF = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


def check(label, got, ref, dtype, scale=1.0):
    """Within the rounding of the inputs' dtype and of the output's own
    (a bf16 output of f32 inputs rounds like bf16)."""
    out = TOL[_TOL_OF[got.dtype]]
    rtol, atol = max(out[0], TOL[dtype][0]), max(out[1], TOL[dtype][1])
    g = got.double()
    bad = ~torch.isfinite(g) | ((g - ref).abs() >
                                atol * scale + rtol * ref.abs())
    if bool(bad.any()):
        raise AssertionError(f"{label}: {int(bad.sum())} of {g.numel()} off, "
                             f"max abs err {float((g - ref).abs().max()):.3e}")


def bench_one(name, m, n, dtype, gen):
    ins = make_inputs(name, m, n, dtype, gen)
    shape, out_dtype = out_spec(name, m, n, dtype)
    ref = reference(name, ins)
    scale = 4.0 * max(1.0, float(ref.abs().max())) if name == "cross_entropy" \
        else 1.0
    row = {}
    out = torch.full(shape, float("nan"), device="cuda", dtype=out_dtype)
    launch = rocdsl_launch(name, ins, out, m, n)
    launch()
    torch.cuda.synchronize()
    check(f"rocdsl {name}", out, ref, dtype, scale)
    row["rocdsl"] = graph_us(launch)
    best = None
    for warps in (4, 8, 16):
        out = torch.full(shape, float("nan"), device="cuda", dtype=out_dtype)
        launch = triton_launch(name, ins, out, m, n, warps)
        launch()
        torch.cuda.synchronize()
        check(f"triton {name} w{warps}", out, ref, dtype, scale)
        us = graph_us(launch)
        if best is None or us < best[0]:
            best = (us, warps)
    row["triton"], row["triton_warps"] = best
    op = torch_op(name, ins)
    check(f"torch {name}", op(), ref, dtype, scale)
    row["torch"] = graph_us(op)
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", help="write the markdown table here")
    p.add_argument("--amd-asm", help="write Triton's gfx942/gfx950 asm here")
    p.add_argument("--kernels", default=",".join(U.KERNELS))
    a = p.parse_args()
    seed = int.from_bytes(os.urandom(4), "little")
    gen = torch.Generator(device="cuda").manual_seed(seed)
    device = torch.cuda.get_device_name()
    lines = [f"Device: {device}; {datetime.date.today()}; torch "
             f"{torch.__version__}, triton {triton.__version__}; seed {seed}; "
             f"`python3 benchmarks/user_kernels_benchmark.py`", "",
             "| kernel | shape | ROCDSL (us) | Triton (us, warps) | torch (us) "
             "| Triton/ROCDSL | torch/ROCDSL |",
             "|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    warm_up_gpu()
    for name in a.kernels.split(","):
        for m, n, dtype in SHAPES:
            r = bench_one(name, m, n, dtype, gen)
            line = (f"| {name} | {m}x{n} {dtype} | {r['rocdsl']:.1f} | "
                    f"{r['triton']:.1f} ({r['triton_warps']}) | "
                    f"{r['torch']:.1f} | {r['triton'] / r['rocdsl']:.2f} | "
                    f"{r['torch'] / r['rocdsl']:.2f} |")
            print(line, flush=True)
            lines.append(line)
    if a.out:
        pathlib.Path(a.out).write_text("\n".join(lines) + "\n")
    if a.amd_asm:
        import triton_amd_asm
        triton_amd_asm.write_asm(a.amd_asm)


if __name__ == "__main__":
    main()
