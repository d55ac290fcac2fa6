"""Runs the code objects Triton 3.6's AMD backend produced (triton/, see
triton/generate.py) through librocdsl-hip-emu.so with plain HIP API calls,
and checks them with NumPy against float64 on fresh random inputs (outputs
poisoned with NaN first).

usage: run_triton_kernels.py LIBRARY DIR CHIP"""
import ctypes
import json
import os
import sys

import numpy as np

import hip_ctypes

lib_path, directory, chip = sys.argv[1:4]
api = hip_ctypes.Hip(lib_path, chip)
hip = api.lib
check = api.check
seed = int(os.environ.get("ROCDSL_TEST_SEED", np.random.SeedSequence().entropy))
print("seed", seed)  # ROCDSL_TEST_SEED=<seed> reproduces a run
rng = np.random.default_rng(seed)
failed = False

check(hip.hipInit(0), "hipInit")
records = {r["name"]: r for r in json.load(open(os.path.join(directory, "kernels.json")))
           if r["chip"] == chip}


class Device(hip_ctypes.Device):
    """A device copy of a NumPy array on this run's emulated device."""

    def __init__(self, array):
        super().__init__(api, array)


def run(name, grid, args):
    r = records[name]
    module, fn = ctypes.c_void_p(), ctypes.c_void_p()
    image = open(os.path.join(directory, "%s-%s.hsaco" % (name, chip)), "rb").read()
    check(hip.hipModuleLoadData(ctypes.byref(module), image), "hipModuleLoadData " + name)
    check(hip.hipModuleGetFunction(ctypes.byref(fn), module, r["symbol"].encode()), "hipModuleGetFunction")
    # Triton 3.6 kernels take two trailing scratch pointers (null here).
    values = [ctypes.c_void_p(a.ptr.value) if isinstance(a, Device) else a for a in args]
    values += [ctypes.c_void_p(0), ctypes.c_void_p(0)]
    params = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])
    gx, gy = grid
    check(hip.hipModuleLaunchKernel(fn, gx, gy, 1, 64 * r["num_warps"], 1, 1, r["shared"], None, params, None),
          "launch " + name)


def expect(name, got, want, rtol, atol):
    """`atol` may be an array (a bound per element)."""
    global failed
    got = np.asarray(got, np.float64)
    ok = np.isfinite(got).all() and bool((np.abs(got - want) <= atol + rtol * np.abs(want)).all())
    failed |= not ok
    print("PASS" if ok else "FAIL", name, "" if ok else "max err %g" % np.nanmax(np.abs(got - want)))


def bf16_bits(a):
    bits = a.astype(np.float32).view(np.uint32)
    return ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


n = 5000 + int(rng.integers(0, 1000))
x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
out = Device(np.full(n, np.nan, np.float32))
run("add", ((n + 1023) // 1024, 1), [Device(x), Device(y), out, ctypes.c_int(n)])
expect("triton add f32", out.get(), (x + y).astype(np.float64), 0, 0)  # one f32 rounding

rows, cols = 7, 1000
xs = bf16_bits(rng.standard_normal((rows, cols)) * 3)
out = Device(np.full((rows, cols), 0x7fc0, np.uint16))
run("softmax", (rows, 1), [Device(xs), out, ctypes.c_int(cols), ctypes.c_int(cols)])
xv = bf16_value(xs)
e = np.exp(xv - xv.max(axis=1, keepdims=True))
expect("triton softmax bf16", bf16_value(out.get()), e / e.sum(axis=1, keepdims=True), 1e-2, 1e-3)

rows, cols = 5, 1500
xh = rng.standard_normal((rows, cols)).astype(np.float16)
wh = rng.standard_normal(cols).astype(np.float16)
bh = rng.standard_normal(cols).astype(np.float16)
out = Device(np.full((rows, cols), np.nan, np.float16))
run("layernorm", (rows, 1), [Device(xh), Device(wh), Device(bh), out, ctypes.c_int(cols), ctypes.c_int(cols),
                             ctypes.c_float(1e-5)])
xd = xh.astype(np.float64)
mu = xd.mean(axis=1, keepdims=True)
ref = (xd - mu) / np.sqrt(((xd - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5) * wh + bh
expect("triton layernorm f16", out.get(), ref, 5e-3, 5e-3)

M, N, K = 128, 64, 96
a = bf16_bits(rng.standard_normal((M, K)))
b = bf16_bits(rng.standard_normal((K, N)))
want = bf16_value(a) @ bf16_value(b)
for name, b_layout in [("matmul", b), ("matmul16", b), ("matmul_bt", np.ascontiguousarray(b.T)),
                       ("matmul_bt16", np.ascontiguousarray(b.T))]:
    # B row-major (stride N) or stored N x K (stride K).
    stride_b = N if b_layout is b else K
    c = Device(np.full((M, N), np.nan, np.float32))
    run(name, (M // 64, N // 64), [Device(a), Device(b_layout), c, ctypes.c_int(M), ctypes.c_int(N),
                                   ctypes.c_int(K), ctypes.c_int(K), ctypes.c_int(stride_b), ctypes.c_int(N)])
    expect("triton %s bf16 (tl.dot)" % name, c.get(), want, 1e-4, 1e-4)


def fp8_values(codes):
    """e4m3 codes as float64: FNUZ (bias 8, NaN 0x80) on gfx942, OCP e4m3fn
    (bias 7, NaN 0x7f/0xff) on gfx950."""
    bias = 8 if chip == "gfx942" else 7
    c = codes.astype(np.int64)
    sign = np.where(c & 0x80, -1.0, 1.0)
    exp = (c >> 3) & 0xf
    man = c & 7
    value = np.where(exp == 0, man * 2.0 ** (1 - bias - 3), (8 + man) * 2.0 ** (exp - bias - 3))
    return sign * value


def random_fp8(shape):
    codes = rng.integers(0, 256, shape).astype(np.uint8)
    if chip == "gfx942":
        codes[codes == 0x80] = 0  # FNUZ NaN
    else:
        codes[(codes & 0x7f) == 0x7f] = 0  # OCP NaN
    return codes


M, N, K = 64, 64, 128
a8, b8 = random_fp8((M, K)), random_fp8((N, K))  # B stored N x K
want = fp8_values(a8) @ fp8_values(b8).T
# The products are exact in f32; the K - 1 additions round, each by at most
# half an ulp of a partial sum, which is bounded by the sum of |products|:
# a result that cancels to near zero can carry the rounding of large
# partial sums (e4m3 reaches 240 / 448), so the bound is per element.
fp8_bound = 1e-2 + K * 2.0 ** -24 * (np.abs(fp8_values(a8)) @ np.abs(fp8_values(b8)).T)
for name in ("matmul_fp8", "matmul_fp8_16", "matmul_fp8_bt", "matmul_fp8_bt16"):
    # B row-major (K x N, stride N: gfx950 reads it with ds_read_b64_tr_b8)
    # or stored N x K (stride K).
    bt = "_bt" in name
    b_arg = b8 if bt else np.ascontiguousarray(b8.T)
    c = Device(np.full((M, N), np.nan, np.float32))
    run(name, (M // 64, N // 64), [Device(a8), Device(b_arg), c, ctypes.c_int(M), ctypes.c_int(N),
                                   ctypes.c_int(K), ctypes.c_int(K), ctypes.c_int(K if bt else N),
                                   ctypes.c_int(N)])
    expect("triton %s (tl.dot, the chip's e4m3)" % name, c.get(), want, 0, fp8_bound)
sys.exit(1 if failed else 0)
