"""What a cached launch costs in Python, on the host device.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_launch_overhead.py

For each way of launching from Python, the median wall time of one call
(over 20 batches of 2,000 calls, after warm-up) minus the time the kernel
itself took (the runtime's wall time of the host launch, median over the
same number of calls): what remains is Python, argument conversion,
validation and the launcher-cache lookup. Published figures to beat: Triton
5.7-13 us and FlyDSL 6.8 us per launch of Python overhead.
"""
import statistics
import time

import numpy as np

import rocdsl
import rocdsl.language as rl
from rocdsl import _rocdsl

BATCHES, CALLS = 20, 2000


@rocdsl.kernel(num_warps=1)
def scale(x: rl.ptr("f32"), y: rl.ptr("f32"), n: rl.i32, B: rl.constexpr):
    start = rl.program_id(0) * B
    t = rl.load(x, [start], shape=[B], bounds=[n])
    rl.store(t * 2.0, y, [start], bounds=[n])


def per_call_us(call):
    for _ in range(500):
        call()
    batches = []
    for _ in range(BATCHES):
        start = time.perf_counter_ns()
        for _ in range(CALLS):
            call()
        batches.append((time.perf_counter_ns() - start) / CALLS / 1e3)
    return statistics.median(batches)


def kernel_us(call, kernel):
    samples = []
    for _ in range(BATCHES * 50):
        call()
        samples.append(kernel.last_kernel_us)
    return statistics.median(samples)


def cases():
    """(name, call, kernel object whose last_kernel_us times the kernel)."""
    rng = np.random.default_rng()
    x = rng.standard_normal((1, 64)).astype(np.float32)
    w = rng.standard_normal(64).astype(np.float32)
    y = np.empty_like(x)
    defs = ["N=64", "M=1", "dtype=f32"]
    k = _rocdsl.builtin("rmsnorm_fwd", defs, "host")
    args = [x, w, y, 1, 1e-6]
    yield "_rocdsl.Kernel.launch (built-in)", lambda: k.launch(args), k
    yield ("rocdsl.run (built-in, by name)",
           lambda: rocdsl.run("rmsnorm_fwd", defs, args),
           rocdsl.runtime.builtin("rmsnorm_fwd", defs))
    a = rng.standard_normal(64).astype(np.float32)
    b = np.empty_like(a)
    spec = scale[(1,)](a, b, 64, B=64)
    yield ("@rocdsl.kernel k[grid](...)", lambda: scale[(1,)](a, b, 64, B=64),
           spec.source_kernel)


def main():
    print("| launch path | per call (us) | kernel (us) | Python overhead (us) |")
    print("|---|---|---|---|")
    for name, call, kernel in cases():
        total = per_call_us(call)
        inner = kernel_us(call, kernel)
        print(f"| {name} | {total:.2f} | {inner:.2f} | {total - inner:.2f} |")


if __name__ == "__main__":
    main()
