"""rl.atomic_add and rl.program_atomic: programs add into shared sums and
the last one to arrive publishes them, on the host (programs on threads of
their own), emulated gfx942 and gfx950 (hip, hip:1), against float64 and
exact integers; the scratch is left as found (zeros, count 0), so a second
launch needs no reset; and the errors."""
import numpy as np
import pytest

from hip_emulated import use_emulated_hip

use_emulated_hip(["gfx942", "gfx950"])

import rocdsl  # noqa: E402
import rocdsl.language as rl  # noqa: E402

DEVICES = ["host", "hip", "hip:1"]


@rocdsl.kernel(num_warps=4)
def column_sums(x: rl.ptr, acc: rl.ptr, count: rl.ptr("i32"), out: rl.ptr,
                M: rl.i32, N: rl.i32, BM: rl.constexpr, BN: rl.constexpr):
    """out[j] = sum_i x[i, j] (f32 or i32): program p sums its BM-row tiles
    p, p+G, ... (reduced along rows: the column tile has a copy in every
    lane along the rows), adds them into acc, and the last program copies
    acc to out and leaves acc zero and count 0."""
    g = rl.num_programs(0)
    p = rl.program_id(0)

    def rows(row0):
        return rl.load(x, [row0, 0], shape=[BM, BN], strides=[N],
                       bounds=[M, N])

    total = rl.for_loop(p * BM + g * BM, M, g * BM, rl.sum(rows(p * BM), axis=0),
                        lambda row0, s: s + rl.sum(rows(row0), axis=0))
    rl.atomic_add(total, acc, [0], bounds=[N])
    old = rl.program_atomic("add", count, 0, 1)
    last = old == g - 1
    done = rl.load(acc, [0], shape=[BN], bounds=[N], mask=last,
                   layout=total.layout)
    rl.store(done, out, [0], bounds=[N], mask=last)
    # Every wave holds a copy of the columns: all of them have read acc
    # before any clears it.
    rl.barrier()
    rl.store(done - done, acc, [0], bounds=[N], mask=last)
    # Back to 0: the last program takes away the G arrivals.
    rl.program_atomic("add", count, 0, last.to("i32") * (0 - g))


def run_sums(device, x, bm, bn, programs):
    m, n = x.shape
    acc = np.zeros(bn, x.dtype)
    count = np.zeros(1, np.int32)
    out = (np.full(bn, np.nan, np.float32) if x.dtype == np.float32 else
           np.full(bn, -12345, np.int32))
    grid = (programs,)
    if device == "host":
        column_sums[grid](x, acc, count, out, m, n, BM=bm, BN=bn)
        return out[:n], acc, count
    dx = rocdsl.device_array(x, device)
    dacc = rocdsl.device_array(acc, device)
    dcount = rocdsl.device_array(count, device)
    dout = rocdsl.device_array(out, device)
    column_sums[grid](dx, dacc, dcount, dout, m, n, BM=bm, BN=bn)
    return dout.to_host()[:n], dacc.to_host(), dcount.to_host()


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"seed {seed}")
    return np.random.default_rng(seed)


# (M, N, BM, BN, programs): one program, more programs than row tiles
# (some add zeros), ragged M and N, and a column tile smaller than the
# layout's repetition (copies within a wave, too).
CASES = [(7, 64, 8, 64, 1), (100, 96, 8, 128, 9), (257, 33, 16, 64, 5),
         (64, 16, 4, 16, 16), (1000, 200, 8, 256, 24)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("m,n,bm,bn,programs", CASES)
def test_column_sums_match_float64(device, m, n, bm, bn, programs, rng):
    x = rng.standard_normal((m, n)).astype(np.float32)
    out, acc, count = run_sums(device, x, bm, bn, programs)
    ref = x.astype(np.float64).sum(axis=0)
    tol = 1e-6 * np.abs(x).astype(np.float64).sum(axis=0) + 1e-6
    assert np.isfinite(out).all()
    bad = np.abs(out - ref) > tol
    # A copy added twice would double a column; a lost update would drop
    # a program's share.
    assert not bad.any(), (f"{bad.sum()} of {n} columns off; worst "
                           f"{np.abs(out - ref).max()}")
    assert (acc == 0).all(), "the last program leaves the sums zero"
    assert count[0] == 0, "the last program leaves the count 0"


@pytest.mark.parametrize("device", DEVICES)
def test_second_launch_reuses_scratch(device, rng):
    m, n, bm, bn, programs = 300, 80, 8, 128, 12
    acc = np.zeros(bn, np.float32)
    count = np.zeros(1, np.int32)
    bufs = ((acc, count) if device == "host" else
            (rocdsl.device_array(acc, device),
             rocdsl.device_array(count, device)))
    for _ in range(2):
        x = rng.standard_normal((m, n)).astype(np.float32)
        out = np.full(bn, np.nan, np.float32)
        if device == "host":
            column_sums[(programs,)](x, *bufs, out, m, n, BM=bm, BN=bn)
        else:
            dout = rocdsl.device_array(out, device)
            column_sums[(programs,)](rocdsl.device_array(x, device), *bufs,
                                     dout, m, n, BM=bm, BN=bn)
            out = dout.to_host()
        ref = x.astype(np.float64).sum(axis=0)
        np.testing.assert_allclose(out[:n], ref, rtol=0, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_integer_sums_are_exact(device, rng):
    m, n = 513, 100
    x = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
    out, acc, count = run_sums(device, x, 8, 128, 7)
    np.testing.assert_array_equal(out, x.astype(np.int64).sum(axis=0))
    assert (acc == 0).all() and count[0] == 0


@rocdsl.kernel(num_warps=2)
def bad_dtype(x: rl.ptr("bf16")):
    rl.atomic_add(rl.zeros([64], dtype="bf16"), x, [0])


@rocdsl.kernel(num_warps=2)
def bad_kind(c: rl.ptr("i32")):
    rl.program_atomic("sub", c, 0, 1)


@rocdsl.kernel(num_warps=2)
def bad_counter(c: rl.ptr("f32")):
    rl.program_atomic("add", c, 0, 1)


@pytest.mark.parametrize("kernel,args,message", [
    (bad_dtype, [(np.zeros(64, np.uint16), "bf16")], "f32 or i32"),
    (bad_kind, [np.zeros(1, np.int32)], "must be one of add, xchg, max"),
    (bad_counter, [np.zeros(1, np.float32)], "updates an i32"),
])
def test_errors(kernel, args, message):
    with pytest.raises(Exception, match=message):
        kernel[(1,)](*args)
