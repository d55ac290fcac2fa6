"""The HIP API through ctypes on librocdsl-hip-emu.so, shared by the
emulator's lit drivers (run_hip_kernels.py, run_triton_kernels.py): the
library opened for one emulated chip, a call checker, and device copies of
NumPy arrays."""
import ctypes
import os

import numpy as np


class Hip:
    def __init__(self, lib_path, chip):
        os.environ["ROCDSL_EMU_CHIP"] = chip  # read when the library loads
        self.lib = ctypes.CDLL(lib_path)
        self.lib.hipGetErrorName.restype = ctypes.c_char_p
        self.lib.rocdslEmuGetLastErrorMessage.restype = ctypes.c_char_p

    def check(self, err, what):
        """Ends the run with one FAIL line naming the call and why."""
        if err != 0:
            raise SystemExit("FAIL %s: %s (%s)" % (
                what, self.lib.hipGetErrorName(err).decode(),
                self.lib.rocdslEmuGetLastErrorMessage().decode()))


class Device:
    """A device copy of a NumPy array, freed with the object."""

    def __init__(self, hip, array):
        self.hip = hip
        self.host = np.ascontiguousarray(array)
        self.ptr = ctypes.c_void_p()
        hip.check(hip.lib.hipMalloc(ctypes.byref(self.ptr),
                                    ctypes.c_size_t(self.host.nbytes)),
                  "hipMalloc")
        hip.check(hip.lib.hipMemcpy(self.ptr,
                                    self.host.ctypes.data_as(ctypes.c_void_p),
                                    ctypes.c_size_t(self.host.nbytes), 1),
                  "hipMemcpy H2D")

    def get(self):
        out = np.empty_like(self.host)
        self.hip.check(self.hip.lib.hipMemcpy(
            out.ctypes.data_as(ctypes.c_void_p), self.ptr,
            ctypes.c_size_t(out.nbytes), 2), "hipMemcpy D2H")
        return out

    def __del__(self):
        self.hip.lib.hipFree(self.ptr)
