#!/usr/bin/env bash
# The GEMM matrix: dtypes x operand layouts x ragged M/N/K (1, 17, 255 and
# 4097 in each position) x batch, each run against float64 by rocdsl-run
# --check with fresh random inputs and poisoned outputs.
#
#   scripts/gemm-matrix.sh BIN DEVICE [EXTRA -D definitions...]
#
# BIN holds rocdsl-run; DEVICE is host, hip or cuda. GEMM_MATRIX_DTYPES
# narrows the dtypes (default "bf16 f16"). Prints one line per run and a
# count; exits 1 if any run fails. The shapes keep M*N*K within reach of
# the float64 reference (seconds each on a CPU).
set -uo pipefail
bin=$1 device=$2
shift 2
shapes=("1 17 255" "17 255 4097" "255 4097 1" "4097 1 17" "4097 255 17"
        "255 17 4097" "17 4097 255" "129 130 96")
runs=0 failed=0
for dtype in ${GEMM_MATRIX_DTYPES:-bf16 f16}; do
  for layouts in "row row" "row col" "col row" "col col"; do
    read -r la lb <<< "$layouts"
    i=0
    for shape in "${shapes[@]}"; do
      read -r m n k <<< "$shape"
      i=$((i + 1))
      # Every other shape batched, with C, bias and an f32 output.
      extra=()
      if [ $((i % 2)) -eq 0 ]; then
        extra=(-D batch=3 -D accumulate=1 -D bias=1 -D alpha=0.5 -D beta=-2 -D out_dtype=f32)
      fi
      line=$("$bin/rocdsl-run" --kernel gemm -D M=$m -D N=$n -D K=$k \
        -D dtype=$dtype -D layout_a=$la -D layout_b=$lb "${extra[@]}" "$@" \
        --device "$device" --check 2>&1 | grep -E "^out:|error" | tail -1)
      runs=$((runs + 1))
      case "$line" in
        *"ok (0 of"*) status=ok ;;
        *) status=FAILED; failed=$((failed + 1)) ;;
      esac
      echo "$status gemm M=$m N=$n K=$k $dtype $la/$lb ${extra[*]} $*: ${line:-no output}"
    done
  done
done
echo "gemm matrix on $device: $((runs - failed)) of $runs passed"
[ "$failed" -eq 0 ]
