"""Why a user kernel is slower than Triton's: both compiled for one shape,
their PTX and machine code side by side, and (run under Nsight Compute)
one profiled launch of each.

    python3 benchmarks/user_kernels_profile.py --out DIR softmax:4096x1000:f32 ...
    ncu --clock-control none --section SpeedOfLight ... \\
        python3 benchmarks/user_kernels_profile.py --out DIR --launch-only ...

Writes DIR/<kernel>-<shape>-{rocdsl,triton}.ptx and, with ptxas and
cuobjdump on PATH, the matching .sass. Every output is checked against
float64 first (user_kernels_benchmark.check). Triton runs with the warps
given after the dtype (softmax:4096x1000:f32:4), else 4.
"""
import argparse
import pathlib
import shutil
import subprocess
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import triton_user_kernels as T  # noqa: E402,F401
import user_kernels as U  # noqa: E402
import user_kernels_benchmark as B  # noqa: E402
from rocdsl import _rocdsl  # noqa: E402


def rocdsl_ptx(name):
    """PTX of the specialization the last launch of `name` used (the
    launch's own dtypes, constexprs and facts), compiled again for sm_90."""
    kernel = U.KERNELS[name].kernel
    spec = list(kernel._specs.values())[-1]
    return _rocdsl.compile_source(spec.ir, kernel.symbol, "sm_90")["asm"]


def sass_of(ptx_path):
    if not (shutil.which("ptxas") and shutil.which("cuobjdump")):
        return
    cubin = ptx_path.with_suffix(".cubin")
    r = subprocess.run(["ptxas", "-arch=sm_90", "-v", str(ptx_path), "-o",
                        str(cubin)], capture_output=True, text=True)
    ptx_path.with_suffix(".ptxas.txt").write_text(r.stdout + r.stderr)
    if r.returncode == 0:
        s = subprocess.run(["cuobjdump", "-sass", str(cubin)],
                           capture_output=True, text=True)
        ptx_path.with_suffix(".sass").write_text(s.stdout + s.stderr)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cases", nargs="+", help="kernel:MxN:dtype[:warps]")
    p.add_argument("--out", required=True)
    p.add_argument("--launch-only", action="store_true",
                   help="only check and launch (for ncu): 3 launches each")
    a = p.parse_args()
    out_dir = pathlib.Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator(device="cuda").manual_seed(1234)
    for case in a.cases:
        parts = case.split(":")
        name, shape, dtype = parts[:3]
        warps = int(parts[3]) if len(parts) > 3 else 4
        m, n = map(int, shape.split("x"))
        ins = B.make_inputs(name, m, n, dtype, gen)
        oshape, odtype = B.out_spec(name, m, n, dtype)
        ref = B.reference(name, ins)
        scale = 4.0 * max(1.0, float(ref.abs().max())) \
            if name == "cross_entropy" else 1.0
        tag = f"{name}-{m}x{n}-{dtype}"
        for side in ("rocdsl", "triton"):
            out = torch.full(oshape, float("nan"), device="cuda", dtype=odtype)
            launch = (B.rocdsl_launch(name, ins, out, m, n) if side == "rocdsl"
                      else B.triton_launch(name, ins, out, m, n, warps))
            compiled = launch()
            torch.cuda.synchronize()
            B.check(f"{side} {tag}", out, ref, dtype, scale)
            for _ in range(2):
                launch()
            torch.cuda.synchronize()
            if a.launch_only:
                continue
            path = out_dir / f"{tag}-{side}.ptx"
            if side == "rocdsl":
                path.write_text(rocdsl_ptx(name))
            else:
                path.write_text(compiled.asm["ptx"])
            sass_of(path)
        print(f"{tag}: checked and written", flush=True)


if __name__ == "__main__":
    main()
