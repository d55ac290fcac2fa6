#!/usr/bin/env bash
# The gemm's asynchronous stages with direct-to-LDS copies and planned
# waits (ROCDSL_AMD_DIRECT_COPIES=1) on the emulated gfx942 and gfx950:
# bf16 and f16 x 2, 3 and 4 stages x shapes ragged against the tiles (every
# dimension a multiple of 8, so that the copies can be direct), each run
# against float64 by rocdsl-run --check with fresh random inputs. A run
# fails on a wrong result, on any wait violation the emulator sees, or if
# its kernel has no direct-to-LDS load (it would test the register path).
#
#   scripts/gemm-direct-copies-matrix.sh BIN HIP_EMU_LIB CACHE_DIR
#
# GEMM_DIRECT_MATRIX_RUNS narrows the chip:dtype pairs (default all four:
# "gfx942:bf16 gfx942:f16 gfx950:bf16 gfx950:f16"). Prints one line per run
# and a count; exits 1 if any run fails.
set -uo pipefail
bin=$1 emu=$2 cache=$3
runs=0 failed=0
for pair in ${GEMM_DIRECT_MATRIX_RUNS:-gfx942:bf16 gfx942:f16 gfx950:bf16 gfx950:f16}; do
  chip=${pair%%:*} dtype=${pair##*:}
  {
    for stages in 2 3 4; do
      for shape in "1 40 8" "72 136 40" "200 264 200" "64 64 520" "136 40 1000"; do
        read -r m n k <<< "$shape"
        dump=$(mktemp -d)
        line=$(ROCDSL_AMD_DIRECT_COPIES=1 ROCDSL_HIP_LIBRARY="$emu" \
          ROCDSL_EMU_CHIP=$chip ROCDSL_CACHE_DIR="$cache" \
          ROCDSL_DUMP_DIR="$dump" "$bin/rocdsl-run" --kernel gemm \
          -D M=$m -D N=$n -D K=$k -D dtype=$dtype -D stages=$stages \
          --device hip --check 2>&1 | grep -E "^out:|error|violation" | tail -1)
        # The dump is written on a compile; a cached kernel was checked by
        # the run that compiled it.
        direct=$(cat "$dump"/*.s 2>/dev/null | grep -c ' lds$')
        compiled=$(ls "$dump"/*.s 2>/dev/null | wc -l)
        rm -rf "$dump"
        runs=$((runs + 1))
        status=ok
        case "$line" in *"ok (0 of"*) ;; *) status=FAILED ;; esac
        if [ "$compiled" -gt 0 ] && [ "$direct" -eq 0 ]; then
          status=FAILED line="no direct-to-LDS load in the kernel; $line"
        fi
        [ "$status" = ok ] || failed=$((failed + 1))
        echo "$status gemm $chip $dtype stages=$stages M=$m N=$n K=$k: ${line:-no output}"
      done
    done
  }
done
echo "direct-copy gemm matrix (emulated): $((runs - failed)) of $runs passed"
[ "$failed" -eq 0 ]
