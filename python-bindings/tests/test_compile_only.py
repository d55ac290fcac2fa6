"""Compile-only from Python (no GPU): k.compile(chip=...) and
rocdsl.compile(...) give the IR, assembly, code object, resources and
hazard findings of the code that would run."""
import os

import pytest

import rocdsl
import rocdsl.language as rl


def _amd_toolchain_missing():
    """A GPU machine's self-contained bundle has no AMDGPU device libraries
    or ld.lld; CTest (ROCDSL_TEST_BUILD_DIR) always has them."""
    if os.environ.get("ROCDSL_TEST_BUILD_DIR"):
        return None
    try:
        rocdsl.compile("rmsnorm_fwd", ["N=64"], chip="gfx942")
    except ValueError as e:
        return str(e)
    return None


_MISSING = _amd_toolchain_missing()
amd = pytest.mark.skipif(_MISSING is not None,
                         reason=f"no AMDGPU toolchain here: {_MISSING}")


@rocdsl.kernel(num_warps=4)
def scale_rows(x: rl.ptr, y: rl.ptr, M: rl.i32, N: rl.i32, s: rl.f32,
               ROWS: rl.constexpr, BLOCK: rl.constexpr):
    row0 = rl.program_id(0) * ROWS
    cols = rl.iota(BLOCK)
    t = rl.load(x, [row0, 0], shape=[ROWS, BLOCK], strides=[N],
                bounds=[M, N], mask=cols < N, other=0.0).to("f32")
    r = t.sum(axis=1, keepdims=True)
    out = rl.exp(t * s) / (1 + r * r)
    rl.store(out.to(y.dtype), y, [row0, 0], strides=[N], bounds=[M, N],
             mask=cols < N)


@amd
@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_python_kernel_compiles_for_amd_chips(chip):
    c = scale_rows.compile(chip=chip, x="bf16", y="bf16", ROWS=2, BLOCK=512)
    assert isinstance(c, rocdsl.Compiled) and c.chip == chip
    assert "rocdsl.func" in c.mlir and "rocdl." in c.lowered
    assert "amdgpu_kernel" in c.llvm_ir
    assert f'.amdgcn_target "amdgcn-amd-amdhsa--{chip}' in c.asm
    assert "v_exp_f32" in c.asm and "s_endpgm" in c.asm
    assert c.hsaco[:4] == b"\x7fELF" and c.ptx is None
    s = c.stats
    assert s["kernel"] == "scale_rows"
    assert 0 < s["vgpr"] <= 512 and s["sgpr"] > 0
    assert s["vgpr_spill"] == 0 and s["sgpr_spill"] == 0
    assert s["scratch_bytes"] == 0
    assert s["max_workgroup_size"] == 256 and s["wavefront_size"] == 64
    assert 1 <= s["occupancy"] <= 8
    assert s["store_form"] in ("wide", "split64", "padded")
    assert c.hazards == []


@amd
def test_chips_differ_where_the_hardware_does():
    a = scale_rows.compile(chip="gfx942", x="f32", y="f32", ROWS=1,
                           BLOCK=256)
    b = scale_rows.compile(chip="gfx950", x="f32", y="f32", ROWS=1,
                           BLOCK=256)
    assert "gfx942" in a.asm and "gfx950" not in a.asm
    assert "gfx950" in b.asm


def test_python_kernel_compiles_to_ptx():
    c = scale_rows.compile(chip="sm_90", x="f16", y="f16", ROWS=1, BLOCK=256)
    assert ".target sm_90" in c.asm and c.ptx == c.asm
    assert c.hsaco is None and c.stats == {"assumed": {}}


@amd
@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_builtin_kernels_compile_for_amd_chips(chip):
    # Sizes for whichever of them a kernel has (N: the norms and gemm; Sq
    # and D: attention).
    sizes = {"N": "4096", "Sq": "4096", "D": "128", "dtype": "bf16"}
    for kernel in rocdsl.list_kernels():
        name = kernel["name"]
        params = {p[0] for p in kernel["params"]}
        c = rocdsl.compile(name, [f"{k}={v}" for k, v in sizes.items()
                                  if k in params], chip=chip)
        assert c.stats["kernel"] == name, name
        assert c.stats["vgpr_spill"] == 0 and c.stats["scratch_bytes"] == 0
        assert c.hazards == []
        assert "s_waitcnt" in c.asm


def test_builtin_on_nvidia_gets_the_warp_size():
    c = rocdsl.compile("rmsnorm_fwd", ["N=1024"], chip="sm_90")
    assert ".target sm_90" in c.asm


def test_bad_requests_are_one_clear_exception():
    with pytest.raises(ValueError, match=r"unsupported chip 'gfx90a' "
                                         r"\(supported: gfx942, gfx950"):
        scale_rows.compile(chip="gfx90a", x="f32", y="f32", ROWS=1,
                           BLOCK=256)
    with pytest.raises(ValueError, match="unsupported chip 'gfx1100'"):
        rocdsl.compile("rmsnorm_fwd", ["N=1024"], chip="gfx1100")
    with pytest.raises(ValueError, match=r"unknown kernel 'nope' \(kernels: "
                                         r"rmsnorm_fwd, .*attention_fwd"):
        rocdsl.compile("nope", [], chip="gfx942")
    with pytest.raises(TypeError, match="chip must be a str"):
        scale_rows.compile(chip=942, x="f32", y="f32", ROWS=1, BLOCK=256)
    with pytest.raises(Exception, match="constexpr `BLOCK` was not given"):
        scale_rows.compile(chip="gfx942", x="f32", y="f32", ROWS=1)


@pytest.mark.parametrize("kernel", ["attention_fwd", "attention_bwd"])
def test_attention_on_sm90a_takes_warpgroup_mma_where_it_fits(kernel):
    # wgmma=auto: warpgroup MMA at head dimensions that are multiples of
    # 64, mma.sync otherwise and on sm_90 (no wgmma there); the backward
    # at D = 256 does not fit the shared memory with wgmma's tiles.
    wide = rocdsl.compile(kernel, ["Sq=256", "D=128"], chip="sm_90a").asm
    assert "wgmma.mma_async" in wide and "mma.sync" not in wide
    for defs, chip in ((["Sq=256", "D=80"], "sm_90a"),
                       (["Sq=256", "D=128"], "sm_90"),
                       (["Sq=256", "D=128", "wgmma=0"], "sm_90a")):
        asm = rocdsl.compile(kernel, defs, chip=chip).asm
        assert "mma.sync" in asm and "wgmma" not in asm, (defs, chip)
    if kernel == "attention_bwd":
        asm = rocdsl.compile(kernel, ["Sq=256", "D=256"], chip="sm_90a").asm
        assert "mma.sync" in asm and "wgmma" not in asm
    with pytest.raises(ValueError, match="sm_90 has no warpgroup MMA"):
        rocdsl.compile(kernel, ["D=128", "wgmma=1"], chip="sm_90")
