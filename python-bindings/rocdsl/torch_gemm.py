"""rocdsl.torch.matmul: the gemm kernel (kernels/gemm) as a PyTorch operator.

    import rocdsl.torch as rt
    c = rt.matmul(a, b)               # a [M, K] or [B, M, K], b [K, N] or [B, K, N]
    c = rt.matmul(a, b, bias=bias)    # + bias [N]

f16 or bf16 inputs (one dtype), f32 accumulation, the result in the inputs'
dtype. Registered as torch.ops.rocdsl.matmul with a fake implementation
(torch.compile keeps it as one node) and autograd through the same kernel
with transposed operands: dA = dC B^T (B read as a column-major operand, no
transposed copy), dB = A^T dC, dbias = the column sums of dC. A 3-D `a` with
a 2-D `b` multiplies every row of every batch entry by `b` (a Linear layer);
3-D with 3-D is a batched product. Inputs must be contiguous GPU tensors on
one device; anything else raises, nothing is copied behind the caller's
back (the backward makes the incoming gradient contiguous if autograd hands
it over strided).
"""
import torch

from . import runtime
from .args import torch_device_name

__all__ = ["matmul"]

_DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16"}


def _check(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got "
                        f"{type(t).__name__}")
    if t.device.type != "cuda":
        raise ValueError(f"{name}: expected a GPU tensor (device type "
                         f"'cuda', also on ROCm), got device {t.device}")
    if t.dtype not in _DTYPES:
        raise ValueError(f"{name}: unsupported dtype {t.dtype} (matrix "
                         f"cores take float16 or bfloat16)")
    if not t.is_contiguous():
        raise ValueError(f"{name}: must be contiguous (call .contiguous(); "
                         "ROCDSL does not copy silently)")


def _shapes(a, b, bias):
    """(batch, M, N, K) of the product, checking ranks and sizes."""
    if a.dim() not in (2, 3) or b.dim() not in (2, 3) or \
            (a.dim() == 2 and b.dim() == 3):
        raise ValueError(f"expected a [M, K] or [B, M, K] and b [K, N] or "
                         f"[B, K, N], got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    k = a.shape[-1]
    if b.shape[-2] != k:
        raise ValueError(f"inner dimensions differ: a {tuple(a.shape)}, b "
                         f"{tuple(b.shape)}")
    n = b.shape[-1]
    if b.dim() == 3:
        if b.shape[0] != a.shape[0]:
            raise ValueError(f"batch sizes differ: a {tuple(a.shape)}, b "
                             f"{tuple(b.shape)}")
        batch, m = a.shape[0], a.shape[1]
    else:  # rows of every batch entry times one b
        batch, m = 1, a.numel() // max(k, 1)
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != n):
        raise ValueError(f"bias: expected shape ({n},), got "
                         f"{tuple(bias.shape)}")
    if min(batch, m, n, k) == 0:
        raise ValueError(f"empty product: a {tuple(a.shape)}, b "
                         f"{tuple(b.shape)}")
    return batch, m, n, k


def _gemm(a, b, out, batch, m, n, k, layout_a="row", layout_b="row",
          bias=None):
    """out = op(a) op(b) (+ bias) with the built-in kernel on the tensors'
    device and its current stream."""
    dtype = _DTYPES[a.dtype]
    defs = [f"M={m}", f"N={n}", f"K={k}", f"batch={batch}", f"dtype={dtype}",
            f"layout_a={layout_a}", f"layout_b={layout_b}",
            f"bias={1 if bias is not None else 0}"]
    kernel = runtime.builtin("gemm", defs, torch_device_name(torch, a.device))
    rows = (lambda r, c: (r, c)) if batch == 1 else (
        lambda r, c: (batch, r, c))
    args = [(a.data_ptr(), dtype, rows(k, m) if layout_a == "col"
             else rows(m, k)),
            (b.data_ptr(), dtype, rows(n, k) if layout_b == "col"
             else rows(k, n))]
    if bias is not None:
        args.append((bias.data_ptr(), dtype, (n,)))
    args += [(out.data_ptr(), dtype, rows(m, n)), 1.0]
    kernel.launch(args, stream=torch.cuda.current_stream(
        a.device).cuda_stream)
    return out


def _result_shape(a, b):
    return tuple(a.shape[:-1]) + (b.shape[-1],)


def _forward(a, b, bias):
    batch, m, n, k = _shapes(a, b, bias)
    out = torch.empty(_result_shape(a, b), device=a.device, dtype=a.dtype)
    return _gemm(a, b, out, batch, m, n, k, bias=bias)


@torch.library.custom_op("rocdsl::matmul", mutates_args=(),
                         device_types="cuda")
def _matmul_op(a: torch.Tensor, b: torch.Tensor,
               bias: torch.Tensor | None = None) -> torch.Tensor:
    return _forward(a, b, bias)


@_matmul_op.register_fake
def _(a, b, bias=None):
    return a.new_empty(_result_shape(a, b))


def _setup(ctx, inputs, output):
    a, b, bias = inputs
    ctx.save_for_backward(a, b)
    ctx.has_bias = bias is not None


def _grad(ctx, dc):
    a, b = ctx.saved_tensors
    dc = dc.contiguous()
    batch, m, n, k = _shapes(a, b, None)
    da = db = dbias = None
    if ctx.needs_input_grad[0]:
        # dA [M, K] = dC [M, N] B^T: B (K x N) is B^T stored column-major.
        da = _gemm(dc, b, torch.empty_like(a), batch, m, k, n,
                   layout_b="col")
    if ctx.needs_input_grad[1]:
        # dB [K, N] = A^T dC: A (M x K) is A^T stored column-major.
        db = _gemm(a, dc, torch.empty_like(b), batch, k, n, m,
                   layout_a="col")
    if ctx.has_bias and ctx.needs_input_grad[2]:
        dbias = dc.reshape(-1, n).sum(0, dtype=torch.float32).to(dc.dtype)
    return da, db, dbias


torch.library.register_autograd("rocdsl::matmul", _grad, setup_context=_setup)


def matmul(a, b, bias=None):
    """a @ b (+ bias) on the matrix units; see the module docstring."""
    for name, t in (("a", a), ("b", b)) + ((("bias", bias),) if bias is not None
                                         else ()):
        _check(name, t)
    if b.dtype != a.dtype or (bias is not None and bias.dtype != a.dtype):
        raise ValueError(f"a, b and bias must share one dtype, got {a.dtype}, "
                         f"{b.dtype}"
                         f"{'' if bias is None else ', ' + str(bias.dtype)}")
    for name, t in (("b", b), ("bias", bias)):
        if t is not None and t.device != a.device:
            raise ValueError(f"{name}: on {t.device}, but a is on {a.device} "
                             f"(all inputs on one device)")
    _shapes(a, b, bias)
    return _matmul_op(a, b, bias)
