"""Console entry points of an installed package (pip puts rocdsl-compile,
rocdsl-opt, rocdsl-run, rocdsl-isa-check and rocdsl-emu on PATH): each
replaces the Python process with the tool installed in rocdsl/bin."""
import os
import pathlib
import sys

_BIN = pathlib.Path(__file__).resolve().parent / "bin"


def _exec(tool):
    path = _BIN / tool
    if not path.is_file():
        sys.exit(f"{tool}: not installed with this rocdsl package "
                 f"(expected {path}); install the package with pip")
    os.execv(str(path), [tool] + sys.argv[1:])


def compile():
    _exec("rocdsl-compile")


def opt():
    _exec("rocdsl-opt")


def run():
    _exec("rocdsl-run")


def isa_check():
    _exec("rocdsl-isa-check")


def emu():
    _exec("rocdsl-emu")
