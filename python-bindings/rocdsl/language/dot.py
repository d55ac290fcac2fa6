"""rl.dot: a matrix product on tiles (rocdsl.dot).

rocdsl.dot takes its operands in matrix-core layouts (#rocdsl.dot_operand
around an #rocdsl.mfma accumulator). a and b are converted into them
(through LDS on the GPU: coalesced loads in the default layout, then each
lane reads the elements the instruction wants). The accumulator takes the
#rocdsl.mfma layout itself when nothing has fixed its layout yet (a fresh
rl.zeros, a loop-carried value), so a K loop keeps it in the matrix
registers; otherwise it is converted in and the result back.

The host target lowers rocdsl.dot to vector.contract, AMD chips to MFMA
(gfx942 and gfx950: v_mfma_f32_32x32x8 / 16x16x16, f16 and bf16), NVIDIA
chips to mma.sync.aligned.m16n8k16 (#rocdsl.mma; instr and k_width apply
to AMD only).
"""
from .. import ir, layouts
from ..errors import error
from . import tracing
from .creation import zeros
from .values import Tile, make_tile

_DOT_INPUTS = ("f16", "bf16")
# (M, N, K) of the default instruction shapes, largest first: both run on
# gfx942 and gfx950 (CDNA3's), so one traced kernel serves both chips.
_INSTR_SHAPES = ((32, 32, 8), (16, 16, 16))
# Every 16-bit MFMA shape and the matrix-core version that introduced it
# (CDNA4's 8-per-lane forms run on gfx950 only).
_VERSION_OF = {(32, 32, 8): 3, (16, 16, 16): 3, (32, 32, 16): 4,
               (16, 16, 32): 4}


def _pick_instr(m, n, k, instr):
    if instr is None:
        instr = next((s for s in _INSTR_SHAPES
                      if m % s[0] == 0 and n % s[1] == 0 and k % s[2] == 0),
                     None)
        if instr is None:
            raise error(f"rl.dot of [{m}, {k}] x [{k}, {n}]: M and N must be "
                        f"multiples of 32 (K of 8) or of 16 (K of 16)")
        return instr
    instr = tuple(instr)
    if instr not in _VERSION_OF:
        raise error(f"rl.dot instr={instr}: the 16-bit matrix instructions "
                    f"are {', '.join(map(str, _VERSION_OF))}")
    if m % instr[0] or n % instr[1] or k % instr[2]:
        raise error(f"rl.dot of [{m}, {k}] x [{k}, {n}] is not a multiple of "
                    f"the instruction's {instr[0]}x{instr[1]}x{instr[2]}")
    return instr


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


def _accumulator(acc, m, n, what):
    """`acc` (zeros when None), checked to be an f32 [m, n] tile."""
    if acc is None:
        acc = zeros([m, n], "f32")
    if not isinstance(acc, Tile) or acc.shape != (m, n) or acc.dtype != "f32":
        raise error(f"{what} accumulator must be an f32 [{m}, {n}] tile, got "
                    f"{getattr(acc, 'describe', lambda: repr(acc))()}")
    return acc


def _accumulate(acc, acc_layout, product):
    """The tile `product(c)` builds from the accumulator value `c` in
    `acc_layout`. The accumulator takes that layout itself while nothing
    has fixed its layout (a fresh rl.zeros, a loop-carried value), so a K
    loop keeps it in the matrix registers; otherwise it is converted in and
    the result back."""
    if layouts.find(acc.type.layout).term is None:
        layouts.unify(acc.type.layout, layouts.fixed(acc_layout))
        return make_tile(product(acc.value))
    d = product(_convert(acc.value, acc_layout))
    back = ir.TileType(acc.shape, "f32", acc.type.layout)
    return make_tile(tracing.builder().op(back, "rocdsl.convert_layout ", d,
                                          " : ", d.type, " -> ", back))


def dot(a, b, acc=None, instr=None, k_width=None):
    """acc + a @ b for a [M, K] and b [K, N] f16/bf16 tiles and an f32
    accumulator [M, N] (zeros when omitted); returns an f32 [M, N] tile.

    instr=(M, N, K) picks the matrix instruction (default: 32x32x8, else
    16x16x16; (16, 16, 32) and (32, 32, 16) are gfx950's). k_width is the
    number of consecutive K elements each lane holds (default: what one
    instruction reads, K * M / 64); a multiple of it makes the operand
    loads wider."""
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
    acc = _accumulator(acc, m, n, "rl.dot")
    builder = tracing.builder()
    wm, wn = _warps(builder.num_warps)
    if builder.target == "cuda":
        # NVIDIA: mma.sync.aligned.m16n8k16, operands in K pairs.
        if m % 16 or n % 8 or k % 16:
            raise error(f"rl.dot of [{m}, {k}] x [{k}, {n}] on NVIDIA: M, N "
                        f"and K must be multiples of 16, 8 and 16 (mma.sync "
                        f"m16n8k16)")
        acc_layout = (f"#rocdsl.mma<version = 2, instrShape = [16, 8, 16], "
                f"warpsPerCTA = [{wm}, {wn}]>")
        k_width = 2
    else:
        instr = _pick_instr(m, n, k, instr)
        per_lane = instr[2] * instr[0] // 64
        if k_width is None:
            k_width = per_lane
        if not isinstance(k_width, int) or k_width <= 0 or k_width % per_lane \
                or k_width > 16 or k % (k_width * 64 // instr[0]):
            raise error(f"rl.dot k_width={k_width!r}: a multiple of {per_lane} "
                        f"(the instruction's K per lane), at most 16, with K = "
                        f"{k} a multiple of k_width * {64 // instr[0]}")
        acc_layout = (f"#rocdsl.mfma<version = {_VERSION_OF[instr]}, instrShape = "
                f"[{instr[0]}, {instr[1]}, {instr[2]}], "
                f"warpsPerCTA = [{wm}, {wn}]>")
    a_op = _convert(a.value, f"#rocdsl.dot_operand<opIdx = 0, parent = {acc_layout},"
                             f" kWidth = {k_width}>")
    b_op = _convert(b.value, f"#rocdsl.dot_operand<opIdx = 1, parent = {acc_layout},"
                             f" kWidth = {k_width}>")
    return _accumulate(acc, acc_layout, lambda c: builder.op(
        c.type, "rocdsl.dot ", a_op, ", ", b_op, ", ", c, " : ", a_op.type,
        ", ", b_op.type, " -> ", c.type))


# The matrix unit's 128-byte swizzle: 16-byte groups over 128-byte rows.
_WGMMA_SWIZZLE = (8, 1, 8)


def warpgroup_dot(a, b, acc=None, pending=0):
    """acc + A @ B with both operands in LDS, read by the matrix unit
    itself (rocdsl.warpgroup_dot: sm_90a's wgmma.mma_async, four warps at a
    time; num_warps a multiple of 4). `a` is an [M, 64] f16/bf16 LDS tile
    (K fastest); `b` is [N, 64] (B stored N x K) or [N // 64, 64, 64] (B as
    64-column panels, K by N); both allocated with swizzle=(8, 1, 8), the
    matrix unit's 128-byte swizzle, and published by a barrier after their
    last write. M is a multiple of 16 * num_warps. Returns the f32 [M, N]
    tile; with pending=0 its products are done when it returns. With
    pending=P (1-7) up to P products (this one included) still run: the
    result may then only be the accumulator of another warpgroup_dot (in
    a K loop, the carried value) or go to rl.warpgroup_wait, and the LDS
    it reads must not be refilled until a later call or wait covers it.
    Other chips: a compile error naming the chip."""
    from .shared import SharedTile
    _check_pending("rl.warpgroup_dot", pending)
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, SharedTile):
            raise error(f"rl.warpgroup_dot operand {name} must be an LDS tile "
                        f"(rl.local_alloc), got {type(t).__name__}")
        t._single(f"rl.warpgroup_dot operand {name}")
        if t.dtype not in _DOT_INPUTS:
            raise error(f"rl.warpgroup_dot operand {name} is {t.describe()}; "
                        f"the inputs are f16 or bf16")
        if t._swizzle != _WGMMA_SWIZZLE or t.shape[-1] != 64:
            raise error(f"rl.warpgroup_dot operand {name} ({t.describe()}) "
                        f"must have 64 elements a row and swizzle=(8, 1, 8), "
                        f"the matrix unit's 128-byte swizzle")
    if a.dtype != b.dtype:
        raise error(f"rl.warpgroup_dot operands differ in dtype: {a.dtype} "
                    f"and {b.dtype}")
    if len(a.shape) != 2:
        raise error(f"rl.warpgroup_dot operand a must be [M, 64], got "
                    f"{list(a.shape)}")
    m = a.shape[0]
    if len(b.shape) == 2:
        n = b.shape[0]
    elif len(b.shape) == 3 and b.shape[1] == 64:
        n = b.shape[0] * 64
    else:
        raise error(f"rl.warpgroup_dot operand b must be [N, 64] or "
                    f"[N // 64, 64, 64], got {list(b.shape)}")
    builder = tracing.builder()
    warps = builder.num_warps
    if warps % 4 or m % (16 * warps) or n % 8 or n > 256:
        raise error(f"rl.warpgroup_dot of M = {m}, N = {n} on {warps} warps: "
                    f"the warps must be a multiple of 4, M of 16 * warps "
                    f"and N of 8, at most 256")
    acc = _accumulator(acc, m, n, "rl.warpgroup_dot")
    acc_layout = _warpgroup_layout(warps)
    if pending and not _free_or(acc, acc_layout):
        raise error("rl.warpgroup_dot(pending=...) leaves its result in "
                    "flight, so the accumulator must already be in the "
                    "matrix unit's layout (rl.zeros, a K loop's carried "
                    "value, or another warpgroup_dot's result)")
    attrs = f" {{pending = {pending} : i32}}" if pending else ""
    return _accumulate(acc, acc_layout, lambda c: builder.op(
        c.type, "rocdsl.warpgroup_dot ", a.value, ", ", b.value, ", ", c,
        attrs, " : ", a._type_text(False), ", ", b._type_text(False), ", ",
        c.type))


def _free_or(t, layout):
    """Whether tile `t`'s layout is still free or already `layout`."""
    term = layouts.find(t.type.layout).term
    return term is None or term == layout


def _warpgroup_layout(warps):
    return (f"#rocdsl.mma<version = 2, instrShape = [16, 8, 16], "
            f"warpsPerCTA = [{warps}, 1]>")


def _check_pending(what, pending):
    if not isinstance(pending, int) or isinstance(pending, bool) or \
            not 0 <= pending <= 7:
        raise error(f"{what} pending must be an int in [0, 7], got "
                    f"{pending!r}")


def warpgroup_wait(t, pending=0):
    """`t`, a warpgroup_dot result left in flight (pending > 0), once at
    most `pending` of the warp group's products still run (rocdsl.
    warpgroup_wait); with 0, every product is done and the tile is in
    registers, and the LDS the products read may be refilled after a
    barrier."""
    _check_pending("rl.warpgroup_wait", pending)
    if not isinstance(t, Tile) or t.ndim != 2 or t.dtype != "f32":
        raise error(f"rl.warpgroup_wait takes the f32 [M, N] result of "
                    f"rl.warpgroup_dot, got "
                    f"{getattr(t, 'describe', lambda: repr(t))()}")
    builder = tracing.builder()
    layout = _warpgroup_layout(builder.num_warps)
    if not _free_or(t, layout):
        raise error("rl.warpgroup_wait takes the result of rl.warpgroup_dot "
                    "(in the matrix unit's layout), got a tile laid out "
                    "otherwise")
    layouts.unify(t.type.layout, layouts.fixed(layout))
    attrs = f" {{pending = {pending} : i32}}" if pending else ""
    return make_tile(builder.op(t.type, "rocdsl.warpgroup_wait ", t.value,
                                attrs, " : ", t.type))
