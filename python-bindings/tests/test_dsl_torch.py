"""Python-DSL kernels on torch tensors: CUDA tensors launch on the cuda
device (on torch's current stream) and are checked against float64; CPU
tensors run on the host. Skipped without PyTorch, the CUDA tests without a
GPU."""
import numpy as np
import pytest

from gpu_support import (TORCH_DTYPES, assert_close, fresh_generator,
                         poison_allocator, randn, require_cuda, torch)

import rocdsl
import dsl_kernels as K
from test_dsl_trace import line_of


def softmax64(x):
    return torch.softmax(x.to(torch.float64), dim=-1)


def swiglu64(a, b):
    a64 = a.to(torch.float64)
    return a64 / (1 + torch.exp(-a64)) * b.to(torch.float64)


def test_cpu_tensors_run_on_the_host():
    x = torch.randn(3, 256)
    y = torch.full_like(x, float("nan"))
    spec = K.softmax[(3,)](x, y, 3, N=256)
    assert spec.device == "host"
    np.testing.assert_allclose(y.double().numpy(), softmax64(x).numpy(),
                               rtol=2e-5, atol=1e-7)


@pytest.mark.parametrize("m,n", [(1, 1024), (300, 1024)])
def test_softmax_cuda(m, n):
    require_cuda()
    x = randn((m, n), torch.float32, fresh_generator()) * 4
    poison_allocator(x.numel() * 4)
    y = torch.empty_like(x)
    spec = K.softmax[(m,)](x, y, m, N=n)
    torch.cuda.synchronize()
    assert spec.device == "cuda"
    assert_close("y", y, softmax64(x), torch.float32)


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("m,n,rows,block", [(513, 1000, 4, 1024),
                                            (7, 37, 2, 64)])
def test_softmax_masked_cuda(dtype, m, n, rows, block):
    require_cuda()
    t = TORCH_DTYPES[dtype]
    x = randn((m, n), t, fresh_generator()) * 3
    poison_allocator(x.numel() * x.element_size())
    y = torch.empty_like(x)
    K.softmax_masked[((m + rows - 1) // rows,)](x, y, m, n, ROWS=rows,
                                                 BLOCK=block)
    torch.cuda.synchronize()
    assert_close("y", y, softmax64(x), t)


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("n,block", [(1000, 256), (1 << 20, 1024)])
def test_swiglu_cuda(dtype, n, block):
    require_cuda()
    t = TORCH_DTYPES[dtype]
    gen = fresh_generator()
    a, b = randn((n,), t, gen) * 3, randn((n,), t, gen)
    poison_allocator(n * a.element_size())
    out = torch.empty_like(a)
    K.swiglu[((n + block - 1) // block,)](a, b, out, n, BLOCK=block)
    torch.cuda.synchronize()
    assert_close("out", out, swiglu64(a, b), t)


def test_kernels_run_on_every_device_index():
    """Tensors on cuda:N launch there (spec.device "cuda:N"), on that
    device's current stream, without changing the caller's device."""
    require_cuda()
    current = torch.cuda.current_device()
    n, block = 5000, 256
    specs = {}
    for index in range(torch.cuda.device_count()):
        device = torch.device("cuda", index)
        gen = torch.Generator(device=device).manual_seed(99 + index)
        a = torch.randn((n,), generator=gen, device=device) * 3
        b = torch.randn((n,), generator=gen, device=device)
        out = torch.full_like(a, float("nan"))
        spec = K.swiglu[((n + block - 1) // block,)](a, b, out, n,
                                                     BLOCK=block)
        torch.cuda.synchronize(device)
        assert spec.device == ("cuda" if index == 0 else f"cuda:{index}")
        assert_close(f"out on {device}", out, swiglu64(a, b), torch.float32)
        assert torch.cuda.current_device() == current
        specs[index] = spec.launcher_id
    assert len(set(specs.values())) == len(specs)


def test_swiglu_rows_on_a_side_stream():
    require_cuda()
    m, n = 64, 4096
    gen = fresh_generator()
    a, b = randn((m, n), torch.float32, gen), randn((m, n), torch.float32, gen)
    out = torch.full_like(a, float("nan"))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        K.swiglu_rows[(m, n // 1024)](a, b, out, m, n, BLOCK=1024, VEC=4)
    side.synchronize()
    assert_close("out", out, swiglu64(a, b), torch.float32)


def test_loop_carried_row_sum_cuda():
    require_cuda()
    m, n = 100, 5000
    x = randn((m, n), torch.float32, fresh_generator())
    y = torch.full((m,), float("nan"), device="cuda")
    K.row_sum[(m,)](x, y, m, n, BLOCK=512)
    torch.cuda.synchronize()
    ref = x.to(torch.float64).sum(-1)
    assert_close("y", y, ref, torch.float32, scale=float(n) ** 0.5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16]
                         if torch else [])
@pytest.mark.parametrize("m,n,k,bm,bn,bk", [(64, 64, 64, 32, 32, 16),
                                            (70, 50, 90, 32, 64, 16),
                                            (1, 17, 255, 64, 64, 32),
                                            (257, 129, 33, 64, 64, 32)])
def test_dot_on_cuda_runs_on_mma_sync(dtype, m, n, k, bm, bn, bk):
    """rl.dot on NVIDIA tensor cores (mma.sync.aligned.m16n8k16) against
    float64, ragged M/N/K masked by the loads' bounds."""
    require_cuda()
    gen = fresh_generator()
    a, b = randn((m, k), dtype, gen), randn((k, n), dtype, gen)
    c = torch.full((m, n), float("nan"), device="cuda")
    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    K.matmul[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk)
    torch.cuda.synchronize()
    a64, b64 = a.to(torch.float64), b.to(torch.float64)
    ref = a64 @ b64
    # Exact products, f32 sums: the error grows like sqrt(K).
    bound = 2e-6 * k ** 0.5 * (a64.abs() @ b64.abs()) + 1e-6
    err = (c.to(torch.float64) - ref).abs()
    assert bool(torch.isfinite(c).all())
    assert int((err > bound).sum()) == 0, float(err.max())


def test_argument_errors():
    require_cuda()
    x = torch.zeros((4, 512), device="cuda")
    y = torch.zeros((4, 256), device="cuda")
    with pytest.raises(ValueError, match="argument 'x': expected a "
                                         "contiguous tensor"):
        K.softmax[(4,)](x[:, ::2], y, 4, N=256)
    with pytest.raises(ValueError, match="different devices"):
        K.softmax[(4,)](np.zeros((4, 256), np.float32), y, 4, N=256)
    with pytest.raises(ValueError, match="argument 'x': host memory cannot "
                                         "be used by a launch on device "
                                         "'cuda'"):
        K.softmax[(4,)](np.zeros((4, 256), np.float32),
                        np.zeros((4, 256), np.float32), 4, N=256,
                        device="cuda")


@pytest.mark.parametrize("m,n,k", [(70, 50, 90), (1, 33, 17), (300, 129, 64)])
def test_column_major_a_through_trans_on_cuda(m, n, k):
    """rl.dot(a.T, b) with a stored K x M: the transpose in registers or
    through shared memory, then mma.sync."""
    require_cuda()
    gen = fresh_generator()
    at = randn((k, m), torch.bfloat16, gen)
    b = randn((k, n), torch.bfloat16, gen)
    c = torch.full((m, n), float("nan"), device="cuda")
    K.gemm_at[((m + 63) // 64, (n + 63) // 64)](at, b, c, m, n, k, BM=64,
                                                 BN=64, BK=32)
    torch.cuda.synchronize()
    a64, b64 = at.to(torch.float64).T, b.to(torch.float64)
    ref = a64 @ b64
    bound = 2e-6 * k ** 0.5 * (a64.abs() @ b64.abs()) + 1e-6
    err = (c.to(torch.float64) - ref).abs()
    assert bool(torch.isfinite(c).all())
    assert int((err > bound).sum()) == 0, float(err.max())


@pytest.mark.parametrize("m,n", [(100, 37), (64, 128)])
def test_transpose_on_cuda(m, n):
    require_cuda()
    x = randn((m, n), torch.float32, fresh_generator())
    y = torch.full((n, m), float("nan"), device="cuda")
    K.transpose[((m + 31) // 32, (n + 63) // 64)](x, y, m, n, BM=32, BN=64)
    torch.cuda.synchronize()
    assert torch.equal(y, 2.0 * x.T)


def test_gemm_example_on_cuda():
    require_cuda()
    import pathlib
    import subprocess
    import sys
    example = (pathlib.Path(__file__).resolve().parents[1] / "examples" /
               "gemm.py")
    out = subprocess.run([sys.executable, str(example), "--device", "cuda",
                          "--m", "1000", "--n", "777", "--k", "333"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.rstrip().endswith("0 of 777000 outside tolerance")
