"""The opt-in, correctness-checked comparison with PyTorch eager and Triton
(benchmarks/rmsnorm_torch_compare.py). Runs only with ROCDSL_COMPARE_TORCH=1
on a CUDA GPU; ROCDSL_BENCH_OUT=FILE also writes the tables as Markdown."""
import os
import sys

import pytest

if os.environ.get("ROCDSL_COMPARE_TORCH") != "1":
    pytest.skip("set ROCDSL_COMPARE_TORCH=1 to run the comparison",
                allow_module_level=True)

from gpu_support import require_cuda  # noqa: E402

require_cuda()
pytest.importorskip("triton", reason="Triton is not installed")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "benchmarks"))
import rmsnorm_torch_compare  # noqa: E402


def test_rmsnorm_torch_benchmark():
    result = rmsnorm_torch_compare.run()
    assert result["rows"], "no shapes to compare"
    out = os.environ.get("ROCDSL_BENCH_OUT")
    if out:
        with open(out, "w") as f:
            f.write(rmsnorm_torch_compare.markdown(result))
