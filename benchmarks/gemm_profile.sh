#!/usr/bin/env bash
# Where the built-in gemm's time goes on an NVIDIA GPU: its PTX, ptxas's
# register and shared-memory report, the SASS of the K loop, and one
# profiled launch under Nsight Compute (when ncu can read the counters):
# the usual sections, then the warps' stall reasons.
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
  # Where the warps wait: each stall reason as a share of the active warps'
  # cycles, the tensor pipe's busy share, shared-memory bank conflicts of
  # the loads (ldmatrix included) and the clock the launch ran at.
  stalls=barrier,long_scoreboard,short_scoreboard,mio_throttle,math_pipe_throttle,wait,not_selected,selected,dispatch_stall,lg_throttle,tex_throttle,no_instruction,branch_resolving,membar,drain,sleeping,misc
  metrics=sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active
  metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  metrics+=,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second
  for s in ${stalls//,/ }; do
    metrics+=,smsp__warp_issue_stalled_${s}_per_warp_active.pct
  done
  ncu --clock-control none --launch-skip 3 --launch-count 1 \
    --metrics "$metrics" \
    "$bin/rocdsl-run" --kernel gemm "${defs[@]}" --device cuda --repeat 5 \
    > "$out/ncu-stalls.txt" 2>&1
  grep -E "stalled|tensor|bank|wavefronts|inst_executed|per_second" \
    "$out/ncu-stalls.txt"
fi
