"""The AMD user path through the runtime's HIP device, on emulated gfx942
and gfx950 (librocdsl-hip-emu.so, three devices: hip = gfx942, hip:1 =
gfx950, hip:2 = gfx942): kernels written in Python and every built-in op
against float64, explicit device memory, several devices in one process,
and the errors a user meets."""
import importlib.util
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from hip_emulated import use_emulated_hip

LIBRARY = use_emulated_hip(["gfx942", "gfx950", "gfx942"])

import rocdsl  # noqa: E402
import rocdsl.language as rl  # noqa: E402
import norm_reference as R  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "python-bindings" / "examples" / "softmax.py"
DEVICES = {"hip": "gfx942", "hip:1": "gfx950"}


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"seed {seed}")
    return np.random.default_rng(seed)


def load_example():
    spec = importlib.util.spec_from_file_location("softmax_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_devices_report_their_chips():
    assert rocdsl.device_count("hip") == 3
    for device, chip in DEVICES.items():
        ok, why = rocdsl.device_available(device)
        assert ok, why
        assert f"({chip}:sramecc+:xnack-," in rocdsl.describe_device(device)
    ok, why = rocdsl.device_available("hip:3")
    assert not ok and "hip device 3 does not exist (3 devices found)" in why


@pytest.mark.parametrize("device", sorted(DEVICES))
@pytest.mark.parametrize("dtype,m,n", [("f32", 37, 1000), ("bf16", 5, 3001),
                                       ("f16", 64, 128)])
def test_softmax_example_matches_float64(device, dtype, m, n, rng):
    example = load_example()
    x64, y = example.run_hip(m, n, dtype, 4, rng, device)
    ref = example.reference(x64)
    tol = example.TOLERANCE[dtype]
    assert np.isfinite(y).all()
    assert (np.abs(y - ref) <= tol * (1 + np.abs(ref))).all(), (
        f"max abs error {np.abs(y - ref).max():.3e}")


@pytest.mark.parametrize("chip", ["gfx942", "gfx950"])
def test_softmax_example_script_on_hip(chip):
    env = dict(os.environ, ROCDSL_EMU_CHIP=chip)
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--device", "hip", "--rows", "9",
         "--cols", "777", "--dtype", "bf16"],
        env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "softmax 9x777 bf16 on hip: max abs error" in out.stdout
    assert out.stdout.rstrip().endswith(": ok")


def _defs(n, m, dtype, wdtype):
    return [f"N={n}", f"M={m}", f"dtype={dtype}", f"wdtype={wdtype}",
            "eps=1e-5"]


@pytest.mark.parametrize("device", sorted(DEVICES))
@pytest.mark.parametrize("dtype,wdtype,m,n", [("bf16", "bf16", 5, 3001),
                                              ("f16", "f32", 17, 1000),
                                              ("f32", "f32", 1, 4096)])
def test_every_builtin_op_matches_float64(device, dtype, wdtype, m, n, rng):
    eps = 1e-5
    defs = _defs(n, m, dtype, wdtype)
    x, x64 = R.random((m, n), dtype, rng)
    r, r64 = R.random((m, n), dtype, rng)
    w, w64 = R.random((n,), wdtype, rng)
    dy, dy64 = R.random((m, n), dtype, rng)
    on = lambda a, d=dtype: rocdsl.device_array(a, device, dtype=d)
    poisoned = lambda shape, d=dtype: on(R.poison(shape, d), d)

    # rmsnorm_fwd through the public op
    y = rocdsl.run("rmsnorm_fwd", defs,
                   [on(x), on(w, wdtype), yd := poisoned((m, n)), m, eps],
                   device)
    assert y["tier"] in ("miss", "disk", "memory")
    R.assert_close("y", R.widen(yd.to_host(), dtype),
                   R.forward(x64, w64, eps), dtype)

    # rmsnorm_add_fwd: h = x + residual in dtype, y = rmsnorm(h)
    yd, hd = poisoned((m, n)), poisoned((m, n))
    rocdsl.run("rmsnorm_add_fwd", defs,
               [on(x), on(r), on(w, wdtype), yd, hd, m, eps], device)
    h64 = R.round_to(x64 + r64, dtype)
    R.assert_close("residual_out", R.widen(hd.to_host(), dtype), h64, dtype)
    R.assert_close("y", R.widen(yd.to_host(), dtype),
                   R.forward(h64, w64, eps), dtype)

    # rmsnorm_bwd + rmsnorm_bwd_dw, and the fused backward (dx + dh)
    g = dict((a[0], a[2]) for a in rocdsl.plan("rmsnorm_bwd", defs))
    groups = g["dw_partial"][0]
    dx_ref, dw_ref, dw_scale = R.backward(dy64, x64, w64, eps)
    dh, dh64 = R.random((m, n), dtype, rng)
    for fused in (False, True):
        dxd, partial = poisoned((m, n)), poisoned((groups, n), "f32")
        if fused:
            rocdsl.run("rmsnorm_add_bwd", defs,
                       [on(x), on(w, wdtype), on(dy), on(dh), dxd, partial,
                        m, eps], device)
        else:
            rocdsl.run("rmsnorm_bwd", defs,
                       [on(x), on(w, wdtype), on(dy), dxd, partial, m, eps],
                       device)
        dwd = poisoned((n,), wdtype)
        rocdsl.run("rmsnorm_bwd_dw", defs, [partial, dwd, groups], device)
        want = dx_ref + (dh64 if fused else 0)
        R.assert_close("dx", R.widen(dxd.to_host(), dtype), want, dtype,
                       scale=np.abs(want).max())
        R.assert_close("dw", R.widen(dwd.to_host(), wdtype), dw_ref, wdtype,
                       scale=dw_scale)


def test_rms_norm_op_keeps_data_on_its_device(rng):
    x, x64 = R.random((6, 640), "f32", rng)
    w, w64 = R.random((640,), "f32", rng)
    for device in DEVICES:
        y = rocdsl.rms_norm(rocdsl.device_array(x, device),
                            rocdsl.device_array(w, device), 1e-6)
        assert isinstance(y, rocdsl.DeviceArray) and y.device == device
        R.assert_close("y", y.to_host().astype(np.float64),
                       R.forward(x64, w64, 1e-6), "f32")
    with pytest.raises(ValueError, match="x is on hip, not hip:1"):
        rocdsl.rms_norm(rocdsl.device_array(x, "hip"),
                        rocdsl.device_array(w, "hip"), device="hip:1")


@rocdsl.kernel(num_warps=2)
def axpy(x: rl.ptr, y: rl.ptr, out: rl.ptr, a: rl.f32, n: rl.i32,
         BLOCK: rl.constexpr):
    start = rl.program_id(0) * BLOCK
    ok = rl.iota(BLOCK) + start < n
    v = (rl.load(x, [start], shape=[BLOCK], mask=ok).to("f32") * a
         + rl.load(y, [start], shape=[BLOCK], mask=ok).to("f32"))
    rl.store(v.to(out.dtype), out, [start], mask=ok)


def test_one_module_per_device_sharing_one_compile(rng):
    """hip and hip:2 are both gfx942: one compile, two loaded modules."""
    n = 1000
    x, x64 = R.random((n,), "f32", rng)
    y, y64 = R.random((n,), "f32", rng)
    launchers, compiles = {}, None
    for device in ("hip", "hip:2", "hip:1"):
        xd, yd = rocdsl.device_array(x, device), rocdsl.device_array(y, device)
        out = rocdsl.device_array(R.poison((n,), "f32"), device)
        before = rocdsl._rocdsl.cache_stats()["compiles"]
        spec = axpy[(n + 255) // 256,](xd, yd, out, 1.5, n, BLOCK=256)
        launchers[device] = spec.launcher_id
        if device == "hip:2":
            compiles = rocdsl._rocdsl.cache_stats()["compiles"] - before
        R.assert_close(f"out on {device}", out.to_host().astype(np.float64),
                       1.5 * x64 + y64, "f32")
    assert len(set(launchers.values())) == 3
    assert compiles == 0, "hip:2 has hip's chip: its code must be reused"


def test_arrays_on_the_wrong_device_are_refused(rng):
    x, _ = R.random((256,), "f32", rng)
    host = np.zeros(256, np.float32)
    dev0 = rocdsl.device_array(x, "hip")
    dev1 = rocdsl.device_array(x, "hip:1")
    with pytest.raises(ValueError, match="'y' on host; copy host arrays "
                                         "with rocdsl.device_array"):
        axpy[1,](dev0, host, dev0, 1.0, 256, BLOCK=256)
    with pytest.raises(ValueError, match="host memory cannot be used by a "
                       "launch on device 'hip:1'.*rocdsl.device_array"):
        axpy[1,](host, host, host, 1.0, 256, BLOCK=256, device="hip:1")
    with pytest.raises(ValueError, match="arguments live on different "
                                         "devices"):
        axpy[1,](dev0, dev1, dev0, 1.0, 256, BLOCK=256)
    with pytest.raises(ValueError, match="a NumPy array cannot be used by a "
                                         "launch on hip"):
        rocdsl.run("rmsnorm_fwd", _defs(256, 1, "f32", "f32"),
                   [x.reshape(1, 256), x, host.reshape(1, 256), 1, 1e-5],
                   "hip")
    with pytest.raises(ValueError, match="hip device 7 does not exist"):
        rocdsl.device_array(x, "hip:7")
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        rocdsl.empty(4, "f32", "gpu")


def test_device_arrays_copy_only_when_asked(rng):
    x, _ = R.random((3, 5), "f16", rng)
    d = rocdsl.device_array(x, "hip:1")
    assert (d.shape, d.dtype, d.device, d.nbytes) == ((3, 5), "f16", "hip:1",
                                                      30)
    np.testing.assert_array_equal(d.to_host(), x)
    with pytest.raises(ValueError, match="shape"):
        d.copy_from_host(np.zeros((5, 3), np.float16))
    with pytest.raises(ValueError, match="dtype float32 does not match f16"):
        d.copy_from_host(np.zeros((3, 5), np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        rocdsl.device_array(np.zeros((4, 4), np.float32)[:, ::2], "hip")
    assert rocdsl.empty((0, 7), "bf16", "hip").to_host().shape == (0, 7)


def test_launch_on_a_callers_stream(rng):
    """As the ROCm torch path does: (address, dtype, shape) arguments and a
    hipStream_t of the tensors' device."""
    from hip_emulated import HipApi
    hip = HipApi(LIBRARY)
    m, n = 4, 1024
    x, x64 = R.random((m, n), "bf16", rng)
    w, w64 = R.random((n,), "bf16", rng)
    for index, device in ((0, "hip"), (1, "hip:1")):
        stream = hip.stream(index)
        xd = rocdsl.device_array(x, device, dtype="bf16")
        wd = rocdsl.device_array(w, device, dtype="bf16")
        yd = rocdsl.device_array(R.poison((m, n), "bf16"), device, "bf16")
        before = hip.current_device()
        k = rocdsl.builtin("rmsnorm_fwd", _defs(n, m, "bf16", "bf16"), device)
        k.launch([(xd.data_ptr(), "bf16", (m, n)),
                  (wd.data_ptr(), "bf16", (n,)),
                  (yd.data_ptr(), "bf16", (m, n)), m, 1e-5], stream=stream)
        hip.synchronize(stream)
        assert hip.current_device() == before, "the caller's device changed"
        R.assert_close("y", R.from_bf16(yd.to_host()),
                       R.forward(x64, w64, 1e-5), "bf16")


def test_a_chip_rocdsl_does_not_support_is_one_clear_error():
    program = (
        "import numpy as np, rocdsl\n"
        "ok, why = rocdsl.device_available('hip')\n"
        "assert not ok and 'is gfx90a, which ROCDSL does not compile for "
        "(supported: gfx942, gfx950)' in why, why\n"
        "try:\n"
        "    rocdsl.run('rmsnorm_fwd', ['N=64', 'M=1', 'dtype=f32'], [], 'hip')\n"
        "except ValueError as e:\n"
        "    assert 'gfx90a' in str(e), e\n"
        "    print('refused:', e)\n")
    env = dict(os.environ, ROCDSL_EMU_CHIP="gfx90a")
    out = subprocess.run([sys.executable, "-c", program], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "refused: hip device 0" in out.stdout
