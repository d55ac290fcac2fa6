#!/usr/bin/env bash
# Installs every Debian package ROCDSL needs to build and test. Idempotent:
# a machine that already has them all does no network work.
set -euo pipefail

PACKAGES=(
  cmake ninja-build ccache g++ pkg-config
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  rocm-device-libs libamdhip64-dev
  libgtest-dev
  # MLIR's CMake package configures only when these are present.
  libzstd-dev zlib1g-dev libxml2-dev libedit-dev libz3-dev libffi-dev
  libcurl4-openssl-dev libpfm4-dev
  python3-dev python3-numpy python3-pytest pybind11-dev
  # lit's per-test timeout (--timeout) needs psutil.
  python3-psutil
  # The Python package's install (pip install --no-build-isolation ., and
  # python3 -m build --wheel --no-isolation) and its test.
  python3-pip python3-setuptools python3-wheel python3-build python3-venv
  # The compiler of both builds (scripts/build.sh, scripts/sanitize.sh:
  # clang with ASan, UBSan and libFuzzer); g++ stays for CXX=g++ builds.
  clang-22 libfuzzer-22-dev libclang-rt-22-dev
  # The emulator's tests: clang-22 compiles HIP kernels (against the HIP
  # headers of libamdhip64-dev), llvm-mc and llvm-objcopy (llvm-22) build
  # fixtures and fuzz seeds.
  llvm-22
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
