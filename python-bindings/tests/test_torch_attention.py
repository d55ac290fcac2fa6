"""rocdsl.torch.scaled_dot_product_attention on the GPU: forward and
gradients against float64 (torch's SDPA math backend where torch has the
feature, an explicit float64 attention for windows and soft caps), ragged
lengths, Sq != Sk, rows that see no key, grouped heads; torch.compile
keeping it as one node; the fallback chain's decisions, errors and log
line; a few training steps of a small transformer block. The fallback
tests on CPU tensors need PyTorch only; the rest is skipped without a GPU."""
import itertools
import os
import subprocess
import sys

import pytest

from gpu_support import fresh_generator, randn, require_cuda, torch

import rocdsl.torch as rt
from rocdsl import torch_attention

F = torch.nn.functional


def reference(q, k, v, causal=False, window=None, softcap=None, scale=None,
              dout=None, probabilities=False):
    """Float64 attention with the op's semantics (top-left diagonal, FlashAttention's
    window, Gemma's cap); rows that see no key give 0. With `dout`, also
    the gradients (dq, dk, dv)."""
    q64, k64, v64 = (t.detach().to(torch.float64).requires_grad_()
                     for t in (q, k, v))
    group = q.shape[-3] // k.shape[-3]
    kk = k64.repeat_interleave(group, dim=-3)
    vv = v64.repeat_interleave(group, dim=-3)
    scale = 1 / q.shape[-1] ** 0.5 if scale is None else scale
    s = (q64 @ kk.transpose(-1, -2)) * scale
    if softcap is not None:
        s = softcap * torch.tanh(s / softcap)
    sq, sk = q.shape[-2], k.shape[-2]
    i = torch.arange(sq, device=q.device)[:, None]
    j = torch.arange(sk, device=q.device)[None, :]
    left, right = window if window is not None else (-1, -1)
    if causal:
        right = 0
    seen = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    if right >= 0:
        seen &= j - i <= right
    if left >= 0:
        seen &= j - i >= -left
    s = s.masked_fill(~seen, float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)  # rows that see no key
    if probabilities:
        return p.detach()
    out = p @ vv
    if dout is None:
        return out.detach()
    out.backward(dout.to(torch.float64))
    return out.detach(), q64.grad, k64.grad, v64.grad


def rounding_slack(q, k, v, dout, dtype, causal=False, window=None,
                   softcap=None, scale=None):
    """Per-element bounds on what the backward rounds where a float64
    gradient does not, for sums whose terms can be far larger than the
    gradient itself (keys every query weighs heavily, rows that see few
    keys): delta = rowsum(dout * out) is formed from `out` in the element
    type (off by eps * sum|dout * out| a row, which dS = P (dP - delta)
    passes on whole where dP and delta nearly cancel), and P and dS are
    rounded to the element type before the dV, dK and dQ products.
    Returns the bounds for dq, dk and dv."""
    eps = 2.0 ** -8 if dtype == torch.bfloat16 else 2.0 ** -10
    p = reference(q, k, v, causal, window, softcap, scale,
                  probabilities=True)
    group = q.shape[-3] // k.shape[-3]
    k64, v64 = (t.double().repeat_interleave(group, dim=-3) for t in (k, v))
    g = dout.double()
    out = p @ v64
    delta_err = eps * (g.abs() * out.abs()).sum(-1, keepdim=True)
    ds = p * (g @ v64.transpose(-1, -2) - (g * out).sum(-1, keepdim=True))
    scale = 1 / q.shape[-1] ** 0.5 if scale is None else abs(scale)
    terms = scale * (p * delta_err + eps * ds.abs())
    per_kv_head = lambda t: t.unflatten(-3, (k.shape[-3], group)).sum(-3)
    return (terms @ k64.abs(),
            per_kv_head(terms.transpose(-1, -2) @ q.double().abs()),
            per_kv_head(eps * p.transpose(-1, -2) @ g.abs()))


def assert_close(name, got, ref, dtype, magnitude, slack=0.0):
    """Within the rounding of the element type relative to `magnitude`
    (the sums' typical term size), plus `slack` per element, every element
    finite."""
    got64 = got.to(torch.float64)
    assert bool(torch.isfinite(got64).all()), f"{name}: non-finite values"
    rtol = 2e-2 if dtype == torch.bfloat16 else 4e-3
    err = (got64 - ref).abs()
    bound = rtol * (ref.abs() + magnitude) + slack
    bad = int((err > bound).sum())
    assert bad == 0, (f"{name}: {bad} of {err.numel()} off, max err "
                      f"{float(err.max()):.3e}, magnitude {magnitude:.3e}")


CASES = [
    # (B, Hq, Hkv, Sq, Sk, D, Dv, causal, window, softcap)
    (2, 4, 4, 129, 129, 64, 64, False, None, None),
    (1, 8, 2, 17, 300, 128, 128, True, None, None),     # GQA 4, Sq < Sk
    (1, 8, 1, 200, 70, 64, 64, True, None, None),       # MQA, empty rows
    (2, 2, 2, 1, 17, 64, 64, False, None, None),
    (1, 2, 2, 4097, 4097, 64, 64, True, None, None),
    (1, 4, 4, 300, 300, 128, 128, False, (64, 16), None),
    (1, 4, 2, 257, 257, 64, 64, True, (100, 0), 30.0),
    (1, 2, 2, 130, 130, 192, 128, True, None, None),    # MLA head dims
    (2, 2, 2, 100, 100, 128, 128, False, None, 5.0),
]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16] if torch
                         else [])
@pytest.mark.parametrize("case", CASES)
def test_forward_and_gradients(dtype, case):
    require_cuda()
    b, hq, hkv, sq, sk, d, dv, causal, window, softcap = case
    gen = fresh_generator()
    q = randn((b, hq, sq, d), dtype, gen).requires_grad_()
    k = randn((b, hkv, sk, d), dtype, gen).requires_grad_()
    v = randn((b, hkv, sk, dv), dtype, gen).requires_grad_()
    dout = randn((b, hq, sq, dv), dtype, gen)
    out = rt.scaled_dot_product_attention(
        q, k, v, is_causal=causal, enable_gqa=hq != hkv, window=window,
        softcap=softcap)
    out.backward(dout)
    ref, dq, dk, dv_ = reference(q, k, v, causal, window, softcap, dout=dout)
    assert_close("out", out, ref, dtype, float(v.abs().mean()))
    # The gradients sum Sk (dq) or Sq * group (dk, dv) terms whose size
    # is that of the mean absolute gradient.
    slack = rounding_slack(q, k, v, dout, dtype, causal, window, softcap)
    for name, got, want, slack in zip(("dq", "dk", "dv"),
                                      (q.grad, k.grad, v.grad),
                                      (dq, dk, dv_), slack):
        assert_close(name, got, want, dtype, float(want.abs().mean()), slack)


def test_backward_is_deterministic():
    """The backward has no atomics (dQ programs of their own): the same
    bits on every run, at the head dimension where the kernel could add dQ
    atomically (dq_atomic=1, not what the op takes), and within rounding of
    float64."""
    require_cuda()
    gen = fresh_generator()
    dtype = torch.bfloat16
    q = randn((2, 8, 700, 128), dtype, gen)
    k = randn((2, 2, 900, 128), dtype, gen)
    v = randn((2, 2, 900, 128), dtype, gen)
    dout = randn((2, 8, 700, 128), dtype, gen)

    def grads():
        leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
        out = rt.scaled_dot_product_attention(*leaves, is_causal=True,
                                              enable_gqa=True)
        out.backward(dout)
        return [t.grad for t in leaves]

    first, second = grads(), grads()
    for a, b in zip(first, second):
        assert torch.equal(a, b)
    ref, *want = reference(q, k, v, True, dout=dout)
    slack = rounding_slack(q, k, v, dout, dtype, True)
    for name, got, w, sl in zip(("dq", "dk", "dv"), first, want, slack):
        assert_close(name, got, w, dtype, float(w.abs().mean()), sl)


def test_forward_and_backward_replay_in_a_cuda_graph():
    """The forward and both backward launches (attention_bwd_delta, then
    attention_bwd) captured in one CUDA graph: replays on new inputs give
    eager's gradients bit for bit (the kernels are deterministic), so
    delta's buffer and the launches' streams survive capture."""
    require_cuda()
    gen = fresh_generator()
    dtype = torch.bfloat16
    shapes = [(2, 4, 300, 128), (2, 2, 333, 128), (2, 2, 333, 64),
              (2, 4, 300, 64)]
    leaves = [randn(s, dtype, gen).requires_grad_() for s in shapes[:3]]
    dout = randn(shapes[3], dtype, gen)

    def step(q, k, v, grad):
        out = rt.scaled_dot_product_attention(q, k, v, is_causal=True,
                                              enable_gqa=True)
        return torch.autograd.grad(out, (q, k, v), grad)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step(*leaves, dout)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = step(*leaves, dout)
    for _ in range(2):
        fresh = [randn(s, dtype, gen) for s in shapes]
        with torch.no_grad():
            for leaf, value in zip(leaves, fresh):
                leaf.copy_(value)
            dout.copy_(fresh[3])
        # Poisoned first: a launch the replay lost would leave NaN.
        for g in captured:
            g.fill_(float("nan"))
        graph.replay()
        eager = step(*[t.clone().requires_grad_() for t in fresh[:3]],
                     fresh[3])
        torch.cuda.synchronize()
        for got, want in zip(captured, eager):
            assert torch.equal(got, want)


@pytest.mark.parametrize("causal", [False, True])
def test_matches_torch_math_backend(causal):
    """Where torch has every feature asked for, its SDPA in float64 (the
    math backend) is the reference, custom scale and GQA included."""
    require_cuda()
    gen = fresh_generator()
    dtype = torch.bfloat16
    q = randn((2, 8, 100, 64), dtype, gen).requires_grad_()
    k = randn((2, 2, 150, 64), dtype, gen).requires_grad_()
    v = randn((2, 2, 150, 64), dtype, gen).requires_grad_()
    dout = randn((2, 8, 100, 64), dtype, gen)
    out = rt.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                          scale=0.2, enable_gqa=True)
    out.backward(dout)
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    ref = F.scaled_dot_product_attention(q64, k64, v64, is_causal=causal,
                                         scale=0.2, enable_gqa=True)
    ref.backward(dout.double())
    assert_close("out", out, ref.detach(), dtype, float(v.abs().mean()))
    slack = rounding_slack(q, k, v, dout, dtype, causal, scale=0.2)
    for name, got, want, slack in zip(("dq", "dk", "dv"),
                                      (q.grad, k.grad, v.grad),
                                      (q64.grad, k64.grad, v64.grad), slack):
        assert_close(name, got, want, dtype, float(want.abs().mean()), slack)


def test_torch_compile_keeps_one_node():
    require_cuda()
    gen = fresh_generator()
    q, k, v = (randn((1, 4, 128, 64), torch.bfloat16, gen).requires_grad_()
               for _ in range(3))

    def f(q, k, v):
        return rt.scaled_dot_product_attention(q, k, v, is_causal=True,
                                               window=(32, 0)) * 2

    compiled = torch.compile(f, fullgraph=True)
    got = compiled(q, k, v)
    got.sum().backward()
    grads = [t.grad.clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    want = f(q, k, v)
    want.sum().backward()
    torch.testing.assert_close(got, want)
    for g, t in zip(grads, (q, k, v)):
        torch.testing.assert_close(g, t.grad)


def test_fallback_chain(monkeypatch):
    require_cuda()
    gen = fresh_generator()
    q, k, v = (randn((1, 2, 64, 64), torch.bfloat16, gen) for _ in range(3))
    mask = torch.rand(64, 64, device="cuda", generator=gen) > 0.3
    before = dict(torch_attention.fallback_reasons)
    out = rt.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(
        q, k, v, attn_mask=mask))
    reason = "an attn_mask (ROCDSL's kernels take causal and window masks)"
    assert torch_attention.fallback_reasons[reason] == before.get(reason,
                                                                  0) + 1
    # Non-contiguous inputs are not copied: torch serves them.
    qt = q.transpose(1, 2).contiguous().transpose(1, 2)
    rt.scaled_dot_product_attention(qt, k, v)
    assert any("q is not contiguous" in r
               for r in torch_attention.fallback_reasons)
    # What torch cannot honour either is an error, not full attention.
    with pytest.raises(ValueError, match="window cannot be honoured"):
        rt.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                        window=(8, 8))
    with pytest.raises(ValueError, match="softcap cannot be honoured"):
        rt.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                        softcap=20.0)
    monkeypatch.setenv("ROCDSL_ATTENTION", "strict")
    with pytest.raises(ValueError, match="strict.*attn_mask"):
        rt.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    rt.scaled_dot_product_attention(q, k, v)  # served: no error
    monkeypatch.setenv("ROCDSL_ATTENTION", "torch")
    torch.testing.assert_close(rt.scaled_dot_product_attention(q, k, v),
                               F.scaled_dot_product_attention(q, k, v))
    with pytest.raises(ValueError, match="window cannot be honoured"):
        rt.scaled_dot_product_attention(q, k, v, window=(8, 0))
    monkeypatch.setenv("ROCDSL_ATTENTION", "fast")
    with pytest.raises(ValueError, match="ROCDSL_ATTENTION='fast'"):
        rt.scaled_dot_product_attention(q, k, v)


def test_input_errors():
    require_cuda()
    gen = fresh_generator()
    q, k, v = (randn((1, 2, 64, 64), torch.bfloat16, gen) for _ in range(3))
    with pytest.raises(ValueError, match="is_causal=True"):
        rt.scaled_dot_product_attention(q, k, v, is_causal=True,
                                        window=(4, 4))
    with pytest.raises(ValueError, match="softcap"):
        rt.scaled_dot_product_attention(q, k, v, softcap=-1.0)
    with pytest.raises(ValueError, match="window"):
        rt.scaled_dot_product_attention(q, k, v, window=(-3, 0))


def test_fallback_is_logged_once_per_reason():
    """ROCDSL_LOG=info prints each fallback reason once (CPU tensors: no
    GPU needed)."""
    code = (
        "import torch, rocdsl.torch as rt\n"
        "q = torch.randn(1, 2, 8, 16)\n"
        "mask = torch.ones(8, 8, dtype=torch.bool)\n"
        "for _ in range(3):\n"
        "    rt.scaled_dot_product_attention(q, q, q)\n"
        "    rt.scaled_dot_product_attention(q, q, q, attn_mask=mask)\n")
    env = dict(os.environ, ROCDSL_LOG="info")
    done = subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines()
             if "attention: torch SDPA serves" in line]
    prefix = "rocdsl: info: attention: torch SDPA serves calls with "
    assert lines == [prefix + "tensors on cpu",
                     prefix + "an attn_mask (ROCDSL's kernels take causal "
                     "and window masks)"], done.stderr


def test_training_steps_match_eager_torch():
    """A small pre-norm transformer block trained for a few steps with
    ROCDSL's attention and with torch's: finite losses that agree."""
    require_cuda()
    torch.manual_seed(0)

    class Block(torch.nn.Module):
        def __init__(self, attention):
            super().__init__()
            self.attention = attention
            self.norm1 = torch.nn.LayerNorm(256)
            self.qkv = torch.nn.Linear(256, 3 * 256)
            self.proj = torch.nn.Linear(256, 256)
            self.norm2 = torch.nn.LayerNorm(256)
            self.mlp = torch.nn.Sequential(torch.nn.Linear(256, 512),
                                           torch.nn.GELU(),
                                           torch.nn.Linear(512, 256))

        def forward(self, x):
            b, s, _ = x.shape
            q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, 4, 64).permute(
                2, 0, 3, 1, 4).contiguous().unbind(0)
            a = self.attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, s, 256))
            return x + self.mlp(self.norm2(x))

    losses = {}
    for name, attention in (("rocdsl", rt.scaled_dot_product_attention),
                            ("torch", F.scaled_dot_product_attention)):
        torch.manual_seed(0)
        block = Block(attention).cuda().to(torch.bfloat16)
        opt = torch.optim.AdamW(block.parameters(), lr=1e-3)
        data = torch.randn(4, 128, 256, device="cuda", dtype=torch.bfloat16)
        target = torch.randn_like(data)
        losses[name] = []
        for _ in range(5):
            opt.zero_grad()
            loss = F.mse_loss(block(data).float(), target.float())
            loss.backward()
            opt.step()
            losses[name].append(float(loss))
    assert all(torch.isfinite(torch.tensor(losses["rocdsl"])))
    for ours, theirs in zip(losses["rocdsl"], losses["torch"]):
        assert abs(ours - theirs) <= 2e-2 * abs(theirs), losses


def test_flash_attn_entries():
    """flash_attn_func ([B, S, H, D], bottom-right causal) and
    flash_attn_varlen_func (packed ragged sequences) under autograd, against
    the float64 attention of each sequence."""
    require_cuda()
    gen = fresh_generator()
    dtype = torch.bfloat16
    q = randn((2, 100, 8, 64), dtype, gen).requires_grad_()
    k = randn((2, 300, 2, 64), dtype, gen).requires_grad_()
    v = randn((2, 300, 2, 64), dtype, gen).requires_grad_()
    dout = randn((2, 100, 8, 64), dtype, gen)
    out = rt.flash_attn_func(q, k, v, causal=True, window_size=(64, -1))
    out.backward(dout)
    t = lambda x: x.transpose(1, 2)
    # Bottom-right: query i's diagonal key is i + Sk - Sq; shift by padding
    # the reference's queries in front.
    pad = 200
    qp = torch.cat([torch.zeros(2, 8, pad, 64, device="cuda", dtype=dtype),
                    t(q.detach())], 2)
    dp = torch.cat([torch.zeros(2, 8, pad, 64, device="cuda", dtype=dtype),
                    t(dout)], 2)
    ref, dq, dk, dv = reference(qp, t(k), t(v), True, (64, -1), dout=dp)
    assert_close("out", t(out), ref[:, :, pad:], dtype,
                 float(v.abs().mean()))
    slack_q, slack_k, slack_v = rounding_slack(qp, t(k), t(v), dp, dtype,
                                               True, (64, -1))
    for name, got, want, slack in (
            ("dq", t(q.grad), dq[:, :, pad:], slack_q[:, :, pad:]),
            ("dk", t(k.grad), dk, slack_k), ("dv", t(v.grad), dv, slack_v)):
        assert_close(name, got, want, dtype, float(want.abs().mean()), slack)

    lengths_q, lengths_k = [37, 0, 129, 1], [60, 5, 200, 17]
    cu = lambda n: torch.tensor([0] + list(itertools.accumulate(n)),
                                device="cuda", dtype=torch.int32)
    q = randn((sum(lengths_q), 4, 64), dtype, gen).requires_grad_()
    k = randn((sum(lengths_k), 4, 64), dtype, gen).requires_grad_()
    v = randn((sum(lengths_k), 4, 64), dtype, gen).requires_grad_()
    dout = randn(q.shape, dtype, gen)
    out = rt.flash_attn_varlen_func(q, k, v, cu(lengths_q), cu(lengths_k),
                                    max(lengths_q), max(lengths_k),
                                    causal=True, softcap=10.0)
    out.backward(dout)
    q0 = k0 = 0
    for nq, nk in zip(lengths_q, lengths_k):
        sq, sk = slice(q0, q0 + nq), slice(k0, k0 + nk)
        q0, k0 = q0 + nq, k0 + nk
        if nq == 0:
            assert not bool(k.grad[sk].any()) and not bool(v.grad[sk].any())
            continue
        pad = max(nk - nq, 0)  # bottom-right, as above
        one = lambda x, s: x[s].transpose(0, 1)[None]
        zeros = torch.zeros(1, 4, pad, 64, device="cuda", dtype=dtype)
        qp = torch.cat([zeros, one(q.detach(), sq)], 2)
        dp = torch.cat([zeros, one(dout, sq)], 2)
        ref, dq, dk, dv = reference(qp, one(k, sk), one(v, sk), True,
                                    softcap=10.0, dout=dp)
        if nk < nq:  # the first nq - nk queries see no key
            qp = one(q.detach(), sq)[:, :, nq - nk:]
            dp = one(dout, sq)[:, :, nq - nk:]
            ref, dq, dk, dv = reference(qp, one(k, sk), one(v, sk), True,
                                        softcap=10.0, dout=dp)
            assert not bool(q.grad[sq][:nq - nk].any())
            rows, first = slice(q0 - nk, q0), 0
        else:
            rows, first = sq, pad
        slack_q, slack_k, slack_v = rounding_slack(
            qp, one(k, sk), one(v, sk), dp, dtype, True, softcap=10.0)
        assert_close("varlen out", one(out, rows), ref[:, :, first:], dtype,
                     0.5)
        for name, got, want, slack in (
                ("dq", one(q.grad, rows), dq[:, :, first:],
                 slack_q[:, :, first:]),
                ("dk", one(k.grad, sk), dk, slack_k),
                ("dv", one(v.grad, sk), dv, slack_v)):
            assert_close(name, got, want, dtype, float(want.abs().mean()),
                         slack)
