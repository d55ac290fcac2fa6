"""The package as users install it: `pip install --no-build-isolation .`
into a temporary prefix and `python3 -m build --wheel --no-isolation`, then
`import rocdsl` from outside the source tree, its tools on PATH, and the
emulated HIP runtime it ships. The build directory under test
(ROCDSL_TEST_BUILD_DIR, set by CTest) is reused, so nothing recompiles."""
import os
import pathlib
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = os.environ.get("ROCDSL_TEST_BUILD_DIR")

pytestmark = pytest.mark.skipif(
    BUILD is None, reason="ROCDSL_TEST_BUILD_DIR is not set (run by CTest)")

PROGRAM = r"""
import pathlib, sys
import numpy as np
import rocdsl
import rocdsl.language as rl

prefix = pathlib.Path(sys.argv[1]).resolve()
assert prefix in pathlib.Path(rocdsl.__file__).resolve().parents, \
    rocdsl.__file__

x = np.random.default_rng().standard_normal((3, 700)).astype(np.float32)
w = np.random.default_rng().standard_normal(700).astype(np.float32)
x64 = x.astype(np.float64)
ref = x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + 1e-6) * w
assert np.abs(rocdsl.rms_norm(x, w) - ref).max() < 1e-4

@rocdsl.kernel(num_warps=1)
def add1(x: rl.ptr("f32"), y: rl.ptr("f32"), n: rl.i32, B: rl.constexpr):
    s = rl.program_id(0) * B
    m = rl.iota(B) + s < n
    rl.store(rl.load(x, [s], shape=[B], mask=m) + 1.0, y, [s], mask=m)

c = add1.compile(chip="gfx950", B=64)
assert ".amdgcn_target" in c.asm and c.stats["vgpr_spill"] == 0
d = rocdsl.device_array(x.ravel(), "hip")
out = rocdsl.empty(x.size, "f32", "hip")
add1[((x.size + 63) // 64,)](d, out, x.size, B=64)
assert np.array_equal(out.to_host(), x.ravel() + 1)
print("installed ok", rocdsl.describe_device("hip"))
"""


def _site_dir(prefix):
    hits = [p.parent for p in prefix.rglob("rocdsl/__init__.py")]
    assert len(hits) == 1, hits
    return hits[0].parent


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ROCDSL_HIP_LIBRARY")}
    env["ROCDSL_BUILD_DIR"] = BUILD
    env.update(extra)
    return env


def test_pip_install_works_outside_the_tree(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                    "--no-build-isolation", "--no-deps", "--prefix",
                    str(prefix), str(ROOT)], env=_env(), check=True,
                   timeout=900)
    site = _site_dir(prefix)
    package = site / "rocdsl"
    for f in ("lib/librocdsl.so", "lib/librocdsl-hip-emu.so",
              "bin/rocdsl-compile", "bin/rocdsl-run", "bin/rocdsl-emu",
              # what rocdsl.torch compiles its native operators from
              "native/torch_ops.cpp", "native/include/rocdsl/API.h"):
        assert (package / f).is_file(), f
    assert list(package.glob("_rocdsl*.so"))
    # No run path of an installed binary may point into the build tree.
    for so in list(package.rglob("*.so")) + list((package / "bin").iterdir()):
        out = subprocess.run(["readelf", "-d", str(so)], capture_output=True,
                             text=True, check=True).stdout
        assert BUILD not in out and str(ROOT) not in out, (so, out)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = _env(PYTHONPATH=str(site), ROCDSL_CACHE_DIR=str(tmp_path / "c"),
               ROCDSL_HIP_LIBRARY=str(package / "lib/librocdsl-hip-emu.so"),
               ROCDSL_EMU_CHIP="gfx942")
    run = subprocess.run([sys.executable, "-c", PROGRAM, str(prefix)],
                         cwd=outside, env=env, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "installed ok ROCDSL emulated gfx942" in run.stdout

    scripts = [p for p in prefix.rglob("bin/rocdsl-compile")
               if p.parent.parent != site]
    assert scripts, "pip installed no rocdsl-compile script"
    tool = subprocess.run([str(scripts[0]), "--kernel", "rmsnorm_fwd",
                           "--chip", "gfx942", "--emit", "asm", "-o", "-"],
                          cwd=outside, env=env, capture_output=True,
                          text=True, timeout=300)
    assert tool.returncode == 0, tool.stderr
    assert "v_mfma" not in tool.stdout and "s_endpgm" in tool.stdout


def test_wheel_builds_without_isolation(tmp_path):
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation",
                    "--outdir", str(tmp_path), str(ROOT)], env=_env(),
                   check=True, timeout=900, capture_output=True)
    wheels = list(tmp_path.glob("rocdsl-0.1.0-*.whl"))
    assert len(wheels) == 1, wheels
    assert "linux_x86_64" in wheels[0].name  # native code: a platform wheel
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    for f in ("rocdsl/__init__.py", "rocdsl/language/__init__.py",
              "rocdsl/lib/librocdsl.so", "rocdsl/bin/rocdsl-compile",
              "rocdsl/native/torch_ops.cpp",
              "rocdsl/native/include/rocdsl/API.h"):
        assert f in names, f
    assert any(n.startswith("rocdsl/_rocdsl") for n in names)
