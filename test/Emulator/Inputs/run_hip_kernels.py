"""Drives clang-compiled HIP kernels through librocdsl-hip-emu.so with
ordinary HIP API calls (ctypes) and checks every output with NumPy against
float64 on fresh random inputs; outputs are poisoned with NaN first.

usage: run_hip_kernels.py LIBRARY CODE_OBJECT CHIP [OTHER_CHIP_CODE_OBJECT]
Prints one "PASS <kernel>" line per kernel, "FAIL ..." otherwise."""
import ctypes
import sys

import numpy as np

import hip_ctypes

lib_path, hsaco_path, chip = sys.argv[1:4]
other = sys.argv[4] if len(sys.argv) > 4 else None
api = hip_ctypes.Hip(lib_path, chip)
hip = api.lib
check = api.check
rng = np.random.default_rng()
failed = False

check(hip.hipInit(0), "hipInit")
count = ctypes.c_int()
check(hip.hipGetDeviceCount(ctypes.byref(count)), "hipGetDeviceCount")
props = ctypes.create_string_buffer(792)
check(hip.hipGetDeviceProperties(props, 0), "hipGetDeviceProperties")
arch = props.raw[396:396 + 256].split(b"\0")[0].decode()
print("device count %d, gcnArchName %s" % (count.value, arch))
props6 = ctypes.create_string_buffer(1472)  # HIP 6's hipDeviceProp_tR0600
check(hip.hipGetDevicePropertiesR0600(props6, 0), "hipGetDevicePropertiesR0600")
print("R0600 gcnArchName %s, warpSize %d" % (props6.raw[1160:1416].split(b"\0")[0].decode(),
                                               int.from_bytes(props6.raw[308:312], "little")))
warp = ctypes.c_int()
check(hip.hipDeviceGetAttribute(ctypes.byref(warp), 87, 0), "hipDeviceGetAttribute")
print("warpSize", warp.value)

image = open(hsaco_path, "rb").read()
module = ctypes.c_void_p()
check(hip.hipModuleLoadData(ctypes.byref(module), image), "hipModuleLoadData")
if other:
    wrong = ctypes.c_void_p()
    err = hip.hipModuleLoadData(ctypes.byref(wrong), open(other, "rb").read())
    print("other chip's code object:", hip.hipGetErrorName(err).decode())

# A copy kind past hipMemcpyKind's last value is refused, not guessed; the
# host buffer is left as it was.
scratch = ctypes.c_void_p()
check(hip.hipMalloc(ctypes.byref(scratch), ctypes.c_size_t(16)), "hipMalloc")
host = ctypes.create_string_buffer(b"\x5a" * 16, 16)
err = hip.hipMemcpy(host, scratch, ctypes.c_size_t(16), 7)
print("unknown copy kind 7:", hip.hipGetErrorName(err).decode(),
      "host unchanged" if host.raw == b"\x5a" * 16 else "host WRITTEN")
check(hip.hipFree(scratch), "hipFree")


class Device(hip_ctypes.Device):
    """A device copy of a NumPy array on this run's emulated device."""

    def __init__(self, array):
        super().__init__(api, array)


def poisoned(shape, dtype):
    a = np.empty(shape, dtype)
    a.fill(np.nan if np.issubdtype(dtype, np.floating) else 0x7bad7bad)
    return a


def launch(name, grid, block, args, use_extra=False):
    fn = ctypes.c_void_p()
    check(hip.hipModuleGetFunction(ctypes.byref(fn), module, name.encode()), "hipModuleGetFunction")
    values = []
    for a in args:
        values.append(ctypes.c_void_p(a.ptr.value) if isinstance(a, Device) else a)
    start, stop = ctypes.c_void_p(), ctypes.c_void_p()
    hip.hipEventCreate(ctypes.byref(start))
    hip.hipEventCreate(ctypes.byref(stop))
    hip.hipEventRecord(start, None)
    if use_extra:
        # The kernarg buffer laid out by hand: 8-byte pointers here.
        packed = b"".join(bytes(v) for v in values)
        buf = ctypes.create_string_buffer(packed, len(packed))
        size = ctypes.c_size_t(len(packed))
        extra = (ctypes.c_void_p * 5)(1, ctypes.cast(buf, ctypes.c_void_p), 2,
                                      ctypes.cast(ctypes.pointer(size), ctypes.c_void_p), 3)
        err = hip.hipModuleLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, None, None, extra)
    else:
        params = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])
        err = hip.hipModuleLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, None, params, None)
    check(err, "launch " + name)
    hip.hipEventRecord(stop, None)
    ms = ctypes.c_float()
    check(hip.hipEventElapsedTime(ctypes.byref(ms), start, stop), "hipEventElapsedTime")


def expect(name, got, want, rtol, atol):
    global failed
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    ok = got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=atol) \
        and np.isfinite(got).all()
    if ok:
        print("PASS", name)
    else:
        failed = True
        print("FAIL", name, "max err", np.nanmax(np.abs(got - want)), "non-finite",
              int((~np.isfinite(got)).sum()))


n = 1000 + int(rng.integers(0, 100))
x = rng.standard_normal(n).astype(np.float32)
y = rng.standard_normal(n).astype(np.float32)
dy = Device(y)
launch("saxpy", (n + 255) // 256, 256, [ctypes.c_float(1.5), Device(x), dy, ctypes.c_int(n)])
expect("saxpy", dy.get(), 1.5 * x.astype(np.float64) + y, 1e-6, 1e-6)

m = 5000
big = rng.standard_normal(m).astype(np.float32)
sums = Device(poisoned(4, np.float32))
launch("block_sum", 4, 256, [Device(big), sums, ctypes.c_int(m)], use_extra=True)
# Every workgroup sums the whole array with a stride of the grid size.
got = sums.get()
idx = [np.array([i for i in range(g * 256, m) if (i - g * 256) % 1024 < 256 and i >= g * 256])
       for g in range(4)]
want = np.array([big[i].astype(np.float64).sum() for i in idx])
expect("block_sum", got, want, 1e-4, 1e-3)

w = rng.standard_normal(256).astype(np.float32)
wm = Device(poisoned(256, np.float32))
launch("wave_max", 4, 64, [Device(w), wm])
expect("wave_max", wm.get(), np.repeat(w.reshape(4, 64).max(axis=1), 64), 0, 0)

k = 777
hh = rng.standard_normal(k).astype(np.float16)
bb32 = rng.standard_normal(k).astype(np.float32)
bb = (bb32.view(np.uint32) >> 16).astype(np.uint16)  # bf16 by truncation
num = rng.integers(-10000, 10000, k).astype(np.int32)
den = rng.integers(1, 97, k).astype(np.int32) * rng.choice([-1, 1], k).astype(np.int32)
f, q, d = Device(poisoned(k, np.float32)), Device(poisoned(k, np.int32)), Device(poisoned(k, np.float64))
launch("mixed", (k + 127) // 128, 128, [Device(hh), Device(bb), Device(num), Device(den), f, q, d, ctypes.c_int(k)])
bval = (bb.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
expect("mixed/half_bf16", f.get(), hh.astype(np.float64) * 2 + bval, 1e-6, 1e-6)
cq = np.trunc(num / den).astype(np.int64)
expect("mixed/int_div", q.get(), cq + (num - cq * den), 0, 0)
expect("mixed/f64", d.get(), np.sqrt(num.astype(np.float64) ** 2 + 1) / 3, 1e-15, 0)

a_count = 3000
xa = rng.standard_normal(a_count).astype(np.float32)
total = Device(np.zeros(1, np.float32))
hist = Device(np.zeros(16, np.uint32))
launch("atomics", (a_count + 255) // 256, 256, [Device(xa), total, hist, ctypes.c_int(a_count)])
expect("atomics/float_sum", total.get(), [xa.astype(np.float64).sum()], 1e-4, 1e-3)
buckets = np.minimum((xa * np.float32(4) + np.float32(8)).astype(np.int64).clip(min=0), 15)
expect("atomics/histogram", hist.get(), np.bincount(buckets, minlength=16), 0, 0)


pa = rng.integers(0, 1 << 20, 256).astype(np.int32)
po = Device(np.full(256, np.nan, np.float32))
launch("private_array", 2, 128, [Device(pa), po])
t = np.arange(256, dtype=np.float32)
ref = ((pa & 63).astype(np.float32) * t + np.float32(0.5)) - (((pa + 7) & 63).astype(np.float32) * t + np.float32(0.5))
expect("private_array (scratch)", po.get(), ref.astype(np.float64), 0, 0)


def bf16(a):
    bits = a.astype(np.float32).view(np.uint32)
    bits = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16  # round to nearest even
    return bits.astype(np.uint16), (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


A, Af = bf16(rng.standard_normal((32, 8)))
B, Bf = bf16(rng.standard_normal((8, 32)))
D = Device(poisoned((32, 32), np.float32))
launch("mfma_32x32x8_bf16", 1, 64, [Device(A), Device(B), D])
expect("mfma_32x32x8_bf16", D.get(), Af @ Bf, 1e-5, 1e-5)

Ah = rng.standard_normal((16, 16)).astype(np.float16)
Bh = rng.standard_normal((16, 16)).astype(np.float16)
C = rng.standard_normal((16, 16)).astype(np.float32)
D = Device(poisoned((16, 16), np.float32))
launch("mfma_16x16x16_f16", 1, 64, [Device(Ah), Device(Bh), Device(C), D])
expect("mfma_16x16x16_f16", D.get(), Ah.astype(np.float64) @ Bh.astype(np.float64) + C, 1e-5, 1e-5)

if chip == "gfx950":
    A, Af = bf16(rng.standard_normal((16, 32)))
    B, Bf = bf16(rng.standard_normal((32, 16)))
    D = Device(poisoned((16, 16), np.float32))
    launch("mfma_16x16x32_bf16", 1, 64, [Device(A), Device(B), D])
    expect("mfma_16x16x32_bf16", D.get(), Af @ Bf, 1e-5, 1e-5)

check(hip.hipModuleUnload(module), "hipModuleUnload")
sys.exit(1 if failed else 0)
