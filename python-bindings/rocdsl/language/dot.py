"""rl.dot: a matrix product on tiles (rocdsl.dot).

rocdsl.dot takes its operands in matrix-core layouts (#rocdsl.dot_operand
around an #rocdsl.mfma accumulator). a and b are converted into them
(through LDS on the GPU: coalesced loads in the default layout, then each
lane reads the elements the instruction wants). The accumulator takes the
#rocdsl.mfma layout itself when nothing has fixed its layout yet (a fresh
rl.zeros, a loop-carried value), so a K loop keeps it in the matrix
registers; otherwise it is converted in and the result back.

The host target lowers rocdsl.dot to vector.contract, AMD chips to MFMA
(gfx942 and gfx950: v_mfma_f32_32x32x8 / 16x16x16, f16 and bf16); NVIDIA
chips stop at the rl.dot line with an error (no mma lowering yet).
"""
from .. import ir, layouts
from ..errors import error
from . import tracing
from .creation import zeros
from .values import Tile, make_tile

_DOT_INPUTS = ("f16", "bf16")
# (M, N, K) of the mfma instruction shapes the verifier accepts, largest
# first.
_INSTR_SHAPES = ((32, 32, 8), (16, 16, 16))
_K_WIDTH = 4


def _warps(num_warps):
    """warpsPerCTA of the accumulator: the waves split M, then N."""
    wm = 1
    while wm * wm < num_warps:
        wm *= 2
    return wm, num_warps // wm


def _convert(value, fixed_layout):
    t = value.type
    target = ir.TileType(t.shape, t.dtype, layouts.fixed(fixed_layout))
    return tracing.builder().op(target, "rocdsl.convert_layout ", value,
                                " : ", t, " -> ", target)


def dot(a, b, acc=None):
    """acc + a @ b for a [M, K] and b [K, N] f16/bf16 tiles and an f32
    accumulator [M, N] (zeros when omitted); returns an f32 [M, N] tile."""
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, Tile) or t.ndim != 2:
            raise error(f"rl.dot operand {name} must be a 2-D tile")
        if t.dtype not in _DOT_INPUTS:
            raise error(f"rl.dot operand {name} is {t.describe()}; dot "
                        f"inputs are f16 or bf16 (convert with .to('bf16'))")
    if a.dtype != b.dtype:
        raise error(f"rl.dot operands differ in dtype: {a.dtype} and "
                    f"{b.dtype}")
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2:
        raise error(f"rl.dot shape mismatch: a is {list(a.shape)}, b is "
                    f"{list(b.shape)} (expected [M, K] and [K, N])")
    if acc is None:
        acc = zeros([m, n], "f32")
    if not isinstance(acc, Tile) or acc.shape != (m, n) or acc.dtype != "f32":
        raise error(f"rl.dot accumulator must be an f32 [{m}, {n}] tile, got "
                    f"{getattr(acc, 'describe', lambda: repr(acc))()}")
    instr = next((s for s in _INSTR_SHAPES
                  if m % s[0] == 0 and n % s[1] == 0 and k % s[2] == 0), None)
    if instr is None:
        raise error(f"rl.dot of [{m}, {k}] x [{k}, {n}]: M and N must be "
                    f"multiples of 32 (K of 8) or of 16 (K of 16)")
    builder = tracing.builder()
    wm, wn = _warps(builder.num_warps)
    mfma = (f"#rocdsl.mfma<version = 3, instrShape = "
            f"[{instr[0]}, {instr[1]}, {instr[2]}], warpsPerCTA = [{wm}, {wn}]>")
    a_op = _convert(a.value, f"#rocdsl.dot_operand<opIdx = 0, parent = {mfma},"
                             f" kWidth = {_K_WIDTH}>")
    b_op = _convert(b.value, f"#rocdsl.dot_operand<opIdx = 1, parent = {mfma},"
                             f" kWidth = {_K_WIDTH}>")
    if layouts.find(acc.type.layout).term is None:
        # Free: the accumulator lives in the matrix layout from here on.
        layouts.unify(acc.type.layout, layouts.fixed(mfma))
        c_op = acc.value
    else:
        c_op = _convert(acc.value, mfma)
    d = builder.op(c_op.type, "rocdsl.dot ", a_op, ", ", b_op, ", ", c_op,
                   " : ", a_op.type, ", ", b_op.type, " -> ", c_op.type)
    if c_op is acc.value:
        return make_tile(d)
    back = ir.TileType(acc.shape, "f32", acc.type.layout)
    return make_tile(builder.op(back, "rocdsl.convert_layout ", d, " : ",
                                d.type, " -> ", back))
