"""The built-in attention_fwd through the Python API (rocdsl.builtin and
DeviceArrays, as benchmarks/attention_benchmark.py calls it) on the host
and on emulated gfx942 and gfx950 (librocdsl-hip-emu.so: hip = gfx942,
hip:1 = gfx950), against a NumPy float64 attention written here, apart
from the kernel's own C++ reference: masks, grouped heads, unequal head
dimensions, rows that see no key, and the launch errors a caller meets."""
import numpy as np
import pytest

from hip_emulated import use_emulated_hip

use_emulated_hip(["gfx942", "gfx950"])

import rocdsl  # noqa: E402
from attention_reference import attention64  # noqa: E402
from norm_reference import from_bf16, to_bf16  # noqa: E402


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"seed {seed}")
    return np.random.default_rng(seed)


CASES = [
    # B, Hq, Hkv, Sq, Sk, D, Dv, dtype, causal, align, left, right, scale
    (1, 2, 1, 17, 129, 64, 64, "bf16", 1, "bottom_right", -1, -1, 0.0),
    (2, 4, 4, 40, 40, 32, 32, "f16", 0, "top_left", 5, 3, -0.3),
    (1, 4, 2, 70, 30, 64, 32, "bf16", 1, "bottom_right", -1, -1, 0.2),
]


@pytest.mark.parametrize("device", ["host", "hip", "hip:1"])
@pytest.mark.parametrize("case", CASES)
def test_attention_matches_float64(rng, device, case):
    b, hq, hkv, sq, sk, d, dv, dtype, causal, align, left, right, scale = case
    shapes = {"q": (b, hq, sq, d), "k": (b, hkv, sk, d), "v": (b, hkv, sk, dv)}
    inputs, exact = {}, {}
    for name, shape in shapes.items():
        x = rng.standard_normal(shape).astype(np.float32)
        if dtype == "bf16":
            inputs[name] = to_bf16(x)
            exact[name] = from_bf16(inputs[name]).astype(np.float64)
        else:
            inputs[name] = x.astype(np.float16)
            exact[name] = inputs[name].astype(np.float64)
    defs = [f"B={b}", f"Hq={hq}", f"Hkv={hkv}", f"Sq={sq}", f"Sk={sk}",
            f"D={d}", f"Dv={dv}", f"dtype={dtype}", f"causal={causal}",
            f"align={align}", f"window_left={left}", f"window_right={right}"]
    kernel = rocdsl.builtin("attention_fwd", defs, device)
    arrays = [rocdsl.device_array(inputs[n], device, dtype) for n in "qkv"]
    poison = np.full((b, hq, sq, dv), np.nan, np.float32)
    out = rocdsl.device_array(
        to_bf16(poison) if dtype == "bf16" else poison.astype(np.float16),
        device, dtype)
    lse = rocdsl.device_array(np.full((b, hq, sq), np.nan, np.float32), device)
    kernel.launch([(a.data_ptr(), dtype, a.shape) for a in arrays] +
                  [(out.data_ptr(), dtype, out.shape),
                   (lse.data_ptr(), "f32", lse.shape), scale])
    got = out.to_host()
    got = from_bf16(got) if dtype == "bf16" else got.astype(np.float32)
    ref, ref_lse = attention64(exact["q"], exact["k"], exact["v"],
                               scale or 1 / np.sqrt(d), causal,
                               align == "bottom_right", left, right)
    # Output rounding plus that of P (a weighted mean of |v|).
    tol = {"bf16": 1e-2, "f16": 2e-3}[dtype]
    assert np.all(np.isfinite(got))
    assert np.max(np.abs(got - ref) - tol * (1 + np.abs(ref))) <= 0
    got_lse = lse.to_host()
    empty = np.isinf(ref_lse)
    assert np.array_equal(np.isinf(got_lse), empty)
    assert np.all(got_lse[empty] > 0)
    assert np.allclose(got_lse[~empty], ref_lse[~empty], rtol=1e-5, atol=1e-4)
    if causal and align == "bottom_right" and sq > sk:
        assert empty.any()  # the case exercises rows that see no key
        assert np.all(got[:, :, :sq - sk] == 0)


def test_attention_launch_errors_name_the_argument():
    kernel = rocdsl.builtin("attention_fwd", ["Sq=16", "D=32"], "host")
    q = np.zeros((1, 1, 16, 32), np.float16)
    lse = (np.zeros((1, 1, 16), np.float32), "f32")
    with pytest.raises(ValueError,
                       match="argument 'q': expected dtype bf16, got f16"):
        kernel.launch([(q, "f16"), (q, "bf16"), (q, "bf16"), (q, "bf16"),
                       lse, 0.0])
    with pytest.raises(ValueError, match="argument 'scale': got inf, which "
                       r"is not finite \(a scale of 0 selects"):
        kernel.launch([(q, "bf16")] * 4 + [lse, float("inf")])
    with pytest.raises(ValueError, match="Hq=6 is not a multiple of Hkv=4"):
        rocdsl.builtin("attention_fwd", ["Hq=6", "Hkv=4"], "host")


def test_a_dimension_of_one_element_may_have_any_stride(rng):
    # NumPy and torch call k contiguous: its batch dimension has one
    # element, so the stride it kept from q (8 heads) is never used.
    q = rng.standard_normal((1, 8, 48, 32)).astype(np.float16)
    k = np.ascontiguousarray(q[:, :2])
    assert k.flags.c_contiguous and k.strides[0] == q.strides[0]
    out = np.full_like(q, np.nan)
    lse = np.full((1, 8, 48), np.nan, np.float32)
    rocdsl.run("attention_fwd", ["Hq=8", "Hkv=2", "Sq=48", "D=32",
                                 "dtype=f16", "causal=1"],
               [q, k, k, out, lse, 0.0])
    q64, k64 = q.astype(np.float64), k.astype(np.float64)
    ref, ref_lse = attention64(q64, k64, k64, 1 / np.sqrt(32), True, False,
                               -1, -1)
    assert np.max(np.abs(out - ref) - 2e-3 * (1 + np.abs(ref))) <= 0
    assert np.allclose(lse, ref_lse, rtol=1e-5, atol=1e-4)
    # A stride that matters is still refused.
    with pytest.raises(ValueError, match="argument 'k': expected contiguous"):
        rocdsl.run("attention_fwd", ["Hq=8", "Hkv=2", "Sq=48", "D=32",
                                     "dtype=f16"],
                   [q, q[:, ::4], k, out, lse, 0.0])
