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
from atomic_kernels import (CASES, column_sums, run_sums,  # noqa: E402
                            transposed_sums)

DEVICES = ["host", "hip", "hip:1"]


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"seed {seed}")
    return np.random.default_rng(seed)


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
@pytest.mark.parametrize("m,n,programs", [(13, 7, 5), (32, 64, 3), (1, 33, 2)])
def test_every_stride_given_adds_transposed(device, m, n, programs, rng):
    x = rng.standard_normal((m, n)).astype(np.float32)
    acc = np.full(n * m + 8, 0, np.float32)
    acc[n * m:] = 7.0  # past the transposed tile: must stay untouched
    args = (x, acc)
    if device != "host":
        args = tuple(rocdsl.device_array(a, device) for a in args)
    transposed_sums[(programs,)](*args, m, n, BM=32, BN=64)
    if device != "host":
        acc = args[1].to_host()
    ref = programs * x.astype(np.float64).T.reshape(-1)
    assert np.allclose(acc[:n * m], ref, rtol=1e-6, atol=1e-5), (
        f"worst {np.abs(acc[:n * m] - ref).max()}")
    assert (acc[n * m:] == 7.0).all()


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
