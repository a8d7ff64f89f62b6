"""Short error displays in notebooks: the learner's own frames, not the libraries'.

An error raised inside JAX, NumPy or IPython shows dozens of lines of library source (with the
paths of the machine it ran on) before the message a learner needs. JAX hides its own
transformation frames, but not the frames of, say, an operator on a leaked tracer.
:func:`short_tracebacks` makes IPython show only the frames of notebook cells and other code
outside the installed packages, then the message (with any hints attached as notes), and says
how many library frames it left out. Every chapter turns it on in its runtime cell.
"""

from __future__ import annotations

import re
import site
import sys
import sysconfig
from pathlib import Path
from types import TracebackType
from typing import Any

_TESTS = str(Path(__file__).resolve().parents[1] / "tests")

# A stack frame as JAX lists it inside some messages (UnexpectedTracerError's "final 5 stack
# frames"): ``path:line:column (function)``, possibly coloured.
_FRAME_LINE = re.compile(r"^(?:\x1b\[[0-9;]*m)*(?P<path>/\S+\.py):\d+(?::\d+)? \(.*\)\s*$")


def _library_roots() -> tuple[str, ...]:
    """Folders whose code counts as library code: the Python installation and site dirs."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             *sysconfig.get_paths().values(), *site.getsitepackages()}
    try:
        roots.add(site.getusersitepackages())
    except AttributeError:  # pragma: no cover - some embedded interpreters lack it
        pass
    roots.add(str(Path(__file__).resolve().parents[1]))  # the course's own helpers
    return tuple(sorted({str(Path(r).resolve()) for r in roots if r}, key=len, reverse=True))


def is_library_file(filename: str, roots: tuple[str, ...] | None = None) -> bool:
    """True when ``filename`` belongs to an installed package or the standard library.

    Args:
        filename: a frame's ``co_filename``.
        roots: library folders (default: this interpreter's).
    """
    if filename.startswith("<"):  # <ipython-input-...>, <string>: the learner's code
        return filename.startswith(("<frozen", "<__array_function__"))
    path = str(Path(filename).resolve())
    if path.startswith(_TESTS + "/"):  # the course's own tests play the learner's part
        return False
    return any(path == r or path.startswith(r + "/") for r in roots or _library_roots())


def user_frames(tb: TracebackType | None) -> tuple[TracebackType | None, int]:
    """A traceback of ``tb``'s frames outside the libraries, and how many frames it dropped.

    Frames before the first kept one (IPython running the cell) are dropped without being
    counted: IPython never shows them.
    """
    roots = _library_roots()
    kept: list[TracebackType] = []
    dropped = 0
    while tb is not None:
        if not is_library_file(tb.tb_frame.f_code.co_filename, roots):
            kept.append(tb)
        elif kept:
            dropped += 1
        tb = tb.tb_next
    chain: TracebackType | None = None
    for item in reversed(kept):
        chain = TracebackType(chain, item.tb_frame, item.tb_lasti, item.tb_lineno)
    return chain, dropped


def drop_library_frame_lines(text: str, roots: tuple[str, ...] | None = None) -> str:
    """``text`` without the lines that name a library frame as ``path:line:col (function)``.

    Args:
        text: an error message or a piece of a structured traceback.
        roots: library folders (default: this interpreter's).
    """
    roots = roots or _library_roots()
    kept = [line for line in text.split("\n")
            if not ((m := _FRAME_LINE.match(line)) and is_library_file(m.group("path"), roots))]
    return "\n".join(kept)


def _shorten_chain(value: BaseException) -> int:
    """Shorten the tracebacks of the exceptions chained to ``value`` (``__cause__`` and
    ``__context__``: JAX attaches the stack "before transformation", with every frame of the
    kernel, as a cause); return how many frames that left out."""
    dropped, seen = 0, {id(value)}
    link = [value.__cause__, value.__context__]
    while link:
        exc = link.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        short, count = user_frames(exc.__traceback__)
        exc.__traceback__ = short
        dropped += count
        link += [exc.__cause__, exc.__context__]
    return dropped


def _handler(shell: Any, etype: type, value: BaseException, tb: TracebackType | None,
             tb_offset: int | None = None) -> list[str] | None:
    """IPython's custom exception handler: show the short traceback (IPython shows nothing
    itself for a custom exception)."""
    if issubclass(etype, SyntaxError):  # a cell that does not parse: IPython's own display
        shell.showsyntaxerror()
        return None
    short, dropped = user_frames(tb)
    dropped += _shorten_chain(value)
    # tb_offset=0: IPython's own frames are already gone (it would skip one more otherwise).
    stb = shell.InteractiveTB.structured_traceback(etype, value, short, tb_offset=0)
    stb = [drop_library_frame_lines(part) for part in stb]
    if dropped:
        stb = [*stb, f"({dropped} frame(s) inside JAX, NumPy or other libraries not shown)"]
    shell._showtraceback(etype, value, stb)  # ipykernel sends it as the cell's error output
    return stb


def short_tracebacks(enabled: bool = True) -> bool:
    """Show errors in this notebook with the learner's frames only (library frames counted).

    Returns True when it changed IPython's display (False outside IPython).

    Args:
        enabled: False restores IPython's full tracebacks.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is always there in a notebook
        return False
    shell = get_ipython()
    if shell is None:
        return False
    if enabled:
        shell.set_custom_exc((Exception,), _handler)
    else:
        shell.set_custom_exc((), None)
    return True
