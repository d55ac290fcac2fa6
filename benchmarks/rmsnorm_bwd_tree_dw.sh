#!/usr/bin/env bash
# rmsnorm_bwd / rmsnorm_add_bwd with tree_dw=1 (the backward in one launch)
# on a CUDA GPU: float64 checks of it and of the other program_atomic users
# (attention_bwd dq_atomic=1, atomic_dw=1), then kernel time of the one
# launch beside kernel 1 and rmsnorm_bwd_dw at the eager table's shapes,
# then ptxas registers of the PTX files in $1 (made beforehand here:
#   rocdsl-compile --kernel rmsnorm_bwd -D M=4096 -D N=$n -D tree_dw=$t \
#     -D wave=32 --chip sm_90 --emit ptx -o device-out/tree/bwd-n$n-tree$t.ptx).
# On the GPU machine:
#   STEPS=3 DEVICE_CMD="bash benchmarks/rmsnorm_bwd_tree_dw.sh device-out/tree" \
#     scripts/device-gpu-check.sh
set -u
ptx_dir=${1:-device-out/tree}
bin="${PYTHONPATH%/python}/bin"
nvidia-smi --query-gpu=name --format=csv,noheader
for a in "rmsnorm_bwd -D M=4097 -D N=8192" "rmsnorm_add_bwd -D M=1000 -D N=3000 -D dtype=f32" \
         "rmsnorm_bwd -D M=128 -D N=4096" "rmsnorm_bwd -D M=333 -D N=1000 -D dtype=f16 -D wdtype=f32" \
         "rmsnorm_add_bwd -D M=32768 -D N=8192" "rmsnorm_bwd -D M=40 -D N=512 -D max_programs=17"; do
  echo "== check $a -D tree_dw=1"
  "$bin/rocdsl-run" --kernel $a -D tree_dw=1 --device cuda --check --repeat 5 | grep -vE "^(cache|compile):"
done
for a in "attention_bwd -D B=2 -D Hq=8 -D Hkv=2 -D Sq=1000 -D D=128 -D causal=1 -D dq_atomic=1" \
         "rmsnorm_bwd -D M=1000 -D N=4096 -D atomic_dw=1"; do
  echo "== check $a"
  "$bin/rocdsl-run" --kernel $a --device cuda --check --repeat 3 | grep -vE "^(cache|compile):"
done
for shape in "-D M=128 -D N=4096" "-D M=512 -D N=2048" "-D M=512 -D N=3000 -D dtype=f32" \
             "-D M=1024 -D N=8192" "-D M=4096 -D N=4096" "-D M=32768 -D N=8192" "-D M=1 -D N=4096 -D max_programs=1"; do
  for k in rmsnorm_bwd rmsnorm_add_bwd; do
    t=$("$bin/rocdsl-run" --kernel $k $shape -D tree_dw=1 --device cuda --repeat 100 | sed -n 's/^time: //p')
    k1=$("$bin/rocdsl-run" --kernel $k $shape --device cuda --repeat 100 | sed -n 's/^time: //p')
    k2=$("$bin/rocdsl-run" --kernel rmsnorm_bwd_dw $shape --device cuda --repeat 100 | sed -n 's/^time: //p')
    echo "$k $shape :: tree_dw=1 $t :: kernel 1 $k1 :: rmsnorm_bwd_dw $k2"
  done
done
for f in "$ptx_dir"/*.ptx; do
  [ -e "$f" ] || continue
  echo "== ptxas $f"; ptxas -v --gpu-name sm_90 "$f" -o /dev/null 2>&1 | grep -E "registers|spill" | head -4
done
