"""rocdsl.torch as a ROCm build of PyTorch drives it: tensors of device
type "cuda" on AMD GPUs (torch.version.hip set), any device index, the
current hipStream_t of the tensors' device. No ROCm PyTorch exists here, so
a stand-in (fake_rocm_torch.py) supplies the tensors and streams and the
real rocdsl.torch code runs on emulated gfx942 (cuda:0 = hip) and gfx950
(cuda:1 = hip:1), checked against float64."""
import numpy as np
import pytest

from hip_emulated import HipApi, use_emulated_hip

LIBRARY = use_emulated_hip(["gfx942", "gfx950"])

import fake_rocm_torch as fake  # noqa: E402

torch = fake.install(HipApi(LIBRARY), device_count=2)

import rocdsl  # noqa: E402
import rocdsl.language as rl  # noqa: E402
import rocdsl.torch as rt  # noqa: E402
import rocdsl._torch_python as tp  # noqa: E402
import norm_reference as R  # noqa: E402


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"seed {seed}")
    return np.random.default_rng(seed)


def tensor(shape, dtype, index, rng):
    host, value = R.random(shape, dtype.rocdsl, rng)
    return fake.from_host(host, dtype, index), value


def value(t):
    return R.widen(t.array.to_host(), t.dtype.rocdsl)


@pytest.mark.parametrize("index", [0, 1])
@pytest.mark.parametrize("dtype,wdtype", [(torch.bfloat16, torch.bfloat16),
                                          (torch.float16, torch.float32)])
@pytest.mark.parametrize("m", [7, 1])
def test_ops_run_on_the_tensors_device_and_stream(index, dtype, wdtype, m,
                                                  rng):
    n, eps = 1536, 1e-6
    x, x64 = tensor((m, n), dtype, index, rng)
    w, w64 = tensor((n,), wdtype, index, rng)
    fake.stream_queries.clear()
    y = rt.rms_norm(x, w, eps)
    assert fake.stream_queries == [index]  # that device's current stream
    assert y.device == x.device
    R.assert_close("y", value(y), R.forward(x64, w64, eps), dtype.rocdsl)

    r, r64 = tensor((m, n), dtype, index, rng)
    y, h = rt.fused_add_rms_norm(x, r, w, eps)
    h64 = R.round_to(x64 + r64, dtype.rocdsl)
    R.assert_close("h", value(h), h64, dtype.rocdsl)
    R.assert_close("y", value(y), R.forward(h64, w64, eps), dtype.rocdsl)

    # The backward as autograd calls it, on the same stream: two launches,
    # or one when a single program (one row here) writes dw itself.
    dy, dy64 = tensor((m, n), dtype, index, rng)
    fake.stream_queries.clear()
    dx, dw = tp._backward(dy, x, w, eps)
    assert fake.stream_queries == [index]
    kernels = [len(e.kernels) for key, e in tp._launches.items()
               if key[0] == "bwd" and e.m == m and key[1][2] == index
               and key[1][1] == dtype]
    assert kernels == [1 if m == 1 else 2], kernels
    dx_ref, dw_ref, dw_scale = R.backward(dy64, x64, w64, eps)
    R.assert_close("dx", value(dx), dx_ref, dtype.rocdsl,
                   scale=np.abs(dx_ref).max())
    R.assert_close("dw", value(dw), dw_ref, wdtype.rocdsl, scale=dw_scale)

    dh, dh64 = tensor((m, n), dtype, index, rng)
    dx, dw = tp._fused_backward(dy, dh, x, w, eps)
    R.assert_close("dx", value(dx), dx_ref + dh64, dtype.rocdsl,
                   scale=np.abs(dx_ref + dh64).max())
    R.assert_close("dw", value(dw), dw_ref, wdtype.rocdsl, scale=dw_scale)


def test_each_device_gets_kernels_for_its_chip(rng):
    """cuda:0 is gfx942 and cuda:1 gfx950 here: the same op on both."""
    x0, x64 = tensor((3, 640), torch.float32, 0, rng)
    w0 = fake.from_host(np.ones(640, np.float32), torch.float32, 0)
    x1 = fake.from_host(x0.array.to_host(), torch.float32, 1)
    w1 = fake.from_host(np.ones(640, np.float32), torch.float32, 1)
    y0, y1 = rt.rms_norm(x0, w0), rt.rms_norm(x1, w1)
    ref = R.forward(x64, np.ones(640), 1e-6)
    R.assert_close("y on cuda:0", value(y0), ref, "f32")
    R.assert_close("y on cuda:1", value(y1), ref, "f32")
    k0 = [k for key, k in tp._launches.items() if key[1][2] == 0]
    k1 = [k for key, k in tp._launches.items() if key[1][2] == 1]
    assert k0 and k1
    assert k0[0].kernels[0] is not k1[0].kernels[0]


def test_a_torch_without_cpp_extensions_takes_the_python_path():
    # The stand-in has no torch.utils.cpp_extension: rocdsl.torch defines
    # its operators in Python.
    assert rt.NATIVE is False
    assert rt.rms_norm is tp.rms_norm


def test_mixed_devices_and_dtypes_are_refused(rng):
    x, _ = tensor((2, 256), torch.float32, 0, rng)
    w, _ = tensor((256,), torch.float32, 1, rng)
    with pytest.raises(ValueError, match="weight: on cuda:1, but x is on "
                                         "cuda:0"):
        rt.rms_norm(x, w)
    bad = fake.from_host(np.zeros((2, 256), np.int32), torch.int32, 0)
    with pytest.raises(ValueError, match="unsupported dtype torch.int32"):
        rt.rms_norm(bad, w)


@rocdsl.kernel(num_warps=2)
def scaled_copy(x: rl.ptr, y: rl.ptr, n: rl.i32, s: rl.f32,
                BLOCK: rl.constexpr):
    start = rl.program_id(0) * BLOCK
    m = rl.iota(BLOCK) + start < n
    v = rl.load(x, [start], shape=[BLOCK], mask=m).to("f32") * s
    rl.store(v.to(y.dtype), y, [start], mask=m)


@pytest.mark.parametrize("index", [0, 1])
def test_python_kernels_take_rocm_tensors(index, rng):
    n = 3000
    x, x64 = tensor((n,), torch.bfloat16, index, rng)
    y = torch.empty_like(x)
    fake.stream_queries.clear()
    spec = scaled_copy[((n + 255) // 256,)](x, y, n, 0.5, BLOCK=256)
    assert spec.device == ("hip" if index == 0 else f"hip:{index}")
    assert fake.stream_queries == [index]
    R.assert_close("y", value(y), R.round_to(0.5 * x64, "bf16"), "bf16")


@pytest.mark.parametrize("index", [0, 1])
def test_attention_on_each_chip(index, rng):
    """rocdsl.torch.scaled_dot_product_attention and its backward operator
    on ROCm tensors of each emulated chip, against NumPy float64: grouped
    heads, a causal window, a soft cap."""
    from attention_reference import attention64, attention64_backward
    from rocdsl import torch_attention as ta

    b, hq, hkv, sq, sk, d = 1, 4, 2, 70, 90, 64
    q, q64 = tensor((b, hq, sq, d), torch.bfloat16, index, rng)
    k, k64 = tensor((b, hkv, sk, d), torch.bfloat16, index, rng)
    v, v64 = tensor((b, hkv, sk, d), torch.bfloat16, index, rng)
    fake.stream_queries.clear()
    out = rt.scaled_dot_product_attention(q, k, v, is_causal=True,
                                          enable_gqa=True, window=(40, 0),
                                          softcap=4.0)
    assert fake.stream_queries == [index]
    scale = d ** -0.5
    ref, _ = attention64(q64, k64, v64, scale, True, False, 40, 0, 4.0)
    R.assert_close("out", value(out), ref, "bf16")

    # The autograd formula's two operators, as autograd would call them.
    params = (0.0, True, 40, 0, 4.0, "bhsd", "top_left", 0, 0)
    out, lse = ta._attention_op(q, k, v, None, None, *params)
    dout, dout64 = tensor((b, hq, sq, d), torch.bfloat16, index, rng)
    dq, dk, dv = ta._attention_backward_op(dout, q, k, v, out, lse, None,
                                           None, *params)
    want = attention64_backward(q64, k64, v64, dout64, scale, True, False,
                                40, 0, 4.0)
    for name, got, ref in zip(("dq", "dk", "dv"), (dq, dk, dv), want):
        R.assert_close(name, value(got), ref, "bf16",
                       scale=np.abs(ref).max())


@pytest.mark.parametrize("index", [0, 1])
def test_flash_attn_layouts_on_each_chip(index, rng):
    """flash_attn_func ([B, S, H, D]) and flash_attn_varlen_func (packed
    ragged sequences, one of them empty) with their backward operator on
    ROCm tensors, against NumPy float64 per sequence: bottom-right causal
    masks, grouped heads."""
    from attention_reference import attention64, attention64_backward
    from rocdsl import torch_attention as ta

    hq, hkv, d = 4, 2, 64
    # [B, S, H, D]: Sq < Sk, the diagonal at the bottom-right corner.
    q, q64 = tensor((2, 50, hq, d), torch.bfloat16, index, rng)
    k, k64 = tensor((2, 90, hkv, d), torch.bfloat16, index, rng)
    v, v64 = tensor((2, 90, hkv, d), torch.bfloat16, index, rng)
    out = rt.flash_attn_func(q, k, v, causal=True)
    bhsd = lambda x: x.transpose(0, 2, 1, 3)
    ref, _ = attention64(bhsd(q64), bhsd(k64), bhsd(v64), d ** -0.5, True,
                         True, -1, -1)
    R.assert_close("bshd out", value(out), bhsd(ref), "bf16")

    # Packed: lengths 37, 0, 70 (queries) and 60, 5, 90 (keys).
    cu_q, cu_k = [0, 37, 37, 107], [0, 60, 65, 155]
    q, q64 = tensor((107, hq, d), torch.bfloat16, index, rng)
    k, k64 = tensor((155, hkv, d), torch.bfloat16, index, rng)
    v, v64 = tensor((155, hkv, d), torch.bfloat16, index, rng)
    dout, dout64 = tensor((107, hq, d), torch.bfloat16, index, rng)
    cq = fake.from_host(np.array(cu_q, np.int32), torch.int32, index)
    ck = fake.from_host(np.array(cu_k, np.int32), torch.int32, index)
    out = rt.flash_attn_varlen_func(q, k, v, cq, ck, 70, 90, causal=True,
                                    window_size=(30, -1), softcap=3.0)
    params = ta._flash_params(q, None, True, (30, -1), 3.0, "varlen", 70, 90)
    out2, lse = ta._attention_op(q, k, v, cq, ck, *params)
    dq, dk, dv = ta._attention_backward_op(dout, q, k, v, out2, lse, cq, ck,
                                           *params)
    got = {n: value(t) for n, t in (("out", out), ("dq", dq), ("dk", dk),
                                    ("dv", dv))}
    for b in range(3):
        qs, ks = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        if qs.start == qs.stop:  # keys no query sees: zero gradients
            assert not got["dk"][ks].any() and not got["dv"][ks].any()
            continue
        one = lambda x, s: x[None, s].transpose(0, 2, 1, 3)
        args = (one(q64, qs), one(k64, ks), one(v64, ks))
        ref, _ = attention64(*args, d ** -0.5, True, True, 30, -1, 3.0)
        R.assert_close(f"varlen out {b}", got["out"][qs],
                       ref[0].transpose(1, 0, 2), "bf16")
        grads = attention64_backward(*args, one(dout64, qs), d ** -0.5, True,
                                     True, 30, -1, 3.0)
        for name, g, rows in zip(("dq", "dk", "dv"), grads, (qs, ks, ks)):
            want = g[0].transpose(1, 0, 2)
            R.assert_close(f"varlen {name} {b}", got[name][rows], want,
                           "bf16", scale=np.abs(want).max() + 1e-3)
