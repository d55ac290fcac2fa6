#!/usr/bin/env bash
# The demo: builds ROCDSL, then compiles the RMSNorm forward kernel written
# in the C++ DSL for MI300X (gfx942) and MI355X (gfx950), on the aligned
# 128-bit path and the masked generic path, and shows what the compiler
# promises: resources read from the code object, the memory and cross-lane
# instructions it chose, and that no wide store takes an SGPR offset.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
scripts/build.sh >/dev/null
BIN="$BUILD_DIR/bin"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "== built-in kernels"
"$BIN/rocdsl-compile" --list-kernels

for chip in gfx942 gfx950; do
  for cfg in "N=4096 dtype=bf16" "N=3001 dtype=bf16" "N=100000 dtype=f32"; do
    defs=()
    for d in $cfg; do defs+=(-D "$d"); done
    asm="$OUT/rmsnorm-$chip-${cfg// /-}.s"
    echo
    echo "== rmsnorm_fwd $cfg on $chip"
    "$BIN/rocdsl-compile" --kernel rmsnorm_fwd "${defs[@]}" --chip "$chip" \
      --emit asm -o "$asm" --stats
    printf '   %-34s %s\n' "global accesses:" \
      "$(grep -oE 'buffer_(load|store)_[a-z0-9]+' "$asm" | sort | uniq -c | tr -s ' ' | paste -sd, -)"
    printf '   %-34s %s\n' "cross-lane reduction steps (DPP):" "$(grep -c '_dpp' "$asm")"
    printf '   %-34s %s\n' "wide stores with an SGPR soffset:" \
      "$(grep -cE 'buffer_store_dwordx[34] v\[[0-9:]+\], v[0-9]+, s\[[0-9:]+\], s[0-9]+' "$asm" || true)"
  done
done

echo
echo "== the same kernel as a code object"
"$BIN/rocdsl-compile" --kernel rmsnorm_fwd -D N=4096 --chip gfx942 --emit hsaco -o "$OUT/rmsnorm.hsaco"
file_size=$(stat -c %s "$OUT/rmsnorm.hsaco")
echo "   rmsnorm.hsaco: $file_size bytes, ELF magic: $(head -c 4 "$OUT/rmsnorm.hsaco" | tail -c 3)"
echo
echo "== the same kernel run on this CPU (host target) against a float64 reference"
ROCDSL_CACHE_DIR="$OUT/cache" "$BIN/rocdsl-run" --kernel rmsnorm_fwd -D M=256 -D N=4096 -D dtype=bf16 --check
echo "-- again, from the disk cache"
ROCDSL_CACHE_DIR="$OUT/cache" "$BIN/rocdsl-run" --kernel rmsnorm_fwd -D M=256 -D N=4096 -D dtype=bf16 --check | grep -E "cache|compile"

echo
echo "== the AMD code objects themselves, executed on emulated gfx942 and gfx950 through the HIP API"
for chip in gfx942 gfx950; do
  ROCDSL_HIP_LIBRARY="$BIN/../lib/librocdsl-hip-emu.so" ROCDSL_EMU_CHIP=$chip \
    ROCDSL_CACHE_DIR="$OUT/cache" "$BIN/rocdsl-run" --kernel rmsnorm_fwd \
    -D M=64 -D N=4096 -D dtype=bf16 --device hip --check | grep -E "device|y:"
done

echo
echo "No AMD GPU is used: AMDGCN is generated, checked statically and run on emulated chips; numerics also run on the host target."
