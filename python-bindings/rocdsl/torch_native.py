"""rocdsl.torch's native operators: native/torch_ops.cpp, compiled on first
use against the PyTorch this process runs and loaded into its dispatcher.

With them a call of rocdsl.torch.rms_norm is one trip through PyTorch's
dispatcher into C++ (checks, allocation, stream, launches) and its
autograd node is a C++ node; without them rocdsl.torch defines the same
operators in Python (torch.library.custom_op, autograd.Function), which
computes the same results with more host time per call.

ROCDSL_TORCH_NATIVE picks: "auto" (default) builds and uses them where it
can and otherwise warns once and takes the Python path; "1" makes a
failure to build or load an error; "0" never builds them.

The build needs a C++17 compiler ($CXX, else c++), PyTorch's headers
(shipped in its wheels) and a PyTorch built with the C++11 string ABI. The
library is cached under the ROCDSL cache directory (ROCDSL_CACHE_DIR, else
$XDG_CACHE_HOME/rocdsl, else ~/.cache/rocdsl), keyed by the source, the
PyTorch version, the compiler and librocdsl.so's location, so the build
(10-20 s) happens once per environment; concurrent first imports race
harmlessly (each writes a temporary file and renames it into place).
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

from . import _rocdsl

_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(_HERE, "native", "torch_ops.cpp")


def _include_directory():
    """Where rocdsl/API.h is: native/include in one of the package's
    directories (an installed package, the build tree), else the source
    tree's include/ (a checkout used in place)."""
    package = sys.modules.get(__package__)
    places = list(getattr(package, "__path__", [])) or [_HERE]
    candidates = [os.path.join(p, "native", "include") for p in places]
    candidates.append(os.path.join(_HERE, os.pardir, os.pardir, "include"))
    for c in candidates:
        if os.path.exists(os.path.join(c, "rocdsl", "API.h")):
            return os.path.abspath(c)
    raise Unavailable("rocdsl/API.h is in none of " + ", ".join(candidates))


class Unavailable(RuntimeError):
    """Why the native operators cannot be built or loaded here."""


def mode():
    value = os.environ.get("ROCDSL_TORCH_NATIVE", "auto").strip().lower()
    if value in ("", "auto"):
        return "auto"
    if value in ("1", "on", "yes", "true"):
        return "on"
    if value in ("0", "off", "no", "false"):
        return "off"
    raise ValueError(f"ROCDSL_TORCH_NATIVE={value!r}: expected auto, 1 or 0")


def load(torch):
    """True when the native operators are loaded (rocdsl::rms_norm and the
    others are then defined); False when rocdsl.torch must define them in
    Python. Raises under ROCDSL_TORCH_NATIVE=1 instead of returning False."""
    wanted = mode()
    if wanted == "off":
        _rocdsl.log("info", "rocdsl.torch: native operators off "
                            "(ROCDSL_TORCH_NATIVE=0); using the Python path")
        return False
    try:
        path = build(torch)
        try:
            torch.ops.load_library(path)
        except (OSError, RuntimeError) as e:
            # A cached library that no longer loads (truncated, or built
            # against files since replaced): rebuilt once.
            _rocdsl.log("warning", f"rocdsl.torch: {path} does not load "
                                   f"({e}); rebuilding it")
            os.remove(path)
            path = build(torch)
            torch.ops.load_library(path)
    except (Unavailable, OSError, RuntimeError) as e:
        if wanted == "on":
            raise
        _rocdsl.log("warning", f"rocdsl.torch: native operators unavailable "
                               f"({e}); using the Python path, which costs "
                               f"more host time per call (ROCDSL_TORCH_NATIVE"
                               f"=0 skips the attempt)")
        return False
    _rocdsl.log("info", f"rocdsl.torch: native operators from {path}")
    return True


def build(torch):
    """The path of the compiled library, building it if needed."""
    try:
        from torch.utils import cpp_extension
    except ImportError as e:
        raise Unavailable(f"PyTorch without C++ extension support: {e}")
    if not getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True):
        raise Unavailable("PyTorch is built with the pre-C++11 string ABI, "
                          "librocdsl.so with the C++11 one")
    compiler = os.environ.get("CXX") or "c++"
    if shutil.which(compiler) is None:
        raise Unavailable(f"no C++ compiler '{compiler}' on PATH (set CXX)")
    include = _include_directory()
    librocdsl = _librocdsl_path()
    kind = "hip" if getattr(torch.version, "hip", None) else "cuda"
    torch_libs = cpp_extension.library_paths()
    command = [compiler, "-std=c++17", "-O2", "-shared", "-fPIC",
               "-D_GLIBCXX_USE_CXX11_ABI=1",
               f'-DROCDSL_TORCH_DEVICE_KIND="{kind}"', "-I", include]
    for path in cpp_extension.include_paths():
        command += ["-isystem", path]
    command.append(SOURCE)
    libdir = os.path.dirname(librocdsl)
    command += ["-L", libdir, "-lrocdsl", f"-Wl,-rpath,{libdir}"]
    for path in torch_libs:
        command += ["-L", path, f"-Wl,-rpath,{path}"]
    command += ["-lc10", "-ltorch", "-ltorch_cpu"]
    key = _key(torch, command, include)
    directory = _cache_directory()
    target = os.path.join(directory, f"torch_ops-{key}.so")
    if os.path.exists(target):
        return target
    os.makedirs(directory, exist_ok=True)
    fd, partial = tempfile.mkstemp(prefix="torch_ops-", suffix=".so.tmp",
                                   dir=directory)
    os.close(fd)
    _rocdsl.log("info", f"rocdsl.torch: building its native operators for "
                        f"PyTorch {torch.__version__} (once per environment, "
                        f"10-20 s)")
    try:
        done = subprocess.run(command + ["-o", partial], capture_output=True,
                              text=True)
        if done.returncode != 0:
            tail = "\n".join(done.stderr.strip().splitlines()[-15:])
            raise Unavailable(f"{compiler} failed (exit {done.returncode}):"
                              f"\n{tail}")
        with open(partial, "rb") as f:
            if f.read(4) != b"\x7fELF":
                raise Unavailable(f"{compiler} exited 0 but wrote no shared "
                                  f"library")
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return target


def _key(torch, command, include):
    h = hashlib.sha256()
    for path in (SOURCE, os.path.join(include, "rocdsl", "API.h")):
        with open(path, "rb") as f:
            h.update(f.read())
    h.update("\0".join(command).encode())
    h.update(torch.__version__.encode())
    return h.hexdigest()[:20]


def _librocdsl_path():
    """The librocdsl.so the _rocdsl extension loaded (the native operators
    must link that same file, so both share one runtime)."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip().split(" ")[-1]
                if os.path.basename(path).startswith("librocdsl.so"):
                    return path
    except OSError as e:
        raise Unavailable(f"cannot read /proc/self/maps: {e}")
    raise Unavailable("librocdsl.so is not loaded (a statically linked "
                      "_rocdsl extension cannot share its runtime)")


def _cache_directory():
    """<ROCDSL's cache directory>/torch-native (the runtime's rule, so the
    libraries sit beside the compiled kernels)."""
    base = _rocdsl.cache_directory()
    if base is None:
        raise Unavailable("no cache directory to build into: none of "
                          "ROCDSL_CACHE_DIR, XDG_CACHE_HOME, HOME is set")
    return os.path.join(base, "torch-native")
