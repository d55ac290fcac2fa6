#!/usr/bin/env bash
# The eager RMSNorm backward through rocdsl.torch with the one-launch form
# (tree_dw) at every shape (ROCDSL_TORCH_TREE_DW_BYTES = 1 TiB; the default
# limit, 16 MiB moved, takes it only at 128x4096 and 512x2048 of the
# shapes below) against the two launches (ROCDSL_TORCH_TREE_DW_BYTES=0),
# each in its own process, twice in alternation (this machine's
# run-to-run noise is the size of the difference), then where the host
# time goes at small and medium shapes for both. Tables go to $OUT
# (default: a temporary directory). On the GPU machine:
#   STEPS=0 DEVICE_CMD="bash benchmarks/rmsnorm_bwd_eager_ab.sh" \
#     scripts/device-gpu-check.sh
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
shapes=${AB_SHAPES:-"128,4096,bf16;512,2048,bf16;512,3000,f32;1024,8192,bf16;4096,4096,bf16"}
for round in 1 2; do
  for limit in 0 1099511627776; do
    echo "== eager backward, ROCDSL_TORCH_TREE_DW_BYTES=$limit, round $round"
    ROCDSL_TORCH_TREE_DW_BYTES=$limit ROCDSL_RMSNORM_FWD_BENCH_SHAPES="1,4096,bf16" \
      ROCDSL_RMSNORM_BWD_BENCH_SHAPES="$shapes" \
      python3 benchmarks/rmsnorm_torch_compare.py > "$out/eager-ab-$limit-$round.txt" 2>&1 \
      || { tail -20 "$out/eager-ab-$limit-$round.txt"; exit 1; }
    grep -E "copy|^(rmsnorm|fused_add)_bwd" "$out/eager-ab-$limit-$round.txt"
  done
done
for limit in 0 1099511627776; do
  echo "== host time, ROCDSL_TORCH_TREE_DW_BYTES=$limit"
  ROCDSL_TORCH_TREE_DW_BYTES=$limit python3 benchmarks/host_overhead.py --profile \
    --shapes "1,4096,bf16;128,4096,bf16;512,2048,bf16" \
    --markdown "$out/host-ab-$limit.md" > "$out/host-ab-$limit.txt" 2>&1 \
    || { tail -20 "$out/host-ab-$limit.txt"; exit 1; }
  grep -E "backward|stage" "$out/host-ab-$limit.txt"
done
echo "tables in $out"
