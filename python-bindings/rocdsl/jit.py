"""@rocdsl.kernel: a Python function traced to rocdsl IR, specialized and
launched.

    @rocdsl.kernel(num_warps=4)
    def scale(x: rl.ptr("f32"), y: rl.ptr("f32"), n: rl.i32, B: rl.constexpr):
        ...
    scale[(blocks,)](x, y, n, B=256)       # grid, then arguments
    print(scale.ir(B=256))                 # the traced IR

A specialization is one (device, pointer dtypes, constexpr values): it is
traced once, and its SourceKernel (the runtime's handle on the compiled
launcher) is kept, so later launches only convert arguments and call it.
The device matters to tracing because layouts depend on the wave size.
"""
import functools
import operator
import re

from . import _rocdsl, args as _args, ir, layouts
from .compiled import Compiled
from .errors import CompilationError, def_location, error_at_def
from .language import tracing, types
from .language.values import Pointer, Scalar

_RESERVED = ("device", "stream")
_MISSING = object()
_SSA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")
# file.py:line:col: at the start of a line of a runtime diagnostic
_PYTHON_LOCATION = re.compile(r"^(.+?\.py):(\d+):\d+: ", re.MULTILINE)


class Param:
    __slots__ = ("name", "kind", "dtype", "default")

    def __init__(self, name, kind, dtype=None, default=_MISSING):
        self.name = name
        self.kind = kind  # "ptr", "scalar" or "constexpr"
        self.dtype = dtype
        self.default = default


def _annotation(fn, p):
    """p's annotation; text annotations (`from __future__ import
    annotations`) are evaluated in the kernel's globals. rl.i32 and rl.f32
    are str subclasses, so only plain str is text."""
    ann = p.annotation
    if type(ann) is str:
        try:
            ann = eval(ann, fn.__globals__)  # noqa: S307, the author's code
        except Exception as e:
            raise error_at_def(fn, f"cannot evaluate the annotation of "
                                   f"`{p.name}`: {e}") from None
    return ann


def _parse_params(fn):
    import inspect
    signature = inspect.signature(fn)
    params = []
    for p in signature.parameters.values():
        ann = _annotation(fn, p)
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise error_at_def(fn, f"parameter `{p.name}`: *args, **kwargs "
                                   f"and keyword-only parameters are not "
                                   f"supported")
        default = _MISSING if p.default is p.empty else p.default
        if ann is types.constexpr:
            if p.name in _RESERVED:
                raise error_at_def(fn, f"a constexpr cannot be named "
                                       f"`{p.name}` (a launch option)")
            params.append(Param(p.name, "constexpr", default=default))
        elif ann is types.ptr or isinstance(ann, types.ptr):
            dtype = ann.dtype if isinstance(ann, types.ptr) else None
            params.append(Param(p.name, "ptr", dtype))
        elif isinstance(ann, str) and ann in types.SCALAR_PARAM_DTYPES:
            params.append(Param(p.name, "scalar", types.DTYPES[ann]))
        else:
            raise error_at_def(
                fn, f"parameter `{p.name}` needs an annotation: rl.ptr(dtype)"
                    f" (or rl.ptr for any), rl.i32, rl.f32 or rl.constexpr; "
                    f"got {'none' if ann is p.empty else repr(ann)}")
    return params


def _grid3(grid):
    if isinstance(grid, int):
        grid = (grid,)
    if not isinstance(grid, (tuple, list)) or not 1 <= len(grid) <= 3:
        raise ValueError(f"the grid is an int or 1 to 3 ints, got {grid!r}")
    dims = []
    for g in grid:
        try:
            g = operator.index(g)
        except TypeError:
            g = 0
        if g < 1:
            raise ValueError(f"grid dimensions are positive ints, got "
                             f"{grid!r}")
        dims.append(g)
    return tuple(dims) + (1,) * (3 - len(dims))


class Specialization:
    """One traced kernel: its IR text and, once launched, its SourceKernel."""

    def __init__(self, kernel, device, dtypes, constexprs, facts=()):
        self.kernel = kernel
        self.device = device
        self.dtypes = dtypes
        self.constexprs = dict(zip(kernel._constexpr_names, constexprs))
        # Launch facts compiled in, by runtime parameter name: a pointer's
        # alignment in bytes, an i32's divisor (see args.py).
        self.facts = {p.name: f for p, f in zip(kernel._runtime, facts) if f}
        self.ir = _trace(kernel, device, dtypes, constexprs, self.facts)
        self._source_kernel = None
        self.ready = None  # the SourceKernel, once a host launch compiled

    @property
    def source_kernel(self):
        """The runtime's _rocdsl.SourceKernel for this IR."""
        if self._source_kernel is None:
            try:
                self._source_kernel = _rocdsl.SourceKernel(
                    self.ir, self.kernel.symbol, self.device)
            except ValueError as e:
                raise self.kernel._located(e) from e
        return self._source_kernel

    @property
    def launcher_id(self):
        return self.source_kernel.launcher_id

    @property
    def last_tier(self):
        return self.source_kernel.last_tier

    def launch(self, values, grid, stream=None, check_finite=None):
        sk = self._source_kernel or self.source_kernel
        if stream is None:
            # GPU kernels join the caller's current stream; host launches
            # pass none and so run synchronously (and are timed).
            stream = (_current_stream(self.device)
                      if self.device != "host" else None)
        if self.ready is not None:
            sk.launch(values, grid, stream, check_finite)
            return
        try:  # the first launch compiles; its errors name kernel lines
            sk.launch(values, grid, stream, check_finite)
        except ValueError as e:
            raise self.kernel._located(e) from e
        # Host launches need no stream lookup: later ones call it directly.
        self.ready = sk if self.device == "host" else False


def _current_stream(device):
    """The framework's current stream on `device` ("hip:1"): PyTorch's, when
    it is loaded and its build matches the device kind (a ROCm build for
    hip, a CUDA build for cuda); else 0, the device's null stream. Runs on
    every GPU launch: a dictionary lookup and, with PyTorch, its raw stream
    query (no Stream object is built)."""
    query = _stream_queries.get(device)
    if query is None:
        query = _stream_query(device)
        if query is None:  # PyTorch not imported (yet): ask again next time
            return 0
        _stream_queries[device] = query
    return query()


_stream_queries = {}


def _stream_query(device):
    """The function giving the current stream on `device`, or None while
    PyTorch is not imported (once it is, its build cannot change)."""
    import sys
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    kind, _, index = device.partition(":")
    version = torch.version
    built_for = ("hip" if getattr(version, "hip", None)
                 else "cuda" if getattr(version, "cuda", None) else None)
    if built_for != kind:
        return lambda: 0
    ordinal = int(index or 0)
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return lambda: raw(ordinal)
    current = torch.cuda.current_stream
    return lambda: current(ordinal).cuda_stream


_FACT_ATTRS = {"ptr": "rocdsl.alignment", "scalar": "rocdsl.divisibility"}


_BITS = {"f32": 32, "i32": 32, "f16": 16, "bf16": 16, "i1": 8}


def default_num_warps(tile_types, wave, max_lanes):
    """Warps for a kernel whose author gave none: enough lanes that each
    holds about 128 bytes of its largest tile (eight 128-bit accesses, 32
    registers), as Triton users size num_warps by block size; at least 128
    lanes (so small tiles still fill a CU or SM with few programs), at most
    a full workgroup, `max_lanes` from the chip table (16 waves of 64 on
    AMD, 32 warps on NVIDIA: a row of
    32768 f32 then keeps 32 values per lane, not 64, which at 128
    registers a lane spilled). Kernels with explicit layouts keep 4 (their
    layouts name the warps)."""
    largest = 0
    for t in tile_types:
        if isinstance(layouts.find(t.layout).term, str):
            return 4  # an explicit layout (rl.blocked, rl.dot's) names them
        elements = 1
        for d in t.shape:
            elements *= d
        largest = max(largest, elements * _BITS.get(t.dtype, 32) // 8)
    lanes = min(max(128, largest // 128), max_lanes)
    warps = 1
    while warps * wave < lanes:
        warps *= 2
    return warps


def _trace(kernel, device, dtypes, constexprs, facts):
    wave = _rocdsl.wave_size(device)
    chosen = {"warps": kernel.num_warps or 4}

    def default_layout(shape, bits, min_per_lane=1):
        return _rocdsl.default_layout(shape, bits, chosen["warps"], wave,
                                      min_per_lane)

    # The field's math defaults per target (docs/python.md, "Math"): on
    # NVIDIA `/` is div.full.f32 and exp ex2.approx, on AMD `/` stays IEEE
    # and exp is v_exp_f32; a * b + c may fuse into an fma on both (as
    # Triton's enable_fp_fusion); the host keeps accurate, unfused math (it
    # is the numerics reference). fast_math=False keeps accurate math
    # everywhere.
    kind = device.partition(":")[0]
    fast = kernel.fast_math and kind != "host"
    b = ir.Builder(kernel.symbol, chosen["warps"], default_layout,
                   kernel.waves_per_eu, fast_div=fast and kind == "cuda",
                   fast_exp=fast, contract=fast)
    b.target = kind
    dtype_iter, constexpr_iter = iter(dtypes), iter(constexprs)
    call_args = []
    for i, p in enumerate(kernel.params):
        ssa = p.name if _SSA_NAME.match(p.name) else f"arg{i}"
        if p.kind == "constexpr":
            call_args.append(next(constexpr_iter))
        else:
            fact = facts.get(p.name)
            attrs = {_FACT_ATTRS[p.kind]: fact} if fact else None
            if p.kind == "ptr":
                dtype = next(dtype_iter)
                call_args.append(Pointer(
                    b.argument(ssa, ir.PtrType(dtype), attrs), p.name))
            else:
                call_args.append(Scalar(b.argument(ssa, str(p.dtype), attrs),
                                        p.name))
    with tracing.tracing(b):
        result = kernel.fn(*call_args)
    if result is not None:
        raise error_at_def(kernel.fn, "kernels return nothing; write results "
                                      "through pointer arguments")
    if kernel.num_warps is None:
        # Layouts are chosen at render time, so the warps can still follow
        # the traced tiles.
        chosen["warps"] = b.num_warps = default_num_warps(
            b.tile_types(), wave, _rocdsl.max_workgroup_lanes(device))
    where = def_location(kernel.fn)
    return b.render(where, where)


class _Launch:
    """kernel[grid]: calling it launches.

    This is the per-launch path, kept short: arguments go through the
    converters made at decoration, the specialization is found by their
    tags and the constexprs, and a compiled host kernel is called
    directly."""
    __slots__ = ("kernel", "grid")

    def __init__(self, kernel, grid):
        self.kernel = kernel
        self.grid = grid

    def __call__(self, *args, **kwargs):
        k = self.kernel
        stream = device = check_finite = None
        if kwargs:
            if "stream" in kwargs or "device" in kwargs:
                stream = kwargs.pop("stream", None)
                device = kwargs.pop("device", None)
            # check_finite=True: NaN/Inf in an output raises ValueError.
            check_finite = kwargs.pop("check_finite", None)
            constexprs = tuple(map(kwargs.pop, k._constexpr_names,
                                   k._constexpr_defaults))
            if kwargs or _MISSING in constexprs:
                k._constexprs(dict(zip(k._constexpr_names, constexprs),
                                   **kwargs))  # raises the error
        else:
            constexprs = k._constexpr_defaults
            if _MISSING in constexprs:
                k._constexprs({})  # raises the error
        if len(args) != k._nargs:
            raise k._arity_error(len(args))
        values = []
        tags = tuple([c(a, values) for c, a in zip(k._converters, args)])
        spec = k._by_tags.get((tags, constexprs, device))
        if spec is None:
            spec = k._by_tags[(tags, constexprs, device)] = k._for_tags(
                tags, constexprs, device)
        grid = self.grid
        if callable(grid):
            grid = _grid3(grid(spec.constexprs))
        ready = spec.ready
        if ready and stream is None and check_finite is None:
            ready.launch(values, grid, None)
        else:
            spec.launch(values, grid, stream, check_finite)
        return spec


class KernelFunction:
    """What @rocdsl.kernel returns."""

    def __init__(self, fn, num_warps=None, waves_per_eu=None, name=None,
                 fast_math=True):
        if num_warps is not None and num_warps not in (1, 2, 4, 8, 16, 32):
            raise error_at_def(fn, f"num_warps must be 1, 2, 4, 8, 16 or 32 "
                                   f"(32 on NVIDIA only), got {num_warps!r}")
        self.fn = fn
        self.num_warps = num_warps
        self.fast_math = bool(fast_math)
        self.waves_per_eu = waves_per_eu
        self.name = name or fn.__name__
        self.symbol = (self.name if _SSA_NAME.match(self.name)
                       else '"' + self.name.replace('"', "") + '"')
        self.params = _parse_params(fn)
        self._runtime = [p for p in self.params if p.kind != "constexpr"]
        self._pointers = [p for p in self.params if p.kind == "ptr"]
        constexprs = [p for p in self.params if p.kind == "constexpr"]
        self._constexpr_names = tuple(p.name for p in constexprs)
        self._constexpr_defaults = tuple(p.default for p in constexprs)
        self._converters = tuple(
            _args.pointer(p.name) if p.kind == "ptr"
            else _args.i32(p.name) if p.dtype == "i32" else _args.f32(p.name)
            for p in self._runtime)
        self._nargs = len(self._runtime)
        self._specs = {}   # (device, dtypes, constexprs) -> Specialization
        self._by_tags = {}  # (tags, constexprs, device option) -> same
        self._grids = {}
        functools.update_wrapper(self, fn)

    def __repr__(self):
        return f"<rocdsl.kernel {self.name}>"

    def __call__(self, *args, **kwargs):
        raise TypeError(f"launch a kernel with a grid: {self.name}[grid](...)")

    def __getitem__(self, grid):
        if isinstance(grid, list):
            grid = tuple(grid)
        launch = self._grids.get(grid) if not callable(grid) else None
        if launch is None:
            launch = _Launch(self, grid if callable(grid) else _grid3(grid))
            if not callable(grid) and len(self._grids) < 1024:
                self._grids[grid] = launch
        return launch

    # Specializations ----------------------------------------------------

    def _constexprs(self, kwargs):
        """Constexpr values in parameter order, popped from kwargs; errors
        name what is missing or unknown."""
        values = tuple(map(kwargs.pop, self._constexpr_names,
                           self._constexpr_defaults))
        for name, v in zip(self._constexpr_names, values):
            if v is _MISSING:
                raise error_at_def(self.fn, f"constexpr `{name}` was not "
                                            f"given (pass {name}=...)")
        if kwargs:
            raise error_at_def(
                self.fn, f"unknown keyword argument(s) "
                         f"{', '.join(sorted(kwargs))}; the constexprs are "
                         f"{', '.join(self._constexpr_names) or 'none'}")
        return values

    def specialize(self, device="host", assume=None, **kwargs):
        """The Specialization for constexpr values (and the dtypes of
        pointer parameters annotated without one) given by keyword.
        `assume` ({name: 16}) compiles in launch facts as launches would:
        a pointer 16-byte aligned, an i32 argument divisible by 16 (or 8:
        {name: 8})."""
        facts = self._facts(assume or {})
        dtypes = []
        for p in self._pointers:
            d = kwargs.pop(p.name, p.dtype)
            if d is None:
                raise error_at_def(self.fn, f"pointer `{p.name}` has no "
                                            f"dtype; pass {p.name}='f32' "
                                            f"(or another dtype)")
            if p.dtype is not None and str(d) != p.dtype:
                raise error_at_def(self.fn, f"pointer `{p.name}` is declared "
                                            f"{p.dtype}, got {d}")
            dtypes.append(str(d))
        return self._specialization(_rocdsl.normalize_device(device),
                                    tuple(dtypes), self._constexprs(kwargs),
                                    facts)

    def _facts(self, assume):
        if not isinstance(assume, dict):
            raise TypeError(f"assume is a dict {{parameter: 16}}, got "
                            f"{type(assume).__name__}")
        known = {p.name: p for p in self._runtime}
        for name, value in assume.items():
            p = known.get(name)
            if p is None or (p.kind == "scalar" and p.dtype != "i32"):
                raise error_at_def(self.fn, f"assume: `{name}` is not a "
                                            f"pointer or i32 parameter")
            allowed = (16,) if p.kind == "ptr" else (16, 8)
            if value not in allowed:
                raise error_at_def(
                    self.fn, f"assume: `{name}` may only be assumed "
                    + ("16 (16-byte aligned)" if p.kind == "ptr" else
                       "16 or 8 (divisible by 16, or by 8)")
                    + f", got {value!r}")
        return tuple(assume.get(p.name, 0) for p in self._runtime)

    def compile(self, chip, **kwargs):
        """Compiles a specialization for `chip` (gfx942, gfx950, sm_90,
        sm_90a) without running it and returns a rocdsl.Compiled (.asm,
        .hsaco, .stats, ...). Keywords are as for specialize (`assume` for
        the launch facts; without it, the generic kernel). Needs no GPU."""
        if not isinstance(chip, str):
            raise TypeError(f"chip must be a str such as 'gfx942', got "
                            f"{type(chip).__name__}")
        device = "cuda" if chip.startswith("sm_") else "hip"
        spec = self.specialize(device, **kwargs)
        try:
            artifacts = _rocdsl.compile_source(spec.ir, self.symbol, chip)
        except ValueError as e:
            raise self._located(e) from e
        return Compiled(self.name, artifacts, assumed=spec.facts)

    def ir(self, device="host", **kwargs):
        """The traced rocdsl IR text of a specialization (see specialize)."""
        return self.specialize(device, **kwargs).ir

    def _specialization(self, device, dtypes, constexprs, facts=()):
        key = (device, dtypes, constexprs, facts)
        try:
            spec = self._specs.get(key)
        except TypeError:
            raise error_at_def(self.fn, f"constexpr values must be hashable "
                                        f"(int, float, bool, str, tuple), got "
                                        f"{constexprs!r}") from None
        if spec is None:
            spec = self._specs[key] = Specialization(self, device, dtypes,
                                                     constexprs, facts)
        return spec

    def _located(self, e):
        """A runtime ValueError whose diagnostic names a Python line (a
        verifier or lowering error at a traced op) as a CompilationError
        at that line; other errors unchanged."""
        message = str(e)
        m = _PYTHON_LOCATION.search(message)
        if m is None:
            return e
        return CompilationError(message, m.group(1), int(m.group(2)))

    # Launch errors and first launches -----------------------------------

    def _arity_error(self, count):
        names = ", ".join(p.name for p in self._runtime)
        extra = (f" and the constexpr keyword(s) "
                 f"{', '.join(self._constexpr_names)}"
                 if self._constexpr_names else "")
        return error_at_def(self.fn, f"{self.name} takes {self._nargs} "
                                     f"positional argument(s) ({names}){extra}"
                                     f"; got {count}")

    def _for_tags(self, tags, constexprs, device):
        """The specialization a first-seen combination of argument dtypes,
        memory kinds and constexprs launches."""
        dtypes, memories, facts = [], {}, []
        for p, tag in zip(self._runtime, tags):
            if p.kind != "ptr":
                facts.append(_args.DIVISIBILITY.get(tag, 0))
                continue
            dtype, memory, aligned = _args.split_tag(tag)
            facts.append(16 if aligned else 0)
            if p.dtype is not None and dtype != p.dtype:
                raise ValueError(f"argument '{p.name}': expected dtype "
                                 f"{p.dtype}, got {dtype}")
            dtypes.append(dtype)
            memories.setdefault(memory, p.name)
        if device is None:
            if len(memories) > 1:
                hint = ("; copy host arrays with rocdsl.device_array(array, "
                        "device) (nothing is copied implicitly)"
                        if "host" in memories else "")
                raise ValueError("arguments live on different devices: "
                                 + ", ".join(f"'{n}' on {m}"
                                             for m, n in memories.items())
                                 + hint)
            device = next(iter(memories), "host")
        else:
            device = _rocdsl.normalize_device(device)
        for memory, name in memories.items():
            if memory != device:
                hint = (f"; copy it with rocdsl.device_array(array, "
                        f"{device!r}) (nothing is copied implicitly)"
                        if memory == "host" else "")
                raise ValueError(f"argument '{name}': {memory} memory cannot "
                                 f"be used by a launch on device {device!r}"
                                 f"{hint}")
        return self._specialization(device, tuple(dtypes), constexprs,
                                    tuple(facts))


def kernel(fn=None, *, num_warps=None, waves_per_eu=None, name=None,
           fast_math=True):
    """Makes a Python function a traced rocdsl kernel (see this module).
    num_warps=None chooses it from the largest tile (default_num_warps);
    fast_math=False keeps accurate division and exp on every target."""
    if fn is None:
        return lambda f: KernelFunction(f, num_warps, waves_per_eu, name,
                                        fast_math)
    return KernelFunction(fn, num_warps, waves_per_eu, name, fast_math)
