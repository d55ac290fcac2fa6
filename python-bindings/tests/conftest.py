"""Imports `rocdsl` from the source tree with a built extension.

The package's .py files are taken from python-bindings/rocdsl (so edits are
tested without a rebuild) and `_rocdsl` from the first `rocdsl` package on
sys.path that has it (PYTHONPATH: build/python under CTest, the bundle's
directory on a GPU machine), else from the build tree (ROCDSL_BUILD_DIR,
default build/). While the extension predates _rocdsl.default_layout /
wave_size, test-only transcriptions stand in (layout_stub.py).
"""
import importlib.machinery
import importlib.util
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ROCDSL_BUILD_DIR", ROOT / "build"))
SOURCE_PACKAGE = ROOT / "python-bindings" / "rocdsl"


def _extension_dir():
    candidates = []
    spec = importlib.machinery.PathFinder.find_spec("rocdsl")
    if spec is not None and spec.submodule_search_locations:
        candidates += list(spec.submodule_search_locations)
    candidates.append(str(BUILD / "python" / "rocdsl"))
    for d in candidates:
        if any(pathlib.Path(d).glob("_rocdsl*.so")):
            return d
    return candidates[-1]


def _import_rocdsl():
    spec = importlib.util.spec_from_file_location(
        "rocdsl", SOURCE_PACKAGE / "__init__.py",
        submodule_search_locations=[str(SOURCE_PACKAGE), _extension_dir()])
    module = importlib.util.module_from_spec(spec)
    sys.modules["rocdsl"] = module
    spec.loader.exec_module(module)
    return module


def _stub_layouts():
    import rocdsl._rocdsl as ext
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import layout_stub
    if not hasattr(ext, "default_layout"):
        ext.default_layout = layout_stub.default_layout
    if not hasattr(ext, "wave_size"):
        ext.wave_size = layout_stub.wave_size


if "rocdsl" not in sys.modules:
    _import_rocdsl()
_stub_layouts()


def pytest_collection_modifyitems(config, items):
    """ROCDSL_PYTEST_FUNCTION=name keeps only the tests of the function
    `name` (each of its parametrizations): CTest runs every test function
    of a file as its own entry, with its own timeout. Nothing left (a file
    skipped at import, on a machine without its GPU) exits 5, which CTest
    shows as skipped."""
    only = os.environ.get("ROCDSL_PYTEST_FUNCTION")
    if not only:
        return
    keep, dropped = [], []
    for item in items:
        name = getattr(item, "originalname", item.name)
        (keep if name == only else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep
