"""rocdsl.torch.matmul on the GPU: forward against float64 (ragged shapes,
batched, Linear-style 3-D x 2-D, bias), gradients against float64
autograd, torch.compile keeping it as one node, and the input errors.
Skipped without PyTorch or a GPU."""
import pytest

from gpu_support import fresh_generator, randn, require_cuda, torch

import rocdsl.torch as rt


def bound(a64, b64, k):
    """Rounding of the output dtype plus the f32 accumulation's (grows
    with sqrt(K)), per element."""
    return lambda ref, dtype: ((1.6e-2 if dtype == torch.bfloat16 else
                                2e-3) * ref.abs() +
                               2e-6 * k ** 0.5 * (a64.abs() @ b64.abs()) +
                               1e-3)


def assert_product(c, ref, tol):
    err = (c.to(torch.float64) - ref).abs()
    assert bool(torch.isfinite(c).all())
    bad = int((err > tol).sum())
    assert bad == 0, f"{bad} of {err.numel()} off, max {float(err.max()):.3e}"


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16] if torch
                         else [])
@pytest.mark.parametrize("shape_a,shape_b", [
    ((1000, 300), (300, 777)), ((1, 17), (17, 255)), ((129, 64), (64, 1)),
    ((3, 70, 50), (3, 50, 90)),      # batched
    ((4, 33, 64), (64, 48)),         # Linear: every row times one b
])
@pytest.mark.parametrize("with_bias", [False, True])
def test_forward(dtype, shape_a, shape_b, with_bias):
    require_cuda()
    gen = fresh_generator()
    a, b = randn(shape_a, dtype, gen), randn(shape_b, dtype, gen)
    bias = randn((shape_b[-1],), dtype, gen) if with_bias else None
    c = rt.matmul(a, b, bias=bias)
    assert c.shape == shape_a[:-1] + shape_b[-1:] and c.dtype == dtype
    a64, b64 = a.to(torch.float64), b.to(torch.float64)
    ref = a64 @ b64 + (bias.to(torch.float64) if with_bias else 0)
    assert_product(c, ref, bound(a64, b64, shape_a[-1])(ref, dtype))


@pytest.mark.parametrize("shape_a,shape_b", [((70, 50), (50, 90)),
                                             ((2, 33, 64), (2, 64, 17)),
                                             ((3, 20, 40), (40, 24))])
def test_gradients_against_float64(shape_a, shape_b):
    require_cuda()
    gen = fresh_generator()
    dtype = torch.bfloat16
    a = randn(shape_a, dtype, gen).requires_grad_()
    b = randn(shape_b, dtype, gen).requires_grad_()
    bias = randn((shape_b[-1],), dtype, gen).requires_grad_()
    dc = randn(shape_a[:-1] + shape_b[-1:], dtype, gen)
    rt.matmul(a, b, bias=bias).backward(dc)
    a64, b64, bias64 = (t.detach().to(torch.float64).requires_grad_()
                        for t in (a, b, bias))
    (a64 @ b64 + bias64).backward(dc.to(torch.float64))
    dc64 = dc.to(torch.float64)
    n, k = shape_b[-1], shape_a[-1]
    # dA = dC B^T sums N terms, dB = A^T dC sums M (times the batch).
    tol_a = 1.6e-2 * a64.grad.abs() + 2e-6 * n ** 0.5 * (
        dc64.abs() @ b64.detach().abs().transpose(-1, -2)) + 1e-3
    assert_product(a.grad, a64.grad, tol_a)
    rows = dc64.reshape(-1, n).shape[0] if b.dim() == 2 else shape_a[-2]
    if b.dim() == 2:
        mag_b = a64.detach().abs().reshape(-1, k).T @ dc64.abs().reshape(-1, n)
    else:
        mag_b = a64.detach().abs().transpose(-1, -2) @ dc64.abs()
    tol_b = 1.6e-2 * b64.grad.abs() + 2e-6 * rows ** 0.5 * mag_b + 1e-2
    assert_product(b.grad, b64.grad, tol_b)
    terms = dc64.reshape(-1, n).shape[0]
    assert_product(bias.grad, bias64.grad,
                   1.6e-2 * bias64.grad.abs() + 1e-3 * terms ** 0.5)


def test_torch_compile_keeps_one_node():
    require_cuda()
    gen = fresh_generator()
    a = randn((256, 128), torch.bfloat16, gen)
    b = randn((128, 64), torch.bfloat16, gen)

    def f(x, y):
        return torch.relu(rt.matmul(x, y)) * 2

    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(a, b), f(a, b))


def test_errors():
    require_cuda()
    gen = fresh_generator()
    a = randn((64, 32), torch.bfloat16, gen)
    b = randn((32, 16), torch.bfloat16, gen)
    with pytest.raises(ValueError, match="unsupported dtype torch.float32"):
        rt.matmul(a.float(), b.float())
    with pytest.raises(ValueError, match="inner dimensions differ"):
        rt.matmul(a, b[:16].contiguous())
    with pytest.raises(ValueError, match="share one dtype"):
        rt.matmul(a, b.half())
    with pytest.raises(ValueError, match="must be contiguous"):
        rt.matmul(a.T, a)
    with pytest.raises(ValueError, match="expected a GPU tensor"):
        rt.matmul(a.cpu(), b.cpu())
    with pytest.raises(ValueError, match="bias: expected shape"):
        rt.matmul(a, b, bias=b[0, :8].contiguous())
