"""Element types, parameter annotations and explicit layouts."""
from .. import layouts


class dtype(str):
    """An element type ("f32", "f16", "bf16", "i32", "i1").

    `rl.i32` and `rl.f32` also annotate scalar kernel parameters.
    """
    __slots__ = ()

    def __repr__(self):
        return f"rl.{str(self)}"


f32 = dtype("f32")
f16 = dtype("f16")
bf16 = dtype("bf16")
i32 = dtype("i32")
i1 = dtype("i1")

DTYPES = {"f32": f32, "f16": f16, "bf16": bf16, "i32": i32, "i1": i1}
MEMORY_DTYPES = ("f32", "f16", "bf16", "i32")
SCALAR_PARAM_DTYPES = ("i32", "f32")


class constexpr:
    """Annotates a parameter whose value is fixed when the kernel is traced.

    Constexpr arguments are passed by keyword at launch; they are plain
    Python values inside the kernel (usable as shapes, loop trip counts,
    Python `if` conditions), and each distinct value traces a new kernel.
    """


class ptr:
    """Annotates a pointer parameter: `rl.ptr("f32")`, or `rl.ptr()` (or
    plain `rl.ptr`) to take the element type from the argument at launch."""
    __slots__ = ("dtype",)

    def __init__(self, element=None):
        if element is not None and str(element) not in MEMORY_DTYPES:
            raise ValueError(f"rl.ptr element type must be one of "
                             f"{', '.join(MEMORY_DTYPES)}, got {element!r}")
        self.dtype = None if element is None else DTYPES[str(element)]

    def __repr__(self):
        return f"rl.ptr({str(self.dtype)!r})" if self.dtype else "rl.ptr()"


class Layout:
    """An explicit tile layout, for the rare kernel that wants to pick one.

    Made by `rl.blocked(...)`, taken from a tile (`t.layout`), or sliced
    (`layout.slice(dim)`: the layout of a tile with `dim` removed, such as
    a reduction's result). Pass it as `layout=` to load, iota, full, zeros.
    Each use gets a fresh layout variable, so one Layout object can be
    shared by kernels and traces.
    """
    __slots__ = ("_term",)

    def __init__(self, term):
        self._term = term  # str, layouts.Var (a tile's), or (dim, Layout)

    def slice(self, dim):
        return Layout((int(dim), self))

    def var(self):
        term = self._term
        if isinstance(term, str):
            return layouts.fixed(term)
        if isinstance(term, layouts.Var):
            return term
        return layouts.sliced(term[0], term[1].var())

    def __repr__(self):
        term = self._term
        if isinstance(term, str):
            return f"Layout({term})"
        if isinstance(term, layouts.Var):
            return "Layout(<a tile's layout>)"
        return f"{term[1]!r}.slice({term[0]})"


def blocked(size_per_thread, threads_per_warp, warps_per_cta, order):
    """#rocdsl.blocked<...>: see docs/dialect.md."""
    def ints(xs):
        return "[" + ", ".join(str(int(x)) for x in xs) + "]"
    return Layout(f"#rocdsl.blocked<sizePerThread = {ints(size_per_thread)}, "
                  f"threadsPerWarp = {ints(threads_per_warp)}, "
                  f"warpsPerCTA = {ints(warps_per_cta)}, order = {ints(order)}>")
