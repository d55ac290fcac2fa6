"""rocdsl.torch's RMSNorm ops on a CUDA GPU: the whole config matrix against
float64, forward and autograd against torch eager, torch.compile, CUDA
graphs, a short training loop, and the argument errors; the native
operators by default, and the Python ones (ROCDSL_TORCH_NATIVE=0) in a
child process. Skipped where there is no GPU."""
import os
import subprocess
import sys

import pytest

import rmsnorm_cases
from gpu_support import (TORCH_DTYPES, assert_close, fresh_generator,
                         poison_allocator, randn, require_cuda,
                         rms_norm_grad_reference, rms_norm_reference, torch)

require_cuda()
import rocdsl.torch as rt  # noqa: E402
import torch.nn.functional as F  # noqa: E402

EPS = 1e-5
OPS = {0: "fwd", 1: "addfwd", 2: "bwd", 3: "addbwd"}
TIERS = {-1: None, 0: "miss", 1: "memory", 2: "disk"}


def launch_records(device_index):
    """(op, rows, cols, launcher id, tier of the last launch) of every
    kernel rocdsl.torch planned on one device, on either path."""
    if rt.NATIVE:
        flat = torch.ops.rocdsl._launch_records(device_index)
        return [(OPS[flat[i]], flat[i + 1], flat[i + 2], flat[i + 3],
                 TIERS[flat[i + 4]]) for i in range(0, len(flat), 5)]
    from rocdsl import _torch_python as tp
    return [(key[0], e.m, e.n, k.launcher_id, k.last_tier)
            for key, e in tp._launches.items() if key[1][2] == device_index
            for k in e.kernels]
CASES = [(m, n, dtype, wdtype) for n, dtype, wdtype in rmsnorm_cases.cases()
         for m in rmsnorm_cases.row_counts()]


def case_id(c):
    m, n, dtype, wdtype = c
    return f"{m}x{n}_{dtype}" + ("" if wdtype == "same" else f"_w{wdtype}")


def make(m, n, dtype, wdtype, gen):
    xt = TORCH_DTYPES[dtype]
    wt = xt if wdtype == "same" else TORCH_DTYPES[wdtype]
    return randn((m, n), xt, gen), randn((n,), wt, gen)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_forward_matches_float64(case):
    m, n, dtype, wdtype = case
    gen = fresh_generator()
    x, w = make(m, n, dtype, wdtype, gen)
    poison_allocator(x.numel() * x.element_size())
    y = rt.rms_norm(x, w, EPS)
    ref, _ = rms_norm_reference(x, w, EPS)
    assert_close("y", y, ref, x.dtype)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_autograd_matches_float64(case):
    m, n, dtype, wdtype = case
    gen = fresh_generator()
    x, w = make(m, n, dtype, wdtype, gen)
    dy = randn((m, n), x.dtype, gen)
    x.requires_grad_(True)
    w.requires_grad_(True)
    y = rt.rms_norm(x, w, EPS)
    poison_allocator(x.numel() * x.element_size())
    dx, dw = torch.autograd.grad(y, (x, w), dy)
    ref_dx, ref_dw, magnitude = rms_norm_grad_reference(dy, x.detach(),
                                                        w.detach(), EPS)
    assert_close("dx", dx, ref_dx, x.dtype)
    # dw is an fp32 sum of M products rounded to w's dtype.
    assert_close("dw", dw, ref_dw, w.dtype, scale=magnitude / max(1, m) + 1)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_fused_add_forward_matches_float64(case):
    m, n, dtype, wdtype = case
    gen = fresh_generator()
    x, w = make(m, n, dtype, wdtype, gen)
    r = randn((m, n), x.dtype, gen)
    poison_allocator(2 * x.numel() * x.element_size())
    y, h = rt.fused_add_rms_norm(x, r, w, EPS)
    # h is the sum rounded to the activation dtype; that h is normalized.
    ref_h = (x.to(torch.float64) + r.to(torch.float64)).to(x.dtype)
    assert_close("residual_out", h, ref_h.to(torch.float64), x.dtype)
    ref_y, _ = rms_norm_reference(ref_h, w, EPS)
    assert_close("y", y, ref_y, x.dtype)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_fused_add_autograd_matches_float64(case):
    m, n, dtype, wdtype = case
    gen = fresh_generator()
    x, w = make(m, n, dtype, wdtype, gen)
    r = randn((m, n), x.dtype, gen)
    dy, dh = randn((m, n), x.dtype, gen), randn((m, n), x.dtype, gen)
    for t in (x, r, w):
        t.requires_grad_(True)
    y, h = rt.fused_add_rms_norm(x, r, w, EPS)
    poison_allocator(x.numel() * x.element_size())
    dx, dr, dw = torch.autograd.grad((y, h), (x, r, w), (dy, dh))
    ref_dx, ref_dw, magnitude = rms_norm_grad_reference(dy, h.detach(),
                                                        w.detach(), EPS)
    ref_dx = ref_dx + dh.to(torch.float64)
    assert_close("dx", dx, ref_dx, x.dtype)
    assert_close("dresidual", dr, ref_dx, x.dtype)
    assert_close("dw", dw, ref_dw, w.dtype, scale=magnitude / max(1, m) + 1)


@pytest.mark.parametrize("shape,dtype", [((4, 33, 4096), torch.bfloat16),
                                         ((128, 2048), torch.float16),
                                         ((7, 3000), torch.float32)])
def test_matches_torch_eager(shape, dtype):
    gen = fresh_generator()
    n = shape[-1]
    x = randn(shape, dtype, gen).requires_grad_(True)
    w = randn((n,), dtype, gen).requires_grad_(True)
    dy = randn(shape, dtype, gen)
    ours = rt.rms_norm(x, w, EPS)
    eager = F.rms_norm(x, (n,), w, EPS)
    rtol, atol = {torch.float32: (1e-4, 1e-4), torch.float16: (4e-3, 4e-3),
                  torch.bfloat16: (3e-2, 3e-2)}[dtype]
    torch.testing.assert_close(ours, eager, rtol=rtol, atol=atol)
    g_ours = torch.autograd.grad(ours, (x, w), dy)
    g_eager = torch.autograd.grad(eager, (x, w), dy)
    torch.testing.assert_close(g_ours[0], g_eager[0], rtol=rtol, atol=atol)
    # dw sums over every row: compare relative to its size.
    scale = float(g_eager[1].abs().max())
    torch.testing.assert_close(g_ours[1] / scale, g_eager[1] / scale,
                               rtol=rtol, atol=atol)


def test_fused_add_matches_torch_eager():
    gen = fresh_generator()
    shape, n = (64, 3001), 3001
    x = randn(shape, torch.bfloat16, gen).requires_grad_(True)
    r = randn(shape, torch.bfloat16, gen).requires_grad_(True)
    w = randn((n,), torch.bfloat16, gen).requires_grad_(True)
    dy, dh = randn(shape, torch.bfloat16, gen), randn(shape, torch.bfloat16,
                                                      gen)
    y, h = rt.fused_add_rms_norm(x, r, w, EPS)
    h_eager = x + r
    y_eager = F.rms_norm(h_eager, (n,), w, EPS)
    torch.testing.assert_close(h, h_eager, rtol=0, atol=0)
    torch.testing.assert_close(y, y_eager, rtol=3e-2, atol=3e-2)
    ours = torch.autograd.grad((y, h), (x, r, w), (dy, dh))
    eager = torch.autograd.grad((y_eager, h_eager), (x, r, w), (dy, dh))
    for got, want in zip(ours[:2], eager[:2]):
        torch.testing.assert_close(got, want, rtol=3e-2, atol=3e-2)
    scale = float(eager[2].abs().max())
    torch.testing.assert_close(ours[2] / scale, eager[2] / scale, rtol=3e-2,
                               atol=3e-2)


@pytest.mark.parametrize("fused", [False, True], ids=["plain", "fused_add"])
def test_registered_ops_and_their_autograd(fused):
    """torch.ops.rocdsl.* themselves (what torch.compile graphs call), with
    the autograd formulas registered for them."""
    gen = fresh_generator()
    x, w = make(33, 2048, "bf16", "same", gen)
    r = randn((33, 2048), x.dtype, gen)
    dy, dh = randn((33, 2048), x.dtype, gen), randn((33, 2048), x.dtype, gen)
    for t in (x, r, w):
        t.requires_grad_(True)
    if fused:
        y, h = torch.ops.rocdsl.fused_add_rms_norm(x, r, w, EPS)
        dx, dr, dw = torch.autograd.grad((y, h), (x, r, w), (dy, dh))
        assert torch.equal(dx, dr)
        base, extra = h.detach(), dh.to(torch.float64)
    else:
        y = torch.ops.rocdsl.rms_norm(x, w, EPS)
        dx, dw = torch.autograd.grad(y, (x, w), dy)
        base, extra = x.detach(), 0.0
    ref_y, _ = rms_norm_reference(base, w.detach(), EPS)
    assert_close("y", y, ref_y, x.dtype)
    ref_dx, ref_dw, magnitude = rms_norm_grad_reference(dy, base, w.detach(),
                                                        EPS)
    assert_close("dx", dx, ref_dx + extra, x.dtype)
    assert_close("dw", dw, ref_dw, w.dtype, scale=magnitude / 33 + 1)


def test_second_call_reuses_the_launcher():
    gen = fresh_generator()
    x, w = make(16, 1024, "bf16", "same", gen)

    def record():
        found = [r for r in launch_records(0) if r[:3] == ("fwd", 16, 1024)]
        assert len(found) == 1, found
        return found[0]
    rt.rms_norm(x, w, EPS)
    first = record()
    rt.rms_norm(x, w, EPS)
    second = record()
    assert second[4] == "memory"
    assert second[3] == first[3] != 0


@pytest.mark.parametrize("fused", [False, True], ids=["plain", "fused_add"])
def test_double_backward_raises(fused):
    """No second derivative: an error, never a gradient taken as constant."""
    gen = fresh_generator()
    x = randn((8, 512), torch.float32, gen).requires_grad_(True)
    w = randn((512,), torch.float32, gen).requires_grad_(True)
    r = randn((8, 512), torch.float32, gen)
    with pytest.raises(RuntimeError, match="double backward|differentiate "
                                           "twice"):
        y = rt.fused_add_rms_norm(x, r, w, EPS)[0] if fused else \
            rt.rms_norm(x, w, EPS)
        g, = torch.autograd.grad((y * y).sum(), x, create_graph=True)
        torch.autograd.grad(g.sum(), x)


def test_native_operators_are_in_use():
    """On a GPU machine with a compiler the native operators must build: a
    silent fall back to the Python path would hide a broken build."""
    if os.environ.get("ROCDSL_TORCH_NATIVE", "auto") == "0":
        assert rt.NATIVE is False
        pytest.skip("the Python path was asked for")
    assert rt.NATIVE is True
    assert torch.ops.rocdsl.rms_norm.default._schema.name == "rocdsl::rms_norm"


def test_the_python_path_in_a_child_process():
    """The operators defined in Python (ROCDSL_TORCH_NATIVE=0) pass the
    same tests, minus the full config matrix."""
    if os.environ.get("ROCDSL_TORCH_NATIVE", "auto") == "0":
        pytest.skip("this process is the Python path already")
    env = dict(os.environ, ROCDSL_TORCH_NATIVE="0")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         __file__, "-k", "not float64 and not child_process"],
        env=env, capture_output=True, text=True, timeout=900)
    print(done.stdout[-3000:], done.stderr[-3000:])
    assert done.returncode == 0
    assert " passed" in done.stdout


@pytest.mark.parametrize("fused", [False, True], ids=["plain", "fused_add"])
def test_cuda_graph_replays_forward_and_backward(fused):
    """Captured once, replayed on new inputs: the kernels read the inputs'
    current contents and write fresh outputs, on the capturing stream."""
    gen = fresh_generator()
    m, n = 96, 2048
    x = randn((m, n), torch.bfloat16, gen).requires_grad_(True)
    r = randn((m, n), torch.bfloat16, gen).requires_grad_(True)
    w = randn((n,), torch.bfloat16, gen).requires_grad_(True)
    dy, dh = randn((m, n), x.dtype, gen), randn((m, n), x.dtype, gen)

    def step():
        if fused:
            y, h = rt.fused_add_rms_norm(x, r, w, EPS)
            return (y, h) + torch.autograd.grad((y, h), (x, r, w), (dy, dh))
        y = rt.rms_norm(x, w, EPS)
        return (y,) + torch.autograd.grad(y, (x, w), dy)

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(2):
            step()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = step()
    with torch.no_grad():
        for t in (x, r, w, dy, dh):
            t.copy_(randn(t.shape, t.dtype, gen))
    graph.replay()
    torch.cuda.synchronize()
    want = [o.detach().clone() for o in step()]
    for i, (got, ref) in enumerate(zip(outs, want)):
        scale = max(1.0, float(ref.abs().max())) if ref.dim() == 1 else 1.0
        torch.testing.assert_close(got / scale, ref / scale, rtol=1e-2,
                                   atol=1e-2, msg=lambda e: f"output {i}: {e}")


@pytest.mark.skipif(not rt.NATIVE, reason="the one-launch backward is the "
                    "native operators'")
@pytest.mark.parametrize("fused", [False, True])
def test_eager_backward_is_one_launch_and_reproducible(fused):
    """Eagerly, a backward over several programs is the one tree_dw launch
    (the last of each group of programs reduces its group, the last group
    writes dw): right against float64, bitwise the same call after call,
    and right when two streams run it at the same time (each stream has its
    own arrival counts)."""
    gen = fresh_generator()
    m, n = 777, 2048
    x, w = make(m, n, "bf16", "same", gen)
    dys = [randn((m, n), x.dtype, gen) for _ in range(2)]
    dh = randn((m, n), x.dtype, gen)

    def grads(dy):
        if fused:
            return torch.ops.rocdsl.fused_add_rms_norm_backward(dy, dh, x, w,
                                                                EPS)
        return torch.ops.rocdsl.rms_norm_backward(dy, x, w, EPS)

    op = "addbwd" if fused else "bwd"
    dx, dw = grads(dys[0])
    used = [r for r in launch_records(0) if r[:3] == (op, m, n)]
    # Three kernels planned (the tree and the two graphs take), one ran.
    assert len(used) == 3, used
    ran = [r for r in used if r[4] is not None]
    assert len(ran) == 1, used
    ref_dx, ref_dw, magnitude = rms_norm_grad_reference(dys[0], x, w, EPS)
    assert_close("dx", dx, ref_dx + (dh.double() if fused else 0), x.dtype)
    assert_close("dw", dw, ref_dw, w.dtype, scale=magnitude / m + 1)
    for _ in range(3):
        again = grads(dys[0])
        assert torch.equal(again[0], dx) and torch.equal(again[1], dw)

    want = [grads(dy) for dy in dys]
    streams = [torch.cuda.Stream() for _ in dys]
    got = [[] for _ in dys]
    for s in streams:
        s.wait_stream(torch.cuda.current_stream())
    for _ in range(20):
        for i, s in enumerate(streams):
            with torch.cuda.stream(s):
                got[i].append(grads(dys[i]))
    torch.cuda.synchronize()
    for i, results in enumerate(got):
        for g_dx, g_dw in results:
            assert torch.equal(g_dx, want[i][0])
            assert torch.equal(g_dw, want[i][1])


def run_backward_child(m, n, seed, body, tree_bytes=None):
    """Runs `body` in a fresh Python process (an empty plan table, the
    environment read anew) after a prelude that makes bf16 x, dy [m, n] and
    w [n] on the GPU and defines `op` (the native backward) and
    `launched(rows=m, cols=n)`: whether each kernel planned for that shape
    ([kernel 1, rmsnorm_bwd_dw] and then the tree, where planned) has
    launched; gpu_support's float64 reference and check are imported.
    ROCDSL_TORCH_TREE_DW_BYTES is `tree_bytes`, or unset."""
    prelude = f"""
import ctypes, sys, torch, rocdsl.torch as rt
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
from gpu_support import assert_close, rms_norm_grad_reference
assert rt.NATIVE
m, n = {m}, {n}
g = torch.Generator(device="cuda").manual_seed({seed})
x, dy = (torch.randn((m, n), generator=g, device="cuda").bfloat16()
         for _ in range(2))
w = torch.randn((n,), generator=g, device="cuda").bfloat16()
op = torch.ops.rocdsl.rms_norm_backward

def launched(rows=m, cols=n):
    flat = torch.ops.rocdsl._launch_records(0)
    return [flat[i + 4] != -1 for i in range(0, len(flat), 5)
            if flat[i:i + 3] == [2, rows, cols]]
"""
    env = {k: v for k, v in os.environ.items()
           if k != "ROCDSL_TORCH_TREE_DW_BYTES"}
    if tree_bytes is not None:
        env["ROCDSL_TORCH_TREE_DW_BYTES"] = tree_bytes
    return subprocess.run([sys.executable, "-c", prelude + body], env=env,
                          capture_output=True, text=True, timeout=600)


_TREE_LIMIT_BODY = """
try:
    dx, dw = op(dy, x, w, 1e-5)
except ValueError as e:
    print("ValueError:", e)
    sys.exit(3)
torch.cuda.synchronize()
print("launched", sum(launched()))
"""


@pytest.mark.skipif(not rt.NATIVE, reason="the one-launch backward is the "
                    "native operators'")
@pytest.mark.parametrize("value,launches", [("0", 2), ("9547775", 2),
                                            ("9547776", 1), ("", 1)])
def test_tree_dw_byte_limit(value, launches):
    """ROCDSL_TORCH_TREE_DW_BYTES moves the eager one-launch limit: 777 x
    2048 bf16 moves 9547776 bytes (x, dy, dx), so a limit one byte short of
    that is two launches, the exact figure and the default (32 MiB) one."""
    done = run_backward_child(777, 2048, 7, _TREE_LIMIT_BODY, value)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"launched {launches}" in done.stdout, done.stdout


_TREE_SCRATCH_BODY = """
shapes = SHAPES
inputs = {}
for rows, cols in shapes:
    xs = torch.randn((rows, cols), generator=g, device="cuda").bfloat16()
    ws = torch.randn((cols,), generator=g, device="cuda").bfloat16()
    inputs[rows, cols] = (xs, ws)
# Shapes in turn on one stream, a fresh dy each call: a launch that read
# scratch another call left (another shape's partial sums, stale counts)
# would be caught against float64.
for step in range(3):
    for rows, cols in shapes:
        xs, ws = inputs[rows, cols]
        dys = torch.randn((rows, cols), generator=g, device="cuda").bfloat16()
        got_dx, got_dw = op(dys, xs, ws, 1e-5)
        want_dx, want_dw, magnitude = rms_norm_grad_reference(dys, xs, ws,
                                                              1e-5)
        assert_close("dx", got_dx, want_dx, xs.dtype)
        assert_close("dw", got_dw, want_dw, ws.dtype,
                     scale=magnitude / rows + 1)
for rows, cols in shapes:
    ran = launched(rows, cols)
    assert ran == RAN[rows, cols], (rows, cols, ran)
print("scratch ok")
"""


ONE, TWO = [False, False, True], [True, True]


@pytest.mark.skipif(not rt.NATIVE, reason="the kept scratch is the native "
                    "operators'")
@pytest.mark.parametrize("shapes,tree_bytes", [
    # The one launch, its partial sums kept per stream (at most 16 MiB).
    ({(777, 2048): ONE, (300, 1024): ONE, (128, 4096): ONE}, None),
    # The kept buffer grows (128 x 4096's sums, then 1024 x 8192's, kept
    # where G is at most twice the multiprocessors, as on CUDA) and then
    # serves the smaller shape again.
    ({(128, 4096): ONE, (1024, 8192): ONE}, "1099511627776"),
    # Two launches, whose partial sums are kept apart from the tree's: the
    # buffer grows from 64 x 4096's to 777 x 2048's; 300 x 32768 (no tree:
    # rows too long for registers) has over 16 MiB of sums wherever G is
    # over 128 (CUDA: more than 128 multiprocessors), a fresh buffer each
    # call, between calls of shapes whose buffer is kept.
    ({(64, 4096): TWO, (777, 2048): TWO, (300, 32768): TWO}, "0"),
    # Both forms on one stream in turn: 777 x 2048 (9.5 MB moved) takes
    # the one launch, 1024 x 8192 (48 MiB) the two.
    ({(777, 2048): ONE, (1024, 8192): TWO}, None)])
def test_backward_scratch_is_reused_safely(shapes, tree_bytes):
    """The backward's scratch (the one launch's arrival counts and partial
    sums, the two launches' partial sums) is kept per stream and shared by
    every shape: calls of different shapes in turn, each with new
    gradients, all match float64."""
    body = _TREE_SCRATCH_BODY.replace("SHAPES", repr(list(shapes)))
    body = body.replace("RAN", repr(shapes))
    done = run_backward_child(8, 64, 13, body, tree_bytes)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "scratch ok" in done.stdout, done.stdout


_KEPT_MEMORY_BODY = """
def resident_after(rows, cols):
    xs = torch.randn((rows, cols), generator=g, device="cuda").bfloat16()
    ws = torch.randn((cols,), generator=g, device="cuda").bfloat16()
    dys = torch.randn((rows, cols), generator=g, device="cuda").bfloat16()
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    dx, dw = op(dys, xs, ws, 1e-5)
    del dx, dw
    torch.cuda.synchronize()
    return torch.cuda.memory_allocated() - before

import rocdsl
def G(rows, cols):
    # Programs of kernel 1 (rows of dw_partial) for the operator's shape.
    defs = [f"N={cols}", f"M={rows}", "dtype=bf16", "wdtype=bf16"]
    return rocdsl.builtin("rmsnorm_bwd", defs, "cuda").grid[0]
# 16 x 4096: its sums are allocated once and stay...
first = resident_after(16, 4096)
assert G(16, 4096) == 16
assert 16 * 4096 * 4 <= first < 16 * 4096 * 4 + (1 << 20), first
# ... and are reused: the same call again leaves nothing more behind.
assert resident_after(16, 4096) == 0
# 300 x 65536's sums (over 16 MiB wherever G is over 64) are this call's
# alone: freed after it.
if G(300, 65536) * 65536 * 4 > 16 << 20:
    assert resident_after(300, 65536) == 0
    print("fresh checked")
# A larger kept shape grows the buffer once: the new one stays, the old
# one is released (PyTorch's allocator may hand out up to 1 MiB more than
# asked for a large block).
assert G(777, 4096) > 16
grown = resident_after(777, 4096)
assert 0 < grown < G(777, 4096) * 4096 * 4 + (1 << 20) - first, grown
assert resident_after(777, 4096) == 0
print("memory ok")
"""


@pytest.mark.skipif(not rt.NATIVE, reason="the kept scratch is the native "
                    "operators'")
def test_two_launch_sums_are_kept_up_to_the_limit():
    """What stays allocated after a two-launch call, with its outputs
    dropped: the stream's kept partial sums once (then nothing), nothing at
    all for sums over 16 MiB, and one growth for a larger kept shape."""
    done = run_backward_child(8, 64, 17, _KEPT_MEMORY_BODY, "0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "memory ok" in done.stdout, done.stdout
    assert "fresh checked" in done.stdout, done.stdout


@pytest.mark.skipif(not rt.NATIVE, reason="the kept scratch is the native "
                    "operators'")
@pytest.mark.parametrize("shapes", [[(2053, 4096)], [(131, 2048)],
                                    [(131, 2048), (2053, 4096)]],
                         ids=["two", "one", "both"])
def test_backward_from_threads_on_one_stream(shapes):
    """Threads calling the backward at once on one stream (PyTorch releases
    the GIL inside an operator) share that stream's kept scratch: a
    two-launch call holds its partial sums from its first launch to its
    second, and the one launch has its own, so each result is the same
    bits as the same call made alone. At the default limit 2053 x 4096 is
    two launches and 131 x 2048 one; "both" mixes them. (Row counts no
    other test uses, so the launch records below are these calls'.)"""
    import threading
    gen = fresh_generator()
    op = torch.ops.rocdsl.rms_norm_backward
    jobs = []
    for rows, cols in shapes:
        x, w = make(rows, cols, "bf16", "same", gen)
        for _ in range(4):
            jobs.append((randn((rows, cols), torch.bfloat16, gen), x, w))
    want = [op(dy, x, w, EPS) for dy, x, w in jobs]
    torch.cuda.synchronize()
    for (dy, x, w), (dx, dw) in zip(jobs, want):
        ref_dx, ref_dw, magnitude = rms_norm_grad_reference(dy, x, w, EPS)
        assert_close("dx", dx, ref_dx, x.dtype)
        assert_close("dw", dw, ref_dw, w.dtype,
                     scale=magnitude / x.shape[0] + 1)
    got, errors = {}, []

    def work(t):
        try:
            for rep in range(25):
                i = (t + rep) % len(jobs)
                got[t, rep] = (i, op(*jobs[i][:3], EPS))
        except Exception as e:  # reported below, not lost in the thread
            errors.append(e)
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    torch.cuda.synchronize()
    assert not errors, errors
    assert len(got) == 100
    for i, (dx, dw) in got.values():
        assert torch.equal(dx, want[i][0])
        assert torch.equal(dw, want[i][1])
    # The forms the docstring names are the ones that ran: kernel 1 and
    # rmsnorm_bwd_dw (no tree planned: 50 MB moved), or the tree alone.
    index = torch.cuda.current_device()
    for rows, cols in shapes:
        ran = [tier is not None
               for op_name, r, c, _, tier in launch_records(index)
               if (op_name, r, c) == ("bwd", rows, cols)]
        assert ran == (TWO if rows == 2053 else ONE), (rows, ran)


@pytest.mark.skipif(not rt.NATIVE, reason="a native operators' knob")
@pytest.mark.parametrize("value", ["-1", "16MiB", "1e6", " 5"])
def test_tree_dw_byte_limit_refuses_garbage(value):
    done = run_backward_child(777, 2048, 7, _TREE_LIMIT_BODY, value)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "ROCDSL_TORCH_TREE_DW_BYTES" in done.stdout, done.stdout


_TREE_STREAMS_BODY = """
want = op(dy, x, w, 1e-5)
torch.cuda.synchronize()
cuda = ctypes.CDLL("libcuda.so.1")
handles = []
for _ in range(70):
    h = ctypes.c_void_p()
    assert cuda.cuStreamCreate(ctypes.byref(h), 1) == 0
    handles.append(h.value)
states = []
for h in handles:
    with torch.cuda.stream(torch.cuda.ExternalStream(h)):
        got = op(dy, x, w, 1e-5)
    torch.cuda.synchronize()
    assert torch.equal(got[0], want[0])
    torch.testing.assert_close(got[1].float(), want[1].float(), rtol=1e-2,
                               atol=1e-2 * float(want[1].abs().max()))
    states.append(launched())
# [kernel 1, rmsnorm_bwd_dw, tree]: 64 streams (the current one and 63
# made here) get the tree only; the 65th on has the two launches.
assert states[62] == [False, False, True], states[62]
assert states[63] == [True, True, True], states[63]
print("streams ok")
"""


@pytest.mark.skipif(not rt.NATIVE, reason="the one-launch backward is the "
                    "native operators'")
def test_tree_dw_count_buffers_are_bounded():
    """Each stream keeps its own arrival counts for the process: past 64
    streams, new ones get the two launches instead of more buffers, and
    every stream's result is right either way."""
    done = run_backward_child(300, 1024, 11, _TREE_STREAMS_BODY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "streams ok" in done.stdout, done.stdout


def test_inside_torch_compile():
    gen = fresh_generator()
    x, w = make(64, 2048, "bf16", "same", gen)

    def block(x, w):
        return rt.rms_norm(x * 2.0, w, EPS) + 1.0

    compiled = torch.compile(block, fullgraph=True)
    torch.testing.assert_close(compiled(x, w), block(x, w), rtol=1.6e-2,
                               atol=1e-2)


def test_training_loop_matches_eager():
    """A few SGD steps of a tiny MLP with RMSNorm: the same losses as eager."""
    gen = fresh_generator()
    dim, hidden = 256, 512

    def model(params, x, norm):
        w1, g, w2 = params
        h = torch.relu(x @ w1)
        return norm(h, g) @ w2

    init = [randn((dim, hidden), torch.float32, gen) * 0.05,
            1.0 + 0.1 * randn((hidden,), torch.float32, gen),
            randn((hidden, dim), torch.float32, gen) * 0.05]
    data = [(randn((32, dim), torch.float32, gen),
             randn((32, dim), torch.float32, gen)) for _ in range(5)]
    losses = {}
    for name, norm in [("rocdsl", lambda h, g: rt.rms_norm(h, g, EPS)),
                       ("eager", lambda h, g: F.rms_norm(h, (hidden,), g,
                                                         EPS))]:
        params = [p.clone().requires_grad_(True) for p in init]
        history = []
        for x, target in data:
            loss = ((model(params, x, norm) - target) ** 2).mean()
            grads = torch.autograd.grad(loss, params)
            with torch.no_grad():
                for p, g in zip(params, grads):
                    p -= 0.1 * g
            history.append(float(loss.detach()))
        losses[name] = history
    print("losses", losses)
    assert all(torch.isfinite(torch.tensor(losses["rocdsl"])))
    torch.testing.assert_close(torch.tensor(losses["rocdsl"]),
                               torch.tensor(losses["eager"]),
                               rtol=1e-4, atol=1e-6)


def test_bad_inputs_raise():
    gen = fresh_generator()
    x, w = make(4, 256, "f32", "same", gen)
    with pytest.raises(ValueError, match="x: expected a GPU tensor"):
        rt.rms_norm(x.cpu(), w, EPS)
    with pytest.raises(ValueError, match="must be contiguous"):
        rt.rms_norm(x.t(), w, EPS)
    with pytest.raises(ValueError, match=r"weight: expected shape \(256,\)"):
        rt.rms_norm(x, w[:128], EPS)
    with pytest.raises(ValueError, match="unsupported dtype"):
        rt.rms_norm(x.to(torch.float64), w, EPS)


def test_every_device_index_runs_on_its_own_device():
    """Each GPU gets its own loaded kernels and runs on its current stream;
    the caller's current device is left as it was."""
    count = torch.cuda.device_count()
    current = torch.cuda.current_device()
    kernels = {}
    for index in range(count):
        device = torch.device("cuda", index)
        gen = torch.Generator(device=device).manual_seed(1234 + index)
        x = torch.randn((33, 3000), generator=gen, device=device).to(
            torch.bfloat16).requires_grad_()
        w = torch.randn((3000,), generator=gen, device=device).to(
            torch.bfloat16).requires_grad_()
        with torch.cuda.device(device):
            stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            y = rt.rms_norm(x, w, EPS)
            y.backward(torch.ones_like(y))
        stream.synchronize()
        assert y.device == device and x.grad.device == device
        ref, _ = rms_norm_reference(x.detach(), w.detach(), EPS)
        assert_close(f"y on {device}", y, ref, torch.bfloat16)
        assert torch.isfinite(x.grad).all() and torch.isfinite(w.grad).all()
        assert torch.cuda.current_device() == current
        kernels[index] = {r[3] for r in launch_records(index) if r[3]}
        assert kernels[index]
    if count > 1:
        assert not kernels[0] & kernels[1], "devices share loaded kernels"
        x0 = torch.ones((2, 256), device="cuda:0")
        w1 = torch.ones((256,), device="cuda:1")
        with pytest.raises(ValueError, match="weight: on cuda:1, but x is "
                                             "on cuda:0"):
            rt.rms_norm(x0, w1, EPS)


@pytest.mark.parametrize("eps", [-1.0, float("nan"), float("inf")])
def test_bad_eps_raises_like_the_cli(eps):
    gen = fresh_generator()
    x, w = randn((4, 256), torch.bfloat16, gen), randn((256,), torch.bfloat16, gen)
    r = randn((4, 256), torch.bfloat16, gen)
    for call in (lambda: rt.rms_norm(x, w, eps),
                 lambda: rt.fused_add_rms_norm(x, r, w, eps)):
        with pytest.raises(ValueError, match="argument 'eps'.*finite, "
                                             "non-negative"):
            call()
    # Through autograd too: the forward refuses before anything is saved.
    xg = x.clone().requires_grad_()
    with pytest.raises(ValueError, match="finite, non-negative"):
        rt.rms_norm(xg, w, eps)


def test_check_finite_raises_on_nan_output(monkeypatch):
    gen = fresh_generator()
    x, w = randn((8, 1024), torch.float32, gen), randn((1024,), torch.float32, gen)
    x[5, 3] = float("inf")
    y = rt.rms_norm(x, w, EPS)  # off by default: the NaN goes through
    torch.cuda.synchronize()
    assert torch.isnan(y[5, 3])
    monkeypatch.setenv("ROCDSL_CHECK_FINITE", "1")
    with pytest.raises(ValueError, match=r"rmsnorm_fwd wrote nan to 'y' at "
                                         r"element 5123 of 8192"):
        rt.rms_norm(x, w, EPS)
    x[5, 3] = 1.0
    y = rt.rms_norm(x, w, EPS)  # finite: passes with the check on
    assert torch.isfinite(y).all()
