#!/usr/bin/env bash
# Runs every libFuzzer target of the checked build (scripts/sanitize.sh
# builds it) for FUZZ_SECONDS each, on a corpus seeded from the tests:
#   ir, source-kernel  the .mlir files under test/ (source-kernel: each with
#                      its first rocdsl.func's name on the first line)
#   assembly           test/ISA/fixtures/*.s and built-in kernels' AMDGCN
#   code-object        test/ISA/fixtures/*.hsaco and built-in code objects
#   emulator           the built-in kernels' machine code (gfx942, gfx950)
#   cache-entry        a real entry of the disk cache
# plus the saved findings in test/fuzz/regressions/. The corpus grows in
# $FUZZ_BUILD_DIR/fuzz/<target>/corpus across runs. A crash, sanitizer
# report, timeout (FUZZ_TIMEOUT seconds per input, default 60) or leak is
# written to $FUZZ_BUILD_DIR/fuzz/<target>/ and fails the script; keep it
# as test/fuzz/regressions/<target>/<name> once fixed. Prints executions,
# coverage and findings per target. FUZZ_SEED (default 1; 0: random) seeds
# libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${FUZZ_BUILD_DIR:-build-sanitize}
SECONDS_EACH=${FUZZ_SECONDS:-15}
# A fixed seed by default, so a CI run explores the same way every time;
# FUZZ_SEED=0 lets libFuzzer pick one.
SEED=${FUZZ_SEED:-1}
TIMEOUT=${FUZZ_TIMEOUT:-60}
OUT="$DIR/fuzz"
BIN="$DIR/bin"
for t in ir assembly code-object cache-entry source-kernel emulator; do
  [ -x "$BIN/rocdsl-fuzz-$t" ] || {
    echo "fuzz.sh: $BIN/rocdsl-fuzz-$t missing; run scripts/sanitize.sh" >&2
    exit 2
  }
done
# allow_user_poisoning=0: LLVM's headers poison and unpoison allocator
# memory by hand in ASan builds; Debian's libLLVM/libMLIR are not ASan
# builds, so their copies of the same inline code never unpoison, and the
# mismatch reads as use-after-poison in code that is correct.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Seeds, made fresh each run from the tests and the compiler itself.
SEEDS="$OUT/seeds"
rm -rf "$SEEDS"
mkdir -p "$SEEDS"/{ir,assembly,code-object,cache-entry,source-kernel,emulator}
for f in $(find test -name '*.mlir' | sort); do
  name=$(echo "$f" | tr '/' '_')
  cp "$f" "$SEEDS/ir/$name"
  kernel=$(grep -o 'rocdsl.func @[A-Za-z0-9_]*' "$f" | head -1 | sed 's/.*@//' || true)
  if [ -n "$kernel" ]; then
    { echo "$kernel"; cat "$f"; } > "$SEEDS/source-kernel/$name"
  fi
done
cp test/ISA/fixtures/*.s "$SEEDS/assembly/"
cp test/ISA/fixtures/*.hsaco "$SEEDS/code-object/"
for chip in gfx942 gfx950; do
  for spec in "rmsnorm_fwd -D N=4096 -D dtype=bf16" \
              "rmsnorm_add_bwd -D N=3001 -D dtype=f16"; do
    set -- $spec
    "$BIN/rocdsl-compile" --kernel $spec --chip $chip --emit asm \
      -o "$SEEDS/assembly/$1-$chip.s"
    "$BIN/rocdsl-compile" --kernel $spec --chip $chip --emit hsaco \
      -o "$SEEDS/code-object/$1-$chip.hsaco"
  done
done
# Emulator seeds: the machine code of the built-in kernels' code objects
# (chip byte first), from their .text sections.
for chip in gfx942 gfx950; do
  f="$SEEDS/code-object/rmsnorm_fwd-$chip.hsaco"
  byte=$([ $chip = gfx950 ] && echo '\x01' || echo '\x00')
  /usr/lib/llvm-22/bin/llvm-objcopy -O binary --only-section=.text "$f" "$SEEDS/text.bin"
  { printf "$byte"; head -c 3000 "$SEEDS/text.bin"; } > "$SEEDS/emulator/rmsnorm_fwd-$chip.bin"
  rm "$SEEDS/text.bin"
done
ROCDSL_CACHE_DIR="$SEEDS/cache-dir" "$BIN/rocdsl-run" --kernel rmsnorm_fwd \
  -D M=1 -D N=128 -D dtype=f32 --device host > /dev/null
cp "$SEEDS"/cache-dir/*.rocdsl "$SEEDS/cache-entry/"

status=0
# Findings of earlier runs were either kept as regressions or are stale.
for t in ir assembly code-object cache-entry source-kernel emulator; do
  rm -f "$OUT/$t"/crash-* "$OUT/$t"/leak-* "$OUT/$t"/timeout-* \
    "$OUT/$t"/oom-* "$OUT/$t"/slow-unit-*
done
printf '%-14s %9s %7s %9s %s\n' target execs cov corpus findings
for t in ir assembly code-object cache-entry source-kernel emulator; do
  work="$OUT/$t"
  mkdir -p "$work/corpus"
  log="$work/last-run.log"
  set +e
  "$BIN/rocdsl-fuzz-$t" "$work/corpus" "$SEEDS/$t" "test/fuzz/regressions/$t" \
    -max_total_time="$SECONDS_EACH" -timeout="$TIMEOUT" -rss_limit_mb=6144 \
    -seed="$SEED" \
    -max_len=65536 -report_slow_units=30 -artifact_prefix="$work/" -print_final_stats=1 \
    > "$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
  corpus=$(ls "$work/corpus" | wc -l)
  findings=$(ls "$work" | grep -cE '^(crash|leak|timeout|oom)-' || true)
  printf '%-14s %9s %7s %9s %s\n' "$t" "${execs:-?}" "${cov:-?}" "$corpus" \
    "$findings"
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz.sh: $t failed (exit $rc); its log:" >&2
    grep -v '^#' "$log" | tail -40 >&2
  fi
done
exit $status
