"""The GEMM K loop's steady state on emulated gfx942 and gfx950: what one
wave issues per K step, for ROCDSL's gemm and for Triton's AMD output of a
matching tile (Triton 3.6's `tl.dot` matmul, 64 x 64 x 32 on 4 warps, bf16
in, f32 out: the code objects in test/Emulator/Inputs/triton). ROCDSL's
asynchronous stages run both ways: copies through registers (the default)
and direct-to-LDS copies with planned waits (`--direct-copies`).

    /usr/bin/python3 benchmarks/gemm_amd_profile.py [BUILD_DIR]

Each kernel runs on rocdsl-emu with random inputs at M = N = 256 and two
K (512 and 1024); the difference of the two profiles, divided by the waves
and the 16 extra K steps, is the steady state of one K step of 32 (the
prologue and epilogue cancel). Columns: instructions by class (MFMA, VALU,
SALU, LDS, VMEM, s_waitcnt, s_barrier), all other instructions (the same
product per step on a matching tile, whatever MFMA shape each compiler
picked), and LDS bank-conflict cycles. The emulator counts instructions; it does not time
them, so this is no speed figure.
"""
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
TRITON = ROOT / "test" / "Emulator" / "Inputs" / "triton"
M = N = 256
KS = (512, 1024)
STEP = 32
CLASSES = ("mfma", "valu", "salu", "lds", "vmem", "waitcnt", "barrier")


def profile(emu, hsaco, chip, kernel, grid, lds, args):
    cmd = [str(emu), str(hsaco), "--chip", chip, "--kernel", kernel,
           "--grid", grid, "--block", "256", "--profile"]
    if lds:
        cmd += ["--lds", str(lds)]
    for a in args:
        cmd += ["--arg", a]
    out = subprocess.run(cmd, capture_output=True, text=True)
    text = out.stdout + out.stderr
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{text}")
    waves = int(re.search(r"waves (\d+)", text).group(1))
    counts = dict(re.findall(r"(\w+)=(\d+)", re.search(
        r"by class: (.*)", text).group(1)))
    counts = {k: int(v) for k, v in counts.items()}
    counts["total"] = sum(counts.values())
    counts["conflicts"] = int(re.search(r"bank-conflict cycles (\d+)",
                                        text).group(1))
    return waves, counts


def steady(run):
    """Per wave and K step: profile(K=1024) - profile(K=512)."""
    (w0, a), (w1, b) = run(KS[0]), run(KS[1])
    assert w0 == w1
    steps = (KS[1] - KS[0]) // STEP
    return {k: (b.get(k, 0) - a.get(k, 0)) / (w0 * steps) for k in b}


def rocdsl_gemm(build, chip, defs, tmp):
    def run(k):
        hsaco = pathlib.Path(tmp) / f"gemm-{chip}-{k}.hsaco"
        # A definition is a kernel parameter, or a rocdsl-compile flag
        # ("--direct-copies").
        args = sum(([d] if d.startswith("--") else ["-D", d] for d in defs),
                   [])
        subprocess.run([str(build / "bin" / "rocdsl-compile"), "--kernel",
                        "gemm", "-D", f"M={M}", "-D", f"N={N}", "-D", f"K={k}",
                        "-D", "out_dtype=f32", *args,
                        "--chip", chip, "--emit", "hsaco", "-o", str(hsaco)],
                       check=True)
        bm = int(next((d.split("=")[1] for d in defs if d.startswith("BM=")),
                      128))
        bn = int(next((d.split("=")[1] for d in defs if d.startswith("BN=")),
                      128))
        grid = (M // bm) * (N // bn)
        return profile(build / "bin" / "rocdsl-emu", hsaco, chip, "gemm",
                       str(grid), 0,
                       [f"buf:{M * k * 2}:random", f"buf:{k * N * 2}:random",
                        f"buf:{M * N * 4}", "f32:1.0"])
    return steady(run)


def triton_matmul(build, chip, name):
    def run(k):
        return profile(build / "bin" / "rocdsl-emu",
                       TRITON / f"{name}-{chip}.hsaco", chip, "matmul_kernel",
                       f"{M // 64},{N // 64}", 4096 if chip == "gfx942" else
                       8192,
                       [f"buf:{M * k * 2}:random", f"buf:{k * N * 2}:random",
                        f"buf:{M * N * 4}", f"i32:{M}", f"i32:{N}", f"i32:{k}",
                        f"i32:{k}", f"i32:{N}", f"i32:{N}", "u64:0", "u64:0"])
    return steady(run)


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for chip in ("gfx942", "gfx950"):
            rows.append((chip, "Triton 3.6 tl.dot, 64x64x32, 4 warps",
                         triton_matmul(build, chip, "matmul16")))
            for label, defs in (
                    ("ROCDSL gemm 64x64x32", ["BM=64", "BN=64", "BK=32"]),
                    ("ROCDSL gemm 64x64x32 load_ahead=2",
                     ["BM=64", "BN=64", "BK=32", "load_ahead=2"]),
                    ("ROCDSL gemm default 128x128x32", []),
                    ("ROCDSL gemm default load_ahead=2", ["load_ahead=2"]),
                    ("ROCDSL gemm 64x64x32 stages=3, direct copies",
                     ["BM=64", "BN=64", "BK=32", "stages=3",
                      "--direct-copies"]),
                    ("ROCDSL gemm default stages=3, copies through registers",
                     ["stages=3"]),
                    ("ROCDSL gemm default stages=3, direct copies",
                     ["stages=3", "--direct-copies"])):
                rows.append((chip, label, rocdsl_gemm(build, chip, defs, tmp)))
    print("| chip | kernel | " + " | ".join(CLASSES) +
          " | all but MFMA | bank-conflict cycles |")
    print("|---" * (len(CLASSES) + 4) + "|")
    for chip, label, s in rows:
        cells = [f"{s.get(c, 0):.1f}" for c in CLASSES]
        other = s["total"] - s.get("mfma", 0)
        print(f"| {chip} | {label} | " + " | ".join(cells) +
              f" | {other:.1f} | {s['conflicts']:.1f} |")


if __name__ == "__main__":
    main()
