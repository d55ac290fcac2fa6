#!/usr/bin/env bash
# On an NVIDIA GPU machine (g++, CUDA driver, Python with torch and triton;
# no LLVM): runs ROCDSL's RMSNorm PTX (forward and backward, plain and
# fused-add), prepared on the development machine by
# `build/bin/rocdsl-prepare-cuda-rmsnorm device-out`, checks it against
# float64 and times it beside PyTorch and Triton in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
work=$(mktemp -d)
g++ -std=c++17 -O2 -Iinclude lib/Runtime/CudaDriver.cpp \
  benchmarks/cuda_rmsnorm_run.cpp -ldl -o "$work/cuda_rmsnorm_run"
set +e
"$work/cuda_rmsnorm_run" device-out > "$out/rocdsl.csv"
status=$?
set -e
grep -vE '^(add)?(fwd|bwd),' "$out/rocdsl.csv" || true
python3 benchmarks/torch_rmsnorm.py "$out/rocdsl.csv" | tee "$out/table.txt"
exit $status
