"""GEMM written with rl.dot beside torch.matmul (cuBLAS) and a Triton
tl.dot GEMM on one NVIDIA GPU, in one run (docs/benchmarks.md, "GEMM").

    python3 benchmarks/gemm_benchmark.py --out table.md [--quick]

The ROCDSL side is the plain tile loop a kernel author writes (blocked
loads of an A and a B tile, rl.dot into an f32 accumulator, one store of C
in the input dtype) at a few tile configurations, and the built-in gemm
kernel (kernels/gemm: operands staged through swizzled shared memory,
read with ldmatrix, later K steps' copies in flight during the products)
at the tiles of --builtin-configs (BMxBNxBKxWARPS[xSTAGES][:NAME=VALUE...],
comma-separated; "default" is the chip's default tile and stages, and
":NAME=VALUE" adds any other gemm parameter, e.g. default:prefetch_operands=0). Each side reports its best configuration,
--triton-mma-sync keeps Triton off warpgroup MMA (DISABLE_MMA_V3=1, checked
in the PTX of every Triton kernel it times) and adds the mma.sync tiles,
and --all prints every configuration's figure. Every result is compared with
torch.matmul in float64 on sampled rows before anything is timed; times
are the median of CUDA-event pairs, TFLOP/s = 2*M*N*K / time.
"""
import argparse
import datetime
import os
import pathlib
import sys

import torch
import triton
import triton.language as tl

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gpu_timing import median_event_us  # noqa: E402

import rocdsl  # noqa: E402
import rocdsl.language as rl  # noqa: E402

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (16, 8192, 8192),
          (4096, 14336, 4096)]
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def rocdsl_gemm(a: rl.ptr, b: rl.ptr, c: rl.ptr, M: rl.i32, N: rl.i32,
                K: rl.i32, BM: rl.constexpr, BN: rl.constexpr,
                BK: rl.constexpr, S: rl.constexpr):
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN

    def step(k, acc):
        at = rl.load(a, [m0, k], shape=[BM, BK], strides=[K], bounds=[M, K])
        bt = rl.load(b, [k, n0], shape=[BK, BN], strides=[N], bounds=[K, N])
        return rl.dot(at, bt, acc)
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step, stages=S)
    rl.store(acc.to(c.dtype), c, [m0, n0], strides=[N], bounds=[M, N])


@triton.jit
def triton_gemm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


# (BM, BN, BK, warps, stages): the rl.dot tile loop as written (1) and
# software-pipelined by rocdsl-pipeline-loops (2-4).
ROCDSL_CONFIGS = [(128, 128, 32, 4, 1), (128, 128, 32, 4, 3),
                  (128, 128, 64, 4, 3), (128, 256, 32, 8, 3),
                  (128, 128, 32, 8, 4), (64, 128, 32, 4, 3),
                  (16, 128, 64, 4, 3)]
TRITON_CONFIGS = [(128, 128, 32, 4, 3), (128, 256, 64, 8, 3),
                  (128, 128, 64, 4, 4), (64, 128, 32, 4, 4),
                  (16, 128, 128, 4, 4), (128, 64, 32, 4, 1)]
# Added with --triton-mma-sync: the tiles ROCDSL's mma.sync GEMM runs.
TRITON_MMA_SYNC_CONFIGS = [(256, 128, 32, 8, 4), (256, 128, 32, 8, 3),
                           (128, 256, 32, 8, 3), (128, 128, 32, 4, 4)]


def grid(m, n, bm, bn):
    return (triton.cdiv(m, bm), triton.cdiv(n, bn))


# One traced kernel per warp count (num_warps is a kernel option).
KERNELS = {w: rocdsl.kernel(num_warps=w)(rocdsl_gemm) for w in (4, 8)}


def rocdsl_run(cfg):
    bm, bn, bk, warps, stages = cfg
    kernel = KERNELS[warps]

    def run(a, b, c):
        m, k = a.shape
        n = b.shape[1]
        kernel[grid(m, n, bm, bn)](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk,
                                   S=stages)
    return run


BUILTIN_CONFIGS = "default,128x128x32x8,128x256x32x8,256x128x32x8,64x128x32x4"


def builtin_run(dtype, cfg):
    """The built-in gemm kernel (kernels/gemm) at tile `cfg`, launched on
    torch's current stream."""
    dims, *extra = cfg.split(":")
    tile = [] if dims == "default" else [
        f"{k}={v}" for k, v in zip(("BM", "BN", "BK", "warps", "stages"),
                                   dims.split("x"))]
    # ":chip=sm_90a" picks the compile target (wgmma needs sm_90a).
    chip = next((e.split("=", 1)[1] for e in extra if e.startswith("chip=")),
                "")
    tile += [e for e in extra if not e.startswith("chip=")]

    def run(a, b, c):
        m, k = a.shape
        n = b.shape[1]
        kernel = rocdsl.runtime.builtin(
            "gemm", [f"M={m}", f"N={n}", f"K={k}", f"dtype={dtype}"] + tile,
            "cuda", chip)
        kernel.launch([(a.data_ptr(), dtype, (m, k)),
                       (b.data_ptr(), dtype, (k, n)),
                       (c.data_ptr(), dtype, (m, n)), 1.0],
                      stream=torch.cuda.current_stream().cuda_stream)
    return run


# The PTX of each Triton kernel compiled in this run (for --triton-mma-sync,
# which must see mma.sync and no wgmma in every one of them).
TRITON_PTX = {}


def triton_run(cfg):
    bm, bn, bk, warps, stages = cfg

    def run(a, b, c):
        m, k = a.shape
        n = b.shape[1]
        compiled = triton_gemm[grid(m, n, bm, bn)](
            a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, num_warps=warps,
            num_stages=stages)
        if cfg not in TRITON_PTX:
            TRITON_PTX[cfg] = getattr(compiled, "asm", {}).get("ptx", "")
    return run


def require_mma_sync_ptx():
    """Stops the run unless every Triton kernel compiled so far issues
    mma.sync and no warpgroup MMA (DISABLE_MMA_V3 is Triton's own switch;
    a Triton that ignored it would time wgmma under the wrong name)."""
    for cfg, ptx in TRITON_PTX.items():
        if "mma.sync" not in ptx or "wgmma" in ptx:
            raise SystemExit(f"Triton {cfg}: PTX is not mma.sync only "
                             f"({ptx.count('mma.sync')} mma.sync, "
                             f"{ptx.count('wgmma')} wgmma)")


def check(name, c, a, b):
    """C against float64 on 64 sampled rows (all of them when M is small):
    bf16/f16 rounding of C plus an f32-accumulation term growing with K."""
    m, k = a.shape
    rows = torch.randperm(m, device="cuda")[:64]
    ref = a[rows].double() @ b.double()
    got = c[rows].double()
    bound = 1e-2 * ref.abs() + 2e-6 * k ** 0.5 * (
        a[rows].double().abs() @ b.double().abs()) + 1e-3
    bad = int(((got - ref).abs() > bound).sum())
    if bad or not bool(torch.isfinite(got).all()):
        raise AssertionError(f"{name}: {bad} elements off")


def best(runs, a, b, c, flops, show=False):
    out = None
    for cfg, run in runs:
        try:
            c.fill_(float("nan"))
            run(a, b, c)
            torch.cuda.synchronize()
            check(str(cfg), c, a, b)
            us = median_event_us(lambda: run(a, b, c), reps=20, warmup=3)
        except Exception as e:  # a config that does not compile or fit
            print(f"  {cfg}: {type(e).__name__}: {str(e)[:200]}")
            continue
        tflops = flops / (us * 1e-6) / 1e12
        if show:
            print(f"  {cfg}: {tflops:.0f} TFLOP/s", flush=True)
        if out is None or tflops > out[0]:
            out = (tflops, cfg)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    p.add_argument("--quick", action="store_true",
                   help="one shape and dtype, for a smoke run")
    p.add_argument("--builtin-configs", default=BUILTIN_CONFIGS,
                   help="built-in gemm tiles, BMxBNxBKxWARPS or default")
    p.add_argument("--shapes", default=None,
                   help="MxNxK,... instead of the default shapes")
    p.add_argument("--all", action="store_true",
                   help="print every configuration's TFLOP/s")
    p.add_argument("--builtin-only", action="store_true",
                   help="ROCDSL side: the built-in gemm alone (no rl.dot "
                        "tile loops)")
    p.add_argument("--triton-mma-sync", action="store_true",
                   help="Triton side on mma.sync (DISABLE_MMA_V3=1, checked "
                        "in its PTX), to compare GEMMs on that instruction")
    args = p.parse_args()
    if args.triton_mma_sync:
        # Read by Triton's compiler, and part of its cache key.
        os.environ["DISABLE_MMA_V3"] = "1"
    gen = torch.Generator(device="cuda").manual_seed(
        int(datetime.datetime.now().timestamp()))
    shapes = SHAPES[:1] if args.quick else SHAPES
    if args.shapes:
        shapes = [tuple(int(x) for x in s.split("x"))
                  for s in args.shapes.split(",")]
    dtypes = ["bf16"] if args.quick else list(DTYPES)
    triton_name = "Triton on mma.sync" if args.triton_mma_sync else "Triton"
    triton_configs = TRITON_CONFIGS + (
        TRITON_MMA_SYNC_CONFIGS if args.triton_mma_sync else [])
    lines = [f"| dtype | M x N x K | cuBLAS TFLOP/s | {triton_name} "
             "TFLOP/s (config) "
             "| ROCDSL TFLOP/s (config) | ROCDSL/cuBLAS | ROCDSL/Triton |",
             "|---|---|---|---|---|---|---|"]
    for dtype in dtypes:
        t = DTYPES[dtype]
        for m, n, k in shapes:
            a = torch.randn(m, k, generator=gen, device="cuda").to(t)
            b = torch.randn(k, n, generator=gen, device="cuda").to(t)
            c = torch.empty(m, n, device="cuda", dtype=t)
            flops = 2.0 * m * n * k
            # cuBLAS is timed before and after the others and its faster
            # figure kept: the ratios never gain from the clock drifting.
            matmul = [("torch.matmul",
                       lambda a, b, c: torch.matmul(a, b, out=c))]
            cublas = best(matmul, a, b, c, flops)
            tri = best([(cfg, triton_run(cfg)) for cfg in triton_configs],
                       a, b, c, flops, args.all)
            if args.triton_mma_sync:
                require_mma_sync_ptx()
            python_dsl = [] if args.builtin_only else [
                (cfg, rocdsl_run(cfg)) for cfg in ROCDSL_CONFIGS]
            roc = best(python_dsl +
                       [(f"builtin gemm {cfg}", builtin_run(dtype, cfg))
                        for cfg in args.builtin_configs.split(",")],
                       a, b, c, flops, args.all)
            again = best(matmul, a, b, c, flops)
            if args.all and cublas and again:
                print(f"  torch.matmul: {cublas[0]:.0f} before, "
                      f"{again[0]:.0f} after", flush=True)
            if cublas is None or (again is not None and again[0] > cublas[0]):
                cublas = again
            fmt = lambda r: "failed" if r is None else f"{r[0]:.0f} {r[1]}"
            ratio = lambda x, y: ("-" if x is None or y is None
                                  else f"{x[0] / y[0]:.2f}")
            line = (f"| {dtype} | {m}x{n}x{k} | {fmt(cublas).split()[0]} | "
                    f"{fmt(tri)} | {fmt(roc)} | {ratio(roc, cublas)} | "
                    f"{ratio(roc, tri)} |")
            print(line, flush=True)
            lines.append(line)
    header = (f"GEMM on {torch.cuda.get_device_name()}, "
              f"{datetime.date.today()}, torch {torch.__version__}, "
              f"triton {triton.__version__}; command: python3 "
              f"benchmarks/gemm_benchmark.py {' '.join(sys.argv[1:])}")
    text = header + "\n\n" + "\n".join(lines) + "\n"
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
