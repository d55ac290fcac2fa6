"""rl.dot on the matrix cores of emulated gfx942 and gfx950
(librocdsl-hip-emu.so: hip = gfx942, hip:1 = gfx950) and on the host,
against float64: every default and CDNA4 instruction shape, widened
kWidth, ragged M/N/K (1, 17, ...), f16 and bf16, and the errors of shapes
and chips that cannot run."""
import os
import re
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from hip_emulated import use_emulated_hip

use_emulated_hip(["gfx942", "gfx950"])

import rocdsl  # noqa: E402
import rocdsl.language as rl  # noqa: E402
from norm_reference import from_bf16, to_bf16  # noqa: E402
import dsl_kernels as K  # noqa: E402

CHIPS = {"hip": "gfx942", "hip:1": "gfx950"}


@rocdsl.kernel(num_warps=4)
def gemm(a: rl.ptr, b: rl.ptr, c: rl.ptr("f32"), M: rl.i32, N: rl.i32,
         K: rl.i32, BM: rl.constexpr, BN: rl.constexpr, BK: rl.constexpr,
         IM: rl.constexpr, IK: rl.constexpr, KW: rl.constexpr):
    """c = a @ b, one [BM, BN] tile per program; instruction IM x IM x IK
    with KW K elements per lane."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN

    def step(k, acc):
        at = rl.load(a, [m0, k], shape=[BM, BK], strides=[K], bounds=[M, K])
        bt = rl.load(b, [k, n0], shape=[BK, BN], strides=[N], bounds=[K, N])
        return rl.dot(at, bt, acc, instr=(IM, IM, IK), k_width=KW)
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step)
    rl.store(acc, c, [m0, n0], strides=[N], bounds=[M, N])


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"seed {seed}")
    return np.random.default_rng(seed)


def operands(rng, dtype, m, n, k):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    if dtype == "bf16":
        a, b = to_bf16(a), to_bf16(b)
        return a, b, from_bf16(a).astype(np.float64), from_bf16(b).astype(
            np.float64)
    a, b = a.astype(np.float16), b.astype(np.float16)
    return a, b, a.astype(np.float64), b.astype(np.float64)


def run(device, dtype, m, n, k, tile, instr, kw, rng):
    a, b, a64, b64 = operands(rng, dtype, m, n, k)
    bm, bn, bk = tile
    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    kwargs = dict(BM=bm, BN=bn, BK=bk, IM=instr[0], IK=instr[2], KW=kw)
    if device == "host":
        c = np.full((m, n), np.nan, np.float32)
        gemm[grid]((a, dtype) if dtype == "bf16" else a,
                   (b, dtype) if dtype == "bf16" else b, c, m, n, k, **kwargs)
    else:
        da = rocdsl.device_array(a, device, dtype)
        db = rocdsl.device_array(b, device, dtype)
        dc = rocdsl.device_array(np.full((m, n), np.nan, np.float32), device)
        gemm[grid](da, db, dc, m, n, k, **kwargs)
        c = dc.to_host()
    ref = a64 @ b64
    # f32 accumulation of exact products: error grows like sqrt(K).
    tol = 2e-6 * np.sqrt(k) * np.abs(a64) @ np.abs(b64) + 1e-6
    assert np.isfinite(c).all()
    bad = np.abs(c - ref) > tol
    assert not bad.any(), (f"{bad.sum()} of {c.size} outside tolerance; "
                           f"worst {np.abs(c - ref).max()}")


# (tile, instruction, kWidth): the defaults, a widened kWidth, and 16x16.
CDNA3 = [((64, 64, 32), (32, 32, 8), 4),
         ((32, 64, 16), (32, 32, 8), 8),
         ((32, 32, 32), (16, 16, 16), 4),
         ((64, 32, 32), (16, 16, 16), 8)]
# CDNA4's 8-per-lane shapes (gfx950 only).
CDNA4 = [((32, 32, 32), (16, 16, 32), 8),
         ((64, 64, 32), (32, 32, 16), 8),
         ((32, 32, 64), (16, 16, 32), 16)]


@pytest.mark.parametrize("device", sorted(CHIPS))
@pytest.mark.parametrize("tile,instr,kw", CDNA3)
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_cdna3_shapes(device, tile, instr, kw, dtype, rng):
    run(device, dtype, 70, 50, 90, tile, instr, kw, rng)


@pytest.mark.parametrize("tile,instr,kw", CDNA4)
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_cdna4_shapes_on_gfx950(tile, instr, kw, dtype, rng):
    run("hip:1", dtype, 45, 67, 100, tile, instr, kw, rng)


@pytest.mark.parametrize("device", sorted(CHIPS) + ["host"])
@pytest.mark.parametrize("m,n,k", [(1, 17, 17), (17, 1, 255), (129, 65, 1),
                                   (64, 64, 64)])
def test_ragged_shapes(device, m, n, k, rng):
    # The host unrolls the tile product: a smaller tile keeps its compile
    # short.
    tile = (32, 32, 16) if device == "host" else (64, 64, 32)
    run(device, "bf16", m, n, k, tile, (32, 32, 8), 4, rng)


def test_cdna4_shape_on_gfx942_is_an_error_naming_the_chip(rng):
    with pytest.raises(rocdsl.CompilationError,
                       match=r"needs a newer matrix core than gfx942's"):
        run("hip", "bf16", 32, 32, 32, (32, 32, 32), (16, 16, 32), 8, rng)


def test_the_isa_has_the_instruction_and_no_spills():
    for chip, instr, name in [("gfx942", (32, 32, 8), "32x32x8_bf16"),
                              ("gfx950", (32, 32, 8), "32x32x8_bf16"),
                              ("gfx950", (16, 16, 32), "16x16x32_bf16")]:
        compiled = gemm.compile(chip, a="bf16", b="bf16", BM=64, BN=64, BK=32,
                                IM=instr[0], IK=instr[2],
                                KW=instr[2] * instr[0] // 64)
        assert f"v_mfma_f32_{name}" in compiled.asm, chip
        assert compiled.stats["vgpr_spill"] == 0
        assert compiled.stats["scratch_bytes"] == 0
        assert compiled.hazards == [], compiled.hazards


@pytest.mark.parametrize("kwargs,message", [
    (dict(IM=32, IK=16, KW=4), r"k_width=4: a multiple of 8"),
    (dict(IM=8, IK=8, KW=4), r"instr=\(8, 8, 8\)"),
])
def test_bad_instruction_choices(kwargs, message):
    with pytest.raises(rocdsl.CompilationError, match=message):
        gemm.ir(device="hip", a="bf16", b="bf16", BM=64, BN=64, BK=32,
                **kwargs)


@pytest.mark.parametrize("device", sorted(CHIPS) + ["host"])
@pytest.mark.parametrize("m,n,k", [(70, 50, 90), (1, 33, 17)])
def test_column_major_a_through_trans(device, m, n, k, rng):
    a, b, a64, b64 = operands(rng, "bf16", m, n, k)
    at = np.ascontiguousarray(a.T)  # stored K x M
    bm, bn, bk = (32, 32, 16) if device == "host" else (64, 64, 32)
    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    if device == "host":
        c = np.full((m, n), np.nan, np.float32)
        K.gemm_at[grid]((at, "bf16"), (b, "bf16"), c, m, n, k, BM=bm, BN=bn,
                      BK=bk)
    else:
        da = rocdsl.device_array(at, device, "bf16")
        db = rocdsl.device_array(b, device, "bf16")
        dc = rocdsl.device_array(np.full((m, n), np.nan, np.float32), device)
        K.gemm_at[grid](da, db, dc, m, n, k, BM=bm, BN=bn, BK=bk)
        c = dc.to_host()
    ref = a64 @ b64
    tol = 2e-6 * np.sqrt(k) * np.abs(a64) @ np.abs(b64) + 1e-6
    assert np.isfinite(c).all() and (np.abs(c - ref) <= tol).all()


@pytest.mark.parametrize("device", sorted(CHIPS) + ["host"])
@pytest.mark.parametrize("m,n", [(100, 37), (64, 128), (1, 5)])
def test_transpose(device, m, n, rng):
    x = rng.standard_normal((m, n)).astype(np.float32)
    bm, bn = 32, 64
    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    if device == "host":
        y = np.full((n, m), np.nan, np.float32)
        K.transpose[grid](x, y, m, n, BM=bm, BN=bn)
    else:
        dy = rocdsl.device_array(np.full((n, m), np.nan, np.float32), device)
        K.transpose[grid](rocdsl.device_array(x, device), dy, m, n, BM=bm, BN=bn)
        y = dy.to_host()
    np.testing.assert_array_equal(y, 2.0 * x.T)


EXAMPLE = (pathlib.Path(__file__).resolve().parents[1] / "examples" /
           "gemm.py")


@pytest.mark.parametrize("device,chip,dtype", [("hip", "gfx942", "bf16"),
                                               ("hip", "gfx950", "f16"),
                                               ("host", "", "bf16")])
def test_gemm_example_script(device, chip, dtype):
    env = dict(os.environ, ROCDSL_EMU_CHIP=chip or "gfx942")
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--device", device, "--m", "130",
         "--n", "67", "--k", "45", "--dtype", dtype],
        env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (f"gemm 130x67x45 {dtype} on {device}: max abs error" in
            out.stdout), out.stdout
    assert out.stdout.rstrip().endswith("0 of 8710 outside tolerance")


@rocdsl.kernel(num_warps=4)
def gemm_lds(a: rl.ptr, b: rl.ptr, c: rl.ptr("f32"), M: rl.i32, N: rl.i32,
             K: rl.i32, BM: rl.constexpr, BN: rl.constexpr,
             BK: rl.constexpr):
    """c = a @ b with both operands staged through double-buffered LDS
    tiles: K step s writes buffer s % 2 and multiplies from it."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN
    lds_a = rl.local_alloc([BM, BK], a.dtype, buffers=2, swizzle=(8, 1, 4))
    lds_b = rl.local_alloc([BK, BN], b.dtype, buffers=2)

    def step(k, acc):
        at = rl.load(a, [m0, k], shape=[BM, BK], strides=[K], bounds=[M, K])
        bt = rl.load(b, [k, n0], shape=[BK, BN], strides=[N], bounds=[K, N])
        slot = (k // BK) % 2
        lds_a[slot].store(at)
        lds_b[slot].store(bt)
        rl.sched_barrier()
        rl.wait(lgkmcnt=0)
        return rl.dot(lds_a[slot].load(), lds_b[slot].load(), acc)
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step)
    rl.store(acc, c, [m0, n0], strides=[N], bounds=[M, N])


def check_bf16_gemm(kernel, device, m, n, k, rng, b_stored=lambda b: b):
    """Runs `kernel` (a, b as `b_stored` keeps it, c, M, N, K, 64x64x32
    tiles) on `device` and compares c with a @ b in float64."""
    a, b, a64, b64 = operands(rng, "bf16", m, n, k)
    b = np.ascontiguousarray(b_stored(b))
    bm, bn, bk = 64, 64, 32
    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    if device == "host":
        c = np.full((m, n), np.nan, np.float32)
        kernel[grid]((a, "bf16"), (b, "bf16"), c, m, n, k, BM=bm, BN=bn,
                     BK=bk)
    else:
        da = rocdsl.device_array(a, device, "bf16")
        db = rocdsl.device_array(b, device, "bf16")
        dc = rocdsl.device_array(np.full((m, n), np.nan, np.float32), device)
        kernel[grid](da, db, dc, m, n, k, BM=bm, BN=bn, BK=bk)
        c = dc.to_host()
    ref = a64 @ b64
    tol = 2e-6 * np.sqrt(k) * np.abs(a64) @ np.abs(b64) + 1e-6
    bad = ~(np.abs(c - ref) <= tol)
    assert not bad.any(), (f"{bad.sum()} of {c.size} outside tolerance; "
                           f"worst {np.nanmax(np.abs(c - ref))}")


# Ragged tiles over three K steps (both buffers, the first reused), one
# exact tile and a sliver of one, on every device.
@pytest.mark.parametrize("device", sorted(CHIPS) + ["host"])
@pytest.mark.parametrize("m,n,k", [(70, 50, 90), (64, 64, 32), (1, 33, 7)])
def test_operands_through_double_buffered_lds(device, m, n, k, rng):
    check_bf16_gemm(gemm_lds, device, m, n, k, rng)


@rocdsl.kernel(num_warps=4)
def gemm_bt(a: rl.ptr, bt: rl.ptr, c: rl.ptr("f32"), M: rl.i32, N: rl.i32,
            K: rl.i32, BM: rl.constexpr, BN: rl.constexpr,
            BK: rl.constexpr):
    """c = a @ bt^T with bt stored N x K (attention's keys): each step
    writes bt's rows to a swizzled LDS tile as they are and reads the B
    operand back transposed (local_load {trans}), with no transposed copy
    in memory or registers."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN
    lds_b = rl.local_alloc([BN, BK], bt.dtype, swizzle=(8, 1, 4))

    def step(k, acc):
        at = rl.load(a, [m0, k], shape=[BM, BK], strides=[K], bounds=[M, K])
        rows = rl.load(bt, [n0, k], shape=[BN, BK], strides=[K],
                       bounds=[N, K])
        lds_b.store(rows)
        return rl.dot(at, lds_b.load(trans=True), acc)
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step)
    rl.store(acc, c, [m0, n0], strides=[N], bounds=[M, N])


@pytest.mark.parametrize("device", sorted(CHIPS) + ["host"])
@pytest.mark.parametrize("m,n,k", [(70, 50, 90), (64, 64, 32), (1, 33, 7)])
def test_b_operand_read_transposed_from_lds(device, m, n, k, rng):
    check_bf16_gemm(gemm_bt, device, m, n, k, rng, b_stored=lambda b: b.T)


@rocdsl.kernel(num_warps=4)
def transpose_in_lds(x: rl.ptr("f32"), y: rl.ptr("f32"), M: rl.i32,
                     N: rl.i32, BM: rl.constexpr, BN: rl.constexpr):
    """y = x^T through one swizzled LDS tile read transposed."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN
    lds = rl.local_alloc([BM, BN], "f32", swizzle=(4, 1, 8))
    lds.store(rl.load(x, [m0, n0], shape=[BM, BN], strides=[N],
                      bounds=[M, N]))
    rl.store(lds.load(trans=True), y, [n0, m0], strides=[M], bounds=[N, M])


@pytest.mark.parametrize("device", sorted(CHIPS) + ["host"])
@pytest.mark.parametrize("m,n", [(100, 37), (64, 128)])
def test_transposed_lds_read(device, m, n, rng):
    x = rng.standard_normal((m, n)).astype(np.float32)
    bm, bn = 32, 64
    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    if device == "host":
        y = np.full((n, m), np.nan, np.float32)
        transpose_in_lds[grid](x, y, m, n, BM=bm, BN=bn)
    else:
        dy = rocdsl.device_array(np.full((n, m), np.nan, np.float32), device)
        transpose_in_lds[grid](rocdsl.device_array(x, device), dy, m, n,
                               BM=bm, BN=bn)
        y = dy.to_host()
    np.testing.assert_array_equal(y, x.T)


def test_transposed_load_needs_a_2d_tile():
    @rocdsl.kernel(num_warps=1)
    def bad(y: rl.ptr("f32")):
        t = rl.local_alloc([2, 4, 8], "f32")
        rl.store(t.load(trans=True), y, [0, 0, 0], strides=[32, 8])
    with pytest.raises(rocdsl.CompilationError, match="reads 2-D tiles"):
        bad[(1,)](np.zeros(64, np.float32))


def test_lds_tiles_in_the_ir_and_the_isa():
    compiled = gemm_lds.compile("gfx942", a="bf16", b="bf16", BM=64, BN=64,
                                BK=32)
    assert compiled.mlir.count("rocdsl.local_alloc") == 2
    assert "rocdsl.local_index" in compiled.mlir
    assert "rocdsl.wait {lgkmcnt = 0 : i32}" in compiled.mlir
    assert "rocdsl.sched_barrier" in compiled.mlir
    assert "ds_write" in compiled.asm and "ds_read" in compiled.asm
    assert compiled.stats["scratch_bytes"] == 0
    assert compiled.hazards == [], compiled.hazards


@rocdsl.kernel(num_warps=4)
def gemm_interleaved(a: rl.ptr, b: rl.ptr, c: rl.ptr("f32"), M: rl.i32,
                     N: rl.i32, K: rl.i32, BM: rl.constexpr, BN: rl.constexpr,
                     BK: rl.constexpr):
    """c = a @ b through one LDS tile per operand, the products asked to
    alternate with the LDS operand reads (rl.sched_group_barrier)."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN
    lds_a = rl.local_alloc([BM, BK], a.dtype)
    lds_b = rl.local_alloc([BK, BN], b.dtype)

    def step(k, acc):
        lds_a.store(rl.load(a, [m0, k], shape=[BM, BK], strides=[K],
                            bounds=[M, K]))
        lds_b.store(rl.load(b, [k, n0], shape=[BK, BN], strides=[N],
                            bounds=[K, N]))
        acc = rl.dot(lds_a.load(), lds_b.load(), acc)
        for _ in range(4):
            rl.sched_group_barrier(0x100, 2)
            rl.sched_group_barrier(0x8, 1)
        return acc
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step)
    rl.store(acc, c, [m0, n0], strides=[N], bounds=[M, N])


@pytest.mark.parametrize("device", sorted(CHIPS) + ["host"])
def test_scheduling_groups_keep_the_numerics(device, rng):
    m, n, k = 70, 50, 90
    a, b, a64, b64 = operands(rng, "bf16", m, n, k)
    grid = ((m + 63) // 64, (n + 63) // 64)
    if device == "host":
        c = np.full((m, n), np.nan, np.float32)
        gemm_interleaved[grid]((a, "bf16"), (b, "bf16"), c, m, n, k, BM=64,
                               BN=64, BK=32)
    else:
        da = rocdsl.device_array(a, device, "bf16")
        db = rocdsl.device_array(b, device, "bf16")
        dc = rocdsl.device_array(np.full((m, n), np.nan, np.float32), device)
        gemm_interleaved[grid](da, db, dc, m, n, k, BM=64, BN=64, BK=32)
        c = dc.to_host()
    ref = a64 @ b64
    tol = 2e-6 * np.sqrt(k) * np.abs(a64) @ np.abs(b64) + 1e-6
    bad = ~(np.abs(c - ref) <= tol)
    assert not bad.any(), f"{bad.sum()} of {c.size} outside tolerance"


def test_scheduling_groups_in_the_ir_and_the_isa():
    compiled = gemm_interleaved.compile("gfx942", a="bf16", b="bf16", BM=64,
                                        BN=64, BK=32)
    # (sync_id 0, the default, is not printed)
    assert compiled.mlir.count("rocdsl.sched_group_barrier {mask = 256 : i32, "
                               "size = 2 : i32}") == 4
    assert compiled.mlir.count("rocdsl.sched_group_barrier {mask = 8 : i32, "
                               "size = 1 : i32}") == 4
    assert "v_mfma" in compiled.asm and "ds_read" in compiled.asm
    assert compiled.hazards == [], compiled.hazards


def _trace_error(body):
    @rocdsl.kernel(num_warps=1)
    def k(x: rl.ptr("f32")):
        body(x)
    with pytest.raises(rocdsl.CompilationError) as e:
        k.compile("gfx942")
    return str(e.value)


@pytest.mark.parametrize("body,message", [
    (lambda x: rl.local_alloc([16, 16], "f32", buffers=2).load(),
     r"needs one buffer of a stack of 2 x \[16, 16\] f32 LDS tiles"),
    (lambda x: rl.local_alloc([16, 16], "f32")[0],
     r"is a single buffer; allocate with buffers=N"),
    (lambda x: rl.local_alloc([16, 16], "f32", buffers=2)[2],
     r"buffer index 2 is outside \[0, 2\)"),
    (lambda x: rl.local_alloc([16, 16], "f32").store(rl.zeros([16, 8])),
     r"cannot store a \[16, 8\] f32 tile into a \[16, 16\] f32 LDS tile"),
    (lambda x: rl.local_alloc([16, 16], "i1"),
     r"local_alloc dtype must be one of"),
    (lambda x: rl.local_alloc([16, 16], "f32", swizzle=(8, 1)),
     r"swizzle must be \(vec, per_phase, max_phase\)"),
    (lambda x: rl.local_alloc([16, 16], "f32", buffers=0),
     r"buffers must be at least 1"),
    (lambda x: rl.wait(vmcnt=64), r"vmcnt must be in \[0, 63\], got 64"),
    (lambda x: rl.wait(), r"rl.wait needs vmcnt or lgkmcnt"),
    (lambda x: rl.sched_barrier(-1), r"mask must be non-negative"),
    (lambda x: rl.sched_group_barrier(0, 1),
     r"sched_group_barrier mask must be in \[1, 0x7ff\], got 0"),
    (lambda x: rl.sched_group_barrier(0x8, 0),
     r"sched_group_barrier size must be at least 1, got 0"),
    (lambda x: rl.sched_group_barrier(0x8, 1, sync_id=-2),
     r"sync_id must be non-negative, got -2"),
    (lambda x: rl.set_priority(4),
     r"set_priority priority must be in \[0, 3\], got 4"),
])
def test_lds_and_scheduling_errors(body, message):
    assert re.search(message, _trace_error(body))


@rocdsl.kernel(num_warps=4)
def wave_ids(y: rl.ptr("i32"), PRIORITY: rl.constexpr):
    """y[lane] = the lane's wave index, written at raised priority."""
    rl.set_priority(PRIORITY)
    w = rl.full([256], rl.warp_id())
    rl.set_priority(0)
    rl.store(w, y, [0])


@pytest.mark.parametrize("device", sorted(CHIPS))
def test_warp_id_and_priority(device):
    y = rocdsl.device_array(np.full(256, -7, np.int32), device)
    wave_ids[(1,)](y, PRIORITY=2)
    lanes = 64
    np.testing.assert_array_equal(y.to_host(), np.arange(256) // lanes)
    asm = wave_ids.compile(CHIPS[device], PRIORITY=2).asm
    assert "s_setprio 2" in asm and "s_setprio 0" in asm


def test_warp_id_is_refused_on_the_host():
    with pytest.raises(rocdsl.CompilationError,
                       match=r"warp_id has no host meaning"):
        wave_ids[(1,)](np.zeros(256, np.int32), PRIORITY=1)
