"""Puts the emulated HIP runtime behind the `hip` device for a test file.

Call use_emulated_hip(chips) before anything touches HIP (the runtime reads
its library and devices once per process): CTest passes the emulator's
path in ROCDSL_TEST_HIP_EMU; where that is unset (a GPU machine without
the emulator) the file's tests are skipped. Under CTest a missing library
is a failure, not a skip.
"""
import ctypes
import os
import pathlib

import pytest


def use_emulated_hip(chips):
    library = os.environ.get("ROCDSL_TEST_HIP_EMU")
    if not library:
        pytest.skip("ROCDSL_TEST_HIP_EMU is not set (no emulated HIP "
                    "runtime here)", allow_module_level=True)
    if not pathlib.Path(library).is_file():
        raise FileNotFoundError(f"ROCDSL_TEST_HIP_EMU={library} does not "
                                f"exist; build librocdsl-hip-emu first")
    os.environ["ROCDSL_HIP_LIBRARY"] = library
    os.environ["ROCDSL_EMU_CHIP"] = ",".join(chips)
    return library


class HipApi:
    """The few HIP calls tests make themselves (streams), through ctypes on
    the same library the runtime loaded."""

    def __init__(self, library):
        self.lib = ctypes.CDLL(library)
        self.lib.hipStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        self.lib.hipSetDevice.argtypes = [ctypes.c_int]
        self.lib.hipGetDevice.argtypes = [ctypes.POINTER(ctypes.c_int)]
        self.lib.hipStreamSynchronize.argtypes = [ctypes.c_void_p]

    def _ok(self, err, what):
        if err != 0:
            raise RuntimeError(f"{what} failed with hipError {err}")

    def stream(self, device):
        """A new hipStream_t of `device`, as an int."""
        previous = self.current_device()
        self._ok(self.lib.hipSetDevice(device), "hipSetDevice")
        s = ctypes.c_void_p()
        self._ok(self.lib.hipStreamCreate(ctypes.byref(s)), "hipStreamCreate")
        self._ok(self.lib.hipSetDevice(previous), "hipSetDevice")
        return s.value

    def current_device(self):
        d = ctypes.c_int(-1)
        self._ok(self.lib.hipGetDevice(ctypes.byref(d)), "hipGetDevice")
        return d.value

    def synchronize(self, stream):
        self._ok(self.lib.hipStreamSynchronize(stream), "hipStreamSynchronize")
