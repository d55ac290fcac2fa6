"""GPU-event timing shared by the benchmark scripts that run beside PyTorch."""
import statistics

import torch


def median_event_us(fn, reps=100, warmup=10):
    """Median over `reps` GPU-event pairs around one call of `fn`, in us,
    after `warmup` calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(times)


def interleaved_event_us(fns, reps=100, warmup=10):
    """{name: median us} for a dict of calls timed as median_event_us does,
    but taking turns: each rep times every call once, starting from a
    different one each time, so that drift on a shared or virtualized
    machine falls on all of them alike instead of on whichever ran during
    it."""
    names = list(fns)
    for name in names:
        for _ in range(warmup):
            fns[name]()
    torch.cuda.synchronize()
    times = {name: [] for name in names}
    for rep in range(reps):
        for i in range(len(names)):
            name = names[(rep + i) % len(names)]
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            fns[name]()
            stop.record()
            stop.synchronize()
            times[name].append(start.elapsed_time(stop) * 1000.0)
    return {name: statistics.median(t) for name, t in times.items()}


def copy_tbps(reps=100):
    """Device-to-device copy bandwidth of a 1 GiB buffer (read + write), in
    TB/s: the ceiling the memory-bound kernels are measured against."""
    a = torch.empty(1 << 30, dtype=torch.uint8, device="cuda").random_(0, 255)
    b = torch.empty_like(a)
    us = median_event_us(lambda: b.copy_(a), reps=reps)
    return 2 * a.numel() / (us * 1e-6) / 1e12
