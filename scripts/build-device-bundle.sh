#!/usr/bin/env bash
# Builds ROCDSL with LLVM/MLIR linked statically (ROCDSL_STATIC_LLVM) into
# build-static/ and packs what a GPU machine without LLVM needs into
# device-out/rocdsl-bundle.tar.xz:
#   bin/rocdsl-run                      self-contained kernel runner
#   lib/librocdsl.so                    the compiler and runtime (API.h)
#   include/rocdsl/API.h                to build the Python extension there
# scripts/device-gpu-check.sh unpacks and uses it on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-static}
OUT_DIR=${OUT_DIR:-device-out}

scripts/setup.sh
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DROCDSL_STATIC_LLVM=ON -DBUILD_TESTING=OFF \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi
# rocdsl-compile stays behind: it runs here, and each tool carries its own
# LLVM (~90 MB), while the transfer to the GPU machine is capped at 64 MiB.
ninja -C "$BUILD_DIR" rocdsl-run rocdsl

stage="$BUILD_DIR/bundle"
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib" "$stage/include/rocdsl" "$OUT_DIR"
cp "$BUILD_DIR/bin/rocdsl-run" "$stage/bin/"
cp "$BUILD_DIR/lib/librocdsl.so" "$stage/lib/"
cp include/rocdsl/API.h "$stage/include/rocdsl/"
strip "$stage"/bin/* 
strip --strip-unneeded "$stage/lib/librocdsl.so"

# Self-contained means: nothing but the C/C++ system libraries.
for f in "$stage"/bin/* "$stage/lib/librocdsl.so"; do
  extra=$(ldd "$f" | awk '{print $1}' | grep -vE \
    '^(linux-vdso\.|/lib64/ld-linux|lib(c|m|z|stdc\+\+|gcc_s|pthread|dl|rt)\.so)' || true)
  if [ -n "$extra" ]; then
    echo "build-device-bundle: $f needs non-system libraries: $extra" >&2
    exit 1
  fi
done
du -sh "$stage"/bin/* "$stage"/lib/*
tar -C "$stage" -cf - . | xz -6 -T2 > "$OUT_DIR/rocdsl-bundle.tar.xz"
ls -l "$OUT_DIR/rocdsl-bundle.tar.xz"
