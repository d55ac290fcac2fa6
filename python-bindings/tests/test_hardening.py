"""The Python entry points keep the runtime's rules: one rule per value
(eps, 32-bit indexing, overlapping outputs), non-finite detection, and
launches from many threads at once. Host device, no GPU needed."""
import os
import threading

import numpy as np
import pytest

import rocdsl
import dsl_kernels as K


def _inputs(m, n, dtype=np.float32):
    rng = np.random.default_rng()
    return (rng.standard_normal((m, n)).astype(dtype),
            rng.standard_normal(n).astype(dtype))


@pytest.mark.parametrize("eps", [-1.0, float("nan"), float("inf")])
def test_bad_eps_is_refused_at_every_entry(eps):
    x, w = _inputs(4, 256)
    # As a definition (rocdsl.rms_norm passes both) ...
    with pytest.raises(ValueError, match="finite, non-negative"):
        rocdsl.rms_norm(x, w, eps)
    # ... and as the launch argument alone, under a valid definition.
    y = np.full_like(x, np.nan)
    with pytest.raises(ValueError, match="argument 'eps'.*finite, non-negative"):
        rocdsl.run("rmsnorm_fwd", ["N=256", "M=4", "dtype=f32"],
                   [x, w, y, 4, eps])
    assert np.isnan(y).all()  # nothing ran


def test_tensors_beyond_32_bit_indexing_are_refused():
    # 32-bit byte offsets: bf16 [262144, 4096] is 2^31 bytes, one row fewer
    # fits; f32 reaches the limit at half the rows.
    with pytest.raises(ValueError, match="2147483648 bytes, beyond 32-bit "
                                         "indexing"):
        rocdsl.plan("rmsnorm_fwd", ["N=4096", "M=262144"])
    assert rocdsl.plan("rmsnorm_fwd", ["N=4096", "M=262143"])
    with pytest.raises(ValueError, match="beyond 32-bit indexing"):
        rocdsl.plan("rmsnorm_bwd", ["N=4096", "M=131072", "dtype=f32"])
    assert rocdsl.plan("rmsnorm_bwd", ["N=4096", "M=131071", "dtype=f32"])


def test_partially_overlapping_output_is_refused():
    pool = np.random.default_rng().standard_normal(8 * 256).astype(np.float32)
    x = pool[:4 * 256].reshape(4, 256)
    y = pool[256:5 * 256].reshape(4, 256)  # one row into x
    w = np.ones(256, dtype=np.float32)
    with pytest.raises(ValueError, match="argument 'y' overlaps argument 'x'"):
        rocdsl.run("rmsnorm_fwd", ["N=256", "M=4", "dtype=f32"],
                   [x, w, y, 4, 1e-6])


def test_in_place_forward_is_allowed_and_correct():
    x, w = _inputs(5, 3001)
    x64 = x.astype(np.float64)
    ref = x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + 1e-6) * w
    rocdsl.run("rmsnorm_fwd", ["N=3001", "M=5", "dtype=f32"],
               [x, w, x, 5, 1e-6])
    np.testing.assert_allclose(x, ref, rtol=1e-5, atol=1e-5)


def test_check_finite_names_kernel_output_and_element():
    x, w = _inputs(3, 128)
    x[2, 17] = np.inf  # row 2 normalizes to 0 except inf * 0 = nan there
    y = np.full_like(x, -1.0)
    defs = ["N=128", "M=3", "dtype=f32"]
    rocdsl.run("rmsnorm_fwd", defs, [x, w, y, 3, 1e-6])  # off: silent
    assert np.isnan(y[2, 17])
    with pytest.raises(ValueError,
                       match=r"rmsnorm_fwd wrote nan to 'y' at element 273 "
                             r"of 384"):
        rocdsl.run("rmsnorm_fwd", defs, [x, w, y, 3, 1e-6], check_finite=True)
    os.environ["ROCDSL_CHECK_FINITE"] = "1"
    try:
        with pytest.raises(ValueError, match="non-finite output"):
            rocdsl.run("rmsnorm_fwd", defs, [x, w, y, 3, 1e-6])
        # The per-call option wins over the environment.
        rocdsl.run("rmsnorm_fwd", defs, [x, w, y, 3, 1e-6], check_finite=False)
    finally:
        del os.environ["ROCDSL_CHECK_FINITE"]


def test_check_finite_on_a_python_kernel():
    m, n = 4, 256
    x = np.random.default_rng().standard_normal((m, n)).astype(np.float32)
    y = np.full_like(x, np.nan)
    K.softmax[(m,)](x, y, m, N=n, check_finite=True)  # all finite: passes
    np.testing.assert_allclose(y.sum(axis=1), np.ones(m), rtol=1e-5)
    x[1, :] = np.inf  # inf - inf = nan in that row
    with pytest.raises(ValueError, match="non-finite output.*softmax"):
        K.softmax[(m,)](x, y, m, N=n, check_finite=True)


def test_many_python_threads_launch_at_once():
    errors = []
    shapes = [(3, 128), (5, 1000), (2, 4096), (7, 256)]

    def worker(i):
        try:
            for j in range(4):
                m, n = shapes[(i + j) % len(shapes)]
                x, w = _inputs(m, n)
                y = rocdsl.rms_norm(x, w, 1e-6)
                x64 = x.astype(np.float64)
                ref = (x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True)
                                     + 1e-6) * w)
                np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
                xs = np.random.default_rng(i).standard_normal(
                    (m, 256)).astype(np.float32)
                ys = np.full_like(xs, np.nan)
                K.softmax[(m,)](xs, ys, m, N=256)
                np.testing.assert_allclose(ys.sum(axis=1), np.ones(m),
                                           rtol=1e-5)
        except Exception as e:  # reported below, with the thread
            errors.append(f"thread {i}: {e!r}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, "\n".join(errors)
