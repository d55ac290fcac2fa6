"""LDS (workgroup shared memory) tiles and the explicit scheduling escape
hatches: rl.local_alloc, rl.wait, rl.sched_barrier.

An LDS tile is storage, not a value: tiles are written into it with
`.store(t)` and read back with `.load()` in a layout of the compiler's
choosing (or the one rl.dot needs, when the result feeds a product). With
`buffers=N` the allocation is a stack of N tiles and `lds[i]` (i an int or
an i32 scalar) is one of them, for double buffering in a loop.
"""
from .. import ir
from ..errors import error
from . import tracing
from .values import Tile, make_tile, new_tile_type

_LDS_DTYPES = ("f32", "f16", "bf16", "i32")


def _shared_text(rank, vec, per_phase, max_phase):
    order = ", ".join(str(d) for d in reversed(range(rank)))
    return (f"#rocdsl.shared<vec = {vec}, perPhase = {per_phase}, "
            f"maxPhase = {max_phase}, order = [{order}]>")


class SharedTile:
    """An LDS tile of `shape` (or a stack of `buffers` of them) from
    rl.local_alloc; see the module docstring."""
    __slots__ = ("value", "shape", "dtype", "buffers", "_swizzle")

    def __init__(self, value, shape, dtype, buffers, swizzle):
        self.value = value
        self.shape = shape
        self.dtype = dtype
        self.buffers = buffers
        self._swizzle = swizzle

    def _type_text(self, stacked):
        shape = ((self.buffers,) if stacked else ()) + self.shape
        dims = "x".join(str(d) for d in shape)
        return (f"!rocdsl.lds<{dims}x{self.dtype}, "
                f"{_shared_text(len(shape), *self._swizzle)}>")

    def describe(self):
        what = f"a {list(self.shape)} {self.dtype} LDS tile"
        if self.buffers:
            what = f"a stack of {self.buffers} x " + what[2:] + "s"
        return what

    def _single(self, what):
        if self.buffers:
            raise error(f"{what} needs one buffer of {self.describe()}: "
                        f"index it first (lds[i])")

    def __getitem__(self, i):
        if not self.buffers:
            raise error(f"{self.describe()} is a single buffer; allocate "
                        f"with buffers=N to index it")
        if tracing.is_int(i) and not 0 <= int(i) < self.buffers:
            raise error(f"buffer index {int(i)} is outside [0, "
                        f"{self.buffers})")
        index = tracing.index(i, "the buffer index")
        one = SharedTile(None, self.shape, self.dtype, None, self._swizzle)
        one.value = tracing.builder().op(
            one._type_text(False), "rocdsl.local_index ", self.value, "[",
            index, "] : ", self._type_text(True), " -> ",
            one._type_text(False))
        return one

    def store(self, tile):
        """Writes `tile` (same shape and dtype). The lowering places the
        workgroup barriers that keep other waves from reading it half
        written."""
        self._single("store")
        if not isinstance(tile, Tile):
            raise error(f"LDS store takes a tile, got {type(tile).__name__}")
        if tile.shape != self.shape or tile.type.dtype != self.dtype:
            raise error(f"cannot store {tile.describe()} into "
                        f"{self.describe()}")
        tracing.builder().op(None, "rocdsl.local_store ", tile.value, ", ",
                             self.value, " : ", tile.type, ", ",
                             self._type_text(False))

    def load(self, trans=False):
        """The tile's contents as a register tile; with `trans=True` (2-D
        tiles) its transpose, read in place (e.g. K^T from K's rows as a
        dot operand, with no transposed copy)."""
        self._single("load")
        shape = self.shape
        if trans:
            if len(shape) != 2:
                raise error(f"load(trans=True) reads 2-D tiles, not "
                            f"{self.describe()}")
            shape = [shape[1], shape[0]]
        result = new_tile_type(shape, self.dtype)
        return make_tile(tracing.builder().op(
            result, "rocdsl.local_load ", self.value,
            " {trans}" if trans else "", " : ",
            self._type_text(False), " -> ", result))


def local_alloc(shape, dtype, buffers=None, swizzle=None):
    """An uninitialised LDS tile of `shape` and `dtype` (f32, f16, bf16,
    i32); `buffers=N` allocates a stack of N such tiles (index with
    lds[i]). `swizzle=(vec, per_phase, max_phase)` XORs groups of `vec`
    elements along the last dimension with (row // per_phase) % max_phase
    (#rocdsl.shared) to spread column reads over the LDS banks; default
    none. Each kernel's LDS tiles share one arena, reused where their
    lifetimes do not overlap; more than the chip's LDS is a compile
    error."""
    shape = tracing.static_shape(shape, "local_alloc shape")
    dtype = str(dtype)
    if dtype not in _LDS_DTYPES:
        raise error(f"local_alloc dtype must be one of "
                    f"{', '.join(_LDS_DTYPES)}, got {dtype}")
    if buffers is not None:
        buffers = tracing.static_int(buffers, "local_alloc buffers")
        if buffers < 1:
            raise error(f"local_alloc buffers must be at least 1, got "
                        f"{buffers}")
    swizzle = tuple(swizzle) if swizzle is not None else (1, 1, 1)
    if len(swizzle) != 3 or not all(tracing.is_int(s) and int(s) >= 1
                                    for s in swizzle):
        raise error(f"local_alloc swizzle must be (vec, per_phase, "
                    f"max_phase), positive ints, got {swizzle}")
    swizzle = tuple(int(s) for s in swizzle)
    lds = SharedTile(None, shape, dtype, buffers, swizzle)
    lds.value = tracing.builder().op(
        lds._type_text(bool(buffers)), "rocdsl.local_alloc -> ",
        lds._type_text(bool(buffers)))
    return lds


def wait(vmcnt=None, lgkmcnt=None):
    """Waits until at most `vmcnt` vector-memory (0-63) and `lgkmcnt`
    LDS/scalar-memory (0-15) operations are outstanding (rocdsl.wait, one
    s_waitcnt on AMD; nothing elsewhere). None: that counter is not waited
    on."""
    attrs = []
    for name, value, limit in (("vmcnt", vmcnt, 63), ("lgkmcnt", lgkmcnt, 15)):
        if value is None:
            continue
        value = tracing.static_int(value, name)
        if not 0 <= value <= limit:
            raise error(f"{name} must be in [0, {limit}], got {value}")
        attrs.append(f"{name} = {value} : i32")
    if not attrs:
        raise error("rl.wait needs vmcnt or lgkmcnt")
    tracing.builder().op(None, "rocdsl.wait {" + ", ".join(attrs) + "}")


def sched_barrier(mask=0):
    """Stops the backend scheduler moving instructions across this point
    (rocdsl.sched_barrier); `mask` names the instruction classes that may
    still cross, as llvm.amdgcn.sched.barrier (0: none)."""
    mask = tracing.static_int(mask, "sched_barrier mask")
    if mask < 0:
        raise error(f"sched_barrier mask must be non-negative, got {mask}")
    tracing.builder().op(None, f"rocdsl.sched_barrier {{mask = {mask} : i32}}")


def sched_group_barrier(mask, size, sync_id=0):
    """Asks the AMDGPU scheduler for a group of up to `size` instructions of
    the classes in `mask` at this point (rocdsl.sched_group_barrier, as
    llvm.amdgcn.sched.group.barrier: 0x8 MFMA, 0x20 VMEM read, 0x100 DS
    read, 0x200 DS write, ...); groups of one `sync_id` are filled in order,
    so a sequence of them interleaves classes. Dropped on other targets."""
    mask = tracing.static_int(mask, "sched_group_barrier mask")
    size = tracing.static_int(size, "sched_group_barrier size")
    sync_id = tracing.static_int(sync_id, "sched_group_barrier sync_id")
    if not 1 <= mask <= 0x7FF:
        raise error(f"sched_group_barrier mask must be in [1, 0x7ff], "
                    f"got {mask}")
    if size < 1:
        raise error(f"sched_group_barrier size must be at least 1, got {size}")
    if sync_id < 0:
        raise error(f"sched_group_barrier sync_id must be non-negative, "
                    f"got {sync_id}")
    tracing.builder().op(
        None, f"rocdsl.sched_group_barrier {{mask = {mask} : i32, "
              f"size = {size} : i32, sync_id = {sync_id} : i32}}")


def set_priority(priority):
    """Sets this wave's instruction-issue priority, 0 to 3
    (rocdsl.set_priority, AMDGPU s_setprio): among the waves of one SIMD
    with instructions ready, the higher priority issues first. Raise it
    around a cluster of matrix instructions and lower it after. Dropped on
    other targets."""
    priority = tracing.static_int(priority, "set_priority priority")
    if not 0 <= priority <= 3:
        raise error(f"set_priority priority must be in [0, 3], got "
                    f"{priority}")
    tracing.builder().op(
        None, f"rocdsl.set_priority {{priority = {priority} : i32}}")
