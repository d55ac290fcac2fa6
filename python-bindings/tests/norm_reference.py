"""Float64 NumPy references of the RMSNorm family, and bf16 helpers, for
tests that run the built-in kernels on devices without PyTorch."""
import numpy as np


def to_bf16(a):
    """float -> bf16 bits (round to nearest even), as uint16."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


HOST = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}
# Output rounding of each dtype: |got - ref| <= atol * scale + rtol * |ref|.
TOLERANCE = {"f32": (1e-4, 1e-5), "f16": (2e-3, 2e-3), "bf16": (1.6e-2, 1.6e-2)}


def random(shape, dtype, rng, scale=1.0):
    """Random host data of `dtype` (bf16 as bits) and its float64 value."""
    x = rng.standard_normal(shape).astype(np.float32) * scale
    if dtype == "bf16":
        bits = to_bf16(x)
        return bits, from_bf16(bits)
    a = x.astype(HOST[dtype])
    return a, a.astype(np.float64)


def poison(shape, dtype):
    """NaN in `dtype`: outputs a kernel fails to write stay non-finite."""
    if dtype == "bf16":
        return np.full(shape, 0x7FC0, np.uint16)
    return np.full(shape, np.nan, HOST[dtype])


def widen(a, dtype):
    return from_bf16(a) if dtype == "bf16" else a.astype(np.float64)


def round_to(x64, dtype):
    """float64 values rounded to `dtype` (as the kernels store h)."""
    if dtype == "bf16":
        return from_bf16(to_bf16(x64.astype(np.float32)))
    return x64.astype(HOST[dtype]).astype(np.float64)


def rstd(x64, eps):
    return 1.0 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + eps)


def forward(x64, w64, eps):
    return x64 * rstd(x64, eps) * w64


def backward(dy64, x64, w64, eps):
    """dx, dw (sum over rows) and the magnitude of dw's summands."""
    r = rstd(x64, eps)
    xhat = x64 * r
    wdy = w64 * dy64
    c = (xhat * wdy).mean(-1, keepdims=True)
    terms = dy64 * xhat
    return (wdy - xhat * c) * r, terms.sum(0), np.abs(terms).sum(0)


def assert_close(name, got64, ref, dtype, scale=None):
    rtol, atol = TOLERANCE[dtype]
    assert np.isfinite(got64).all(), (
        f"{name}: {int((~np.isfinite(got64)).sum())} non-finite")
    bound = atol * (1.0 if scale is None else scale) + rtol * np.abs(ref)
    err = np.abs(got64 - ref)
    bad = int((err > bound).sum())
    assert bad == 0, (f"{name}: {bad} of {err.size} off, max abs err "
                      f"{float(err.max()):.3e}")
