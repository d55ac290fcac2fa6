"""Compiles Triton kernels for gfx942 and gfx950 with Triton's AMD backend
(no AMD GPU needed) and writes their code objects and launch metadata.

Run where Triton is installed (the GPU machine):
    python3 generate.py OUT_DIR
Writes OUT_DIR/<kernel>-<chip>.hsaco and OUT_DIR/kernels.json (name,
chip, symbol, num_warps, shared bytes, the argument list)."""
import json
import os
import sys
import traceback

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * stride + cols, (d * rstd * w + b).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)


@triton.jit
def matmul_bt_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # B stored N x K (K contiguous): no transposing LDS reads needed.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(b_ptr + rn[None, :] * stride_bn + (k + rk)[:, None])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)


MATMUL_SIG = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
              "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
              "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
MATMUL_BT_SIG = dict(MATMUL_SIG)
del MATMUL_BT_SIG["stride_bk"]
MATMUL_BT_SIG = {k: MATMUL_BT_SIG[k] for k in ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am"]}
MATMUL_BT_SIG.update({"stride_bn": "i32", "stride_cm": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"})

KERNELS = [
    ("add", add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 1024}, 4, 1),
    ("softmax", softmax_kernel, {"x_ptr": "*bf16", "out_ptr": "*bf16", "stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 1024}, 4, 1),
    ("layernorm", layernorm_kernel, {"x_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16", "out_ptr": "*fp16",
                                     "stride": "i32", "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"},
     {"BLOCK": 2048}, 8, 1),
    ("matmul", matmul_kernel, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
                               "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
                               "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
     {"BM": 64, "BN": 64, "BK": 32}, 4, 2),
    # The same with 16x16 MFMA, and with B stored K-contiguous, each way.
    ("matmul16", matmul_kernel, MATMUL_SIG, {"BM": 64, "BN": 64, "BK": 32}, 4, 2, 16),
    ("matmul_bt", matmul_bt_kernel, MATMUL_BT_SIG, {"BM": 64, "BN": 64, "BK": 32}, 4, 2),
    ("matmul_bt16", matmul_bt_kernel, MATMUL_BT_SIG, {"BM": 64, "BN": 64, "BK": 32}, 4, 2, 16),
    # fp8 inputs (the chip's own e4m3: FNUZ on gfx942, OCP on gfx950).
    ("matmul_fp8", matmul_kernel, MATMUL_SIG, {"BM": 64, "BN": 64, "BK": 64}, 4, 2),
    ("matmul_fp8_16", matmul_kernel, MATMUL_SIG, {"BM": 64, "BN": 64, "BK": 64}, 4, 2, 16),
    ("matmul_fp8_bt", matmul_bt_kernel, MATMUL_BT_SIG, {"BM": 64, "BN": 64, "BK": 64}, 4, 2),
    ("matmul_fp8_bt16", matmul_bt_kernel, MATMUL_BT_SIG, {"BM": 64, "BN": 64, "BK": 64}, 4, 2, 16),
]


def for_chip(name, sig, chip):
    """fp8 kernels take the chip's e4m3 format."""
    if not name.startswith("matmul_fp8"):
        return sig
    fp8 = "*fp8e4b8" if chip == "gfx942" else "*fp8e4nv"
    return {k: (fp8 if k in ("a_ptr", "b_ptr") else v) for k, v in sig.items()}


def main(out):
    os.makedirs(out, exist_ok=True)
    records = []
    for chip in ("gfx942", "gfx950"):
        for name, fn, sig, consts, warps, stages, *nonk in KERNELS:
            try:
                sig = for_chip(name, sig, chip)
                src = ASTSource(fn=fn, signature=sig, constexprs=consts)
                options = {"num_warps": warps, "num_stages": stages}
                if nonk:
                    options["matrix_instr_nonkdim"] = nonk[0]
                k = triton.compile(src, target=GPUTarget("hip", chip, 64), options=options)
                path = os.path.join(out, "%s-%s.hsaco" % (name, chip))
                with open(path, "wb") as f:
                    f.write(k.asm["hsaco"])
                with open(os.path.join(out, "%s-%s.amdgcn" % (name, chip)), "w") as f:
                    f.write(k.asm["amdgcn"])
                records.append({"name": name, "chip": chip, "symbol": k.metadata.name,
                                "num_warps": k.metadata.num_warps, "shared": k.metadata.shared,
                                "args": [a for a in sig if sig[a] != "constexpr"],
                                "types": [sig[a] for a in sig if sig[a] != "constexpr"],
                                "constexprs": consts, "triton": triton.__version__})
                print("compiled", name, chip, "shared", k.metadata.shared)
            except Exception:
                traceback.print_exc()
                print("FAILED", name, chip)
    with open(os.path.join(out, "kernels.json"), "w") as f:
        json.dump(records, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
