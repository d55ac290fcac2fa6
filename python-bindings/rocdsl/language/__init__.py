"""The kernel language of @rocdsl.kernel (import rocdsl.language as rl).

Kernel functions are traced: their Python runs once per specialization, and
each rl op appends rocdsl IR. Values are tiles (statically shaped blocks
spread over a program's lanes), uniform scalars and pointer arguments; see
docs/python.md, "Writing kernels in Python", for every op.
"""
from .control import for_loop
from .creation import (barrier, full, iota, num_programs, program_id,
                       warp_id, zeros)
from .dot import dot, warpgroup_dot, warpgroup_wait
from .functions import (abs, broadcast_to, div_rn, exp, exp2, exp_accurate,
                        expand_dims, fast_div, fast_exp, log, max, maximum,
                        min, minimum, prod, rsqrt, sqrt, sum, trans, where)
from .memory import atomic_add, load, program_atomic, store
from .shared import (SharedTile, local_alloc, sched_barrier,
                     sched_group_barrier, set_priority, wait)
from .types import (Layout, bf16, blocked, constexpr, dtype, f16, f32, i1, i32,
                    ptr)
from .values import Pointer, Scalar, Tile

__all__ = [
    "Layout", "Pointer", "Scalar", "SharedTile", "Tile", "abs", "atomic_add",
    "barrier",
    "bf16", "blocked", "broadcast_to", "constexpr", "div_rn", "dot", "dtype",
    "exp", "exp2", "exp_accurate", "expand_dims", "fast_div", "fast_exp",
    "f16", "f32", "for_loop", "full", "i1", "i32", "iota", "load",
    "local_alloc", "log", "max", "maximum", "min", "minimum", "num_programs",
    "prod", "program_atomic", "program_id", "warp_id", "ptr", "rsqrt", "sched_barrier",
    "sched_group_barrier", "set_priority", "sqrt", "store", "sum", "trans", "wait",
    "warpgroup_dot", "warpgroup_wait", "where", "zeros",
]
