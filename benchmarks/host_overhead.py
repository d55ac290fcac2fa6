"""Where the host time of a call goes, on an NVIDIA GPU, in one run.

    python3 benchmarks/host_overhead.py [--markdown FILE] [--profile]
                                        [--shapes "M,N,DTYPE;..."]

Wall time per call (median of 15 batches of 400 calls after warm-up,
perf_counter around each batch, the GPU synchronized at batch ends only):
the host's cost of submitting the call, since these kernels take a few
microseconds of device time and the queue never fills. Tiny shapes
(1x4096 bf16 for the RMSNorm family unless --shapes names others, 4096
f32 elements for the user kernel) keep device time out of the way.

Sections:
  baselines   a raw cuLaunchKernel of an empty kernel through ctypes,
              torch.add(out=), an empty autograd.Function through
              torch.autograd.grad, Triton's launch of the user kernel;
  rmsnorm     rocdsl.torch.rms_norm / fused_add_rms_norm forward and
              backward beside torch's F.rms_norm, and each stage of
              ROCDSL's path (the stages present in this build);
  user kernel a @rocdsl.kernel launch on torch tensors, by stage, beside
              the same kernel in Triton.
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rocdsl  # noqa: E402
import rocdsl.language as rl  # noqa: E402
import rocdsl.torch as rt  # noqa: E402
from rmsnorm_shapes import DTYPES, parse_rmsnorm_shapes  # noqa: E402

BATCHES, CALLS = 15, 400
EPS = 1e-6


def per_call_us(call):
    for _ in range(200):
        call()
    torch.cuda.synchronize()
    batches = []
    for _ in range(BATCHES):
        start = time.perf_counter_ns()
        for _ in range(CALLS):
            call()
        torch.cuda.synchronize()
        batches.append((time.perf_counter_ns() - start) / CALLS / 1e3)
    return statistics.median(batches)


# --- baselines -----------------------------------------------------------------

_EMPTY_PTX = """
.version 7.0
.target sm_50
.address_size 64
.visible .entry empty(.param .u64 p) { ret; }
"""


class RawLaunch:
    """cuLaunchKernel of an empty one-argument kernel through ctypes: the
    floor any Python launch path pays on this machine."""

    def __init__(self):
        torch.cuda.init()
        torch.empty(1, device="cuda")  # a current context
        cuda = ctypes.CDLL("libcuda.so.1")
        self.module, self.fn = ctypes.c_void_p(), ctypes.c_void_p()
        ptx = _EMPTY_PTX.encode() + b"\0"
        check(cuda.cuModuleLoadData(ctypes.byref(self.module), ptx))
        check(cuda.cuModuleGetFunction(ctypes.byref(self.fn), self.module,
                                       b"empty"))
        self.launch_fn = cuda.cuLaunchKernel
        self.arg = ctypes.c_uint64(0)
        self.params = (ctypes.c_void_p * 1)(ctypes.addressof(self.arg))

    def __call__(self):
        stream = torch._C._cuda_getCurrentRawStream(0)
        self.launch_fn(self.fn, 1, 1, 1, 32, 1, 1, 0,
                       ctypes.c_void_p(stream), self.params, None)


def check(result):
    if result != 0:
        raise RuntimeError(f"CUDA driver error {result}")


class _Identity(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, dy):
        return dy


# --- the user kernel -----------------------------------------------------------

@rocdsl.kernel(num_warps=4)
def scale(x: rl.ptr("f32"), y: rl.ptr("f32"), n: rl.i32, B: rl.constexpr):
    start = rl.program_id(0) * B
    t = rl.load(x, [start], shape=[B], bounds=[n])
    rl.store(t * 2.0, y, [start], bounds=[n])


def triton_scale():
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(x, y, n, B: tl.constexpr):
        offs = tl.program_id(0) * B + tl.arange(0, B)
        mask = offs < n
        tl.store(y + offs, tl.load(x + offs, mask=mask) * 2.0, mask=mask)
    return kernel


def rows(section, cases):
    out = []
    for name, call in cases:
        us = per_call_us(call)
        out.append((section, name, us))
        print(f"{section:12s} {name:60s} {us:8.2f} us", flush=True)
    return out


def baselines(x):
    raw = RawLaunch()
    out = torch.empty_like(x)
    xs = x.clone().requires_grad_(True)
    ident = _Identity.apply(xs)
    dy = torch.randn_like(x)
    cases = [("cuLaunchKernel through ctypes (empty kernel)", raw),
             ("torch.add(x, x, out=y)", lambda: torch.add(x, x, out=out)),
             ("torch.empty_like(x)", lambda: torch.empty_like(x)),
             ("torch._C._cuda_getCurrentRawStream(0)",
              lambda: torch._C._cuda_getCurrentRawStream(0)),
             ("torch.cuda.current_stream().cuda_stream",
              lambda: torch.cuda.current_stream().cuda_stream),
             ("autograd.grad through an identity autograd.Function",
              lambda: torch.autograd.grad(ident, xs, dy, retain_graph=True))]
    return rows("baseline", cases)


def rmsnorm_cases(m, n, dtype):
    gen = torch.Generator(device="cuda").manual_seed(1)
    rand = lambda *s: torch.randn(s, generator=gen, device="cuda").to(dtype)
    x, w, r, dy, dh = rand(m, n), rand(n), rand(m, n), rand(m, n), rand(m, n)
    xs, ws, rs = (t.clone().requires_grad_(True) for t in (x, w, r))
    ours = rt.rms_norm(xs, ws, EPS)
    theirs = F.rms_norm(xs, (n,), ws, EPS)
    fused = rt.fused_add_rms_norm(xs, rs, ws, EPS)
    h = xs + rs
    fused_torch = (F.rms_norm(h, (n,), ws, EPS), h)
    grad = torch.autograd.grad
    cases = [
        ("rocdsl rms_norm (no grad)", lambda: rt.rms_norm(x, w, EPS)),
        ("torch F.rms_norm (no grad)", lambda: F.rms_norm(x, (n,), w, EPS)),
        ("rocdsl rms_norm (records autograd)", lambda: rt.rms_norm(xs, ws, EPS)),
        ("torch F.rms_norm (records autograd)",
         lambda: F.rms_norm(xs, (n,), ws, EPS)),
        ("rocdsl rms_norm backward (autograd.grad)",
         lambda: grad(ours, (xs, ws), dy, retain_graph=True)),
        ("torch F.rms_norm backward (autograd.grad)",
         lambda: grad(theirs, (xs, ws), dy, retain_graph=True)),
        ("rocdsl fused_add_rms_norm (no grad)",
         lambda: rt.fused_add_rms_norm(x, r, w, EPS)),
        ("rocdsl fused_add backward (autograd.grad)",
         lambda: grad(fused, (xs, rs, ws), (dy, dh), retain_graph=True)),
        ("torch add + F.rms_norm backward (autograd.grad)",
         lambda: grad(fused_torch, (xs, rs, ws), (dy, dh),
                      retain_graph=True)),
    ]
    # The operators themselves (what torch.compile graphs call), without
    # the autograd layer: the dispatcher, the checks, allocation, launches.
    ops = torch.ops.rocdsl
    cases += [
        ("  stage: torch.ops.rocdsl.rms_norm_backward (no autograd)",
         lambda: ops.rms_norm_backward.default(dy, x, w, EPS)),
        ("  stage: torch.ops.rocdsl.rms_norm (no grad)",
         lambda: ops.rms_norm.default(x, w, EPS)),
        ("  stage: torch.ops.rocdsl.fused_add_rms_norm_backward",
         lambda: ops.fused_add_rms_norm_backward.default(dy, dh, x, w, EPS))]
    name = str(dtype).replace("torch.", "")
    return rows(f"rmsnorm {m}x{n} {name}", cases)


def user_kernel_cases(n):
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    block = 1024
    grid = ((n + block - 1) // block,)
    launch = scale[grid]
    launch(x, y, n, B=block)
    torch.testing.assert_close(y, 2 * x)
    spec = launch(x, y, n, B=block)
    from rocdsl import jit
    values = []
    k = scale
    cases = [("@rocdsl.kernel scale[grid](x, y, n, B=1024)",
              lambda: launch(x, y, n, B=block)),
             ("  stage: argument converters",
              lambda: [c(a, values) for c, a in
                       zip(k._converters, (x, y, n))] and values.clear()),
             ("  stage: stream query (jit._current_stream)",
              lambda: jit._current_stream("cuda"))]
    args = []
    for c, a in zip(k._converters, (x, y, n)):
        c(a, args)
    three = jit._grid3(grid)
    stream = torch._C._cuda_getCurrentRawStream(0)
    sk = spec.source_kernel
    cases.append(("  stage: SourceKernel.launch (converted arguments)",
                  lambda: sk.launch(args, three, stream)))
    try:
        tk = triton_scale()
        tk[grid](x, y, n, B=block)
        torch.testing.assert_close(y, 2 * x)
        cases.append(("triton scale[grid](x, y, n, B=1024)",
                      lambda: tk[grid](x, y, n, B=block)))
    except ImportError:
        pass
    return rows(f"user {n}", cases)


def profile_backward(m, n, dtype, synchronize_each=False, trace_dir=None):
    """torch.profiler's table for 50 backward calls of each side; with
    `synchronize_each`, the GPU idle before each call (the eager table's
    regime); traces into `trace_dir` if given."""
    from torch.profiler import ProfilerActivity, profile
    x = torch.randn(m, n, device="cuda", dtype=dtype, requires_grad=True)
    w = torch.randn(n, device="cuda", dtype=dtype, requires_grad=True)
    dy = torch.randn(m, n, device="cuda", dtype=dtype)
    for name, out in (("rocdsl", rt.rms_norm(x, w, EPS)),
                      ("torch", F.rms_norm(x, (n,), w, EPS))):
        call = lambda: torch.autograd.grad(out, (x, w), dy, retain_graph=True)
        for _ in range(50):
            call()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU,
                                 ProfilerActivity.CUDA]) as prof:
            for _ in range(50):
                call()
                if synchronize_each:
                    torch.cuda.synchronize()
            torch.cuda.synchronize()
        print(f"== profile: {name} rms_norm backward {m}x{n}, 50 calls"
              + (", synchronized each" if synchronize_each else ""))
        print(prof.key_averages().table(sort_by="cpu_time_total",
                                        row_limit=20))
        if trace_dir:
            prof.export_chrome_trace(os.path.join(trace_dir,
                                                  f"trace-{name}.json"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown")
    parser.add_argument("--profile", action="store_true",
                        help="also print torch.profiler's table for the "
                             "RMSNorm backward of both sides")
    parser.add_argument("--shapes", default="1,4096,bf16",
                        help="RMSNorm shapes, 'M,N,DTYPE;...' (DTYPE f32, "
                             "f16 or bf16); the profile takes the last")
    args = parser.parse_args()
    try:
        shapes = [(m, n, DTYPES[dtype]) for m, n, dtype in
                  parse_rmsnorm_shapes(args.shapes, "--shapes")]
    except ValueError as e:
        parser.error(str(e))
    if not shapes:
        parser.error("--shapes: no shape given")
    with torch.cuda.stream(torch.cuda.Stream()):
        x = torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16)
        print(f"device: {torch.cuda.get_device_name()}; torch "
              f"{torch.__version__}; {time.strftime('%Y-%m-%d')}; "
              f"rocdsl.torch native operators: {rt.NATIVE}")
        table = baselines(x)
        for m, n, dtype in shapes:
            table += rmsnorm_cases(m, n, dtype)
        table += user_kernel_cases(4096)
        if args.profile:
            profile_backward(*shapes[-1])
            profile_backward(*shapes[-1], synchronize_each=True)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(f"Device {torch.cuda.get_device_name()}, torch "
                    f"{torch.__version__}, {time.strftime('%Y-%m-%d')}, "
                    f"native operators {rt.NATIVE}; "
                    f"wall time per call, median of {BATCHES} batches of "
                    f"{CALLS}.\n\n| section | call | us |\n|---|---|---|\n")
            for section, name, us in table:
                f.write(f"| {section} | {name.strip()} | {us:.2f} |\n")


if __name__ == "__main__":
    main()
