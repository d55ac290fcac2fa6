#!/usr/bin/env bash
# rmsnorm_bwd / rmsnorm_add_bwd kernel 1 on a CUDA GPU: the default (256
# lanes, one row tile ahead in registers) against its variants, with
# float64 checks of the variants first; registers of the PTX files in $1
# (rocdsl-compile --chip sm_90 --emit ptx, made beforehand) from ptxas;
# device copy bandwidth from torch. On the GPU machine:
#   STEPS=0 DEVICE_CMD="SET=stages bash benchmarks/rmsnorm_bwd_variants.sh device-out/rms" \
#     scripts/device-gpu-check.sh
# SET=stages: row tiles staged in LDS (stages=2..5) at the contract's
# shapes. SET=lanes (default): 512-lane programs; QUICK=1 trims it to one
# check shape, 132 programs and three variants.
set -u
ptx_dir=${1:-device-out/rms}
bin="${PYTHONPATH%/python}/bin"
nvidia-smi --query-gpu=name --format=csv,noheader
for f in "$ptx_dir"/*.ptx; do
  echo "== ptxas $f"; ptxas -v --gpu-name sm_90 "$f" -o /dev/null 2>&1 | grep -E "registers|spill" | head -4
done
python3 -c "import sys; sys.path.insert(0, 'benchmarks'); from gpu_timing import copy_tbps; print(f'device copy: {copy_tbps(20):.3f} TB/s')"

big="-D M=32768 -D N=8192"
if [ "${SET:-lanes}" = stages ]; then
  checked=("-D stages=2" "-D stages=4")
  check_shapes=("-D M=4097 -D N=8192" "-D M=1000 -D N=3000 -D dtype=f32" "-D M=333 -D N=1000 -D dtype=f16" "-D M=5 -D N=4096")
  programs="132 264"
  variants=("-D stages=0" "-D stages=2" "-D stages=3" "-D stages=4" "-D stages=5")
  shapes=("-D M=4096 -D N=4096" "-D M=1024 -D N=8192" "-D M=512 -D N=3000 -D dtype=f32" "-D M=128 -D N=4096" "-D M=512 -D N=2048")
  shape_variants=("-D stages=0" "-D stages=2" "-D stages=3" "-D stages=4")
  shape_kernels="rmsnorm_bwd rmsnorm_add_bwd"
else
  checked=("-D lanes=512")
  check_shapes=("-D M=4097 -D N=8192" "-D M=1000 -D N=3000 -D dtype=f32" "-D M=5 -D N=4096")
  programs="132 264"
  variants=("-D lanes=256" "-D lanes=512" "-D lanes=512 -D prefetch=2" "-D stages=3" "-D lanes=512 -D stages=3")
  shapes=("-D M=4096 -D N=4096" "-D M=1024 -D N=8192")
  shape_variants=("-D lanes=256" "-D lanes=512")
  shape_kernels=rmsnorm_bwd
  if [ "${QUICK:-0}" = 1 ]; then
    check_shapes=("-D M=4097 -D N=8192")
    programs=132
    variants=("-D lanes=256" "-D lanes=512" "-D lanes=512 -D prefetch=2")
  fi
fi

echo "== checks"
for k in rmsnorm_bwd rmsnorm_add_bwd; do
  for v in "${checked[@]}"; do
    for shape in "${check_shapes[@]}"; do
      echo "$k $v $shape"
      "$bin/rocdsl-run" --device cuda --kernel $k $shape $v --check --repeat 3 2>&1 |
        grep -E "time|: max|error" | sed "s|^|  |"
    done
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
      time_one --kernel $k $big $v -D max_programs=$mp
    done
  done
done
for shape in "${shapes[@]}"; do
  for k in $shape_kernels; do
    for v in "${shape_variants[@]}"; do
      time_one --kernel $k $shape $v
    done
  done
done
