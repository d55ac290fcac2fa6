"""Builds the native half of the `rocdsl` package with CMake.

setuptools packs python-bindings/rocdsl; this adds what CMake builds and
installs there (cmake/PythonPackageInstall.cmake): the _rocdsl extension,
lib/librocdsl.so, lib/librocdsl-hip-emu.so and bin/rocdsl-*. The build
directory is ROCDSL_BUILD_DIR (default build/, the one scripts/build.sh
uses, so an existing build is reused and only relinked); it is configured
first if needed. ROCDSL_CMAKE_ARGS adds configure arguments (e.g.
-DMLIR_DIR=...). Needs CMake, Ninja, a C++ compiler, LLVM/MLIR 22 and
pybind11 (scripts/setup.sh installs them on Debian).
"""
import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = pathlib.Path(__file__).resolve().parent


def _run(cmd):
    print("rocdsl:", " ".join(shlex.quote(str(c)) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True)


class BuildWithCMake(build_py):
    def run(self):
        super().run()
        build = pathlib.Path(os.environ.get("ROCDSL_BUILD_DIR",
                                            ROOT / "build"))
        if not build.is_absolute():
            build = ROOT / build
        if not (build / "build.ninja").exists():
            _run(["cmake", "-G", "Ninja", "-S", ROOT, "-B", build,
                  "-DCMAKE_BUILD_TYPE=Release",
                  "-DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir",
                  f"-DPython3_EXECUTABLE={sys.executable}",
                  *shlex.split(os.environ.get("ROCDSL_CMAKE_ARGS", ""))])
        _run(["cmake", "--build", build, "--target",
              "rocdsl-python-install-deps"])
        staging = pathlib.Path(self.build_lib) / ".rocdsl-staging"
        shutil.rmtree(staging, ignore_errors=True)
        _run(["cmake", "--install", build, "--component", "python",
              "--prefix", staging])
        package = pathlib.Path(self.build_lib) / "rocdsl"
        shutil.copytree(staging / "rocdsl", package, dirs_exist_ok=True,
                        symlinks=False)
        shutil.rmtree(staging)


class BinaryDistribution(Distribution):
    """The wheel carries native code: tag it for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithCMake}, distclass=BinaryDistribution,
      options={"build": {"build_base": "build/setuptools"}})
