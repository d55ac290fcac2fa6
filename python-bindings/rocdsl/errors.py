"""Errors of traced kernels, located at the kernel author's Python line.

Tracing runs the kernel's Python code, so the line that caused a problem is
the innermost stack frame outside this package. The same position becomes
each emitted op's MLIR location, which is how verifier and lowering errors
reported later by the compiler name the Python line too.
"""
import linecache
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class CompilationError(Exception):
    """A kernel that cannot be traced or compiled.

    The message starts with `file.py:LINE:` of the kernel source line;
    `filename` and `lineno` hold the same position.
    """

    def __init__(self, message, filename=None, lineno=None):
        self.filename = filename
        self.lineno = lineno
        self.reason = message
        if filename is not None:
            text = f"{filename}:{lineno}: {message}"
            source = linecache.getline(filename, lineno).strip()
            if source:
                text += f"\n    {source}"
        else:
            text = message
        super().__init__(text)


_internal = {}


def _is_internal(filename):
    inside = _internal.get(filename)
    if inside is None:
        inside = _internal[filename] = os.path.abspath(filename).startswith(
            _PACKAGE_DIR)
    return inside


def user_frame():
    """The innermost frame of code outside the rocdsl package."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


# co_positions() is a generator over all instructions; one list per code
# object keeps looking up a column O(1) when a kernel emits many ops.
_positions = {}


def _column(frame):
    code = frame.f_code
    positions = _positions.get(code)
    if positions is None:
        get = getattr(code, "co_positions", None)  # Python >= 3.11
        positions = _positions[code] = list(get()) if get else []
    index = frame.f_lasti // 2
    if index < len(positions) and positions[index][2] is not None:
        return positions[index][2] + 1  # MLIR columns start at 1
    return 1


def user_location():
    """(file, line, column) of the kernel code being traced."""
    frame = user_frame()
    if frame is None:
        return ("<unknown>", 0, 0)
    return (frame.f_code.co_filename, frame.f_lineno, _column(frame))


def error(message):
    """A CompilationError at the kernel line being traced."""
    filename, line, _ = user_location()
    return CompilationError(message, filename, line)


def def_location(fn):
    """(file, line, column) of the `def` line of `fn` (co_firstlineno is
    the first decorator's line)."""
    code = fn.__code__
    line = code.co_firstlineno
    for offset in range(200):
        text = linecache.getline(code.co_filename, line + offset)
        if not text:
            break
        stripped = text.lstrip()
        if stripped.startswith(("def ", "async def ")):
            return (code.co_filename, line + offset,
                    len(text) - len(stripped) + 1)
    return (code.co_filename, line, 1)


def error_at_def(fn, message):
    filename, line, _ = def_location(fn)
    return CompilationError(message, filename, line)
