"""Kernels of the atomics tests (test_atomics.py on the host and emulated
chips, test_atomics_cuda.py on an NVIDIA GPU): programs add column sums
into shared memory and the last to arrive publishes them."""
import numpy as np

import rocdsl
import rocdsl.language as rl


@rocdsl.kernel(num_warps=4)
def column_sums(x: rl.ptr, acc: rl.ptr, count: rl.ptr("i32"), out: rl.ptr,
                M: rl.i32, N: rl.i32, BM: rl.constexpr, BN: rl.constexpr):
    """out[j] = sum_i x[i, j] (f32 or i32): program p sums its BM-row tiles
    p, p+G, ... (reduced along rows: the column tile has a copy in every
    lane along the rows), adds them into acc, and the last program copies
    acc to out and leaves acc zero and count 0."""
    g = rl.num_programs(0)
    p = rl.program_id(0)

    def rows(row0):
        return rl.load(x, [row0, 0], shape=[BM, BN], strides=[N],
                       bounds=[M, N])

    total = rl.for_loop(p * BM + g * BM, M, g * BM, rl.sum(rows(p * BM), axis=0),
                        lambda row0, s: s + rl.sum(rows(row0), axis=0))
    rl.atomic_add(total, acc, [0], bounds=[N])
    old = rl.program_atomic("add", count, 0, 1)
    last = old == g - 1
    done = rl.load(acc, [0], shape=[BN], bounds=[N], mask=last,
                   layout=total.layout)
    rl.store(done, out, [0], bounds=[N], mask=last)
    # Every wave holds a copy of the columns: all of them have read acc
    # before any clears it.
    rl.barrier()
    rl.store(done - done, acc, [0], bounds=[N], mask=last)
    # Back to 0: the last program takes away the G arrivals.
    rl.program_atomic("add", count, 0, last.to("i32") * (0 - g))


def run_sums(device, x, bm, bn, programs):
    m, n = x.shape
    acc = np.zeros(bn, x.dtype)
    count = np.zeros(1, np.int32)
    out = (np.full(bn, np.nan, np.float32) if x.dtype == np.float32 else
           np.full(bn, -12345, np.int32))
    grid = (programs,)
    if device == "host":
        column_sums[grid](x, acc, count, out, m, n, BM=bm, BN=bn)
        return out[:n], acc, count
    dx = rocdsl.device_array(x, device)
    dacc = rocdsl.device_array(acc, device)
    dcount = rocdsl.device_array(count, device)
    dout = rocdsl.device_array(out, device)
    column_sums[grid](dx, dacc, dcount, dout, m, n, BM=bm, BN=bn)
    return dout.to_host()[:n], dacc.to_host(), dcount.to_host()


# (M, N, BM, BN, programs): one program, more programs than row tiles
# (some add zeros), ragged M and N, and a column tile smaller than the
# layout's repetition (copies within a wave, too).
CASES = [(7, 64, 8, 64, 1), (100, 96, 8, 128, 9), (257, 33, 16, 64, 5),
         (64, 16, 4, 16, 16), (1000, 200, 8, 256, 24)]


@rocdsl.kernel(num_warps=2)
def transposed_sums(x: rl.ptr, acc: rl.ptr, M: rl.i32, N: rl.i32,
                    BM: rl.constexpr, BN: rl.constexpr):
    """acc[j * M + i] += x[i, j] for x [M, N] (M <= BM, N <= BN) from every
    program, through every stride given (the innermost, M, too): acc = G
    x^T."""
    t = rl.load(x, [0, 0], shape=[BM, BN], strides=[N], bounds=[M, N])
    rl.atomic_add(t, acc, [0, 0], strides=[1, M], bounds=[M, N])
