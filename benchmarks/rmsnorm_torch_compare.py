"""ROCDSL's RMSNorm family beside PyTorch eager and Triton, in one run.

    ROCDSL_COMPARE_TORCH=1 python3 -m pytest -q -s \
        python-bindings/tests/test_rmsnorm_torch_benchmark.py
    (or: python3 benchmarks/rmsnorm_torch_compare.py)

Ops: rmsnorm_fwd, fused_add_fwd (forward shapes) and rmsnorm_bwd,
fused_add_bwd (backward shapes). Shapes: ROCDSL_RMSNORM_FWD_BENCH_SHAPES and
ROCDSL_RMSNORM_BWD_BENCH_SHAPES, "M,N,dtype;..."; default: the six shapes of
the field's contract and 32768x8192 bf16.

Each implementation is called through its public autograd API (ROCDSL:
rocdsl.torch; Torch: F.rms_norm eager; Triton: triton_rmsnorm.py's autograd
functions). The backward is torch.autograd.grad on a forward built before
timing, so backward allocations, the fp32 dweight reduction and the cast to
the weight dtype are inside. Results are compared with torch eager before
anything is timed. Timing: 10 warm-ups, then the median of GPU-event
pairs, (a) around each eager call (host overhead included, the field's
contract; 200 per implementation, the three taking turns call by call so
that drift of this shared machine falls on all alike) and (b) around each
of 100 replays of a CUDA graph of one call (device time only). GB/s counts the bytes an op must move (each input read once,
each output written once); % copy is against the device-to-device copy
bandwidth measured in the same run.
"""
import os
import sys

import torch
import torch.nn.functional as F
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton_rmsnorm  # noqa: E402
from rmsnorm_shapes import DTYPES, parse_rmsnorm_shapes  # noqa: E402
from gpu_timing import (copy_tbps, interleaved_event_us,  # noqa: E402
                        median_event_us)

import rocdsl.torch as rt  # noqa: E402

DEFAULT_SHAPES = "1,4096,bf16;128,4096,bf16;4096,4096,bf16;512,2048,bf16;" \
                 "512,3000,f32;1024,8192,bf16;32768,8192,bf16"
EPS = 1e-6


def parse_shapes(variable):
    return parse_rmsnorm_shapes(os.environ.get(variable) or DEFAULT_SHAPES,
                                variable)


def graph_us(fn):
    # run() works on a side stream, where the forwards of the backward cases
    # were recorded too: autograd runs a backward on its forward's stream,
    # which must be the capturing one.
    stream = torch.cuda.current_stream()
    for _ in range(3):
        fn()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        fn()
    return median_event_us(graph.replay)


@triton.jit
def _empty_kernel(x):
    pass


def empty_kernel_us():
    x = torch.empty(1, device="cuda")
    return graph_us(lambda: _empty_kernel[(1,)](x))


def make_cases(op, m, n, dtype, gen):
    """(implementations, bytes moved, check) for one op and shape."""
    t = DTYPES[dtype]
    rand = lambda *s: torch.randn(s, generator=gen, device="cuda").to(t)
    x, w, r = rand(m, n), rand(n), rand(m, n)
    size = x.element_size()
    if op == "rmsnorm_fwd":
        impls = {"rocdsl": lambda: rt.rms_norm(x, w, EPS),
                 "torch": lambda: F.rms_norm(x, (n,), w, EPS),
                 "triton": lambda: triton_rmsnorm.forward(x, w, EPS)}
        return impls, 2 * m * n * size + n * size
    if op == "fused_add_fwd":
        def eager():
            h = x + r
            return F.rms_norm(h, (n,), w, EPS), h
        impls = {"rocdsl": lambda: rt.fused_add_rms_norm(x, r, w, EPS),
                 "torch": eager,
                 "triton": lambda: triton_rmsnorm.forward(x, w, EPS, r)}
        return impls, 4 * m * n * size + n * size
    # Backward: forward graphs built once, before timing.
    dy, dh = rand(m, n), rand(m, n)
    xs = x.clone().requires_grad_(True)
    ws = w.clone().requires_grad_(True)
    rs = r.clone().requires_grad_(True)
    if op == "rmsnorm_bwd":
        outs = {"rocdsl": rt.rms_norm(xs, ws, EPS),
                "torch": F.rms_norm(xs, (n,), ws, EPS),
                "triton": triton_rmsnorm.RMSNorm.apply(xs, ws, EPS)}
        impls = {k: (lambda o=o: torch.autograd.grad(o, (xs, ws), dy,
                                                     retain_graph=True))
                 for k, o in outs.items()}
        return impls, 3 * m * n * size + 2 * n * size
    h_eager = xs + rs
    outs = {"rocdsl": rt.fused_add_rms_norm(xs, rs, ws, EPS),
            "torch": (F.rms_norm(h_eager, (n,), ws, EPS), h_eager),
            "triton": triton_rmsnorm.FusedAddRMSNorm.apply(xs, rs, ws, EPS)}
    impls = {k: (lambda o=o: torch.autograd.grad(o, (xs, rs, ws), (dy, dh),
                                                 retain_graph=True))
             for k, o in outs.items()}
    return impls, 4 * m * n * size + 2 * n * size


def check(op, impls, dtype):
    """Every implementation's outputs against torch eager's."""
    rtol, atol = {"f32": (1e-4, 1e-4), "f16": (4e-3, 4e-3),
                  "bf16": (3e-2, 3e-2)}[dtype]
    want = impls["torch"]()
    want = want if isinstance(want, tuple) else (want,)
    for name in ("rocdsl", "triton"):
        got = impls[name]()
        got = got if isinstance(got, tuple) else (got,)
        for i, (g, e) in enumerate(zip(got, want)):
            # dweight sums over all rows: compare relative to its size.
            scale = max(1.0, float(e.abs().max())) if e.dim() == 1 else 1.0
            if not torch.isfinite(g).all():
                raise AssertionError(f"{op} {name} output {i}: non-finite")
            torch.testing.assert_close(g / scale, e / scale, rtol=rtol,
                                       atol=atol, msg=lambda m: f"{op} {name} "
                                       f"output {i}: {m}")


def run():
    # Not the legacy default stream: CUDA graphs cannot capture on it.
    with torch.cuda.stream(torch.cuda.Stream()):
        return _run()


def _run():
    torch.backends.cuda.matmul.allow_tf32 = False
    seed = int.from_bytes(os.urandom(4), "little")
    gen = torch.Generator(device="cuda").manual_seed(seed)
    copy = copy_tbps()
    empty = empty_kernel_us()
    device = torch.cuda.get_device_name()
    print(f"device: {device}; torch {torch.__version__}; triton "
          f"{triton.__version__}; seed {seed}")
    print(f"device-to-device copy: {copy:.2f} TB/s; empty kernel "
          f"(graph replay): {empty:.2f} us")
    rows = []
    plan = [(op, s) for s in parse_shapes("ROCDSL_RMSNORM_FWD_BENCH_SHAPES")
            for op in ("rmsnorm_fwd", "fused_add_fwd")]
    plan += [(op, s) for s in parse_shapes("ROCDSL_RMSNORM_BWD_BENCH_SHAPES")
             for op in ("rmsnorm_bwd", "fused_add_bwd")]
    for op, (m, n, dtype) in plan:
        impls, nbytes = make_cases(op, m, n, dtype, gen)
        check(op, impls, dtype)
        row = {"op": op, "shape": f"{m}x{n}", "dtype": dtype, "bytes": nbytes}
        row.update(interleaved_event_us(impls, reps=200))
        for name, fn in impls.items():
            row[name + "_graph"] = graph_us(fn)
        rows.append(row)
        print_row(row, copy, first=len(rows) == 1)
    small = [r for r in rows if int(r["shape"].split("x")[0]) <= 128]
    for r in small:
        print(f"small shape {r['op']} {r['shape']}: ROCDSL graph replay "
              f"{r['rocdsl_graph']:.1f} us = "
              f"{r['rocdsl_graph'] / empty:.2f}x the empty kernel's")
    return {"device": device, "copy_tbps": copy, "empty_us": empty,
            "rows": rows, "seed": seed}


HEADER = ("op", "shape", "dtype", "ROCDSL (us)", "Torch (us)", "Triton (us)",
          "Torch/ROCDSL", "Triton/ROCDSL", "GB/s", "% of copy")


def cells(row, copy, suffix):
    ours = row["rocdsl" + suffix]
    gbps = row["bytes"] / (ours * 1e-6) / 1e9
    return (row["op"], row["shape"], row["dtype"], f"{ours:.1f}",
            f"{row['torch' + suffix]:.1f}", f"{row['triton' + suffix]:.1f}",
            f"{row['torch' + suffix] / ours:.2f}x",
            f"{row['triton' + suffix] / ours:.2f}x", f"{gbps:.0f}",
            f"{100 * gbps / (copy * 1e3):.0f}%")


def print_row(row, copy, first):
    if first:
        print("\t".join(HEADER + ("| graph: ROCDSL", "Torch", "Triton",
                                  "Torch/ROCDSL", "Triton/ROCDSL", "GB/s",
                                  "% of copy")))
    eager = cells(row, copy, "")
    graph = cells(row, copy, "_graph")[3:]
    print("\t".join(eager + ("|",) + graph), flush=True)


def markdown(result):
    lines = [f"Device {result['device']}, device-to-device copy "
             f"{result['copy_tbps']:.2f} TB/s, empty kernel (graph replay) "
             f"{result['empty_us']:.1f} us, seed {result['seed']}.", ""]
    for title, suffix in (("Eager calls (GPU events around each public-API "
                           "call; host overhead included)", ""),
                          ("CUDA graph replay (device time of one call)",
                           "_graph")):
        lines += [f"#### {title}", "", "| " + " | ".join(HEADER) + " |",
                  "|" + "---|" * len(HEADER)]
        lines += ["| " + " | ".join(cells(r, result["copy_tbps"], suffix)) +
                  " |" for r in result["rows"]]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    result = run()
    print(markdown(result))
