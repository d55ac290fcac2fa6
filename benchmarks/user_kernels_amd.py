"""AMD code of the kernels users write: ROCDSL's gfx942/gfx950 output for
benchmarks/user_kernels.py beside Triton's for the same algorithms
(triton_user_kernels.py, compiled with Triton's AMD backend by
benchmarks/triton_amd_asm.py DIR on a machine with Triton).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/user_kernels_amd.py DIR

Both sides are compiled for the 16384x4096 bf16 shape (rows: BLOCK 4096;
elementwise: BLOCK 1024) with the same launch facts (16-byte aligned
pointers, integers divisible by 16) and 4 warps on both sides (the same
work per lane; ROCDSL's own default warps would differ). Counts: instructions of the kernel body, VGPRs (+AGPRs),
SGPRs, and 128-bit global accesses.
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import rocdsl  # noqa: E402
import user_kernels as U  # noqa: E402

SPECS = {
    "softmax": dict(x="bf16", y="bf16", BLOCK=4096),
    "layernorm": dict(x="bf16", w="bf16", b="bf16", y="bf16", BLOCK=4096),
    "rmsnorm": dict(x="bf16", w="bf16", y="bf16", BLOCK=4096),
    "swiglu": dict(a="bf16", g="bf16", y="bf16", BLOCK=1024),
    "gelu_tanh": dict(x="bf16", y="bf16", BLOCK=1024),
    "residual_add": dict(x="bf16", r="bf16", y="f32", BLOCK=1024),
    "cross_entropy": dict(logits="bf16", BLOCK=4096),
}
_INSTRUCTION = re.compile(r"^\s+([sv]_|buffer_|global_|ds_|flat_|scratch_)")


def count(asm):
    """(instructions, vgpr+agpr, sgpr, 128-bit global accesses) of the one
    kernel in AMDGCN text."""
    body = [l for l in asm.splitlines() if _INSTRUCTION.match(l)]
    def directive(name):
        m = re.search(rf"\.{name}\s+(\d+)", asm)
        return int(m.group(1)) if m else 0
    vgpr = directive("amdhsa_next_free_vgpr")
    sgpr = directive("amdhsa_next_free_sgpr")
    wide = sum(1 for l in body if re.search(r"(buffer|global)_(load|store)_"
                                            r"dwordx4", l))
    return len(body), vgpr, sgpr, wide


def main():
    triton_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else None
    print("| kernel | chip | ROCDSL instr / VGPR / SGPR / x4 | Triton instr / "
          "VGPR / SGPR / x4 |")
    print("|---|---|---|---|")
    for name, spec in SPECS.items():
        kernel = rocdsl.kernel(U.KERNELS[name].kernel.fn, num_warps=4,
                               name=name)
        params = [p.name for p in kernel._runtime]
        assume = {p: 16 for p, q in zip(params, kernel._runtime)
                  if q.kind == "ptr" or q.dtype == "i32"}
        for chip in ("gfx942", "gfx950"):
            c = kernel.compile(chip=chip, assume=assume, **spec)
            ours = count(c.asm)
            theirs = "-"
            if triton_dir:
                path = triton_dir / f"{name}-{chip}.s"
                if path.exists():
                    theirs = " / ".join(map(str, count(path.read_text())))
            print(f"| {name} | {chip} | {' / '.join(map(str, ours))} | "
                  f"{theirs} |")


if __name__ == "__main__":
    main()
