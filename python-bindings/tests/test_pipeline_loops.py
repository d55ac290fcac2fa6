"""rl.for_loop(..., stages=N): a user's K loop software-pipelined by
rocdsl-pipeline-loops, against float64 on the host, on emulated gfx942 and
gfx950 (librocdsl-hip-emu.so: hip = gfx942, hip:1 = gfx950; wait
violations fail the launch), with copies through registers and direct to
LDS with planned waits; plus the PTX of sm_90 and what is refused."""
import re

import numpy as np
import pytest

from hip_emulated import use_emulated_hip

use_emulated_hip(["gfx942", "gfx950"])

import rocdsl  # noqa: E402
import rocdsl.language as rl  # noqa: E402
from norm_reference import from_bf16, to_bf16  # noqa: E402

CHIPS = {"hip": "gfx942", "hip:1": "gfx950"}

# The launch facts of aligned operands (what a launch with M, N, K
# divisible by 16 compiles).
ALIGNED = {"a": 16, "b": 16, "c": 16, "M": 16, "N": 16, "K": 16}


@rocdsl.kernel(num_warps=4)
def gemm(a: rl.ptr, b: rl.ptr, c: rl.ptr("f32"), M: rl.i32, N: rl.i32,
         K: rl.i32, BM: rl.constexpr, BN: rl.constexpr, BK: rl.constexpr,
         S: rl.constexpr):
    """c = a @ b with the K loop in S stages."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN

    def step(k, acc):
        at = rl.load(a, [m0, k], shape=[BM, BK], strides=[K], bounds=[M, K])
        bt = rl.load(b, [k, n0], shape=[BK, BN], strides=[N], bounds=[K, N])
        return rl.dot(at, bt, acc)
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step, stages=S)
    rl.store(acc, c, [m0, n0], strides=[N], bounds=[M, N])


@rocdsl.kernel(num_warps=4)
def gemm_scaled_b(a: rl.ptr, b: rl.ptr, c: rl.ptr("f32"), M: rl.i32,
                  N: rl.i32, K: rl.i32, BM: rl.constexpr, BN: rl.constexpr,
                  BK: rl.constexpr):
    """B is scaled in registers before the product: its load does not feed
    the dot directly, so only A's load is pipelined."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN

    def step(k, acc):
        at = rl.load(a, [m0, k], shape=[BM, BK], strides=[K], bounds=[M, K])
        bt = rl.load(b, [k, n0], shape=[BK, BN], strides=[N], bounds=[K, N])
        return rl.dot(at, (bt.to("f32") * 2.0).to("bf16"), acc)
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step, stages=3)
    rl.store(acc, c, [m0, n0], strides=[N], bounds=[M, N])


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"seed {seed}")
    return np.random.default_rng(seed)


def operands(rng, m, n, k):
    a = to_bf16(rng.standard_normal((m, k)).astype(np.float32))
    b = to_bf16(rng.standard_normal((k, n)).astype(np.float32))
    return a, b, from_bf16(a).astype(np.float64), from_bf16(b).astype(
        np.float64)


def launch(kernel, device, a, b, m, n, k, tile, **kwargs):
    bm, bn, bk = tile
    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    if device == "host":
        c = np.full((m, n), np.nan, np.float32)
        kernel[grid]((a, "bf16"), (b, "bf16"), c, m, n, k, BM=bm, BN=bn,
                     BK=bk, **kwargs)
        return c
    da = rocdsl.device_array(a, device, "bf16")
    db = rocdsl.device_array(b, device, "bf16")
    dc = rocdsl.device_array(np.full((m, n), np.nan, np.float32), device)
    kernel[grid](da, db, dc, m, n, k, BM=bm, BN=bn, BK=bk, **kwargs)
    return dc.to_host()


def check(c, ref, a64, b64, k):
    # f32 accumulation of exact products: error grows like sqrt(K).
    tol = 2e-6 * np.sqrt(max(k, 1)) * np.abs(a64) @ np.abs(b64) + 1e-6
    assert np.isfinite(c).all()
    bad = np.abs(c - ref) > tol
    assert not bad.any(), (f"{bad.sum()} of {c.size} outside tolerance; "
                           f"worst {np.abs(c - ref).max()}")


# K: fewer steps than stages (1, 17: one masked step), exactly one step,
# a masked tail, and many steps.
SHAPES = [(70, 50, 1), (33, 65, 17), (64, 64, 32), (65, 31, 90),
          (64, 64, 256)]


@pytest.mark.parametrize("device", sorted(CHIPS) + ["host"])
@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_matches_float64(device, stages, m, n, k, rng):
    a, b, a64, b64 = operands(rng, m, n, k)
    tile = (32, 32, 16) if device == "host" else (64, 64, 32)
    c = launch(gemm, device, a, b, m, n, k, tile, S=stages)
    check(c, a64 @ b64, a64, b64, k)


@pytest.mark.parametrize("device", sorted(CHIPS))
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_direct_copies_with_planned_waits(device, stages, rng, monkeypatch):
    """Direct-to-LDS copies with counted waits; the emulator fails the
    launch on any read of a load the waits did not retire."""
    monkeypatch.setenv("ROCDSL_AMD_DIRECT_COPIES", "1")
    for m, n, k in [(64, 64, 256), (65, 31, 90), (64, 64, 32)]:
        a, b, a64, b64 = operands(rng, m, n, k)
        c = launch(gemm, device, a, b, m, n, k, (64, 64, 32), S=stages)
        check(c, a64 @ b64, a64, b64, k)


def test_a_weakened_wait_is_caught(rng, capfd, monkeypatch):
    """The planted bug (ROCDSL_AMD_WAITS=weakened-for-testing: the loop's
    planned wait one load too loose) is reported by the ISA check of the
    compile, which names the wait and the count it needed, and the
    emulator stops the launch at the first LDS read of the load left in
    flight."""
    monkeypatch.setenv("ROCDSL_AMD_DIRECT_COPIES", "1")
    monkeypatch.setenv("ROCDSL_AMD_WAITS", "weakened-for-testing")
    # (A tile no other test compiles: a kernel the process already holds
    # keeps the waits it was compiled with.)
    a, b, _, _ = operands(rng, 64, 64, 256)
    with pytest.raises(Exception, match=r"wait violation: .*ds_read.*"
                                        r"direct-to-LDS load"):
        launch(gemm, "hip", a, b, 64, 64, 256, (64, 64, 64), S=3)
    # The launch may have found the kernel in the disk cache; a compile
    # (compile-only, never cached) reports the finding again.
    capfd.readouterr()
    gemm.compile("gfx942", a="bf16", b="bf16", BM=64, BN=64, BK=64, S=3,
                 assume=ALIGNED)
    err = capfd.readouterr().err
    found = re.search(r"wait violation.*s_waitcnt vmcnt\((\d+)\).*"
                      r"needs vmcnt\((\d+)\)", err)
    assert found and int(found[1]) == int(found[2]) + 1, err


def test_zero_iterations_leave_the_accumulator(rng):
    a = to_bf16(np.ones((40, 1), np.float32))[:, :0].copy()
    b = to_bf16(np.ones((1, 24), np.float32))[:0, :].copy()
    c = launch(gemm, "host", a, b, 40, 24, 0, (32, 32, 16), S=3)
    np.testing.assert_array_equal(c, np.zeros((40, 24), np.float32))


def test_only_loads_that_feed_the_dot_are_pipelined(rng):
    m, n, k = 65, 40, 100
    a, b, a64, b64 = operands(rng, m, n, k)
    for device in ["host", "hip"]:
        tile = (32, 32, 16) if device == "host" else (64, 64, 32)
        c = launch(gemm_scaled_b, device, a, b, m, n, k, tile)
        check(c, a64 @ (2.0 * b64), a64, 2.0 * b64, k)


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_the_isa_has_one_barrier_per_step_and_no_spills(chip):
    compiled = gemm.compile(chip, a="bf16", b="bf16", BM=64, BN=64, BK=32,
                            S=3)
    assert compiled.stats["vgpr_spill"] == 0
    assert compiled.stats["scratch_bytes"] == 0
    assert compiled.hazards == [], compiled.hazards
    assert re.search(r"v_mfma_f32_32x32x\d+_?bf16", compiled.asm)


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_ptx_has_16_byte_cp_async_and_a_counted_wait(stages):
    ptx = gemm.compile("sm_90", a="bf16", b="bf16", BM=64, BN=64, BK=32,
                       S=stages, assume=ALIGNED).asm
    assert "cp.async.cg.shared.global" in ptx
    waits = re.findall(r"cp\.async\.wait_group\s+(\d+)", ptx)
    assert waits == [str(stages - 2)], waits
    assert ptx.count("bar.sync") >= 1


def loop_of(asm):
    """The assembly of the kernel's innermost loop: from the label its
    back branch jumps to, to that branch."""
    branch = re.findall(r"s_cbranch_scc[01] (\.LBB\w+)", asm)[-1]
    start = asm.index(branch + ":")
    return asm[start:asm.index("s_cbranch_scc", start)]


@pytest.mark.parametrize("chip,loads", [("gfx942", 8), ("gfx950", 5)])
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_direct_copies_wait_with_a_count(chip, loads, stages, monkeypatch):
    """In the loop, the only vmcnt wait leaves the newest stages - 2
    groups of `loads` direct loads a wave in flight (A 64 x 32 and B 32 x
    64 bf16 on 4 waves: 4 + 4 dword loads on gfx942; on gfx950 A's 8-byte
    swizzle groups take 4 dword loads and B one 16-byte load). The
    prologue's groups enter the loop in flight: its barrier does not
    drain them."""
    monkeypatch.setenv("ROCDSL_AMD_DIRECT_COPIES", "1")
    asm = gemm.compile(chip, a="bf16", b="bf16", BM=64, BN=64, BK=32,
                       S=stages, assume=ALIGNED).asm
    loop = loop_of(asm)
    assert len(re.findall(r"buffer_load_dword\w* .* lds", loop)) == loads
    counts = [int(n) for n in re.findall(r"s_waitcnt vmcnt\((\d+)\)", loop)]
    assert counts == [(stages - 2) * loads], counts
    assert loop.count("s_barrier") == 1


@pytest.mark.parametrize("stages", [0, 10, 2.5, True])
def test_bad_stage_counts_are_errors(stages):
    with pytest.raises(rocdsl.CompilationError, match=r"stages="):
        gemm.ir(device="host", a="bf16", b="bf16", BM=32, BN=32, BK=16,
                S=stages)
