#!/usr/bin/env bash
# The whole test suite on a fresh machine: set-up, build, then every lit
# test (dialect, conversions, pipelines, AMDGCN ISA for gfx942 and gfx950,
# tools) and the GoogleTest suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
scripts/build.sh
ctest --test-dir "$BUILD_DIR" --output-on-failure
