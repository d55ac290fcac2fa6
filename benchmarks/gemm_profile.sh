#!/usr/bin/env bash
# Where the built-in gemm's time goes on an NVIDIA GPU: its PTX, ptxas's
# register and shared-memory report, the SASS of the K loop, and one
# profiled launch under Nsight Compute (when ncu can read the counters).
#
#   benchmarks/gemm_profile.sh OUTDIR BIN [-D name=value ...]
#
# BIN holds rocdsl-run (a build's or the device bundle's bin/) and, where
# it exists, rocdsl-compile; without one (the bundle), the PTX is taken
# from $GEMM_PTX, compiled where LLVM is. The -D definitions default to a
# 4096^3 bf16 GEMM. The launch is timed by rocdsl-run (no --check: a
# float64 reference of a large GEMM takes minutes on the host).
set -uo pipefail
out=$1 bin=$2
shift 2
defs=("$@")
[ ${#defs[@]} -gt 0 ] || defs=(-D M=4096 -D N=4096 -D K=4096 -D dtype=bf16)
mkdir -p "$out"
if [ -x "$bin/rocdsl-compile" ]; then
  "$bin/rocdsl-compile" --kernel gemm "${defs[@]}" --chip sm_90 --emit ptx \
    -o "$out/gemm.ptx" || exit 1
elif [ -n "${GEMM_PTX:-}" ]; then
  cp "$GEMM_PTX" "$out/gemm.ptx"
fi
if [ -f "$out/gemm.ptx" ] && command -v ptxas >/dev/null; then
  ptxas -arch=sm_90 -v "$out/gemm.ptx" -o "$out/gemm.cubin" \
    2> "$out/ptxas.txt" && cat "$out/ptxas.txt"
  command -v cuobjdump >/dev/null &&
    cuobjdump -sass "$out/gemm.cubin" > "$out/gemm.sass"
fi
"$bin/rocdsl-run" --kernel gemm "${defs[@]}" --device cuda --repeat 20 ||
  exit 1
if command -v ncu >/dev/null; then
  ncu --clock-control none --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section SchedulerStats --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    "$bin/rocdsl-run" --kernel gemm "${defs[@]}" --device cuda --repeat 5 \
    > "$out/ncu.txt" 2>&1
  tail -n 150 "$out/ncu.txt"
fi
