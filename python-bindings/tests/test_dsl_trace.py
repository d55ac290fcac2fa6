"""Tracing @rocdsl.kernel functions to rocdsl IR: the text parses, verifies
and lowers with rocdsl-opt; constexprs specialize; errors name the
kernel's Python line (tracer errors directly, verifier errors through the
ops' locations)."""
import os
import pathlib
import re
import subprocess

import pytest

import rocdsl
import rocdsl.language as rl
from rocdsl import _rocdsl

import dsl_kernels as K
import layout_stub

BUILD = pathlib.Path(os.environ.get(
    "ROCDSL_BUILD_DIR", pathlib.Path(__file__).resolve().parents[2] / "build"))
ROCDSL_OPT = BUILD / "bin" / "rocdsl-opt"
ROCDSL_COMPILE = BUILD / "bin" / "rocdsl-compile"
THIS_FILE = __file__

needs_opt = pytest.mark.skipif(not ROCDSL_OPT.exists(),
                               reason=f"{ROCDSL_OPT} is not built")
needs_source_kernel = pytest.mark.skipif(
    not hasattr(_rocdsl, "SourceKernel"),
    reason="the _rocdsl extension has no SourceKernel yet")


def opt(text, *flags):
    """rocdsl-opt on `text`: (exit code, stdout, stderr)."""
    p = subprocess.run([str(ROCDSL_OPT), "-", *flags], input=text,
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def line_of(marker, path=THIS_FILE):
    """The 1-based line of `path` that contains `marker`."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if marker in line:
                return n
    raise AssertionError(f"no line with {marker!r}")


# Specializations traced for the IR tests, with the pipelines they must
# pass: every kernel lowers to the host, AMD and NVIDIA.
TRACED = {
    "softmax": (K.softmax, dict(N=1024)),
    "softmax_masked": (K.softmax_masked,
                       dict(x="bf16", y="bf16", ROWS=4, BLOCK=1024)),
    "swiglu": (K.swiglu, dict(a="f16", b="f16", out="f16", BLOCK=512)),
    "swiglu_rows": (K.swiglu_rows,
                    dict(a="f32", b="f32", out="f32", BLOCK=256, VEC=4)),
    "row_sum": (K.row_sum, dict(BLOCK=128)),
    "matmul": (K.matmul, dict(a="bf16", b="bf16", BM=32, BN=64, BK=16)),
    "many_ops": (K.many_ops, dict(B=256, SQUARE=True)),
}


@needs_opt
@pytest.mark.parametrize("name", sorted(TRACED))
def test_ir_round_trips_and_lowers_to_host(name):
    kernel, kwargs = TRACED[name]
    text = kernel.ir(**kwargs)
    rc, printed, err = opt(text)
    assert rc == 0, err + text
    rc, again, err = opt(printed)
    assert rc == 0 and again == printed, err
    rc, _, err = opt(text, "--rocdsl-to-host")
    assert rc == 0, err + text


@needs_opt
@pytest.mark.parametrize("name", sorted(TRACED))
def test_ir_lowers_to_gpus(name):
    kernel, kwargs = TRACED[name]
    for chip in ("gfx942", "gfx950"):
        rc, _, err = opt(kernel.ir(device="hip", **kwargs),
                         f"--rocdsl-to-rocdl=chip={chip}")
        assert rc == 0, err
    rc, _, err = opt(kernel.ir(device="cuda", **kwargs),
                     "--rocdsl-to-nvvm=chip=sm_90")
    assert rc == 0, err


@needs_opt
def test_dot_lowers_to_mma_sync_on_nvidia():
    text = K.matmul.ir(device="cuda", a="f16", b="f16", BM=32, BN=32, BK=16)
    assert "#rocdsl.mma<version = 2, instrShape = [16, 8, 16]" in text
    rc, lowered, err = opt(text, "--rocdsl-to-nvvm=chip=sm_90")
    assert rc == 0, err
    assert "nvvm.mma.sync" in lowered


def test_dot_shape_errors_on_nvidia_name_the_line():
    with pytest.raises(rocdsl.CompilationError) as info:
        K.matmul.ir(device="cuda", a="f16", b="f16", BM=32, BN=36, BK=16)
    dot_line = line_of("return rl.dot(at, bt, acc)", K.__file__)
    assert str(info.value).startswith(f"{K.__file__}:{dot_line}:"), info.value
    assert "multiples of 16, 8 and 16" in str(info.value)


def test_the_issue_example_traces_to_the_cpp_dsl_ops():
    text = K.softmax.ir(N=1024, device="host")
    layout = ("#rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = "
              "[1, 64], warpsPerCTA = [1, 4], order = [1, 0]>")
    assert f"#layout0 = {layout}" in text
    assert re.search(r"rocdsl\.func @softmax\(%x: !rocdsl\.ptr<f32>, "
                     r"%y: !rocdsl\.ptr<f32>, %n_rows: i32\) attributes "
                     r"\{num_warps = 4 : i32\}", text)
    for op in ["rocdsl.program_id x : i32",
               "strides [%", "bounds [%n_rows, %", "other(%",
               "rocdsl.reduce max", "rocdsl.reduce add",
               "-> tensor<1xf32, #rocdsl.slice<dim = 1, parent = #layout0>>",
               "rocdsl.expand_dims", "{axis = 1 : i32}", "rocdsl.broadcast",
               "arith.subf", "math.exp", "arith.divf", "rocdsl.store"]:
        assert op in text, op
    assert "arith.constant 0xFF800000 : f32" in text  # -inf


def test_every_op_carries_its_python_location():
    text = K.many_ops.ir(B=256, SQUARE=True)
    body = text[text.index("rocdsl.func"):].splitlines()[1:]
    for line in body:
        s = line.strip()
        if s in ("}", "") or s.endswith("{"):
            continue
        assert f'loc("{K.__file__}":' in s, s
    where = line_of("w = rl.sqrt(rl.abs(w))", K.__file__)
    assert re.search(rf'math\.sqrt .* loc\("{re.escape(K.__file__)}":'
                     rf'{where}:\d+\)', text)


def test_constexprs_specialize():
    a = K.softmax.ir(N=1024)
    b = K.softmax.ir(N=512)
    assert "tensor<1x1024xf32" in a and "tensor<1x512xf32" in b
    assert "arith.constant 512 : i32" in b
    assert K.softmax.specialize(N=1024) is K.softmax.specialize(N=1024)
    assert K.softmax.specialize(N=1024) is not K.softmax.specialize(N=512)
    # A constexpr in Python control flow changes the traced ops.
    squared = K.many_ops.ir(B=256, SQUARE=True)
    plain = K.many_ops.ir(B=256, SQUARE=False)
    assert squared.count("arith.mulf") == plain.count("arith.mulf") + 1
    # Defaults of constexpr parameters apply.
    assert "vec = 4" not in K.swiglu_rows.ir(a="f32", b="f32", out="f32",
                                             BLOCK=256)


def test_pointer_dtypes_and_devices_specialize():
    f16 = K.swiglu.ir(a="f16", b="f16", out="f16", BLOCK=2048)
    f32 = K.swiglu.ir(a="f32", b="f32", out="f32", BLOCK=2048)
    assert "!rocdsl.ptr<f16>" in f16 and "arith.extf" in f16
    # 16-bit memory gets 8 elements (128 bits) per lane, 32-bit 4.
    assert "sizePerThread = [8]" in f16 and "sizePerThread = [4]" in f32
    # CUDA waves have 32 lanes, so its layouts differ from the host's.
    assert "threadsPerWarp = [1, 32]" in K.softmax.ir(N=1024, device="cuda")
    with pytest.raises(rocdsl.CompilationError, match="pointer `a` has no "
                                                      "dtype"):
        K.swiglu.ir(BLOCK=512)
    with pytest.raises(rocdsl.CompilationError, match="declared f32, got f16"):
        K.softmax.ir(N=1024, x="f16")


def test_layout_inference_follows_slices():
    text = K.softmax_masked.ir(x="f32", y="f32", ROWS=4, BLOCK=1024)
    # The column iota is the slice of the 2-D layout it is broadcast into.
    assert re.search(r"rocdsl\.iota : tensor<1024xi32, #rocdsl\.slice<dim = 0"
                     r", parent = #layout0>>", text)
    assert "mask(%" in text and "arith.select" in text


def test_explicit_layouts():
    L = rl.blocked([1, 4], [4, 16], [2, 2], [1, 0])

    @rocdsl.kernel(num_warps=4)
    def k(x: rl.ptr("f32"), N: rl.constexpr):
        t = rl.load(x, [0, 0], shape=[16, N], strides=[N], layout=L)
        w = rl.load(x, [0], shape=[N], layout=L.slice(0))
        cols = rl.iota(N, layout=t.layout.slice(0))
        rl.store(t * w + cols.to("f32"), x, [0, 0], strides=[N])
    text = k.ir(N=64)
    assert "#layout0 = #rocdsl.blocked<sizePerThread = [1, 4], " \
           "threadsPerWarp = [4, 16], warpsPerCTA = [2, 2]" in text
    if ROCDSL_OPT.exists():
        assert opt(text)[0] == 0


# Layout defaults ------------------------------------------------------------

LAYOUT_CASES = [([1, 1024], 32, 4, 64), ([256], 16, 4, 64), ([32, 16], 16, 4, 64),
                ([4, 1024], 32, 8, 32), ([3, 5], 32, 2, 64), ([1, 128], 32, 4, 32),
                ([2, 4, 8], 16, 4, 64), ([64, 64], 32, 16, 64)]


@pytest.mark.skipif(not hasattr(_rocdsl, "default_layout") or
                    _rocdsl.default_layout is layout_stub.default_layout,
                    reason="the extension has no default_layout yet")
@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_layout_stub_matches_the_extension(case):
    assert layout_stub.default_layout(*case) == _rocdsl.default_layout(*case)


@pytest.mark.parametrize("case,per_lane", [
    (([1024], 16, 4, 64), 4),     # 1024 elements over 256 lanes: 4 each
    (([1024], 16, 4, 64, 8), 8),  # an explicit vec=8 keeps 128 bits
    (([4096], 16, 4, 64), 8),     # enough elements: 128 bits per lane
    (([1024], 32, 2, 64), 4),
    (([2, 64], 32, 4, 64), 1),    # 128 elements over 256 lanes
    (([8, 512], 16, 8, 32), 8)])
def test_default_layouts_replicate_no_lanes(case, per_lane):
    """No more elements per lane than the tile has for each lane, so no
    lane or wave repeats another's work, unless an explicit vec asks."""
    text = _rocdsl.default_layout(*case)
    spt = re.search(r"sizePerThread = \[([\d, ]+)\]", text).group(1)
    assert int(spt.split(",")[-1]) == per_lane, text
    assert layout_stub.default_layout(*case) == text


@rocdsl.kernel
def widen_add(x: rl.ptr, r: rl.ptr, y: rl.ptr, n: rl.i32, BLOCK: rl.constexpr):
    start = rl.program_id(0) * BLOCK
    mask = rl.iota(BLOCK) + start < n
    v = (rl.load(x, [start], shape=[BLOCK], mask=mask).to("f32")
         + rl.load(r, [start], shape=[BLOCK], mask=mask).to("f32"))
    rl.store(v.to(y.dtype), y, [start], mask=mask)


def test_default_layout_follows_the_widest_access():
    """bf16 in, f32 out, 8 elements per lane (1024 over 128 NVIDIA lanes):
    lanes hold runs of 4, so the f32 stores are 128 bits contiguous across
    lanes and the bf16 loads 64 bits, instead of 128-bit loads and stores
    whose two halves per lane sit a lane-pitch apart. The stored type
    decides: f32 in and bf16 out gives runs of 8."""
    facts = dict(assume={"x": 16, "r": 16, "y": 16, "n": 16}, BLOCK=1024)
    ptx = widen_add.compile(chip="sm_90", x="bf16", r="bf16", y="f32",
                            **facts).asm
    assert ptx.count("ld.global.v2.b32") == 4, ptx
    assert ptx.count("st.global.v4.b32") == 2, ptx
    assert "ld.global.v4" not in ptx
    # f32 in, bf16 out: the stores decide (8 per lane, one 128-bit store),
    # the f32 loads are two adjacent 128-bit accesses per lane, as Triton's.
    ptx = widen_add.compile(chip="sm_90", x="f32", r="f32", y="bf16",
                            **facts).asm
    assert ptx.count("ld.global.v4.b32") == 4, ptx
    assert ptx.count("st.global.v4.b32") == 1, ptx
    assert "st.global.v2" not in ptx
    # One element type: 128 bits per lane both ways.
    ptx = widen_add.compile(chip="sm_90", x="bf16", r="bf16", y="bf16",
                            **facts).asm
    assert ptx.count("ld.global.v4.b32") == 2 and \
        ptx.count("st.global.v4.b32") == 1, ptx


@pytest.mark.skipif(not ROCDSL_COMPILE.exists(),
                    reason=f"{ROCDSL_COMPILE} is not built")
def test_default_layouts_match_the_cpp_dsl():
    """The C++ RMSNorm uses the default layout of its [1, N] row tile."""
    p = subprocess.run([str(ROCDSL_COMPILE), "--kernel", "rmsnorm_fwd",
                        "-D", "N=1024", "-D", "dtype=f32", "--emit", "rocdsl",
                        "-o", "-"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    expected = _rocdsl.default_layout([1, 1024], 32, 4, 64)
    assert f"tensor<1x1024xf32, {expected}>" in p.stdout


# Errors ---------------------------------------------------------------------

def raises_at(marker, fn, *args, **kwargs):
    """Calls fn and checks the CompilationError names the line of
    `marker` in this file; returns the message."""
    with pytest.raises(rocdsl.CompilationError) as info:
        fn(*args, **kwargs)
    message = str(info.value)
    line = line_of(marker)
    assert message.startswith(f"{THIS_FILE}:{line}: "), message
    assert info.value.lineno == line
    return message


def test_shape_mismatch_names_the_line():
    @rocdsl.kernel
    def k(x: rl.ptr("f32")):
        a = rl.load(x, [0], shape=[128])
        b = rl.load(x, [0], shape=[64])
        rl.store(a + b, x, [0])  # MARK shape-mismatch
    message = raises_at("MARK shape-mismatch", k.ir)
    assert "shape mismatch in '+': [128] vs [64]" in message
    assert "rl.store(a + b, x, [0])" in message  # the source line is quoted


def test_dtype_mismatch_names_the_line():
    @rocdsl.kernel
    def k(x: rl.ptr("f32"), h: rl.ptr("f16")):
        a = rl.load(x, [0], shape=[128])
        b = rl.load(h, [0], shape=[128])
        rl.store(a * b, x, [0])  # MARK dtype-mismatch
    message = raises_at("MARK dtype-mismatch", k.ir)
    assert "dtype mismatch in '*'" in message and ".to()" in message

    @rocdsl.kernel
    def s(x: rl.ptr("f32"), h: rl.ptr("f16")):
        a = rl.load(x, [0], shape=[128])
        rl.store(a, h, [0])  # MARK store-dtype
    raises_at("MARK store-dtype", s.ir)


def test_runtime_value_as_shape_names_the_line():
    @rocdsl.kernel
    def k(x: rl.ptr("f32"), n: rl.i32):
        t = rl.load(x, [0], shape=[n])  # MARK runtime-shape
        rl.store(t, x, [0])
    message = raises_at("MARK runtime-shape", k.ir)
    assert "`n` (a i32 argument) is a run-time value" in message
    assert "rl.constexpr" in message

    @rocdsl.kernel
    def r(x: rl.ptr("f32"), n: rl.i32):
        for i in range(n):  # MARK runtime-range
            pass
    raises_at("MARK runtime-range", r.ir)


def test_unsupported_ops_name_the_line():
    @rocdsl.kernel
    def power(x: rl.ptr("f32")):
        t = rl.load(x, [0], shape=[64])
        rl.store(t ** 2, x, [0])  # MARK power
    assert "operator ** is not supported" in raises_at("MARK power", power.ir)

    @rocdsl.kernel
    def branch(x: rl.ptr("f32")):
        t = rl.load(x, [0], shape=[64])
        if t.sum() > 0:  # MARK branch
            rl.store(t, x, [0])
    assert "no truth value" in raises_at("MARK branch", branch.ir)

    @rocdsl.kernel
    def int_div(x: rl.ptr("i32")):
        t = rl.load(x, [0], shape=[64])
        rl.store(t / 2, x, [0])  # MARK int-div
    assert "use // for integer division" in raises_at("MARK int-div",
                                                      int_div.ir)

    @rocdsl.kernel
    def dot_f32(x: rl.ptr("f32")):
        t = rl.load(x, [0, 0], shape=[32, 32], strides=[32])
        rl.store(rl.dot(t, t), x, [0, 0], strides=[32])  # MARK dot-f32
    assert "f16 or bf16" in raises_at("MARK dot-f32", dot_f32.ir)


def test_layout_errors_name_the_line():
    @rocdsl.kernel
    def k(x: rl.ptr("f32")):
        t = rl.load(x, [0, 0], shape=[64, 64], strides=[64])
        rl.store(t - t.max(axis=1), x, [0, 0], strides=[64])  # MARK reduced
    message = raises_at("MARK reduced", k.ir)
    assert "reduced along axis 1: use expand_dims(1)" in message


def test_values_escaping_a_loop_name_the_line():
    @rocdsl.kernel
    def k(x: rl.ptr("f32")):
        kept = []

        def body(i, acc):
            t = rl.load(x, [i], shape=[64])
            kept.append(t)
            return acc + t
        rl.for_loop(0, 4, 1, rl.zeros([64]), body)
        rl.store(kept[0], x, [0])  # MARK escaped
    assert "used after the loop" in raises_at("MARK escaped", k.ir)

    @rocdsl.kernel
    def m(x: rl.ptr("f32")):
        rl.for_loop(0, 4, 1, rl.zeros([64]),  # MARK carried-dtype
                    lambda i, acc: acc.to("f16"))
    assert "loop-carried value #0 enters as a [64] f32 tile" in raises_at(
        "MARK carried-dtype", m.ir)


def test_signature_errors_name_the_def_line():
    def unannotated(x, n: rl.i32):  # MARK unannotated
        pass
    message = raises_at("MARK unannotated", rocdsl.kernel, unannotated)
    assert "parameter `x` needs an annotation" in message

    @rocdsl.kernel(num_warps=4)
    def k(x: rl.ptr("f32"), n: rl.i32, B: rl.constexpr):  # MARK def-line
        rl.store(rl.full([B], 1.0), x, [0], bounds=[n])
    import numpy as np
    x = np.zeros(8, np.float32)
    message = raises_at("MARK def-line", k[(1,)], x, B=8)
    assert "takes 2 positional argument(s) (x, n)" in message
    assert "constexpr `B` was not given" in raises_at("MARK def-line",
                                                      k[(1,)], x, 8)
    assert "unknown keyword argument(s) C" in raises_at(
        "MARK def-line", k[(1,)], x, 8, B=8, C=1)


@needs_opt
def test_verifier_errors_name_the_line():
    """The tracer leaves vec to the verifier; its error carries the
    Python location of the load."""
    @rocdsl.kernel
    def k(x: rl.ptr("f32")):
        t = rl.load(x, [0], shape=[256], vec=8)  # MARK bad-vec
        rl.store(t, x, [0])
    rc, _, err = opt(k.ir())
    assert rc != 0
    assert f"{THIS_FILE}:{line_of('MARK bad-vec')}:" in err
    assert "vec = 8 of 'f32' is 256 bits" in err


@needs_source_kernel
def test_verifier_errors_through_the_runtime_name_the_line():
    import numpy as np

    @rocdsl.kernel
    def k(x: rl.ptr("f32")):
        t = rl.load(x, [0], shape=[256], vec=8)  # MARK runtime-vec
        rl.store(t, x, [0])
    message = raises_at("MARK runtime-vec", k[(1,)],
                        np.zeros(256, np.float32))
    assert "256 bits" in message


# Math defaults per target ---------------------------------------------------

@rocdsl.kernel
def _math_defaults(x: rl.ptr("f32"), y: rl.ptr("f32"), BLOCK: rl.constexpr):
    v = rl.load(x, [0], shape=[BLOCK])
    s = (v * v + 1.0) / (rl.exp(v) - v)
    t = rl.div_rn(s, v) * rl.exp_accurate(v)
    rl.store(t + (s * s).sum(), y, [0])


@rocdsl.kernel(fast_math=False)
def _math_accurate(x: rl.ptr("f32"), y: rl.ptr("f32"), BLOCK: rl.constexpr):
    v = rl.load(x, [0], shape=[BLOCK])
    rl.store((v * v + 1.0) / rl.exp(v), y, [0])


def _flags_of(ir, op):
    """The fastmath flags of every `op` in `ir` ("" when it has none)."""
    return [m.group(1) or "" for m in re.finditer(
        rf"= {re.escape(op)} [^\n]*?(?:fastmath<([a-z,]+)>)?\s*:", ir)]


def test_math_defaults_per_target():
    """GPU targets: float +, -, * may contract into fmas, exp is the
    hardware exp2 (afn), `/` is full-range division on NVIDIA (arcp) and
    IEEE on AMD; the host and fast_math=False keep every op accurate and
    unfused; rl.div_rn and rl.exp_accurate are accurate everywhere."""
    cuda = _math_defaults.ir("cuda", BLOCK=256)
    hip = _math_defaults.ir("hip", BLOCK=256)
    host = _math_defaults.ir("host", BLOCK=256)
    for ir in (cuda, hip):
        assert set(_flags_of(ir, "arith.mulf")) == {"contract"}, ir
        assert set(_flags_of(ir, "arith.addf")) == {"contract"}, ir
        assert set(_flags_of(ir, "arith.subf")) == {"contract"}, ir
        assert _flags_of(ir, "math.exp") == ["afn", ""], ir
    assert _flags_of(cuda, "arith.divf") == ["arcp", ""], cuda
    assert _flags_of(hip, "arith.divf") == ["", ""], hip
    for op in ("arith.mulf", "arith.addf", "arith.subf", "arith.divf",
               "math.exp"):
        assert set(_flags_of(host, op)) == {""}, host
    accurate = _math_accurate.ir("cuda", BLOCK=256)
    assert "fastmath" not in accurate, accurate


# Default warps ---------------------------------------------------------------

def _warps_of(ir):
    return int(re.search(r"num_warps = (\d+) : i32", ir).group(1))


def test_default_warps_follow_the_tile_up_to_a_full_workgroup():
    """About 128 bytes of the largest tile per lane, at least 128 lanes, at
    most a workgroup: a 32768-element f32 row takes 32 warps on NVIDIA
    (1024 lanes, 32 values each) and 16 waves of 64 on AMD."""
    sizes = {1024: (4, 2), 4096: (4, 2), 8192: (8, 4), 16384: (16, 8),
             32768: (32, 16),
             65536: (32, 16)}
    for block, (cuda, hip) in sizes.items():
        assert _warps_of(_math_accurate.ir("cuda", BLOCK=block)) == cuda, block
        assert _warps_of(_math_accurate.ir("hip", BLOCK=block)) == hip, block
    with pytest.raises(rocdsl.CompilationError, match="16 or 32"):
        rocdsl.kernel(_math_accurate.fn, num_warps=64)


@needs_opt
def test_thirty_two_warps_lower_on_nvidia_only():
    text = _math_accurate.ir("cuda", BLOCK=32768)
    code, out, err = opt(text, "--convert-rocdsl-to-gpu=chip=sm_90")
    assert code == 0, err
    assert "known_block_size = array<i32: 1024, 1, 1>" in out
    explicit = rocdsl.kernel(_math_accurate.fn, num_warps=32)
    code, _, err = opt(explicit.ir("hip", BLOCK=32768),
                       "--convert-rocdsl-to-gpu=chip=gfx942")
    assert code != 0 and "runs at most 1024 per workgroup" in err, err
