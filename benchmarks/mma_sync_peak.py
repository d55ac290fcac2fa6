"""The ceiling of a GEMM built on mma.sync, beside cuBLAS, in one run.

Compiles benchmarks/mma_sync_peak.cu with nvcc, measures the rate at which
this GPU retires mma.sync.aligned.m16n8k16 (bf16 and f16, f32 accumulators)
over warps per multiprocessor and independent accumulator chains, with
nothing else in the loop, and times torch.matmul (cuBLAS, which uses
warpgroup MMA on Hopper) at the square shapes of the GEMM table. The last
table says what fraction of the instruction's own peak a GEMM on mma.sync
would need to reach a given fraction of cuBLAS.

usage (GPU machine): python3 benchmarks/mma_sync_peak.py [--out FILE.md]
"""
import argparse
import ctypes
import datetime
import os
import subprocess
import sys
import tempfile

import torch

from gpu_timing import cublas_tflops

HERE = os.path.dirname(os.path.abspath(__file__))
# Warps per multiprocessor and accumulator chains per warp.
WARPS_PER_SM = (4, 8, 16, 32)
CHAINS = (1, 2, 4, 8)
# Instructions one warp issues per launch (iters x chains): the check needs
# every thread's sum, 64 x this, below 2^24.
PER_WARP = 131072
SHAPES = (4096, 8192)
CUBLAS_SHARE = 0.70  # the GEMM target, as a fraction of cuBLAS


def build(tmp):
    lib = os.path.join(tmp, "mma_sync_peak.so")
    arch = "sm_%d%d" % torch.cuda.get_device_capability()
    cmd = ["nvcc", "-O3", "-arch=" + arch, "-shared", "-Xcompiler", "-fPIC",
           "-o", lib, os.path.join(HERE, "mma_sync_peak.cu")]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    return ctypes.CDLL(lib)


def peak(lib, f16, warps_per_sm, chains):
    """TFLOP/s of the best of 5 launches; warps split into blocks of 4."""
    warps_per_block = 4
    blocks_per_sm = warps_per_sm // warps_per_block
    ms, insts, bad = ctypes.c_double(), ctypes.c_double(), ctypes.c_longlong()
    rc = lib.rocdslMmaSyncPeak(int(f16), chains, warps_per_block,
                               blocks_per_sm, PER_WARP // chains, 5,
                               ctypes.byref(ms), ctypes.byref(insts),
                               ctypes.byref(bad))
    if rc != 0:
        raise SystemExit("rocdslMmaSyncPeak failed: %d" % rc)
    if bad.value:
        raise SystemExit("%d threads' sums are wrong (f16=%d, %d warps/SM, "
                         "%d chains)" % (bad.value, f16, warps_per_sm, chains))
    flops = insts.value * 2 * 16 * 8 * 16
    return flops / (ms.value * 1e-3) / 1e12


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    args = p.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device")
    name = torch.cuda.get_device_name()
    if torch.cuda.get_device_capability() < (8, 0):
        raise SystemExit("%s: mma.sync m16n8k16 bf16 needs sm_80 or later"
                         % name)
    gen = torch.Generator(device="cuda").manual_seed(
        int(datetime.datetime.now().timestamp()))
    lines = ["%s, %s, torch %s. Command: `python3 benchmarks/mma_sync_peak.py`"
             % (datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%d %H:%M UTC"), name, torch.__version__), ""]
    with tempfile.TemporaryDirectory() as tmp:
        lib = build(tmp)
        best = {}
        lines += ["| operands | warps/SM | chains | TFLOP/s |",
                  "|---|---|---|---|"]
        for f16 in (False, True):
            kind = "f16" if f16 else "bf16"
            for w in WARPS_PER_SM:
                for c in CHAINS:
                    t = peak(lib, f16, w, c)
                    lines.append("| %s | %d | %d | %.0f |" % (kind, w, c, t))
                    print(lines[-1], flush=True)
                    if t > best.get(kind, (0,))[0]:
                        best[kind] = (t, w, c)
    lines += ["", "| operands | mma.sync peak (warps/SM, chains) | shape "
              "| cuBLAS | %d%% of cuBLAS | that as a share of the mma.sync "
              "peak |" % round(CUBLAS_SHARE * 100), "|---|---|---|---|---|---|"]
    for kind, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        t, w, c = best[kind]
        for n in SHAPES:
            ref = cublas_tflops(dtype, n, gen, reps=10)
            lines.append("| %s | %.0f (%d, %d) | %d^3 | %.0f | %.0f | %.0f%% |"
                         % (kind, t, w, c, n, ref, CUBLAS_SHARE * ref,
                            100 * CUBLAS_SHARE * ref / t))
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
