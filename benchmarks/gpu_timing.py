"""GPU-event timing shared by the benchmark scripts that run beside PyTorch."""
import statistics

import torch


def event_us(fn):
    """GPU-event time of one call of `fn`, in us, waiting for it."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1000.0


def median_event_us(fn, reps=100, warmup=10):
    """Median over `reps` GPU-event pairs around one call of `fn`, in us,
    after `warmup` calls."""
    return take_turns({"fn": fn}, event_us, reps, warmup)["fn"]


def take_turns(fns, measure, reps=100, warmup=10):
    """{name: median of measure(call)} for a dict of calls, after `warmup`
    calls of each, taking turns: each rep measures every call once,
    starting from a different one each time, so that drift on a shared or
    virtualized machine falls on all of them alike instead of on whichever
    ran during it."""
    names = list(fns)
    for name in names:
        for _ in range(warmup):
            fns[name]()
    torch.cuda.synchronize()
    times = {name: [] for name in names}
    for rep in range(reps):
        for i in range(len(names)):
            name = names[(rep + i) % len(names)]
            times[name].append(measure(fns[name]))
    return {name: statistics.median(t) for name, t in times.items()}


def interleaved_event_us(fns, reps=100, warmup=10):
    """{name: median us} of GPU events around one call, the calls taking
    turns (take_turns)."""
    return take_turns(fns, event_us, reps, warmup)


def copy_tbps(reps=100):
    """Device-to-device copy bandwidth of a 1 GiB buffer (read + write), in
    TB/s: the ceiling the memory-bound kernels are measured against."""
    a = torch.empty(1 << 30, dtype=torch.uint8, device="cuda").random_(0, 255)
    b = torch.empty_like(a)
    us = median_event_us(lambda: b.copy_(a), reps=reps)
    return 2 * a.numel() / (us * 1e-6) / 1e12


def sampled_matmul_error(a, b, out, gen, rows=8):
    """Largest |out - a b| on `rows` sampled rows, relative to the largest
    |a b| there, in float64; inf where those rows of out are not finite."""
    picked = torch.randint(0, a.shape[0], (rows,), device="cuda",
                           generator=gen)
    want = a[picked].double() @ b.double()
    got = out[picked].double()
    if not torch.isfinite(got).all():
        return float("inf")
    return ((got - want).abs().max() / want.abs().max()).item()


def cublas_tflops(dtype, n, gen, reps):
    """TFLOP/s of torch.matmul (cuBLAS) on fresh random n x n operands: the
    fastest of `reps` CUDA-event timings after three warm-up calls. Stops
    the run where the product is off float64 by 1e-2 or more on sampled
    rows, so that a failed call cannot time as fast."""
    a = torch.randn(n, n, device="cuda", dtype=dtype, generator=gen)
    b = torch.randn(n, n, device="cuda", dtype=dtype, generator=gen)
    out = torch.full((n, n), float("nan"), device="cuda", dtype=dtype)
    for _ in range(3):
        torch.matmul(a, b, out=out)
    best_us = min(event_us(lambda: torch.matmul(a, b, out=out))
                  for _ in range(reps))
    err = sampled_matmul_error(a, b, out, gen)
    if not err < 1e-2:
        raise SystemExit("cuBLAS %s %d^3: relative error %g" % (dtype, n, err))
    return 2.0 * n ** 3 / (best_us * 1e-6) / 1e12
