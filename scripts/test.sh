#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up, build, then every lit
# test (dialect, conversions, pipelines, AMDGCN ISA for gfx942 and gfx950,
# tools), each GoogleTest and each pytest file as its own CTest entry.
#
# CTEST_PARALLEL_LEVEL (default: the number of cores) sets how many entries
# run at once; each entry has its own timeout (test/CMakeLists.txt and
# friends). The suite's total time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
start=$SECONDS
scripts/build.sh
built=$SECONDS
status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure \
  -j "${CTEST_PARALLEL_LEVEL:-$(nproc)}" || status=$?
end=$SECONDS
echo "test.sh: build $((built - start)) s, tests $((end - built)) s," \
     "total $((end - start)) s"
exit $status
