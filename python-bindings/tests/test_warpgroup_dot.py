"""rl.warpgroup_dot: the product whose operands the matrix unit reads from
LDS (sm_90a wgmma). No NVIDIA GPU runs here: the kernel is compiled to PTX
and checked there (the built-in gemm's wgmma path runs on the GPU in
scripts/device-gpu-check.sh); everything else is a clear error."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import rocdsl  # noqa: E402
import rocdsl.language as rl  # noqa: E402


@rocdsl.kernel(num_warps=4)
def nt_gemm(a: rl.ptr, bt: rl.ptr, c: rl.ptr("f32"), M: rl.i32, N: rl.i32,
            K: rl.i32, BM: rl.constexpr, BN: rl.constexpr):
    """c = a @ bt^T, bt stored N x K: one [BM, BN] tile per program, K in
    steps of 64 through two swizzled LDS tiles."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN
    la = rl.local_alloc([BM, 64], a.dtype, swizzle=(8, 1, 8))
    lb = rl.local_alloc([BN, 64], a.dtype, swizzle=(8, 1, 8))

    def step(k, acc):
        la.store(rl.load(a, [m0, k], shape=[BM, 64], strides=[K],
                         bounds=[M, K]))
        lb.store(rl.load(bt, [n0, k], shape=[BN, 64], strides=[K],
                         bounds=[N, K]))
        return rl.warpgroup_dot(la, lb, acc)
    acc = rl.for_loop(0, K, 64, rl.zeros([BM, BN]), step)
    rl.store(acc, c, [m0, n0], strides=[N], bounds=[M, N])


def test_compiles_to_wgmma_on_sm_90a():
    c = nt_gemm.compile(chip="sm_90a", a="bf16", bt="bf16", c="f32", BM=128,
                        BN=128)
    assert ".target sm_90a" in c.asm
    # Two 64-row blocks x four 16-wide K blocks, B K-major (no transpose).
    mmas = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\."
                      r"f32\.bf16\.bf16 \{[^}]*\}, %rd\d+, %rd\d+, p, 1, +1, "
                      r"0, +0;", c.asm)
    assert len(mmas) == 8
    assert re.search(r"wgmma\.wait_group\.sync\.aligned\s+0;", c.asm)
    assert "fence.proxy.async.shared::cta;" in c.asm
    assert ".align 1024" in c.asm
    assert "mma.sync" not in c.asm and ".local" not in c.asm


def test_other_chips_are_an_error_naming_the_chip():
    with pytest.raises(Exception, match=r"rocdsl.warpgroup_dot needs warpgroup "
                                        r"MMA \(wgmma, sm_90a\); sm_90 has "
                                        r"none"):
        nt_gemm.compile(chip="sm_90", a="bf16", bt="bf16", c="f32", BM=128,
                        BN=128)


@rocdsl.kernel(num_warps=4)
def misuse(a: rl.ptr, c: rl.ptr("f32"), CASE: rl.constexpr):
    good = rl.local_alloc([64, 64], "bf16", swizzle=(8, 1, 8))
    if CASE == 0:
        rl.warpgroup_dot(good, rl.local_alloc([64, 64], "bf16"))
    elif CASE == 1:
        rl.warpgroup_dot(good, rl.load(a, [0, 0], shape=[64, 64], strides=[64]))
    elif CASE == 2:
        rl.warpgroup_dot(rl.local_alloc([32, 64], "bf16", swizzle=(8, 1, 8)),
                         good)
    elif CASE == 3:
        rl.warpgroup_dot(good, rl.local_alloc([64, 64], "f32",
                                              swizzle=(8, 1, 8)))
    elif CASE == 4:
        rl.warpgroup_dot(good, rl.local_alloc([64, 64], "bf16", buffers=2,
                                              swizzle=(8, 1, 8)))


@pytest.mark.parametrize("case,message", [
    (0, r"must have 64 elements a row and swizzle=\(8, 1, 8\)"),
    (1, r"operand b must be an LDS tile \(rl.local_alloc\), got Tile"),
    (2, r"M = 32, N = 64 on 4 warps: the warps must be a multiple of 4, M "
        r"of 16 \* warps"),
    (3, r"operand b is a \[64, 64\] f32 LDS tile; the inputs are f16 or "
        r"bf16"),
    (4, r"needs one buffer of a stack of 2 x \[64, 64\] bf16 LDS tiles"),
])
def test_misuse_is_one_clear_error(case, message):
    with pytest.raises(Exception, match=message):
        misuse.compile(chip="sm_90a", a="bf16", c="f32", CASE=case)


@rocdsl.kernel(num_warps=4)
def nt_gemm_in_flight(a: rl.ptr, bt: rl.ptr, c: rl.ptr("f32"), M: rl.i32,
                      N: rl.i32, K: rl.i32, BM: rl.constexpr,
                      BN: rl.constexpr):
    """nt_gemm with each step's products left running (pending=1) across
    the next step, on two LDS buffers: step i writes buffer i % 2, which
    step i - 2 read and step i - 1's wait retired."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN
    la = rl.local_alloc([BM, 64], a.dtype, buffers=2, swizzle=(8, 1, 8))
    lb = rl.local_alloc([BN, 64], a.dtype, buffers=2, swizzle=(8, 1, 8))

    def step(k, acc):
        slot = (k // 64) % 2
        la[slot].store(rl.load(a, [m0, k], shape=[BM, 64], strides=[K],
                               bounds=[M, K]))
        lb[slot].store(rl.load(bt, [n0, k], shape=[BN, 64], strides=[K],
                               bounds=[N, K]))
        return rl.warpgroup_dot(la[slot], lb[slot], acc, pending=1)
    acc = rl.for_loop(0, K, 64, rl.zeros([BM, BN]), step)
    rl.store(rl.warpgroup_wait(acc), c, [m0, n0], strides=[N], bounds=[M, N])


def test_products_left_in_flight_wait_once_after_the_loop():
    c = nt_gemm_in_flight.compile(chip="sm_90a", a="bf16", bt="bf16",
                                  c="f32", BM=64, BN=64)
    # In the loop: commit, then wait down to one group pending; after it,
    # one wait for all, with the 32 accumulator registers a thread tied
    # to it (inline PTX), before any store.
    assert re.search(r"wgmma\.commit_group\.sync\.aligned;\s+"
                     r"wgmma\.wait_group\.sync\.aligned\s+1;", c.asm)
    last = list(re.finditer(r"wgmma\.wait_group\.sync\.aligned\s+1;",
                            c.asm))[-1]
    tail = c.asm[last.end():]
    final = re.search(r"wgmma\.wait_group\.sync\.aligned\s+0;", tail)
    assert final, "no final wait after the loop"
    assert "st.global" not in tail[:final.start()]
    assert "st.global" in tail[final.end():]


@rocdsl.kernel(num_warps=4)
def in_flight_misuse(a: rl.ptr, c: rl.ptr("f32"), CASE: rl.constexpr):
    la = rl.local_alloc([64, 64], "bf16", swizzle=(8, 1, 8))
    lb = rl.local_alloc([64, 64], "bf16", swizzle=(8, 1, 8))
    if CASE == 0:
        d = rl.warpgroup_dot(la, lb, pending=1)
        rl.store(d, c, [0, 0], strides=[64])
    elif CASE == 1:
        rl.warpgroup_dot(la, lb, pending=8)
    elif CASE == 2:
        rl.warpgroup_wait(rl.zeros([64, 64]) + 1.0, pending=-1)
    elif CASE == 3:
        # rl.dot's accumulator: mma.sync's layout, warps 2 x 2.
        x = rl.load(a, [0, 0], shape=[64, 16], strides=[16])
        y = rl.load(a, [0, 0], shape=[16, 64], strides=[64])
        rl.warpgroup_dot(la, lb, rl.dot(x, y), pending=1)


@pytest.mark.parametrize("case,message", [
    (0, r"result with pending = 1 is still being computed: it may only be "
        r"another warpgroup_dot's accumulator, a warpgroup_wait's operand or "
        r"a loop's carried value, not an operand of rocdsl.store"),
    (1, r"rl.warpgroup_dot pending must be an int in \[0, 7\], got 8"),
    (2, r"rl.warpgroup_wait pending must be an int in \[0, 7\], got -1"),
    (3, r"accumulator must already be in the matrix unit's layout"),
])
def test_in_flight_misuse_is_one_clear_error(case, message):
    with pytest.raises(Exception, match=message):
        in_flight_misuse.compile(chip="sm_90a", a="bf16", c="f32", CASE=case)
