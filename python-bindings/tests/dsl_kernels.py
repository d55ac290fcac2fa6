"""Kernels written in the Python DSL, shared by the trace and run tests."""
import rocdsl
import rocdsl.language as rl


@rocdsl.kernel(num_warps=4)
def softmax(x: rl.ptr("f32"), y: rl.ptr("f32"), n_rows: rl.i32,
            N: rl.constexpr):
    """One row per program, N a power of two (the issue's form)."""
    row = rl.program_id(0)
    t = rl.load(x, [row, 0], shape=[1, N], strides=[N], bounds=[n_rows, N],
                other=float("-inf"))
    m = t.max(axis=1)
    e = rl.exp(t - m.expand_dims(1).broadcast_to([1, N]))
    s = e.sum(axis=1)
    rl.store(e / s.expand_dims(1).broadcast_to([1, N]), y, [row, 0],
             strides=[N], bounds=[n_rows, N])


@rocdsl.kernel(num_warps=4)
def softmax_masked(x: rl.ptr, y: rl.ptr, M: rl.i32, N: rl.i32,
                   ROWS: rl.constexpr, BLOCK: rl.constexpr):
    """ROWS rows per program, any N <= BLOCK: the column mask switches off
    the padding; bf16/f16 inputs are computed in f32."""
    row0 = rl.program_id(0) * ROWS
    cols = rl.iota(BLOCK)
    valid = cols < N
    t = rl.load(x, [row0, 0], shape=[ROWS, BLOCK], strides=[N], bounds=[M, N],
                mask=valid, other=float("-inf")).to("f32")
    t = t - t.max(axis=1, keepdims=True)
    e = rl.where(valid[None, :], rl.exp(t), 0.0)
    out = e / e.sum(axis=1)[:, None]
    rl.store(out.to(y.dtype), y, [row0, 0], strides=[N], bounds=[M, N],
             mask=valid)


@rocdsl.kernel(num_warps=4)
def swiglu(a: rl.ptr, b: rl.ptr, out: rl.ptr, n: rl.i32, BLOCK: rl.constexpr):
    """out = silu(a) * b over n elements, silu(a) = a / (1 + exp(-a))."""
    start = rl.program_id(0) * BLOCK
    mask = rl.iota(BLOCK) + start < n
    x = rl.load(a, [start], shape=[BLOCK], mask=mask).to("f32")
    g = rl.load(b, [start], shape=[BLOCK], mask=mask).to("f32")
    r = x / (1 + rl.exp(-x)) * g
    rl.store(r.to(out.dtype), out, [start], mask=mask)


@rocdsl.kernel(num_warps=4)
def swiglu_rows(a: rl.ptr, b: rl.ptr, out: rl.ptr, M: rl.i32, N: rl.i32,
                BLOCK: rl.constexpr, VEC: rl.constexpr = 1):
    """The same on a [M, N] matrix, one row block per program, edges
    handled by bounds alone."""
    row = rl.program_id(0)
    col = rl.program_id(1) * BLOCK
    at = dict(strides=[N], bounds=[M, N], vec=VEC)
    x = rl.load(a, [row, col], shape=[1, BLOCK], **at).to("f32")
    g = rl.load(b, [row, col], shape=[1, BLOCK], **at).to("f32")
    rl.store((x / (1 + rl.exp(-x)) * g).to(out.dtype), out, [row, col], **at)


@rocdsl.kernel(num_warps=4)
def row_sum(x: rl.ptr("f32"), y: rl.ptr("f32"), M: rl.i32, N: rl.i32,
            BLOCK: rl.constexpr):
    """y[row] = sum(x[row, :]), walking the columns in BLOCK steps: the
    partial sums are carried by the loop."""
    row = rl.program_id(0)

    def step(k, acc):
        return acc + rl.load(x, [row, k], shape=[1, BLOCK], strides=[N],
                             bounds=[M, N])
    acc = rl.for_loop(0, N, BLOCK, rl.zeros([1, BLOCK]), step)
    rl.store(acc.sum(axis=1), y, [row], bounds=[M])


@rocdsl.kernel(num_warps=4)
def matmul(a: rl.ptr, b: rl.ptr, c: rl.ptr("f32"), M: rl.i32, N: rl.i32,
           K: rl.i32, BM: rl.constexpr, BN: rl.constexpr, BK: rl.constexpr):
    """c = a @ b (f16 or bf16 in, f32 out), one [BM, BN] tile per program;
    host target only."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN

    def step(k, acc):
        at = rl.load(a, [m0, k], shape=[BM, BK], strides=[K], bounds=[M, K])
        bt = rl.load(b, [k, n0], shape=[BK, BN], strides=[N], bounds=[K, N])
        return rl.dot(at, bt, acc)
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step)
    rl.store(acc, c, [m0, n0], strides=[N], bounds=[M, N])


@rocdsl.kernel(num_warps=2)
def many_ops(x: rl.ptr("f32"), i: rl.ptr("i32"), y: rl.ptr("bf16"),
             n: rl.i32, alpha: rl.f32, B: rl.constexpr, SQUARE: rl.constexpr):
    """Every remaining op once: scalar math, int ops and casts, masks with
    & | ~, maximum/minimum, the other unary functions and reductions, a
    loop carrying a scalar and a tile, full, barrier."""
    base = rl.program_id(0) * B + rl.num_programs(0) % 2
    idx = rl.iota(B, start=1)
    inside = (idx <= n) & ~(idx == 0) | (idx // 2 > n)
    v = rl.load(x, [base], shape=[B], bounds=[n], vec=4)
    iv = rl.load(i, [base], shape=[B], bounds=[n], mask=inside, other=-1)
    w = rl.maximum(v, iv.to("f32")) * alpha - rl.minimum(v, 0.5)
    w = rl.sqrt(rl.abs(w)) + rl.rsqrt(rl.abs(w) + 1.0) + rl.log(w * w + 1.0)
    w = w + rl.exp2(v) / (alpha * 2 + 1) + (iv % 3).to("f32")
    if SQUARE:  # a constexpr: plain Python control flow
        w = w * w
    total, t = rl.for_loop(0, 4, 1, [0.0, rl.full([B], alpha)],
                           lambda k, s, t: (s + t.max() - t.min() * k.to("f32"),
                                            t * 0.5))
    rl.barrier()
    out = (w + total + t.prod() + t.sum()).to("bf16")
    rl.store(out, y, [base], bounds=[n], mask=inside)


@rocdsl.kernel(num_warps=4)
def gemm_at(a: rl.ptr, b: rl.ptr, c: rl.ptr("f32"), M: rl.i32, N: rl.i32,
            K: rl.i32, BM: rl.constexpr, BN: rl.constexpr, BK: rl.constexpr):
    """c = a^T @ b with a stored K x M (a column-major A): each A tile is
    loaded as [BK, BM] and transposed in registers (or through LDS)."""
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN

    def step(k, acc):
        at = rl.load(a, [k, m0], shape=[BK, BM], strides=[M], bounds=[K, M])
        bt = rl.load(b, [k, n0], shape=[BK, BN], strides=[N], bounds=[K, N])
        return rl.dot(at.T, bt, acc)
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step)
    rl.store(acc, c, [m0, n0], strides=[N], bounds=[M, N])


@rocdsl.kernel(num_warps=2)
def transpose(x: rl.ptr("f32"), y: rl.ptr("f32"), M: rl.i32, N: rl.i32,
              BM: rl.constexpr, BN: rl.constexpr):
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN
    t = rl.load(x, [m0, n0], shape=[BM, BN], strides=[N], bounds=[M, N])
    rl.store(rl.trans(t) * 2.0, y, [n0, m0], strides=[M], bounds=[N, M])
