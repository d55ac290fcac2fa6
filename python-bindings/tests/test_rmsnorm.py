"""The Python surface of the runtime, on the host device (no GPU needed)."""
import numpy as np
import pytest

import rocdsl


def reference(x, w, eps):
    x64 = x.astype(np.float64)
    inv = 1.0 / np.sqrt((x64 * x64).mean(axis=-1, keepdims=True) + eps)
    return x64 * inv * w.astype(np.float64)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float16, 2e-3)])
@pytest.mark.parametrize("m,n", [(1, 128), (7, 3001), (33, 4096)])
def test_rms_norm_matches_float64(dtype, tol, m, n):
    rng = np.random.default_rng()
    x = rng.standard_normal((m, n)).astype(dtype)
    w = rng.standard_normal(n).astype(dtype)
    y = rocdsl.rms_norm(x, w, 1e-5)
    ref = reference(x, w, 1e-5)
    assert np.isfinite(y).all()
    np.testing.assert_allclose(y.astype(np.float64), ref, rtol=tol, atol=tol)


def test_second_call_reuses_the_launcher():
    x = np.random.default_rng().standard_normal((4, 256)).astype(np.float32)
    w = np.ones(256, dtype=np.float32)
    y = np.full_like(x, np.nan)
    defs = ["N=256", "M=4", "dtype=f32"]
    first = rocdsl.run("rmsnorm_fwd", defs, [x, w, y, 4, 1e-6])
    second = rocdsl.run("rmsnorm_fwd", defs, [x, w, y, 4, 1e-6])
    assert second["tier"] == "memory"
    assert second["launcher"] == first["launcher"]
    assert np.isfinite(y).all()


def test_bad_arguments_name_the_argument():
    x = np.zeros((4, 256), dtype=np.float16)
    w = np.ones(256, dtype=np.float32)
    y = np.empty((4, 256), dtype=np.float32)
    with pytest.raises(ValueError, match="argument 'x': expected dtype f32, got f16"):
        rocdsl.run("rmsnorm_fwd", ["N=256", "M=4", "dtype=f32"],
                   [x, w, y, 4, 1e-6])
    strided = np.ones((4, 512), dtype=np.float32)[:, ::2]
    with pytest.raises(ValueError, match="argument 'x': expected contiguous strides"):
        rocdsl.run("rmsnorm_fwd", ["N=256", "M=4", "dtype=f32"],
                   [strided, w, y, 4, 1e-6])
    with pytest.raises(ValueError, match=r"unknown kernel 'nope' \(kernels: "
                                         r"rmsnorm_fwd, .*gemm"):
        rocdsl.run("nope", [], [])


def test_bf16_travels_as_uint16():
    rng = np.random.default_rng()
    x32 = rng.standard_normal((3, 512)).astype(np.float32)
    w32 = rng.standard_normal(512).astype(np.float32)
    to_bf16 = lambda a: (a.view(np.uint32) >> 16).astype(np.uint16)
    x, w = to_bf16(x32), to_bf16(w32)
    y = np.zeros_like(x)
    rocdsl.run("rmsnorm_fwd", ["N=512", "M=3", "dtype=bf16"],
               [(x, "bf16"), (w, "bf16"), (y, "bf16"), 3, 1e-6])
    got = (y.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    xb = (x.astype(np.uint32) << 16).view(np.float32)
    wb = (w.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_allclose(got, reference(xb, wb, 1e-6), rtol=1e-2, atol=1e-2)


def test_list_kernels():
    names = [k["name"] for k in rocdsl.list_kernels()]
    assert names[0] == "rmsnorm_fwd" and "rmsnorm_bwd" in names
    args = rocdsl.plan("rmsnorm_fwd", ["N=128", "M=2"])
    assert args[0] == ("x", "bf16", [2, 128], False)
