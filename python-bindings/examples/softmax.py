"""Row softmax written in the Python DSL, checked against float64.

Runs on NumPy arrays on the host CPU, on an AMD GPU through HIP (device
"hip" or "hip:N": NumPy data copied to device memory explicitly), or on
torch CUDA tensors (device "cuda") when PyTorch sees a GPU; --device picks
one explicitly.

    PYTHONPATH=build/python /usr/bin/python3 python-bindings/examples/softmax.py
    python3 softmax.py --device hip --rows 4096 --cols 1000 --dtype bf16
    python3 softmax.py --device cuda --rows 4096 --cols 1000 --dtype bf16
    python3 softmax.py --print-ir          # the traced rocdsl IR, nothing run

Rows of any length up to BLOCK run masked: the column mask switches the
padding off on load (it reads -inf), in the sum, and on store.
"""
import argparse
import sys

import numpy as np

import rocdsl
import rocdsl.language as rl


@rocdsl.kernel(num_warps=4)
def softmax(x: rl.ptr, y: rl.ptr, M: rl.i32, N: rl.i32,
            ROWS: rl.constexpr, BLOCK: rl.constexpr):
    row0 = rl.program_id(0) * ROWS
    cols = rl.iota(BLOCK)
    valid = cols < N
    t = rl.load(x, [row0, 0], shape=[ROWS, BLOCK], strides=[N], bounds=[M, N],
                mask=valid, other=float("-inf")).to("f32")
    t = t - t.max(axis=1, keepdims=True)
    e = rl.where(valid[None, :], rl.exp(t), 0.0)
    out = e / e.sum(axis=1, keepdims=True)
    rl.store(out.to(y.dtype), y, [row0, 0], strides=[N], bounds=[M, N],
             mask=valid)


def launch(x, y, m, n, rows):
    block = 1 << max(n - 1, 1).bit_length()  # next power of two >= n
    softmax[((m + rows - 1) // rows,)](x, y, m, n, ROWS=rows, BLOCK=block)


def reference(x64):
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


TOLERANCE = {"f32": 2e-5, "f16": 2e-3, "bf16": 1.6e-2}


def host_arrays(m, n, dtype, rng):
    """Random x and a NaN-poisoned y in `dtype` (bf16: uint16 bits, as NumPy
    has no bf16), and a function widening such an array to float64."""
    x32 = rng.standard_normal((m, n)).astype(np.float32) * 3
    if dtype == "bf16":
        bits = x32.view(np.uint32).astype(np.uint64)
        x = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        y = np.full((m, n), 0x7FC0, np.uint16)  # NaN
        widen = lambda a: ((a.astype(np.uint32) << 16).view(np.float32)
                           .astype(np.float64))
        return x, y, widen
    np_dtype = {"f32": np.float32, "f16": np.float16}[dtype]
    return (x32.astype(np_dtype), np.full((m, n), np.nan, np_dtype),
            lambda a: a.astype(np.float64))


def run_host(m, n, dtype, rows, rng, device):
    x, y, widen = host_arrays(m, n, dtype, rng)
    if dtype == "bf16":  # the bf16 element type is named explicitly
        launch((x, "bf16"), (y, "bf16"), m, n, rows)
    else:
        launch(x, y, m, n, rows)
    return widen(x), widen(y)


def run_hip(m, n, dtype, rows, rng, device):
    x, y, widen = host_arrays(m, n, dtype, rng)
    xd = rocdsl.device_array(x, device, dtype=dtype)  # explicit copies
    yd = rocdsl.device_array(y, device, dtype=dtype)
    launch(xd, yd, m, n, rows)  # runs on xd's device
    return widen(x), widen(yd.to_host())


def run_cuda(m, n, dtype, rows, rng, device):
    import torch
    torch_dtype = {"f32": torch.float32, "f16": torch.float16,
                   "bf16": torch.bfloat16}[dtype]
    x32 = rng.standard_normal((m, n)).astype(np.float32) * 3
    x = torch.from_numpy(x32).to(device, torch_dtype)
    y = torch.full((m, n), float("nan"), device=device, dtype=torch_dtype)
    launch(x, y, m, n, rows)  # on torch's current stream
    torch.cuda.synchronize()
    return (x.to(torch.float64).cpu().numpy(),
            y.to(torch.float64).cpu().numpy())


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
    p.add_argument("--rows", type=int, default=1000)
    p.add_argument("--cols", type=int, default=1000)
    p.add_argument("--dtype", choices=sorted(TOLERANCE), default="f32")
    p.add_argument("--rows-per-program", type=int, default=4)
    p.add_argument("--print-ir", action="store_true")
    a = p.parse_args()
    kind = a.device.partition(":")[0]
    if kind not in ("host", "hip", "cuda"):
        p.error(f"--device {a.device}: expected host, hip, hip:N, cuda or "
                f"cuda:N")
    block = 1 << max(a.cols - 1, 1).bit_length()
    if a.print_ir:
        print(softmax.ir(device=kind, x=a.dtype, y=a.dtype,
                         ROWS=a.rows_per_program, BLOCK=block))
        return 0
    seed = np.random.SeedSequence().entropy
    rng = np.random.default_rng(seed)
    run = {"host": run_host, "hip": run_hip, "cuda": run_cuda}[kind]
    x64, y = run(a.rows, a.cols, a.dtype, a.rows_per_program, rng, a.device)
    ref = reference(x64)
    err = np.abs(y - ref)
    tol = TOLERANCE[a.dtype]
    ok = bool(np.isfinite(y).all() and (err <= tol * (1 + np.abs(ref))).all())
    print(f"softmax {a.rows}x{a.cols} {a.dtype} on {a.device}: max abs error "
          f"{err.max():.3e} (tolerance {tol:g}), seed {seed}: "
          f"{'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
