# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "ROCDSL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "unittests", "Inputs",
                   "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.rocdsl_obj_root, "test")

# Every FileCheck run scopes [[VAR]] captures to their CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
# Tests must not depend on a developer's ROCm override.
config.environment.pop("ROCDSL_ROCM_PATH", None)

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.rocdsl_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = ["rocdsl-opt", "rocdsl-compile", "rocdsl-run", "rocdsl-isa-check",
         "FileCheck", "not", "split-file", "count"]
llvm_config.add_tool_substitutions(
    tools, [config.rocdsl_tools_dir, config.llvm_tools_dir])

# The emulator's tests compile HIP kernels with clang, assemble with llvm-mc
# and link with ld.lld (all from Debian's LLVM), and drive the HIP API from
# Python (NumPy from Debian: /usr/bin/python3).
llvm_config.add_tool_substitutions(
    ["rocdsl-emu", "clang", "llvm-mc", "ld.lld"],
    [config.rocdsl_tools_dir, config.llvm_tools_dir])
config.substitutions.append(("%python", "/usr/bin/python3"))
# This build's tools (scripts that take the tools' folder) and the sources'
# scripts.
config.substitutions.append(("%rocdsl_bin", config.rocdsl_tools_dir))
config.substitutions.append(
    ("%scripts", os.path.join(os.path.dirname(config.test_source_root),
                              "scripts")))
# The rocdsl Python package of this build (tests that trace Python kernels).
config.substitutions.append(
    ("%rocdsl_python", os.path.join(config.rocdsl_obj_root, "python")))
config.substitutions.append(
    ("%hip_emu_lib", os.path.join(config.rocdsl_obj_root, "lib",
                                  "librocdsl-hip-emu.so")))
config.substitutions.append(
    ("%hipcc", "clang -x hip --offload-device-only --no-gpu-bundle-output "
               "-nogpuinc -nogpulib -O3"))
# ASan/UBSan builds: a sanitized shared library cannot be loaded into an
# uninstrumented interpreter (tests that do say UNSUPPORTED: sanitized).
if config.rocdsl_sanitize.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("sanitized")
# Tests that name x86 CPUs for the host device (ROCDSL_HOST_CPU).
import platform
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64-host")
