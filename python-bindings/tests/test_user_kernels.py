"""Kernels written as a Triton user writes them (benchmarks/user_kernels.py:
no vec, no layouts, no num_warps) against float64 on the host and on
emulated gfx942 (hip) and gfx950 (hip:1), at sizes that get the 128-bit
specialization (aligned, N divisible by 16) and sizes and views that must
take the generic kernel; the facts each launch was specialized on are
checked, and a kernel compiled for facts a launch lacks is refused."""
import pathlib
import sys

import numpy as np
import pytest

from hip_emulated import use_emulated_hip

use_emulated_hip(["gfx942", "gfx950"])

import rocdsl  # noqa: E402
import norm_reference as R  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] /
                       "benchmarks"))
import user_kernels as U  # noqa: E402

# (M, N, dtype): N = 4096 and 2048 specialize on divisibility by 16, 1000
# by 8 (f32 rows still start on 16 bytes: 128-bit accesses), 1001 on
# nothing.
SHAPES = [(3, 4096, "bf16"), (4, 1000, "f32"), (5, 1001, "f16"),
          (2, 2048, "f32")]


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"seed {seed}")
    return np.random.default_rng(seed)


def run(case, device, m, n, dtype, rng):
    inputs = case.inputs(m, n, dtype, rng)
    outs = case.outputs(m, n, dtype)
    if device == "host":
        args = [(a, dt) if dt == "bf16" else a
                for (a, _), dt in zip(inputs, _dtypes(inputs, dtype))]
        results = [R.poison(shape, dt) for shape, dt in outs]
        out_args = [(o, "bf16") if dt == "bf16" else o
                    for o, (_, dt) in zip(results, outs)]
        case.launch(args + out_args, m, n)
        got = [R.widen(o, dt) for o, (_, dt) in zip(results, outs)]
    else:
        args = [rocdsl.device_array(a, device, dtype=dt)
                for (a, _), dt in zip(inputs, _dtypes(inputs, dtype))]
        results = [rocdsl.device_array(R.poison(shape, dt), device, dtype=dt)
                   for shape, dt in outs]
        case.launch(args + results, m, n)
        got = [R.widen(o.to_host(), dt) for o, (_, dt) in zip(results, outs)]
    ref = case.reference(*[v for _, v in inputs])
    return got[0], ref, outs[0][1]


def _dtypes(inputs, dtype):
    return ["i32" if a.dtype == np.int32 else dtype for a, _ in inputs]


def check(name, got, ref, dtype, scale):
    R.assert_close(name, got, ref, dtype, scale=scale * max(
        1.0, float(np.abs(ref).max())) if scale != 1.0 else None)


@pytest.mark.parametrize("device", ["host", "hip", "hip:1"])
@pytest.mark.parametrize("name", sorted(U.KERNELS))
@pytest.mark.parametrize("m,n,dtype", SHAPES)
def test_matches_float64(name, device, m, n, dtype, rng):
    case = U.KERNELS[name]
    got, ref, out_dtype = run(case, device, m, n, dtype, rng)
    check(f"{name} {m}x{n} {dtype} on {device}", got, ref, out_dtype,
          case.tolerance_scale)


@pytest.mark.parametrize("device", ["hip", "hip:1"])
def test_launch_facts_pick_the_specialization(device, rng):
    x, x64 = R.random((2, 4096), "bf16", rng)
    d = rocdsl.device_array(x, device, dtype="bf16")
    y = rocdsl.empty((2, 4096), "bf16", device)
    spec = U.softmax[(2,)](d, y, 4096, BLOCK=4096)
    assert spec.facts == {"x": 16, "y": 16, "N": 16}
    assert "rocdsl.alignment = 16" in spec.ir
    R.assert_close("y", R.from_bf16(y.to_host()), U._softmax_ref(x64), "bf16")
    # N = 1000: divisible by 8, not 16: the N fact is 8.
    spec = U.softmax[(2,)](d.view(0, (2, 1000)), y.view(0, (2, 1000)), 1000,
                           BLOCK=1024)
    assert spec.facts == {"x": 16, "y": 16, "N": 8}
    assert "rocdsl.divisibility = 8" in spec.ir
    R.assert_close("y 1000", R.from_bf16(y.view(0, (2, 1000)).to_host()),
                   U._softmax_ref(x64.ravel()[:2000].reshape(2, 1000)),
                   "bf16")
    # N = 1004: divisible by 4 only, so no N fact (the generic width).
    spec = U.softmax[(2,)](d.view(0, (2, 1004)), y.view(0, (2, 1004)), 1004,
                           BLOCK=1024)
    assert spec.facts == {"x": 16, "y": 16}
    # An unaligned view (one bf16 in): no alignment fact for it, and the
    # result is still right.
    xs = d.view(1, (1, 4095))
    ys = rocdsl.device_array(R.poison((1, 4095), "bf16"), device, "bf16")
    spec = U.softmax[(1,)](xs, ys, 4095, BLOCK=4096)
    assert spec.facts == {"y": 16}
    R.assert_close("unaligned y", R.from_bf16(ys.to_host()),
                   U._softmax_ref(x64.ravel()[1:4096][None, :]), "bf16")


def test_code_compiled_for_facts_refuses_launches_without_them(rng):
    spec = U.softmax.specialize("hip", x="f32", y="f32", BLOCK=256,
                                assume={"x": 16, "N": 16})
    k = rocdsl._rocdsl.SourceKernel(spec.ir, "softmax", "hip")
    x = rocdsl.device_array(np.ones((1, 256), np.float32), "hip")
    y = rocdsl.empty((1, 256), "f32", "hip")
    with pytest.raises(ValueError, match="specialized for multiples of 16"):
        k.launch([x.data_ptr(), y.data_ptr(), 250], (1,))
    with pytest.raises(ValueError, match="specialized for 16-byte aligned"):
        k.launch([x.view(1, (1, 255)).data_ptr(), y.data_ptr(), 256], (1,))
    k.launch([x.data_ptr(), y.data_ptr(), 256], (1,))
    np.testing.assert_allclose(y.to_host(), np.full((1, 256), 1 / 256),
                               rtol=1e-6)
    # Compiled for N divisible by 8: 248 launches, 252 is refused.
    spec = U.softmax.specialize("hip", x="f32", y="f32", BLOCK=256,
                                assume={"x": 16, "N": 8})
    k = rocdsl._rocdsl.SourceKernel(spec.ir, "softmax", "hip")
    with pytest.raises(ValueError, match="specialized for multiples of 8"):
        k.launch([x.data_ptr(), y.data_ptr(), 252], (1,))
    k.launch([x.data_ptr(), y.data_ptr(), 248], (1,))
    np.testing.assert_allclose(y.to_host()[:, :248],
                               np.full((1, 248), 1 / 248), rtol=1e-6)


def test_assume_names_what_may_be_assumed():
    with pytest.raises(rocdsl.CompilationError, match="16 or 8"):
        U.softmax.specialize("hip", x="f32", y="f32", BLOCK=256,
                             assume={"N": 4})
    with pytest.raises(rocdsl.CompilationError, match="16-byte aligned"):
        U.softmax.specialize("hip", x="f32", y="f32", BLOCK=256,
                             assume={"x": 8})


@pytest.mark.parametrize("device", ["hip", "hip:1"])
@pytest.mark.parametrize("name", ["layernorm", "cross_entropy"])
def test_sixteen_wave_rows_match_float64(name, device, rng):
    """Rows of 32000 f32 take 16 waves (the default for their 32768-wide
    tile), whose cross-wave reduces combine the partials through one
    in-wave reduce: emulated gfx942 and gfx950 against float64."""
    case = U.KERNELS[name]
    got, ref, out_dtype = run(case, device, 2, 32000, "f32", rng)
    check(f"{name} 2x32000 f32 on {device}", got, ref, out_dtype,
          case.tolerance_scale)


def _amd_counts(name, chip, schedule, monkeypatch):
    """(instructions, VGPRs, kept strategy) of a user kernel on 4 warps for
    `chip` with ROCDSL_AMD_SCHEDULE=`schedule`."""
    import re
    monkeypatch.setenv("ROCDSL_AMD_SCHEDULE", schedule)
    kernel = rocdsl.kernel(U.KERNELS[name].kernel.fn, num_warps=4, name=name)
    spec = {"gelu_tanh": dict(x="bf16", y="bf16", BLOCK=1024),
            "residual_add": dict(x="bf16", r="bf16", y="f32", BLOCK=1024),
            "cross_entropy": dict(logits="bf16", BLOCK=4096)}[name]
    assume = {p.name: 16 for p in kernel._runtime
              if p.kind == "ptr" or p.dtype == "i32"}
    compiled = kernel.compile(chip=chip, assume=assume, **spec)
    asm = compiled.asm
    # The kept strategy is named in the stats and carried by the LLVM IR.
    kept = compiled.stats["schedule"]
    if kept == "default":
        assert "amdgpu-sched-strategy" not in compiled.llvm_ir
    else:
        assert f'"amdgpu-sched-strategy"="{kept}"' in compiled.llvm_ir
    body = [l for l in asm.splitlines()
            if re.match(r"^\s+([sv]_|buffer_|global_|ds_|flat_)", l)]
    vgprs = int(re.search(r"\.amdhsa_next_free_vgpr\s+(\d+)", asm).group(1))
    return len(body), vgprs, kept


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
@pytest.mark.parametrize("name", ["gelu_tanh", "residual_add",
                                  "cross_entropy"])
def test_schedule_choice_saves_vgprs_without_adding_instructions(
        name, chip, monkeypatch):
    """Loop-free kernels get the LLVM scheduling strategy with the fewest
    VGPRs among those with no more instructions than the default: on these
    three (LLVM 22) strictly fewer VGPRs than the default's."""
    chosen = _amd_counts(name, chip, "auto", monkeypatch)
    default = _amd_counts(name, chip, "default", monkeypatch)
    forced = _amd_counts(name, chip, "iterative-minreg", monkeypatch)
    assert forced[2] == "iterative-minreg"
    assert default[2] == "default" and chosen[2] != "default"
    assert chosen[0] <= default[0], (chosen, default)
    assert chosen[1] < default[1], (chosen, default)


@pytest.mark.parametrize("device", ["hip", "hip:1"])
@pytest.mark.parametrize("name", ["swiglu", "gelu_tanh", "residual_add"])
@pytest.mark.parametrize("m,n,dtype", [(3, 1360, "bf16"), (1, 4144, "f32"),
                                       (7, 999, "f16")])
def test_one_group_per_lane_blocks_match_float64(name, device, m, n, dtype,
                                                 rng):
    """BLOCK 1024 on 4 warps: each lane's part of a block is one group of
    4, which on AMD is a global access behind one branch (a last block
    partly masked off: 4080 = 3 x 1360 elements, 4144, and 6993 with no
    divisibility at all)."""
    case = U.KERNELS[name]
    kernel = rocdsl.kernel(case.kernel.fn, num_warps=4, name=name)
    inputs = case.inputs(m, n, dtype, rng)
    outs = case.outputs(m, n, dtype)
    args = [rocdsl.device_array(a, device, dtype=dt)
            for (a, _), dt in zip(inputs, _dtypes(inputs, dtype))]
    results = [rocdsl.device_array(R.poison(shape, dt), device, dtype=dt)
               for shape, dt in outs]
    count = m * n
    kernel[((count + 1023) // 1024,)](*args, *results, count, BLOCK=1024)
    got = R.widen(results[0].to_host(), outs[0][1])
    ref = case.reference(*[v for _, v in inputs])
    check(f"{name} {m}x{n} {dtype} on {device}", got, ref, outs[0][1],
          case.tolerance_scale)
