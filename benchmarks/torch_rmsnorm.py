"""Side-by-side RMSNorm forward timings on one NVIDIA GPU, in one run.

Reads the CSV that cuda_rmsnorm_run printed (ROCDSL's kernels: numerics
checked against float64, GPU-event medians), times PyTorch eager
F.rms_norm and a plain one-row-per-program Triton kernel on the same shapes
(outputs compared with ROCDSL's reference tolerance before timing), measures
device-to-device copy bandwidth, and prints one table.

Usage: python3 benchmarks/torch_rmsnorm.py rocdsl.csv
"""
import csv
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_timing import copy_tbps, median_event_us  # noqa: E402
from triton_rmsnorm import forward as triton_rmsnorm  # noqa: E402

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
# The benchmark shapes (other rows of the CSV are correctness-only cases).
SHAPES = [(1, 4096, "bf16"), (128, 4096, "bf16"), (4096, 4096, "bf16"),
          (512, 2048, "bf16"), (512, 3000, "f32"), (1024, 8192, "bf16"),
          (32768, 8192, "bf16")]


def main():
    rows = list(csv.DictReader(l for l in open(sys.argv[1]) if "," in l))
    rocdsl = {(r["op"], int(r["m"]), int(r["n"]), r["dtype"]): r for r in rows
              if r["wdtype"] == r["dtype"]}
    failing = [r for r in rows if int(r["mismatches"]) != 0]
    print(f"ROCDSL numerics on this GPU: {len(rows)} cases, "
          f"{len(failing)} failing")
    copy = copy_tbps(reps=50)
    print(f"device copy bandwidth: {copy:.2f} TB/s")
    print("op, shape, dtype, ROCDSL (us), Torch (us), Triton (us), "
          "Torch/ROCDSL, Triton/ROCDSL, ROCDSL GB/s, % of copy")
    for m, n, dt in SHAPES:
        r = rocdsl[("fwd", m, n, dt)]
        ours = float(r["us"])
        dtype = DTYPES[dt]
        x = torch.randn(m, n, device="cuda", dtype=dtype)
        w = torch.randn(n, device="cuda", dtype=dtype)
        ref = F.rms_norm(x.double(), (n,), w.double(), 1e-6)
        tri = triton_rmsnorm(x, w, 1e-6)
        err = (tri.double() - ref).abs().max().item()
        tol = 1e-2 * (1 + ref.abs().max().item()) if dt != "f32" else 1e-4
        assert err <= tol, f"triton mismatch {err} at {m}x{n} {dt}"
        torch_us = median_event_us(lambda: F.rms_norm(x, (n,), w, 1e-6))
        triton_us = median_event_us(lambda: triton_rmsnorm(x, w, 1e-6))
        nbytes = (2 * m * n + n) * x.element_size()
        gbs = nbytes / (ours * 1e-6) / 1e9
        print(f"rmsnorm_fwd, {m}x{n}, {dt}, {ours:.1f}, {torch_us:.1f}, "
              f"{triton_us:.1f}, {torch_us / ours:.2f}, {triton_us / ours:.2f}, "
              f"{gbs:.0f}, {100 * gbs / (copy * 1e3):.0f}%")
    backward_table(rocdsl, copy)


def backward_table(rocdsl, copy):
    print("op, shape, dtype, ROCDSL (us), Torch (us), Torch/ROCDSL, "
          "ROCDSL GB/s, % of copy")
    for m, n, dt in SHAPES:
        key = ("bwd", m, n, dt)
        if key not in rocdsl:
            continue
        ours = float(rocdsl[key]["us"])
        dtype = DTYPES[dt]
        x = torch.randn(m, n, device="cuda", dtype=dtype, requires_grad=True)
        w = torch.randn(n, device="cuda", dtype=dtype, requires_grad=True)
        dy = torch.randn(m, n, device="cuda", dtype=dtype)
        y = F.rms_norm(x, (n,), w, 1e-6)
        torch_us = median_event_us(
            lambda: torch.autograd.grad(y, (x, w), dy, retain_graph=True))
        # x, dy read; dx written; w read; dw written (partials not counted).
        nbytes = (3 * m * n + 2 * n) * x.element_size()
        gbs = nbytes / (ours * 1e-6) / 1e9
        print(f"rmsnorm_bwd, {m}x{n}, {dt}, {ours:.1f}, {torch_us:.1f}, "
              f"{torch_us / ours:.2f}, {gbs:.0f}, "
              f"{100 * gbs / (copy * 1e3):.0f}%")


if __name__ == "__main__":
    main()
