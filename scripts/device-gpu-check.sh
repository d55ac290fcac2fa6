#!/usr/bin/env bash
# On an NVIDIA GPU machine without LLVM (g++, CUDA driver, Python with
# pybind11, torch and triton): unpacks device-out/rocdsl-bundle.tar.xz (made
# by scripts/build-device-bundle.sh), builds the Python extension against
# its librocdsl.so (one C++ file, seconds), and then, in one go:
#   1. rocdsl-run --device cuda --check on forward and backward kernels;
#   2. the whole pytest suite, GPU tests included (config matrix against
#      float64, autograd and torch.compile against torch eager, a training
#      loop, Python DSL kernels on torch tensors);
#   3. the benchmark beside PyTorch eager and Triton (ROCDSL_COMPARE_TORCH);
#   4. (opt-in) the backward's tuning space: rocdsl_bwd kernel time over
#      max_programs x prefetch on the benchmark's backward shapes;
#   5. (opt-in) kernels users write beside Triton and PyTorch
#      (benchmarks/user_kernels_benchmark.py), and Triton's gfx942/gfx950
#      code for them;
#   6. (opt-in) GEMM with rl.dot beside cuBLAS and Triton
#      (benchmarks/gemm_benchmark.py; GEMM_ARGS=--quick for one shape);
#   7. (opt-in) where the host time of a call goes: rocdsl.torch and
#      @rocdsl.kernel launches by stage, beside torch, Triton and a raw
#      cuLaunchKernel (benchmarks/host_overhead.py, with torch.profiler);
#   8. (opt-in) attention forward beside torch SDPA's backends and Triton
#      (benchmarks/attention_benchmark.py; ATTENTION_ARGS=--quick);
#   9. (opt-in) attention backward beside torch SDPA's backends and a
#      Triton FlashAttention-2 backward
#      (benchmarks/attention_backward_benchmark.py; ATTENTION_BWD_ARGS).
# Logs and tables go to $OUT (default: a temporary directory). STEPS picks
# steps by number (default "123"; e.g. STEPS=12 skips the benchmark, 1234
# adds the sweep);
# PYTEST_TARGETS narrows step 2 (default: python-bindings/tests).
# DEVICE_CMD, when set, runs first (bash -c) in the same environment: a
# one-off check with the bundle's extension on PYTHONPATH.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
root=$(mktemp -d)
status=0
steps=${STEPS:-123}
step() { echo; echo "== $*"; }

step "unpacking the bundle"
python3 -c "import lzma, sys, tarfile; tarfile.open(fileobj=lzma.open(sys.argv[1])).extractall(sys.argv[2])" \
  device-out/rocdsl-bundle.tar.xz "$root" || exit 1
ldd "$root/bin/rocdsl-run" "$root/lib/librocdsl.so"

step "building the Python extension against librocdsl.so"
mkdir -p "$root/python/rocdsl"
cp -r python-bindings/rocdsl/. "$root/python/rocdsl/"
mkdir -p "$root/python/rocdsl/native/include/rocdsl"
cp "$root/include/rocdsl/API.h" "$root/python/rocdsl/native/include/rocdsl/"
ext=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
g++ -std=c++17 -O2 -shared -fPIC $(python3 -m pybind11 --includes) \
  -I "$root/include" python-bindings/RocDSLModule.cpp \
  -L "$root/lib" -lrocdsl -Wl,-rpath,"$root/lib" \
  -o "$root/python/rocdsl/_rocdsl$ext" || exit 1
export PYTHONPATH="$root/python" ROCDSL_CACHE_DIR="$root/cache"

if [ -n "${DEVICE_CMD:-}" ]; then
step "DEVICE_CMD"
bash -c "$DEVICE_CMD" || status=1
fi

if [[ $steps == *1* ]]; then
step "rocdsl-run on the GPU"
# check_on_gpu REPEAT "KERNEL -D ..." ...: each against float64, timed.
check_on_gpu() {
  local repeat=$1 args
  shift
  for args in "$@"; do
    "$root/bin/rocdsl-run" --kernel $args --device cuda --check \
      --repeat "$repeat" || status=1
  done
}
check_on_gpu 20 "rmsnorm_fwd -D M=4096 -D N=4096 -D dtype=bf16" \
  "rmsnorm_fwd -D M=64 -D N=10001 -D dtype=f32" \
  "rmsnorm_bwd -D M=512 -D N=3000 -D dtype=f32" \
  "rmsnorm_bwd_dw -D M=1024 -D N=8192 -D dtype=bf16"
# Non-finite detection on the GPU: outputs are read back and scanned after
# each launch (all finite here, so the run passes).
ROCDSL_CHECK_FINITE=1 "$root/bin/rocdsl-run" --kernel rmsnorm_add_bwd \
  -D M=256 -D N=4096 -D dtype=bf16 --device cuda --check || status=1
# The gemm family: ragged shapes, both layouts, epilogue (warpgroup MMA
# where wgmma=auto takes it on compute capability 9.0, mma.sync with
# column-major A and wgmma=0).
check_on_gpu 5 "gemm -D M=1000 -D N=1000 -D K=1000" \
  "gemm -D M=1 -D N=17 -D K=255 -D layout_a=col -D dtype=f16" \
  "gemm -D M=129 -D N=130 -D K=96 -D layout_b=col -D out_dtype=f32" \
  "gemm -D M=48 -D N=64 -D K=64 -D batch=3 -D accumulate=1 -D bias=1 -D alpha=0.5 -D beta=-2" \
  "gemm -D M=300 -D N=520 -D K=200 -D layout_a=col -D layout_b=col -D warps=8" \
  "gemm -D M=257 -D N=511 -D K=77 -D BM=128 -D BN=256 -D warps=8 -D dtype=f16" \
  "gemm -D M=256 -D N=200 -D K=256 -D layout_b=col -D BM=256 -D BN=128 -D warps=8" \
  "gemm -D M=33 -D N=40 -D K=48 -D layout_a=col -D BM=16 -D BN=8 -D BK=16 -D warps=1" \
  "gemm -D M=200 -D N=300 -D K=333 -D layout_b=col -D BK=64 -D warps=8" \
  "gemm -D M=1000 -D N=1000 -D K=1000 -D stages=4" \
  "gemm -D M=130 -D N=72 -D K=17 -D stages=2 -D dtype=f16 -D out_dtype=f32" \
  "gemm -D M=4097 -D N=255 -D K=4097" \
  "gemm -D M=17 -D N=4097 -D K=1000 -D batch=2 -D dtype=f16 -D bias=1" \
  "gemm -D M=500 -D N=600 -D K=700 -D BK=64 -D stages=3" \
  "gemm -D M=513 -D N=257 -D K=129 -D stages=3 -D prefetch_operands=0" \
  "gemm -D M=1 -D N=1 -D K=1" \
  "gemm -D M=1000 -D N=1000 -D K=1000 -D wgmma=0" \
  "gemm -D M=500 -D N=600 -D K=700 -D wgmma=0 -D stages=3 -D dtype=f16" \
  "gemm -D M=4097 -D N=255 -D K=700 -D layout_b=col -D wgmma=1" \
  "gemm -D M=300 -D N=520 -D K=200 -D BN=256 -D wgmma=1 -D dtype=f16" \
  "gemm -D M=1 -D N=17 -D K=255 -D BM=64 -D BN=64 -D stages=2 -D wgmma=1"
# The whole GEMM matrix (dtypes x layouts x ragged M/N/K x batch).
scripts/gemm-matrix.sh "$root/bin" cuda | tee "$out/gemm-matrix.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
# attention_fwd on mma.sync (wgmma=0): masks, ragged and unequal lengths,
# grouped heads, unequal head dimensions, both dtypes, the largest head
# dimension; registers and asynchronous stages.
check_on_gpu 5 "attention_fwd -D B=2 -D Hq=8 -D Hkv=2 -D Sq=1000 -D D=128 -D causal=1 -D wgmma=0" \
  "attention_fwd -D Sq=17 -D Sk=4097 -D D=64 -D dtype=f16 -D window_left=300 -D window_right=20 -D wgmma=0" \
  "attention_fwd -D Sq=1 -D Sk=129 -D D=192 -D Dv=128 -D causal=1 -D align=bottom_right -D wgmma=0 -D stages=1" \
  "attention_fwd -D Sq=300 -D Sk=100 -D D=64 -D causal=1 -D align=bottom_right -D scale=0.3 -D stages=1" \
  "attention_fwd -D Hq=8 -D Hkv=1 -D Sq=513 -D D=256 -D BN=32" \
  "attention_fwd -D Sq=777 -D D=128 -D BM=128 -D warps=8 -D causal=1 -D wgmma=0" \
  "attention_fwd -D Sq=400 -D D=80 -D softcap=20 -D window_left=64 -D window_right=0" \
  "attention_fwd -D Sq=17 -D Sk=4097 -D D=64 -D dtype=f16 -D window_left=300 -D window_right=20 -D stages=3 -D wgmma=0" \
  "attention_fwd -D Sq=777 -D D=128 -D BM=128 -D BN=64 -D warps=8 -D causal=1 -D stages=4 -D wgmma=0" \
  "attention_fwd -D Sq=300 -D Sk=100 -D D=64 -D causal=1 -D align=bottom_right -D softcap=5 -D stages=3 -D wgmma=0"
# attention_fwd on warpgroup MMA (wgmma=auto takes it on compute
# capability 9.0): the same features, 128 and 64 keys a step, one and two
# warp groups, 2-4 stages, both layouts with heads inside rows.
check_on_gpu 5 "attention_fwd -D B=2 -D Hq=8 -D Hkv=2 -D Sq=1000 -D D=128 -D causal=1" \
  "attention_fwd -D Sq=17 -D Sk=4097 -D D=64 -D dtype=f16 -D window_left=300 -D window_right=20" \
  "attention_fwd -D Sq=1 -D Sk=129 -D D=192 -D Dv=128 -D causal=1 -D align=bottom_right" \
  "attention_fwd -D Sq=300 -D Sk=100 -D D=64 -D causal=1 -D align=bottom_right -D scale=-0.3" \
  "attention_fwd -D Hq=8 -D Hkv=1 -D Sq=513 -D D=256" \
  "attention_fwd -D Sq=777 -D D=128 -D BN=64 -D causal=1 -D stages=3" \
  "attention_fwd -D Sq=400 -D D=128 -D softcap=20 -D window_left=64 -D window_right=0 -D wgmma=1" \
  "attention_fwd -D B=3 -D Hq=4 -D Sq=333 -D Sk=1000 -D D=64 -D Dv=128 -D layout=bshd -D warps=4 -D BN=64 -D stages=4" \
  "attention_fwd -D B=3 -D Hq=4 -D Hkv=2 -D Sq=300 -D D=128 -D layout=varlen -D causal=1" \
  "attention_fwd -D Sq=4096 -D D=128 -D dtype=f16 -D BM=64 -D warps=4"
# attention_bwd (one launch: dK/dV and dQ programs): the same features, and
# the softcap's derivative, on mma.sync (wgmma=0, or dimensions wgmma does
# not take) and on warpgroup MMA (the default on compute capability 9.0).
check_on_gpu 5 "attention_bwd -D B=2 -D Hq=8 -D Hkv=2 -D Sq=1000 -D D=128 -D causal=1 -D wgmma=0" \
  "attention_bwd -D Sq=17 -D Sk=2049 -D D=64 -D dtype=f16 -D window_left=300 -D window_right=20 -D wgmma=0" \
  "attention_bwd -D Sq=129 -D Sk=300 -D D=80 -D Dv=48 -D causal=1 -D align=bottom_right" \
  "attention_bwd -D Sq=300 -D Sk=100 -D D=64 -D causal=1 -D align=bottom_right -D scale=-0.3 -D wgmma=0" \
  "attention_bwd -D Hq=8 -D Hkv=1 -D Sq=513 -D D=128 -D softcap=30 -D wgmma=0"
check_on_gpu 5 "attention_bwd -D B=2 -D Hq=8 -D Hkv=2 -D Sq=1000 -D D=128 -D causal=1" \
  "attention_bwd -D Sq=17 -D Sk=2049 -D D=64 -D dtype=f16 -D window_left=300 -D window_right=20" \
  "attention_bwd -D Sq=129 -D Sk=300 -D D=192 -D Dv=128 -D causal=1 -D align=bottom_right" \
  "attention_bwd -D Sq=300 -D Sk=100 -D D=64 -D causal=1 -D align=bottom_right -D scale=-0.3" \
  "attention_bwd -D Hq=8 -D Hkv=1 -D Sq=513 -D D=128 -D softcap=30" \
  "attention_bwd -D B=3 -D Hq=4 -D Hkv=2 -D Sq=300 -D Sk=700 -D D=128 -D layout=varlen -D causal=1" \
  "attention_bwd -D B=2 -D Hq=4 -D Sq=257 -D D=64 -D Dv=128 -D layout=bshd -D warps=4" \
  "attention_bwd -D Sq=1 -D Sk=65 -D D=128 -D wgmma=1" \
  "attention_bwd -D B=2 -D Hq=16 -D Sq=2048 -D D=128 -D causal=1 -D dtype=f16"
# The second process finds the kernel in the disk cache.
"$root/bin/rocdsl-run" --kernel rmsnorm_fwd -D M=4096 -D N=4096 -D dtype=bf16 \
  --device cuda --check | grep cache || status=1
fi

if [[ $steps == *2* ]]; then
step "pytest (GPU tests included)"
python3 -m pytest -q -p no:cacheprovider -rs ${PYTEST_TARGETS:-python-bindings/tests} \
  2>&1 | tee "$out/pytest.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [[ $steps == *3* ]]; then
step "benchmark beside PyTorch and Triton"
ROCDSL_COMPARE_TORCH=1 ROCDSL_BENCH_OUT="$out/benchmark.md" \
  python3 -m pytest -q -s -p no:cacheprovider \
  python-bindings/tests/test_rmsnorm_torch_benchmark.py 2>&1 | tee "$out/benchmark.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [[ $steps == *4* ]]; then
step "backward tuning space (kernel 1 of 2, median of 50)"
# SWEEP_SHAPES ("M N dtype;..."), SWEEP_PREFETCH and SWEEP_PROGRAMS narrow it;
# SWEEP_CHECK=0 skips the float64 check (minutes at 32768x8192).
IFS=';' read -ra sweep_shapes <<< "${SWEEP_SHAPES:-32768 8192 bf16;1024 8192 bf16;4096 4096 bf16;512 3000 f32}"
check=$([ "${SWEEP_CHECK:-1}" = 1 ] && echo --check)
for shape in "${sweep_shapes[@]}"; do
  set -- $shape
  for prefetch in ${SWEEP_PREFETCH:-0 1 2 3}; do
    for g in ${SWEEP_PROGRAMS:-132 264 528 1024 2048}; do
      t=$("$root/bin/rocdsl-run" --kernel rmsnorm_bwd -D M=$1 -D N=$2 -D dtype=$3 \
          -D max_programs=$g -D prefetch=$prefetch --device cuda $check \
          --repeat 50 | awk '/^time:/{print $2}')
      echo "rmsnorm_bwd ${1}x${2} $3 prefetch=$prefetch max_programs=$g: $t us"
    done
  done
done | tee "$out/bwd-sweep.txt"
fi

if [[ $steps == *5* ]]; then
step "kernels users write, beside Triton and PyTorch (and Triton's AMD code)"
python3 benchmarks/user_kernels_benchmark.py --out "$out/user-kernels.md" \
  --amd-asm "$out/triton-amd" ${USER_KERNELS:+--kernels "$USER_KERNELS"} \
  2>&1 | tee "$out/user-kernels.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [[ $steps == *6* ]]; then
step "GEMM beside cuBLAS and Triton"
python3 benchmarks/gemm_benchmark.py --out "$out/gemm.md" ${GEMM_ARGS:-} \
  2>&1 | tee "$out/gemm.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [[ $steps == *7* ]]; then
step "host time per call, by stage"
python3 benchmarks/host_overhead.py --profile --markdown "$out/host-overhead.md" \
  2>&1 | tee "$out/host-overhead.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
# The same with rocdsl.torch's operators defined in Python.
ROCDSL_TORCH_NATIVE=0 python3 benchmarks/host_overhead.py \
  --markdown "$out/host-overhead-python-ops.md" \
  2>&1 | tee "$out/host-overhead-python-ops.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [[ $steps == *8* ]]; then
step "attention forward beside torch SDPA and Triton"
python3 benchmarks/attention_benchmark.py --out "$out/attention.md" \
  ${ATTENTION_ARGS:-} 2>&1 | tee "$out/attention.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [[ $steps == *9* ]]; then
step "attention backward beside torch SDPA"
python3 benchmarks/attention_backward_benchmark.py \
  --out "$out/attention-backward.md" ${ATTENTION_BWD_ARGS:-} 2>&1 |
  tee "$out/attention-backward.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
exit $status
