"""Where a GEMM on mma.sync stops on this GPU, beside cuBLAS, in one run.

Compiles benchmarks/mma_sync_gemm.cu with nvcc and times its hand-written
mma.sync GEMM (256 x 128 or 128 x 128 program tiles of 64 x 64 warp tiles)
in six ways of feeding shared memory: none in the K loop (the loop's
ceiling), cp.async copies (the structure of ROCDSL's mma.sync GEMM), TMA
loads, and TMA loads shared by clusters of two programs through multicast,
the TMA ones issued by a computing thread or by a warp of their own.
Every product that is one (all but the ceiling) is checked against float64
on sampled rows of fresh random operands, with C poisoned before the run;
torch.matmul (cuBLAS) is timed and checked in the same run.

usage (GPU machine, sm_90): python3 benchmarks/mma_sync_gemm.py
    [--shapes 4096,8192] [--dtypes bf16,f16] [--configs ...] [--out FILE.md]
"""
import argparse
import ctypes
import datetime
import os
import subprocess
import sys
import tempfile

import torch

from gpu_timing import cublas_tflops, sampled_matmul_error

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = {0: "no loads (ceiling)", 1: "cp.async", 2: "TMA",
         3: "TMA, cluster of 2, A multicast",
         4: "TMA from a load warp",
         5: "TMA from a load warp, cluster of 2, A multicast"}
# (program rows, stages, mode, grouped row tiles, operands a slice ahead)
CONFIGS = [(256, 4, 0, 8, False), (256, 4, 0, 8, True),
           (128, 3, 0, 8, False), (128, 3, 0, 8, True),
           (256, 4, 1, 8, True), (128, 3, 1, 8, True),
           (256, 4, 2, 8, True), (256, 4, 3, 8, True), (256, 4, 4, 8, True),
           (256, 4, 5, 8, True), (256, 3, 5, 8, True), (128, 3, 4, 8, True),
           (128, 3, 5, 8, True)]
REPEATS = 20


def build(tmp):
    lib = os.path.join(tmp, "mma_sync_gemm.so")
    cmd = ["nvcc", "-O3", "-gencode", "arch=compute_90a,code=sm_90a",
           "-shared", "-Xcompiler", "-fPIC", "-o", lib,
           os.path.join(HERE, "mma_sync_gemm.cu"), "-lcuda"]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    return ctypes.CDLL(lib)


def ours(lib, dtype, n, config, gen):
    bm, stages, mode, group_m, ahead = config
    a = torch.randn(n, n, device="cuda", dtype=dtype, generator=gen)
    b = torch.randn(n, n, device="cuda", dtype=dtype, generator=gen)
    out = torch.full((n, n), float("nan"), device="cuda", dtype=dtype)
    ms = ctypes.c_double()
    rc = lib.rocdslMmaSyncGemm(
        int(dtype == torch.float16), bm, stages, mode, int(ahead), group_m,
        ctypes.c_void_p(a.data_ptr()), ctypes.c_void_p(b.data_ptr()),
        ctypes.c_void_p(out.data_ptr()), n, n, n, REPEATS, ctypes.byref(ms))
    if rc != 0:
        raise SystemExit("rocdslMmaSyncGemm %s: %d" % (config, rc))
    torch.cuda.synchronize()
    err = None
    if mode != 0:
        err = sampled_matmul_error(a, b, out, gen)
        if not err < 1e-2:
            raise SystemExit("%s %d^3 %s: relative error %g"
                             % (dtype, n, config, err))
    return 2.0 * n ** 3 / (ms.value * 1e-3) / 1e12, err


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="4096,8192")
    p.add_argument("--dtypes", default="bf16,f16")
    p.add_argument("--configs", default=None,
                   help="BM,STAGES,MODE,GROUP_M,AHEAD;... instead of the "
                        "built-in list (e.g. for a profiler)")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device")
    name = torch.cuda.get_device_name()
    if torch.cuda.get_device_capability() != (9, 0):
        raise SystemExit("%s: TMA multicast and this build need sm_90" % name)
    shapes = [int(s) for s in args.shapes.split(",")]
    configs = CONFIGS if args.configs is None else [
        tuple(int(x) for x in c.split(",")) for c in args.configs.split(";")]
    if any(len(c) != 5 for c in configs):
        raise SystemExit("--configs: each is BM,STAGES,MODE,GROUP_M,AHEAD")
    dtypes = {"bf16": torch.bfloat16, "f16": torch.float16}
    unknown = set(args.dtypes.split(",")) - set(dtypes)
    if unknown:
        raise SystemExit("--dtypes: unknown %s" % ",".join(sorted(unknown)))
    gen = torch.Generator(device="cuda").manual_seed(
        int(datetime.datetime.now().timestamp()))
    lines = ["%s, %s, torch %s. Command: `python3 benchmarks/mma_sync_gemm.py"
             " %s`" % (datetime.datetime.now(datetime.timezone.utc)
                       .strftime("%Y-%m-%d %H:%M UTC"), name,
                       torch.__version__, " ".join(sys.argv[1:])),
             "", "Best of %d launches; TFLOP/s (share of cuBLAS)." % REPEATS,
             "", "| operands | shape | tile (rows x 128, stages, group) "
             "| feeding | operands a slice ahead | TFLOP/s | of cuBLAS "
             "| checked error |", "|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        lib = build(tmp)
        for kind in args.dtypes.split(","):
            dtype = dtypes[kind]
            for n in shapes:
                ref = cublas_tflops(dtype, n, gen, REPEATS)
                lines.append("| %s | %d^3 | cuBLAS (torch.matmul) | | | %.0f "
                             "| 1.00 | checked |" % (kind, n, ref))
                print(lines[-1], flush=True)
                for config in configs:
                    t, err = ours(lib, dtype, n, config, gen)
                    bm, stages, mode, group_m, ahead = config
                    lines.append("| %s | %d^3 | %d x 128, %d, %d | %s | %s "
                                 "| %.0f | %.2f | %s |" % (
                                     kind, n, bm, stages, group_m,
                                     MODES[mode], "yes" if ahead else "no",
                                     t, t / ref,
                                     "-" if err is None else "%.1e" % err))
                    print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
