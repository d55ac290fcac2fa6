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
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rocdsl.torch as rt  # noqa: E402
from gpu_timing import event_us, take_turns  # noqa: E402
from host_overhead import profile_backward  # noqa: E402

EPS = 1e-6


def host_us(fn):
    """Host wall time of one call, the GPU idle before it."""
    torch.cuda.synchronize()
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1e3


def calls(m, n):
    x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16,
                    requires_grad=True)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16,
                    requires_grad=True)
    dy = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
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


def main():
    # A side stream, as the eager table runs (CUDA graphs need one).
    with torch.cuda.stream(torch.cuda.Stream()):
        for m, n in ((1, 4096), (512, 2048)):
            fns = calls(m, n)
            for label, measure in (("events", event_us),
                                   ("host wall (synchronized before)",
                                    host_us)):
                for name, us in take_turns(fns, measure, reps=200).items():
                    print(f"{m}x{n} {label} {name}: {us:.1f} us")
        profile_backward(512, 2048, torch.bfloat16, synchronize_each=True,
                         trace_dir=os.environ.get("OUT"))


if __name__ == "__main__":
    main()
