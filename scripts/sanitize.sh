#!/usr/bin/env bash
# The checked build: every ROCDSL source compiled by clang-22 with
# AddressSanitizer, UndefinedBehaviorSanitizer (any report aborts) and the
# coverage instrumentation the fuzzers steer by, in build-sanitize/. Runs
# the lit suite with the sanitized tools (less the GEMM matrices, whose
# representative runs stay) and a bounded subset of the unit
# tests (everything but the long host-numerics matrix and the every-config
# compile sweeps, of which one representative each runs), then the fuzzers
# (scripts/fuzz.sh). Any sanitizer report fails the script.
#
#   SANITIZE_BUILD_DIR  build directory (default build-sanitize)
#   FUZZ_SECONDS        seconds per fuzz target (default 15; 0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${SANITIZE_BUILD_DIR:-build-sanitize}
start=$SECONDS

scripts/setup.sh
if [ ! -f "$DIR/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S . -B "$DIR" \
    -DCMAKE_BUILD_TYPE=Release -DROCDSL_FUZZ=ON \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C "$DIR" rocdsl-unittests rocdsl-fuzzers rocdsl-opt rocdsl-compile \
  rocdsl-isa-check rocdsl-run rocdsl-emu rocdsl-hip-emu rocdsl-emu-unittests
built=$SECONDS

# Leaks are reported too. MLIR's and LLVM's process-lifetime registries are
# reachable at exit, so they are not leaks to LeakSanitizer.
# allow_user_poisoning=0: LLVM's headers poison allocator memory by hand in
# ASan builds, and Debian's (uninstrumented) libLLVM/libMLIR never unpoison
# it: without this, correct code reads as use-after-poison.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ROCDSL_CACHE_DIR="$PWD/$DIR/test-cache"

# The GEMM matrices (every dtype, layout and ragged shape on the host and
# the emulated chips) repeat the same compiler, runtime and emulator paths
# shape after shape; they run in the plain build's CTest, and here their
# representative runs (gemm.test, gemm-direct-copies.test) stand for them.
# rocdsl-run/rmsnorm-family.test runs the RMSNorm family's host kernels
# through the same compiler and runtime code as the sanitized unit and
# emulated RMSNorm tests below, so it too is left to CTest.
echo "sanitize: lit suite with ASan+UBSan tools (the GEMM matrices and the RMSNorm family run left to CTest)"
/usr/lib/llvm-22/bin/lit -q --time-tests --timeout 600 \
  --filter-out 'rocdsl-run/(gemm-(direct-copies-)?matrix|rmsnorm-family)' "$DIR/test"

lit_done=$SECONDS
echo "sanitize: unit tests with ASan+UBSan"
SUBSET='-Matrix/*:CheckedCompileTest.*:PTXCompileTest.*:RMSNormInPlaceHostTest.*'
REPRESENTATIVE='Matrix/RMSNormHostTest.*/N3001_f16_wf32_add:Matrix/RMSNormHostTest.*/N10008_f32_plain:Matrix/RMSNormBackwardHostTest.*/N20480_bf16_plain:Matrix/RMSNormBackwardHostTest.*/N128_f16_add'
"$DIR/bin/rocdsl-unittests" --gtest_brief=1 --gtest_filter="*$SUBSET"
"$DIR/bin/rocdsl-unittests" --gtest_brief=1 --gtest_filter="$REPRESENTATIVE"
unit_done=$SECONDS
echo "sanitize: emulated gfx942 and gfx950 (the emulator and librocdsl-hip-emu.so instrumented)"
for chip in gfx942 gfx950; do
  ROCDSL_HIP_LIBRARY="$PWD/$DIR/lib/librocdsl-hip-emu.so" ROCDSL_EMU_CHIP=$chip \
    "$DIR/bin/rocdsl-emu-unittests" --gtest_brief=1 \
    --gtest_filter='Matrix/RMSNormEmulatedTest.*/N3001_f16_wf32_add:Matrix/RMSNormEmulatedTest.*/N20480_bf16_plain:Matrix/RMSNormEmulatedTest.*/N128_f16_add'
done
tested=$SECONDS

if [ "${FUZZ_SECONDS:-15}" != 0 ]; then
  FUZZ_BUILD_DIR="$DIR" scripts/fuzz.sh
fi
echo "sanitize.sh: build $((built - start)) s, tests $((tested - built)) s" \
     "(lit $((lit_done - built)) s, unit $((unit_done - lit_done)) s," \
     "emulated $((tested - unit_done)) s), fuzzing $((SECONDS - tested)) s"
