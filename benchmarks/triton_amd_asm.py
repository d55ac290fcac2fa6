"""Triton's gfx942/gfx950 code for the user kernels (triton_user_kernels.py),
compiled with Triton's AMD backend on any machine with Triton (no AMD GPU,
no ROCDSL needed):

    python3 benchmarks/triton_amd_asm.py DIR

writes DIR/<kernel>-<chip>.s (and .ll, .ttgir: Triton's LLVM IR and its
layouts, to see where an instruction or register comes from) for the
16384x4096 bf16 shape, with Triton's launch-time divisibility
specialization (16-divisible pointers and integers: what the ROCDSL side is
compiled with too). benchmarks/user_kernels_amd.py DIR compares them with
ROCDSL's output.
"""
import pathlib
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import triton_user_kernels as T  # noqa: E402

BF, I32 = "*bf16", "i32"
SIGNATURES = {
    "softmax": ({"x": BF, "y": BF, "N": I32}, 4096),
    "layernorm": ({"x": BF, "w": BF, "b": BF, "y": BF, "N": I32,
                   "eps": "fp32"}, 4096),
    "rmsnorm": ({"x": BF, "w": BF, "y": BF, "N": I32, "eps": "fp32"}, 4096),
    "swiglu": ({"a": BF, "g": BF, "y": BF, "n": I32}, 1024),
    "gelu_tanh": ({"x": BF, "y": BF, "n": I32}, 1024),
    "residual_add": ({"x": BF, "r": BF, "y": "*fp32", "n": I32}, 1024),
    "cross_entropy": ({"logits": BF, "target": "*i32", "loss": "*fp32",
                       "N": I32}, 4096),
}
ARTIFACTS = {"amdgcn": "s", "llir": "ll", "ttgir": "ttgir"}


def write_asm(out_dir, chips=("gfx942", "gfx950"), num_warps=4):
    """Returns the number of kernels that failed to compile."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    failures = 0
    for name, (sig, block) in SIGNATURES.items():
        sig = dict(sig, BLOCK="constexpr")
        attrs = {(i,): [["tt.divisibility", 16]]
                 for i, v in enumerate(sig.values())
                 if v.startswith("*") or v == I32}
        for chip in chips:
            try:
                src = ASTSource(fn=T.KERNELS[name], signature=sig,
                                constexprs={"BLOCK": block}, attrs=attrs)
                k = triton.compile(src, target=GPUTarget("hip", chip, 64),
                                   options={"num_warps": num_warps})
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"triton AMD compile of {name} for {chip} failed: {e}")
                failures += 1
                continue
            for key, ext in ARTIFACTS.items():
                if key in k.asm:
                    (out / f"{name}-{chip}.{ext}").write_text(str(k.asm[key]))
            print(f"wrote {out / f'{name}-{chip}.s'}")
    return failures


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(1 if write_asm(sys.argv[1]) else 0)
