"""Layout inference for traced tiles.

Kernel authors name no layouts, yet every tile type in rocdsl IR carries
one and the GPU lowering has no layout conversion. So each tile gets a
layout variable and ops state how the variables relate: elementwise ops,
broadcasts, masks and loop-carried values share one layout; a reduction's
result is the slice of its operand's; expand_dims is the inverse. This is
unification over two kinds of terms, a fixed layout (attribute text) and
slice(dim, variable). Once the kernel is traced, each variable still free
takes the compiler's default layout (`_rocdsl.default_layout`, the C++
BlockedAttr::getDefault) for the largest tile shape that uses it and the
narrowest element type stored through it (else the widest loaded), so that
every store is 128 bits per lane as in the C++ kernels and every access is
contiguous across lanes.
"""


class LayoutConflict(Exception):
    """Two layout requirements that cannot both hold."""


class Var:
    """A layout variable (union-find node).

    term: None while free, a str for a fixed layout, or (dim, Var) for the
    slice of another layout. members: (shape, element_bits, is_memory) of
    the tiles typed by this variable, which choose the default.
    """
    __slots__ = ("parent", "term", "members")

    def __init__(self, term=None):
        self.parent = None
        self.term = term
        self.members = []


def find(var):
    root = var
    while root.parent is not None:
        root = root.parent
    while var.parent is not None and var.parent is not root:
        var.parent, var = root, var.parent
    return root


def fixed(text):
    return Var(text)


def sliced(dim, parent):
    return Var((dim, parent))


#: add_member's is_memory for a tile stored to memory (True: loaded).
STORE = "store"


def add_member(var, shape, element_bits, is_memory=False, vec=1):
    """Records a tile typed by `var`; is_memory: True for a tile loaded
    from memory, STORE for one stored; `vec`: an access's explicit width,
    which the default layout then gives each lane at least."""
    root = find(var)
    if root.term is None:
        root.members.append((shape, element_bits, is_memory, vec or 1))


def _occurs(var, term):
    while isinstance(term, tuple):
        inner = find(term[1])
        if inner is var:
            return True
        term = inner.term
    return False


def _describe(root):
    if root.term is None:
        return "an inferred layout"
    if isinstance(root.term, str):
        return root.term
    return f"a slice (dim = {root.term[0]}) of {_describe(find(root.term[1]))}"


def unify(a, b):
    """Makes `a` and `b` the same layout; LayoutConflict if they cannot be."""
    a, b = find(a), find(b)
    if a is b:
        return
    if a.term is None or b.term is None:
        free, other = (a, b) if a.term is None else (b, a)
        if _occurs(free, other.term):
            raise LayoutConflict("a layout cannot be a slice of itself")
        free.parent = other
        if other.term is None:
            other.members.extend(free.members)
        return
    if isinstance(a.term, str) and isinstance(b.term, str):
        if a.term != b.term:
            raise LayoutConflict(f"{a.term} differs from {b.term}")
        a.parent = b
        return
    if isinstance(a.term, tuple) and isinstance(b.term, tuple):
        if a.term[0] != b.term[0]:
            raise LayoutConflict(f"{_describe(a)} differs from {_describe(b)}")
        a.parent = b
        unify(a.term[1], b.term[1])
        return
    raise LayoutConflict(f"{_describe(a)} differs from {_describe(b)}")


def slice_dim(var):
    """The dim of a slice layout, or None."""
    term = find(var).term
    return term[0] if isinstance(term, tuple) else None


def _default_inputs(members):
    shape = max((m[0] for m in members), key=_numel)
    # Stores decide, as Triton's layouts follow its stores: the narrowest
    # element type stored through the layout gets 128 bits per lane, so
    # every store is one full, coalesced access per lane, and a wider type
    # loaded through it takes adjacent 128-bit accesses (f32 in, bf16 out:
    # two 128-bit loads and one 128-bit store per lane, instead of two
    # 64-bit stores). Without stores, the widest type loaded: its loads
    # get 128 bits and narrower ones fewer, all contiguous across lanes.
    stores = [bits for _, bits, kind, _ in members if kind == STORE]
    memory = [bits for _, bits, kind, _ in members if kind]
    values = [bits for _, bits, _, _ in members if bits > 1]
    if stores:
        bits = min(stores)
    elif memory:
        bits = max(memory)
    else:
        bits = min(values or [32])
    vec = max([m[3] for m in members] or [1])
    return shape, bits, vec


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def resolve(var, default, alias):
    """The attribute text of `var`, choosing defaults for free variables.

    default(shape, element_bits, min_per_lane) -> layout text;
    alias(text) -> the name the module gives a non-slice layout.
    """
    root = find(var)
    if root.term is None:
        root.term = default(*_default_inputs(root.members))
    if isinstance(root.term, str):
        return alias(root.term)
    dim, parent = root.term
    return f"#rocdsl.slice<dim = {dim}, parent = {resolve(parent, default, alias)}>"
