"""rocdsl IR as text: SSA values, types, blocks and the module printer.

Tracing appends ops as lists of pieces (strings, values, types) and prints
the module only at the end, because tile types name layouts that layout
inference (layouts.py) settles only once the whole kernel is known. The
text uses the dialect's custom assembly, exactly what rocdsl-opt parses,
with a `loc("file.py":line:col)` on every op.
"""
import math

from . import layouts
from .errors import error, user_location

DTYPE_BITS = {"f32": 32, "f16": 16, "bf16": 16, "i32": 32, "i1": 1}
FLOAT_DTYPES = ("f32", "f16", "bf16")


class TileType:
    __slots__ = ("shape", "dtype", "layout")

    def __init__(self, shape, dtype, layout):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.layout = layout  # a layouts.Var

    def with_dtype(self, dtype):
        return TileType(self.shape, dtype, self.layout)


class PtrType:
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype


class Value:
    """An SSA value: its name, its type (a dtype str for scalars, TileType,
    PtrType) and the block that defines it."""
    __slots__ = ("name", "type", "block", "arg_attrs")

    def __init__(self, name, type, block):
        self.name = name
        self.type = type
        self.block = block


class Block:
    __slots__ = ("lines", "open", "depth")

    def __init__(self, depth):
        self.lines = []
        self.open = True
        self.depth = depth


def _loc(location):
    filename, line, col = location
    escaped = filename.replace("\\", "\\\\").replace('"', '\\"')
    return f'loc("{escaped}":{line}:{col})'


# Bit patterns for the float constants MLIR has no decimal spelling for.
_SPECIAL = {
    "f32": {"inf": "0x7F800000", "-inf": "0xFF800000", "nan": "0x7FC00000"},
    "f16": {"inf": "0x7C00", "-inf": "0xFC00", "nan": "0x7E00"},
    "bf16": {"inf": "0x7F80", "-inf": "0xFF80", "nan": "0x7FC0"},
}


def float_literal(value, dtype):
    """MLIR spelling of a float constant (the parser rounds to `dtype`)."""
    value = float(value)
    if math.isnan(value):
        return _SPECIAL[dtype]["nan"]
    if math.isinf(value):
        return _SPECIAL[dtype]["inf" if value > 0 else "-inf"]
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:  # MLIR float literals need a decimal point
        mantissa += ".0"
    return mantissa + e + exponent


def int_literal(value, dtype):
    if dtype == "i1":
        return "true" if value else "false"
    value = int(value)
    if not -2**31 <= value < 2**31:
        raise error(f"integer constant {value} does not fit in i32")
    return str(value)


class Builder:
    """One kernel being traced: a rocdsl.func and the ops in its blocks."""

    def __init__(self, name, num_warps, default_layout, waves_per_eu=None,
                 fast_div=False, fast_exp=False, contract=False):
        # The math defaults of the target (docs/python.md, "Math"): fast
        # `/` emits fastmath<arcp> (NVIDIA's div.full.f32), fast exp
        # fastmath<afn> (the hardware exp2), `contract` marks float +, -
        # and * fastmath<contract> so that a * b + c may become one fma.
        self.fast_div = fast_div
        self.fast_exp = fast_exp
        self.contract = contract
        # "host", "hip" or "cuda": ops whose IR differs per target family
        # (rl.dot's matrix-core layouts) read it.
        self.target = "host"
        self.name = name
        self.num_warps = num_warps
        self.default_layout = default_layout
        self.waves_per_eu = waves_per_eu
        self.args = []
        self.entry = Block(depth=2)
        self.blocks = [self.entry]
        self.constants = []  # hoisted into the entry block, deduplicated
        self.constant_values = {}
        self.counter = 0

    # Values -------------------------------------------------------------

    def new_name(self):
        name = f"%{self.counter}"
        self.counter += 1
        return name

    def fresh(self, type, block=None):
        return Value(self.new_name(), type, block or self.blocks[-1])

    def argument(self, name, type, attrs=None):
        """A kernel argument; `attrs` ({name: int}) become its argument
        attributes (the launch facts the compiler may rely on)."""
        value = Value(f"%{name}", type, self.entry)
        value.arg_attrs = dict(attrs or {})
        self.args.append(value)
        return value

    def constant(self, value, dtype):
        """A scalar arith.constant, defined once at the top of the kernel."""
        literal = (float_literal(value, dtype) if dtype in FLOAT_DTYPES
                   else int_literal(value, dtype))
        key = (literal, dtype)
        result = self.constant_values.get(key)
        if result is None:
            result = self.fresh(dtype, self.entry)
            suffix = "" if dtype == "i1" else f" : {dtype}"
            self.constants.append(
                [result, f" = arith.constant {literal}{suffix}", self._where()])
            self.constant_values[key] = result
        return result

    # Ops ----------------------------------------------------------------

    def _where(self):
        return " " + _loc(user_location())

    def check_visible(self, value):
        if not value.block.open:
            raise error("a value computed inside a loop body is used after "
                        "the loop; return it from the body to carry it out")

    def _check_operands(self, pieces):
        for p in pieces:
            if type(p) is Value:
                self.check_visible(p)

    def op(self, result_type, *pieces):
        """Emits `result = pieces... loc(...)`; returns the result (or None
        when result_type is None)."""
        self._check_operands(pieces)
        result = None
        line = list(pieces)
        if result_type is not None:
            result = self.fresh(result_type)
            line.insert(0, result)
            line.insert(1, " = ")
        line.append(self._where())
        self.blocks[-1].lines.append(line)
        return result

    def raw(self, *pieces, where=True):
        """A line that is not a plain single-result op (loop headers)."""
        self._check_operands(pieces)
        line = list(pieces)
        if where:
            line.append(self._where())
        self.blocks[-1].lines.append(line)

    def new_block(self):
        """A region's block, nested in the current one; push_block makes it
        current once its header line is emitted."""
        return Block(self.blocks[-1].depth + 1)

    def push_block(self, block):
        self.blocks.append(block)

    def close_block(self, block):
        assert self.blocks[-1] is block
        self.blocks.pop()
        block.open = False
        self.blocks[-1].lines.append(block)

    def tile_types(self):
        """Every tile type the traced ops use."""
        def walk(block):
            for line in block.lines:
                if type(line) is Block:
                    yield from walk(line)
                else:
                    for p in line:
                        if type(p) is TileType:
                            yield p
                        elif type(p) is Value and type(p.type) is TileType:
                            yield p.type
        for block in self.blocks:
            yield from walk(block)

    # Printing -----------------------------------------------------------

    def render(self, func_location, return_location):
        """The module text. Free layouts get their defaults here."""
        aliases = {}

        def alias(text):
            name = aliases.get(text)
            if name is None:
                name = aliases[text] = f"#layout{len(aliases)}"
            return name

        def default(shape, bits, min_per_lane=1):
            return self.default_layout(list(shape), bits, min_per_lane)

        def type_text(t):
            if type(t) is str:
                return t
            if type(t) is TileType:
                dims = "x".join(str(d) for d in t.shape)
                layout = layouts.resolve(t.layout, default, alias)
                return f"tensor<{dims}x{t.dtype}, {layout}>"
            return f"!rocdsl.ptr<{t.dtype}>"

        def line_text(indent, line):
            return indent + "".join(
                p if type(p) is str else p.name if type(p) is Value
                else type_text(p) for p in line)

        def block_lines(block, out):
            indent = "  " * block.depth
            for line in block.lines:
                if type(line) is Block:
                    block_lines(line, out)
                else:
                    out.append(line_text(indent, line))

        body = [line_text("    ", line) for line in self.constants]
        block_lines(self.entry, body)
        body.append(f"    rocdsl.return {_loc(return_location)}")
        def arg_text(a):
            attrs = getattr(a, "arg_attrs", None)
            extra = (" {" + ", ".join(f"{k} = {v} : i32"
                                      for k, v in sorted(attrs.items())) + "}"
                     if attrs else "")
            return f"{a.name}: {type_text(a.type)}{extra}"

        args = ", ".join(arg_text(a) for a in self.args)
        attrs = f"num_warps = {self.num_warps} : i32"
        if self.waves_per_eu is not None:
            attrs += f", waves_per_eu = {self.waves_per_eu} : i32"
        lines = [f"{name} = {text}" for text, name in aliases.items()]
        lines += ["module {",
                  f"  rocdsl.func @{self.name}({args}) attributes {{{attrs}}} {{"]
        lines += body
        lines += ["  } " + _loc(func_location), "}"]
        return "\n".join(lines) + "\n"
