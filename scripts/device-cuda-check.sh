#!/usr/bin/env bash
# Runs ROCDSL's CUDA device plumbing on an NVIDIA GPU machine that has g++
# and nvcc but no LLVM: PTX from nvcc, loaded and launched through
# CudaDriver. Output goes to stdout (and $OUT/cuda-check.log when OUT is set).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
nvcc -ptx -arch=sm_90 test/device/axpy.cu -o "$work/axpy.ptx"
g++ -std=c++17 -O2 -Iinclude lib/Runtime/CudaDriver.cpp \
  test/device/cuda_driver_check.cpp -ldl -o "$work/cuda_driver_check"
"$work/cuda_driver_check" "$work/axpy.ptx" | tee "${OUT:-$work}/cuda-check.log"
