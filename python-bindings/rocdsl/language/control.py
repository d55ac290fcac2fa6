"""Loops with carried values (scf.for).

Tracing runs Python once, so a run-time loop cannot be a Python `for`:
the body is a function the tracer calls once, with the induction variable
and the carried values as block arguments, and whatever it returns is
yielded to the next iteration. (A Python `for` over a constexpr `range`
is fine too: it unrolls at trace time.)
"""
from .. import ir
from ..errors import error
from . import tracing
from .values import Scalar, Tile, as_scalar, unify


def _carried(v, i):
    if isinstance(v, (Tile, Scalar)):
        return v
    if isinstance(v, bool):
        return as_scalar(v, "i1", "a loop-carried value")
    if tracing.is_int(v):
        return as_scalar(v, "i32", "a loop-carried value")
    if tracing.is_float(v):
        return as_scalar(v, "f32", "a loop-carried value")
    raise error(f"loop-carried value #{i} must be a tile, a scalar or a "
                f"number, got {type(v).__name__}")


def _describe(v):
    return v.describe() if hasattr(v, "describe") else type(v).__name__


def _next_value(init, out, i):
    """The body's result #i, checked against what enters the loop."""
    if isinstance(init, Scalar):
        if isinstance(out, Tile):
            raise error(f"loop-carried value #{i} enters as "
                        f"{init.describe()} but the body returns "
                        f"{out.describe()}")
        return as_scalar(out, init.dtype, f"loop-carried value #{i}")
    if not isinstance(out, Tile) or out.shape != init.shape or \
            out.dtype != init.dtype:
        raise error(f"loop-carried value #{i} enters as {init.describe()} "
                    f"but the body returns {_describe(out)}")
    unify(init.type.layout, out.type.layout, f"loop-carried value #{i}")
    return out


def for_loop(lb, ub, step, inits, body, stages=1):
    """Runs body(i, *carried) for i in range(lb, ub, step) (i32 bounds,
    step > 0), returning the values carried out of the last iteration.

    `stages` (2 to 9) software-pipelines the loop (rocdsl-pipeline-loops):
    the global loads of the body that feed `rl.dot` operands (or LDS
    tiles) become asynchronous copies into `stages` LDS buffers, with the
    copies of the next `stages - 1` iterations in flight while one
    computes. A loop the pass cannot pipeline runs as written, and the
    compile logs a warning saying why.

    `inits` is one value (then the loop returns one value) or a list/tuple
    (then it returns a tuple, and the body returns one value per entry).

        acc = rl.for_loop(0, n, BLOCK, rl.zeros([1, BLOCK]),
                          lambda k, acc: acc + rl.load(x, [row, k], ...))
    """
    b = tracing.builder()
    if isinstance(stages, bool) or not tracing.is_int(stages) or \
            not 1 <= int(stages) <= 9:
        raise error(f"for_loop stages={stages!r}: must be an integer "
                    f"from 1 to 9")
    single = not isinstance(inits, (list, tuple))
    inits = [_carried(v, i)
             for i, v in enumerate([inits] if single else inits)]
    bounds = [tracing.index(v, "a loop bound") for v in (lb, ub, step)]
    for v in inits:
        b.check_visible(v.value)

    body_block = b.new_block()
    iv = b.fresh("i32", body_block)
    args = [b.fresh(v.value.type, body_block) for v in inits]
    header = []
    results = []
    if inits:
        base = b.new_name()
        if len(inits) == 1:
            results = [ir.Value(base, inits[0].value.type, None)]
            header.append(base)
        else:
            results = [ir.Value(f"{base}#{i}", v.value.type, None)
                       for i, v in enumerate(inits)]
            header.append(f"{base}:{len(inits)}")
        header.append(" = ")
    header += ["scf.for ", iv, " = ", bounds[0], " to ", bounds[1], " step ",
               bounds[2]]
    if inits:
        header.append(" iter_args(")
        for i, (arg, v) in enumerate(zip(args, inits)):
            header += [", " if i else "", arg, " = ", v.value]
        header.append(") -> (")
        header += tracing.joined([v.value.type for v in inits])
        header.append(")")
    header.append(" : i32 {")
    b.raw(*header, where=False)

    b.push_block(body_block)
    carried = [Tile(a) if isinstance(v, Tile) else Scalar(a)
               for a, v in zip(args, inits)]
    out = body(Scalar(iv), *carried)
    if single:
        out = [out]
    elif out is None:
        out = []
    elif not isinstance(out, (list, tuple)):
        out = [out]
    if len(out) != len(inits):
        raise error(f"the loop body returns {len(out)} value(s) but the loop "
                    f"carries {len(inits)}")
    out = [_next_value(v, o, i) for i, (v, o) in enumerate(zip(inits, out))]
    if out:
        b.op(None, "scf.yield ", *tracing.joined([o.value for o in out]),
             " : ", *tracing.joined([o.value.type for o in out]))
    else:
        b.op(None, "scf.yield")
    b.close_block(body_block)
    b.raw("}" if int(stages) == 1 else
          f"}} {{rocdsl.stages = {int(stages)} : i32}}")

    block = b.blocks[-1]
    for r in results:
        r.block = block
    values = [Tile(r) if isinstance(v, Tile) else Scalar(r)
              for r, v in zip(results, inits)]
    return values[0] if single else tuple(values)
