"""The RMSNorm backward's host cost in the regime of the contract's eager
table (the GPU idle before each call), ROCDSL beside torch, in one run.

    python3 benchmarks/rmsnorm_backward_host.py   (on a GPU machine, OUT=dir)

For 1x4096 and 512x2048 bf16: GPU events around one call (the table's
measure), and host wall time of one call after a synchronize, of
autograd.grad through rocdsl.torch.rms_norm, through F.rms_norm, through
x * 2 (the engine's floor), and of each side's backward operator called
directly. The calls take turns so that drift falls on all alike. Then
torch.profiler's table for 30 synchronized backward calls of each side
(traces into $OUT).
"""
import os
import statistics
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

import rocdsl.torch as rt

EPS = 1e-6


def take_turns(fns, measure, reps=200):
    """{name: median of `measure(fn)`}, the calls taking turns."""
    for fn in fns.values():
        for _ in range(10):
            fn()
    torch.cuda.synchronize()
    names = list(fns)
    times = {name: [] for name in names}
    for rep in range(reps):
        for i in range(len(names)):
            name = names[(rep + i) % len(names)]
            times[name].append(measure(fns[name]))
    return {name: statistics.median(t) for name, t in times.items()}


def events_us(fn):
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1000.0


def host_us(fn):
    torch.cuda.synchronize()
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1e3


def inputs(m, n):
    x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16,
                    requires_grad=True)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16,
                    requires_grad=True)
    dy = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    return x, w, dy


def calls(m, n):
    x, w, dy = inputs(m, n)
    ours, theirs, doubled = rt.rms_norm(x, w, EPS), F.rms_norm(x, (n,), w,
                                                               EPS), x * 2
    xd, wd = x.detach(), w.detach()
    rstd = torch.ops.aten._fused_rms_norm(xd, [n], wd, EPS)[1]
    grad = torch.autograd.grad
    return {
        "rocdsl grad": lambda: grad(ours, (x, w), dy, retain_graph=True),
        "torch grad": lambda: grad(theirs, (x, w), dy, retain_graph=True),
        "x*2 grad": lambda: grad(doubled, (x,), dy, retain_graph=True),
        "rocdsl op": lambda: torch.ops.rocdsl.rms_norm_backward(dy, xd, wd,
                                                                EPS),
        "torch op": lambda: torch.ops.aten._fused_rms_norm_backward(
            dy, xd, [n], rstd, wd, [True, True]),
    }


def profile_both(m, n):
    x, w, dy = inputs(m, n)
    for name, out in (("rocdsl", rt.rms_norm(x, w, EPS)),
                      ("torch", F.rms_norm(x, (n,), w, EPS))):
        def call():
            torch.autograd.grad(out, (x, w), dy, retain_graph=True)
        for _ in range(20):
            call()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU,
                                 ProfilerActivity.CUDA]) as prof:
            for _ in range(30):
                call()
                torch.cuda.synchronize()
        print(f"== profile (synchronized per call): {name} {m}x{n}")
        print(prof.key_averages().table(sort_by="cpu_time_total",
                                        row_limit=14))
        prof.export_chrome_trace(os.path.join(os.environ.get("OUT", "."),
                                              f"trace-{name}.json"))


def main():
    # A side stream, as the eager table runs (CUDA graphs need one).
    with torch.cuda.stream(torch.cuda.Stream()):
        for m, n in ((1, 4096), (512, 2048)):
            fns = calls(m, n)
            for label, measure in (("events", events_us),
                                   ("host wall (synchronized before)",
                                    host_us)):
                for name, us in take_turns(fns, measure).items():
                    print(f"{m}x{n} {label} {name}: {us:.1f} us")
        profile_both(512, 2048)


if __name__ == "__main__":
    main()
