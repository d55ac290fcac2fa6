"""The Triton peers of ROCDSL's RMSNorm family, in the standard design.

Forward: one row per program, the whole row in registers. Backward: a fixed
number of programs (one per multiprocessor), each walking a contiguous
range of rows, recomputing rstd, writing dx and keeping its dweight sum in
fp32 registers; the [programs, N] partial sums are then reduced by torch.
The fused-add variants add the residual first (and store it) or add the
residual's incoming gradient to dx. Used by rmsnorm_torch_compare.py only.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _fwd(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, n, eps, HAS_RES: tl.constexpr,
         BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
    if HAS_RES:
        r = tl.load(r_ptr + row * n + cols, mask=mask, other=0.0)
        h = (x + r.to(tl.float32)).to(h_ptr.dtype.element_ty)
        tl.store(h_ptr + row * n + cols, h, mask=mask)
        x = h.to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=0) / n + eps)
    tl.store(y_ptr + row * n + cols, (x * inv * w).to(y_ptr.dtype.element_ty),
             mask=mask)


@triton.jit
def _bwd(dy_ptr, x_ptr, w_ptr, dres_ptr, dx_ptr, dwp_ptr, m, n, eps,
         rows_per_program, HAS_DRES: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros([BLOCK], dtype=tl.float32)
    start = pid * rows_per_program
    end = tl.minimum(start + rows_per_program, m)
    for row in range(start, end):
        off = row.to(tl.int64) * n + cols
        x = tl.load(x_ptr + off, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + off, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n + eps)
        xhat = x * rstd
        wdy = w * dy
        c = tl.sum(xhat * wdy, axis=0) / n
        dx = (wdy - xhat * c) * rstd
        if HAS_DRES:
            dx += tl.load(dres_ptr + off, mask=mask, other=0.0).to(tl.float32)
        tl.store(dx_ptr + off, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        dw += dy * xhat
    tl.store(dwp_ptr + pid * n + cols, dw, mask=mask)


def _warps(block):
    return 16 if block >= 8192 else 8 if block >= 2048 else 4


def forward(x, w, eps, residual=None):
    m, n = x.shape
    y = torch.empty_like(x)
    h = torch.empty_like(x) if residual is not None else y
    block = triton.next_power_of_2(n)
    _fwd[(m,)](x, residual if residual is not None else x, w, y, h, n, eps,
               HAS_RES=residual is not None, BLOCK=block,
               num_warps=_warps(block))
    return (y, h) if residual is not None else y


def backward(dy, x, w, eps, dres=None):
    m, n = x.shape
    programs = min(m, torch.cuda.get_device_properties(x.device)
                   .multi_processor_count)
    rows = triton.cdiv(m, programs)
    dx = torch.empty_like(x)
    partial = torch.empty((programs, n), dtype=torch.float32, device=x.device)
    block = triton.next_power_of_2(n)
    _bwd[(programs,)](dy, x, w, dres if dres is not None else dy, dx, partial,
                      m, n, eps, rows, HAS_DRES=dres is not None, BLOCK=block,
                      num_warps=_warps(block))
    return dx, partial.sum(0).to(w.dtype)


class RMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, eps):
        ctx.save_for_backward(x, w)
        ctx.eps = eps
        return forward(x, w, eps)

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        dx, dw = backward(dy.contiguous(), x, w, ctx.eps)
        return dx, dw, None


class FusedAddRMSNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, residual, w, eps):
        y, h = forward(x, w, eps, residual)
        ctx.save_for_backward(h, w)
        ctx.eps = eps
        return y, h

    @staticmethod
    def backward(ctx, dy, dh):
        h, w = ctx.saved_tensors
        dh = torch.zeros_like(h) if dh is None else dh.contiguous()
        dx, dw = backward(dy.contiguous(), h, w, ctx.eps, dres=dh)
        return dx, dx, dw, None
