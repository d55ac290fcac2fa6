#!/usr/bin/env bash
# rmsnorm_bwd / rmsnorm_add_bwd kernel 1 at 32768x8192 bf16 (and two
# medium shapes) on a CUDA GPU: the default (256 lanes, one row tile ahead
# in registers) against 512 lanes (half a row's registers a lane) and row
# tiles staged in LDS (stages=S); float64 checks of lanes=512; registers of
# the PTX files in $1 (rocdsl-compile --chip sm_90 --emit ptx, made here)
# from ptxas; copy bandwidth from torch. On the GPU machine:
#   STEPS=0 DEVICE_CMD="bash benchmarks/rmsnorm_bwd_variants.sh device-out/rms" \
#     scripts/device-gpu-check.sh
set -u
ptx_dir=${1:-device-out/rms}
bin="${PYTHONPATH%/python}/bin"
nvidia-smi --query-gpu=name --format=csv,noheader
for f in "$ptx_dir"/*.ptx; do
  echo "== ptxas $f"; ptxas -v --gpu-name sm_90 "$f" -o /dev/null 2>&1 | grep -E "registers|spill" | head -4
done
python3 - <<'PY'
import torch
x = torch.empty(512 * 1024 * 1024 // 2, dtype=torch.bfloat16, device="cuda").normal_()
y = torch.empty_like(x)
for _ in range(5): y.copy_(x)
s, e = torch.cuda.Event(True), torch.cuda.Event(True)
ts = []
for _ in range(20):
    s.record(); y.copy_(x); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
ts.sort(); t = ts[len(ts)//2] * 1e-3
print(f"copy 512 MiB: {t*1e6:.1f} us, {2*x.numel()*2/t/1e12:.3f} TB/s")
PY
echo "== checks"
# QUICK=1: fewer checks and variants (a short device slot).
quick=${QUICK:-0}
check_shapes=("-D M=4097 -D N=8192" "-D M=1000 -D N=3000 -D dtype=f32" "-D M=5 -D N=4096")
programs="132 264"
variants=("-D lanes=256" "-D lanes=512" "-D lanes=512 -D prefetch=2" "-D stages=3" "-D lanes=512 -D stages=3")
if [ "$quick" = 1 ]; then
  check_shapes=("-D M=4097 -D N=8192")
  programs=132
  variants=("-D lanes=256" "-D lanes=512" "-D lanes=512 -D prefetch=2")
fi
for k in rmsnorm_bwd rmsnorm_add_bwd; do
  for shape in "${check_shapes[@]}"; do
    echo "$k lanes=512 $shape"
    "$bin/rocdsl-run" --device cuda --kernel $k $shape -D lanes=512 --check --repeat 3 2>&1 | grep -E "time|: max|error" | sed "s|^|  |"
  done
done
time_one() {
  local t
  t=$("$bin/rocdsl-run" --device cuda --repeat 50 "$@" 2>&1 | grep -E "^time" | awk '{print $2}')
  echo "$* : $t"
}
echo "== timings (us, median of 50)"
for k in rmsnorm_bwd rmsnorm_add_bwd; do
  for mp in $programs; do
    for v in "${variants[@]}"; do
      time_one --kernel $k -D M=32768 -D N=8192 $v -D max_programs=$mp
    done
  done
done
for shape in "-D M=4096 -D N=4096" "-D M=1024 -D N=8192"; do
  for v in "-D lanes=256" "-D lanes=512"; do time_one --kernel rmsnorm_bwd $shape $v; done
done
