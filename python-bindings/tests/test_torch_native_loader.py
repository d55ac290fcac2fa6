"""rocdsl.torch_native without PyTorch: the ROCDSL_TORCH_NATIVE modes, the
fall back to the Python operators with one warning, the build's failure
reports and cache, with a stand-in `torch` (the real build and operators
are tested on the GPU machine by test_torch_rmsnorm.py)."""
import os
import sys
import types

import pytest

import rocdsl
from rocdsl import torch_native as tn


def stand_in_torch(monkeypatch, include_paths=(), version="2.99.0+test"):
    torch = types.ModuleType("torch")
    torch.__path__ = []
    torch.__version__ = version
    torch.version = types.SimpleNamespace(hip=None, cuda="13.0")
    torch._C = types.SimpleNamespace(_GLIBCXX_USE_CXX11_ABI=True)
    loaded = []
    torch.ops = types.SimpleNamespace(load_library=loaded.append)
    utils = types.ModuleType("torch.utils")
    utils.__path__ = []
    ext = types.ModuleType("torch.utils.cpp_extension")
    ext.include_paths = lambda: list(include_paths)
    ext.library_paths = lambda: []
    utils.cpp_extension = ext
    torch.utils = utils
    for name, module in (("torch", torch), ("torch.utils", utils),
                         ("torch.utils.cpp_extension", ext)):
        monkeypatch.setitem(sys.modules, name, module)
    return torch, loaded


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ROCDSL_CACHE_DIR", str(tmp_path))
    return tmp_path / "torch-native"


@pytest.mark.parametrize("value,mode", [(None, "auto"), ("auto", "auto"),
                                        ("1", "on"), ("ON", "on"),
                                        ("0", "off"), ("false", "off")])
def test_modes(monkeypatch, value, mode):
    if value is None:
        monkeypatch.delenv("ROCDSL_TORCH_NATIVE", raising=False)
    else:
        monkeypatch.setenv("ROCDSL_TORCH_NATIVE", value)
    assert tn.mode() == mode


def test_a_bad_mode_is_an_error(monkeypatch):
    monkeypatch.setenv("ROCDSL_TORCH_NATIVE", "maybe")
    with pytest.raises(ValueError, match="expected auto, 1 or 0"):
        tn.load(types.SimpleNamespace())


def test_off_never_builds(monkeypatch, cache):
    monkeypatch.setenv("ROCDSL_TORCH_NATIVE", "0")
    torch, loaded = stand_in_torch(monkeypatch)
    assert tn.load(torch) is False
    assert not loaded and not cache.exists()


def test_the_header_and_librocdsl_are_found():
    include = tn._include_directory()
    assert os.path.exists(os.path.join(include, "rocdsl", "API.h"))
    path = tn._librocdsl_path()
    assert os.path.basename(path).startswith("librocdsl.so")
    assert os.path.exists(path)


def test_a_failed_build_falls_back_with_one_warning(monkeypatch, cache,
                                                    capfd):
    monkeypatch.delenv("ROCDSL_TORCH_NATIVE", raising=False)
    torch, loaded = stand_in_torch(monkeypatch)  # no PyTorch headers
    assert tn.load(torch) is False
    err = capfd.readouterr().err
    assert err.count("rocdsl: warning: rocdsl.torch: native operators "
                     "unavailable") == 1
    assert "failed (exit" in err and "using the Python path" in err
    assert not loaded
    # Nothing half-written stays in the cache.
    assert not [p for p in cache.iterdir()] if cache.exists() else True


def test_on_makes_a_failed_build_an_error(monkeypatch, cache):
    monkeypatch.setenv("ROCDSL_TORCH_NATIVE", "1")
    torch, _ = stand_in_torch(monkeypatch)
    with pytest.raises(tn.Unavailable, match="failed \\(exit"):
        tn.load(torch)


def test_missing_compiler_and_old_abi_are_reported(monkeypatch, cache):
    torch, _ = stand_in_torch(monkeypatch)
    monkeypatch.setenv("CXX", "no-such-compiler-here")
    with pytest.raises(tn.Unavailable, match="no C\\+\\+ compiler "
                                              "'no-such-compiler-here'"):
        tn.build(torch)
    monkeypatch.delenv("CXX")
    torch._C._GLIBCXX_USE_CXX11_ABI = False
    with pytest.raises(tn.Unavailable, match="pre-C\\+\\+11 string ABI"):
        tn.build(torch)


def test_a_compiler_that_writes_nothing_is_not_cached(monkeypatch, cache):
    torch, _ = stand_in_torch(monkeypatch)
    monkeypatch.setenv("CXX", "true")  # exits 0, writes nothing
    with pytest.raises(tn.Unavailable, match="wrote no shared library"):
        tn.build(torch)
    assert not list(cache.iterdir())


def test_a_built_library_is_reused_per_pytorch_version(monkeypatch, cache,
                                                      tmp_path):
    """The cache key covers the PyTorch version: a library in the cache is
    loaded without compiling; another version would build anew."""
    fake_cxx = tmp_path / "fake-cxx"
    log = tmp_path / "calls"
    fake_cxx.write_text("#!/bin/sh\necho x >> %s\nwhile [ $# -gt 1 ]; do "
                        "shift; done\nprintf '\\177ELFstub' > \"$1\"\n" % log)
    fake_cxx.chmod(0o755)
    monkeypatch.setenv("CXX", str(fake_cxx))
    torch, _ = stand_in_torch(monkeypatch)
    first = tn.build(torch)
    assert tn.build(torch) == first
    assert log.read_text().count("x") == 1
    torch.__version__ = "2.99.1+test"
    second = tn.build(torch)
    assert second != first and log.read_text().count("x") == 2
    assert sorted(p.name for p in cache.iterdir()) == sorted(
        [os.path.basename(first), os.path.basename(second)])


def test_a_cached_library_that_does_not_load_is_rebuilt_once(monkeypatch,
                                                            cache, tmp_path,
                                                            capfd):
    fake_cxx = tmp_path / "fake-cxx"
    fake_cxx.write_text("#!/bin/sh\nwhile [ $# -gt 1 ]; do shift; done\n"
                        "printf '\\177ELFstub' > \"$1\"\n")
    fake_cxx.chmod(0o755)
    monkeypatch.setenv("CXX", str(fake_cxx))
    monkeypatch.delenv("ROCDSL_TORCH_NATIVE", raising=False)
    torch, loaded = stand_in_torch(monkeypatch)
    attempts = []

    def load_library(path):
        attempts.append(path)
        if len(attempts) == 1:
            raise OSError("stale library")
        loaded.append(path)
    torch.ops.load_library = load_library
    assert tn.load(torch) is True
    assert len(attempts) == 2 and loaded == [attempts[0]]
    assert "does not load (stale library); rebuilding it" in \
        capfd.readouterr().err


def test_libraries_go_where_the_runtime_caches(monkeypatch, tmp_path):
    """The runtime's one rule for the cache directory: ROCDSL_CACHE_DIR,
    else an absolute XDG_CACHE_HOME, else HOME; none set is an error the
    loader turns into the Python fall back."""
    for name in ("ROCDSL_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(tn.Unavailable, match="none of ROCDSL_CACHE_DIR, "
                                             "XDG_CACHE_HOME, HOME is set"):
        tn._cache_directory()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert tn._cache_directory() == str(tmp_path / "home" / ".cache" /
                                        "rocdsl" / "torch-native")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    assert tn._cache_directory().startswith(str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tn._cache_directory() == str(tmp_path / "xdg" / "rocdsl" /
                                        "torch-native")
    monkeypatch.setenv("ROCDSL_CACHE_DIR", str(tmp_path / "mine"))
    assert tn._cache_directory() == str(tmp_path / "mine" / "torch-native")
