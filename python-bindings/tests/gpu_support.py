"""Shared helpers of the GPU tests: skips, float64 references, poisoning."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")

from rocdsl import _rocdsl  # noqa: E402


def require_cuda():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU visible to PyTorch")
    ok, why = _rocdsl.device_available("cuda")
    if not ok:
        pytest.skip(f"ROCDSL cannot use the GPU: {why}")


TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16,
                "bf16": torch.bfloat16}
# Output rounding of each dtype, as (rtol, atol) against float64.
TOLERANCE = {torch.float32: (1e-4, 1e-5), torch.float16: (2e-3, 2e-3),
             torch.bfloat16: (1.6e-2, 1.6e-2)}


def fresh_generator():
    seed = int(np.random.default_rng().integers(1 << 62))
    print(f"seed {seed}")
    return torch.Generator(device="cuda").manual_seed(seed)


def randn(shape, dtype, gen):
    return torch.randn(shape, generator=gen, device="cuda",
                       dtype=torch.float32).to(dtype)


def poison_allocator(nbytes):
    """Leaves NaN bytes in the caching allocator's next blocks, so outputs a
    kernel fails to write show up as non-finite."""
    blocks = [torch.full((max(1, nbytes // 4),), float("nan"), device="cuda")
              for _ in range(4)]
    del blocks


def assert_close(name, got, ref, dtype, scale=None):
    """|got - ref| <= atol * scale + rtol * |ref|, every element finite."""
    rtol, atol = TOLERANCE[dtype]
    got64 = got.to(torch.float64)
    finite = torch.isfinite(got64)
    assert bool(finite.all()), f"{name}: {int((~finite).sum())} non-finite"
    bound = atol * (scale if scale is not None else 1.0) + rtol * ref.abs()
    err = (got64 - ref).abs()
    bad = int((err > bound).sum())
    assert bad == 0, (f"{name}: {bad} of {err.numel()} elements off, max abs "
                      f"err {float(err.max()):.3e}")


def rms_norm_reference(x, w, eps):
    x64, w64 = x.to(torch.float64), w.to(torch.float64)
    rstd = torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + eps)
    return x64 * rstd * w64, rstd


def rms_norm_grad_reference(dy, x, w, eps):
    """dx and dw of y = x * rstd * w in float64, and the magnitude of dw's
    summands (its fp32 sum's error grows with it)."""
    x64, w64, dy64 = (t.to(torch.float64) for t in (x, w, dy))
    n = x.shape[-1]
    rstd = torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + eps)
    xhat = x64 * rstd
    wdy = w64 * dy64
    c = (xhat * wdy).sum(-1, keepdim=True) / n
    dx = (wdy - xhat * c) * rstd
    terms = dy64 * xhat
    return dx, terms.reshape(-1, n).sum(0), terms.abs().reshape(-1, n).sum(0)
