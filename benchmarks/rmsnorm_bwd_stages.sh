#!/usr/bin/env bash
# rmsnorm_bwd / rmsnorm_add_bwd kernel 1 on a CUDA GPU: row tiles ahead in
# registers (stages=0, prefetch=1, the default) against row tiles staged in
# LDS by cp.async (stages=S), at the contract's shapes; float64 checks of
# the staged kernels; registers of the PTX files in $1 (made here with
# rocdsl-compile --chip sm_90 --emit ptx) from ptxas; copy bandwidth from
# torch. Run on the GPU machine through scripts/device-gpu-check.sh:
#   STEPS=0 DEVICE_CMD="bash benchmarks/rmsnorm_bwd_stages.sh device-out/rms" \
#     scripts/device-gpu-check.sh
set -u
ptx_dir=${1:-device-out/rms}
bin="${PYTHONPATH%/python}/bin"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
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
run() { "$bin/rocdsl-run" --device cuda "$@" 2>&1 | grep -E "time|: max|error" | sed "s|^|  |"; }
echo "== checks"
for k in rmsnorm_bwd rmsnorm_add_bwd; do
  for st in 2 4; do
    for shape in "-D M=4097 -D N=8192" "-D M=1000 -D N=3000 -D dtype=f32" "-D M=333 -D N=1000 -D dtype=f16" "-D M=5 -D N=4096"; do
      echo "$k stages=$st $shape"; run --kernel $k $shape -D stages=$st --check --repeat 3
    done
  done
done
echo "== timings (us, median of 50)"
time_one() {
  local t
  t=$("$bin/rocdsl-run" --device cuda --repeat 50 "$@" 2>&1 | grep -E "^time" | awk '{print $2}')
  echo "$* : $t"
}
for k in rmsnorm_bwd rmsnorm_add_bwd; do
  for mp in 132 264; do
    for st in 0 2 3 4 5; do
      time_one --kernel $k -D M=32768 -D N=8192 -D stages=$st -D max_programs=$mp
    done
  done
done
for shape in "-D M=4096 -D N=4096" "-D M=1024 -D N=8192" "-D M=512 -D N=3000 -D dtype=f32" "-D M=128 -D N=4096" "-D M=512 -D N=2048"; do
  for k in rmsnorm_bwd rmsnorm_add_bwd; do
    for st in 0 2 3 4; do
      time_one --kernel $k $shape -D stages=$st
    done
  done
done
