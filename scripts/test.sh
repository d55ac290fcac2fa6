#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up, build, then every lit
# test (dialect, conversions, pipelines, AMDGCN ISA for gfx942 and gfx950,
# tools), each GoogleTest and each pytest test function as its own CTest
# entry; then the checked build (scripts/sanitize.sh: the lit suite and the
# unit tests under AddressSanitizer and UndefinedBehaviorSanitizer, and
# every fuzz target for FUZZ_SECONDS, default 15).
#
# CTEST_PARALLEL_LEVEL (default: the number of cores) sets how many entries
# run at once; each entry has its own timeout (test/CMakeLists.txt and
# friends). ROCDSL_SKIP_SANITIZE=1 leaves out the checked build (for quick
# local runs; CI runs everything). Each stage's time and the total are
# printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
start=$SECONDS
scripts/build.sh
built=$SECONDS
status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure \
  -j "${CTEST_PARALLEL_LEVEL:-$(nproc)}" || status=$?
tested=$SECONDS
if [ "${ROCDSL_SKIP_SANITIZE:-0}" = 1 ]; then
  echo "test.sh: checked build skipped (ROCDSL_SKIP_SANITIZE=1)"
else
  scripts/sanitize.sh || status=$?
fi
end=$SECONDS
echo "test.sh: build $((built - start)) s, tests $((tested - built)) s," \
     "checked build, sanitizers and fuzzing $((end - tested)) s," \
     "total $((end - start)) s"
exit $status
