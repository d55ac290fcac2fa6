"""Prints the code the user kernels (benchmarks/user_kernels.py) compile
to for a chip, with the launch facts (`facts`: 16-byte aligned pointers,
N divisible by 16; `facts8`: the same with N divisible by 8 only) or
without (`generic`), one `== name` section each; `elementwise`: the
elementwise kernels with the facts."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4] /
                       "benchmarks"))
import rocdsl  # noqa: E402
import user_kernels as U  # noqa: E402

chip, mode = sys.argv[1], sys.argv[2]
kernels = {
    "softmax": (U.softmax, dict(x="bf16", y="bf16", BLOCK=4096), "xyN"),
    "layernorm": (U.layernorm, dict(x="bf16", w="bf16", b="bf16", y="bf16",
                                    BLOCK=4096), "xwbyN"),
}
if mode == "elementwise":
    # BLOCK 1024 on 4 warps: a lane's block is one masked group of 4, made
    # as global accesses behind one branch.
    def four_warps(k, name):
        return rocdsl.kernel(k.fn, num_warps=4, name=name)
    kernels = {
        "residual_add": (four_warps(U.residual_add, "residual_add"),
                         dict(x="bf16", r="bf16", y="f32", BLOCK=1024),
                         "xryn"),
        "swiglu": (four_warps(U.swiglu, "swiglu"),
                   dict(a="bf16", g="bf16", y="bf16", BLOCK=1024), "agyn"),
    }
if len(sys.argv) > 3 and sys.argv[3] == "wide":
    # Rows of 32000 f32 (BLOCK 32768, 16 warps): 64 elements and a 64-bit
    # mask per lane, the mask live across both reductions.
    kernels = {"layernorm": (U.layernorm, dict(x="f32", w="f32", b="f32",
                                               y="f32", BLOCK=32768),
                             "xwbyN")}
for name, (kernel, spec, facts) in kernels.items():
    params = [p.name for p in kernel._runtime]
    assume = ({p: 16 for p in params if p in spec or p in ("N", "n")}
              if mode.startswith("facts") or mode == "elementwise" else {})
    if mode == "facts8":
        assume["N"] = 8
    c = kernel.compile(chip=chip, assume=assume, **spec)
    print(f"== {name} assumed {sorted(c.stats['assumed'])}")
    print(c.asm)
    print(f"== end {name}: vgpr_spill {c.stats.get('vgpr_spill', 0)}, "
          f"scratch {c.stats.get('scratch_bytes', 0)}")
