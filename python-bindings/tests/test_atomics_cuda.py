"""rl.atomic_add and rl.program_atomic on an NVIDIA GPU (32-lane waves, so
other copies of the column sums than on AMDGPU): programs of one launch
really run at once here. Column sums against float64, exact i32 sums, and
the scratch reused by launch after launch. Skipped without a GPU."""
import numpy as np
import pytest

from gpu_support import require_cuda, torch

require_cuda()
from atomic_kernels import CASES, column_sums  # noqa: E402


def sums(x, bm, bn, programs, acc=None, count=None):
    m, n = x.shape
    acc = torch.zeros(bn, dtype=x.dtype, device="cuda") if acc is None else acc
    count = (torch.zeros(1, dtype=torch.int32, device="cuda")
             if count is None else count)
    out = torch.full((bn,), -12345, dtype=x.dtype, device="cuda")
    column_sums[(programs,)](x, acc, count, out, m, n, BM=bm, BN=bn)
    torch.cuda.synchronize()
    return out[:n].cpu(), acc, count


@pytest.mark.parametrize("m,n,bm,bn,programs", CASES + [(4096, 1000, 8, 1024,
                                                         528)])
def test_column_sums_match_float64(m, n, bm, bn, programs):
    x = torch.randn((m, n), dtype=torch.float32, device="cuda")
    out, acc, count = sums(x, bm, bn, programs)
    x64 = x.cpu().double()
    ref = x64.sum(0)
    tol = 1e-6 * x64.abs().sum(0) + 1e-6
    bad = (out.double() - ref).abs() > tol
    assert not bad.any(), f"{int(bad.sum())} of {n} columns off"
    assert (acc == 0).all() and int(count[0]) == 0


def test_integer_sums_are_exact_over_launches():
    acc = torch.zeros(1024, dtype=torch.int32, device="cuda")
    count = torch.zeros(1, dtype=torch.int32, device="cuda")
    for _ in range(5):
        x = torch.randint(-1000, 1000, (3000, 700), dtype=torch.int32,
                          device="cuda")
        out, acc, count = sums(x, 8, 1024, 264, acc, count)
        assert torch.equal(out.long(), x.cpu().long().sum(0))
    assert (acc == 0).all() and int(count[0]) == 0
