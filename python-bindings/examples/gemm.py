"""C = A @ B written in the Python DSL with rl.dot, checked against float64.

Runs on NumPy arrays on the host CPU, on an AMD GPU through HIP (device
"hip" or "hip:N": MFMA; NumPy data copied to device memory explicitly), or
on torch CUDA tensors (device "cuda": mma.sync) when PyTorch sees a GPU;
--device picks one explicitly.

    PYTHONPATH=build/python /usr/bin/python3 python-bindings/examples/gemm.py
    python3 gemm.py --device hip --m 1000 --n 700 --k 300 --dtype f16
    python3 gemm.py --print-ir             # the traced rocdsl IR, nothing run

Any M, N and K: the loads' bounds mask the ragged edges (the padding reads
zero, which adds nothing to the products) and the store's bounds drop the
padding rows and columns.
"""
import argparse

import numpy as np

import rocdsl
import rocdsl.language as rl


@rocdsl.kernel(num_warps=4)
def gemm(a: rl.ptr, b: rl.ptr, c: rl.ptr, M: rl.i32, N: rl.i32, K: rl.i32,
         BM: rl.constexpr, BN: rl.constexpr, BK: rl.constexpr):
    m0 = rl.program_id(0) * BM
    n0 = rl.program_id(1) * BN

    def step(k, acc):
        at = rl.load(a, [m0, k], shape=[BM, BK], strides=[K], bounds=[M, K])
        bt = rl.load(b, [k, n0], shape=[BK, BN], strides=[N], bounds=[K, N])
        return rl.dot(at, bt, acc)
    acc = rl.for_loop(0, K, BK, rl.zeros([BM, BN]), step)
    rl.store(acc.to(c.dtype), c, [m0, n0], strides=[N], bounds=[M, N])


# The host unrolls the tile product: a small tile keeps its compile short.
TILES = {"host": (32, 32, 16), "hip": (128, 128, 32), "cuda": (128, 128, 32)}
TOLERANCE = {"f16": 2e-3, "bf16": 1.6e-2}


def launch(a, b, c, m, n, k, kind):
    bm, bn, bk = TILES[kind]
    gemm[((m + bm - 1) // bm, (n + bn - 1) // bn)](a, b, c, m, n, k, BM=bm,
                                                    BN=bn, BK=bk)


def to_bf16(x32):
    bits = x32.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def widen(a, dtype):
    if dtype == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def host_operands(m, n, k, dtype, rng):
    """Random A and B and a NaN-poisoned C in `dtype` (bf16 as uint16 bits:
    NumPy has no bf16)."""
    a32 = rng.standard_normal((m, k)).astype(np.float32)
    b32 = rng.standard_normal((k, n)).astype(np.float32)
    if dtype == "bf16":
        return to_bf16(a32), to_bf16(b32), np.full((m, n), 0x7FC0, np.uint16)
    return (a32.astype(np.float16), b32.astype(np.float16),
            np.full((m, n), np.nan, np.float16))


def run(device, m, n, k, dtype, rng):
    """(A, B, C) as float64 after one launch on `device`."""
    kind = device.partition(":")[0]
    if kind == "cuda":
        import torch
        t = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
        a = torch.randn(m, k, device=device).to(t)
        b = torch.randn(k, n, device=device).to(t)
        c = torch.full((m, n), float("nan"), device=device, dtype=t)
        launch(a, b, c, m, n, k, kind)  # on torch's current stream
        torch.cuda.synchronize()
        return tuple(x.to(torch.float64).cpu().numpy() for x in (a, b, c))
    a, b, c = host_operands(m, n, k, dtype, rng)
    if kind == "hip":
        ad, bd, cd = (rocdsl.device_array(x, device, dtype) for x in (a, b, c))
        launch(ad, bd, cd, m, n, k, kind)  # runs on ad's device
        c = cd.to_host()
    elif dtype == "bf16":  # the bf16 element type is named explicitly
        launch((a, "bf16"), (b, "bf16"), (c, "bf16"), m, n, k, kind)
    else:
        launch(a, b, c, m, n, k, kind)
    return widen(a, dtype), widen(b, dtype), widen(c, dtype)


def check(a64, b64, c64, dtype):
    """C against the float64 product: the output's rounding plus the f32
    accumulation's, which grows with sqrt(K)."""
    ref = a64 @ b64
    k = a64.shape[1]
    bound = (TOLERANCE[dtype] * np.abs(ref) +
             2e-6 * np.sqrt(k) * (np.abs(a64) @ np.abs(b64)) + 1e-3)
    bad = int((~np.isfinite(c64)).sum() + (np.abs(c64 - ref) > bound).sum())
    return bad, float(np.nanmax(np.abs(c64 - ref))) if c64.size else 0.0


def cuda_available():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda" if cuda_available() else "host",
                   help="host, hip, hip:N, cuda or cuda:N")
    p.add_argument("--m", type=int, default=300)
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--dtype", choices=sorted(TOLERANCE), default="bf16")
    p.add_argument("--print-ir", action="store_true")
    args = p.parse_args()
    kind = args.device.partition(":")[0]
    if kind not in TILES:
        p.error(f"--device {args.device}: expected host, hip, hip:N, cuda or "
                f"cuda:N")
    if min(args.m, args.n, args.k) < 1:
        p.error("--m, --n and --k must be at least 1")
    if args.print_ir:
        bm, bn, bk = TILES[kind]
        print(gemm.ir(device=args.device, a=args.dtype, b=args.dtype,
                      c=args.dtype, BM=bm, BN=bn, BK=bk))
        return 0
    rng = np.random.default_rng()
    a64, b64, c64 = run(args.device, args.m, args.n, args.k, args.dtype, rng)
    bad, worst = check(a64, b64, c64, args.dtype)
    print(f"gemm {args.m}x{args.n}x{args.k} {args.dtype} on {args.device}: "
          f"max abs error {worst:.3e}, {bad} of {c64.size} outside tolerance")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
