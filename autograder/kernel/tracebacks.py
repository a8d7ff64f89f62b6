"""Short error displays in notebooks: the learner's own frames, not the libraries'.

An error raised inside JAX, NumPy or IPython shows dozens of lines of library source (with the
paths of the machine it ran on) before the message a learner needs. JAX hides its own
transformation frames, but not the frames of, say, an operator on a leaked tracer.
:func:`short_tracebacks` makes IPython show only the frames of notebook cells and other code
outside the installed packages, then the message (with any hints attached as notes), and says
how many library frames it left out. Every chapter turns it on in its runtime cell.

A failing check in an exercise is shorter still. :func:`autograder.kernel.hints.feedback`
prints the question, what differed and the hint, marks the test cell's code as the course's
(:func:`mark_course_code`) and turns short tracebacks on; the error then shows only the frames of
the learner's own cells (at most :data:`MAX_FRAMES`, one line of source each), the error's
summary and how to see everything (:func:`failure_lines`). ``%tb`` shows the full traceback of
the last error; :func:`full_tracebacks` (or the environment variable ``LEARN_JAX_FULL_TRACEBACKS=1``
set before the kernel starts) turns the short display off for the whole notebook.
"""

from __future__ import annotations

import linecache
import os
import re
import site
import sys
import sysconfig
from pathlib import Path
from types import TracebackType
from typing import Any

_TESTS = str(Path(__file__).resolve().parents[1] / "tests")
_COURSE = "_autograder_course_files"  # on an exception: the test cell's code names
FULL_ENV = "LEARN_JAX_FULL_TRACEBACKS"  # set to 1: IPython's own full tracebacks everywhere
MAX_FRAMES = 3  # the learner's frames a failing check shows (the innermost ones)
# Closing line of a failing check's display: the message itself was printed above it by
# ``feedback``, once; with the learner's frames shown, they are where it was raised.
RAISED_HERE = "(The error above was raised here; run %tb in a new cell for the full traceback.)"
NO_FRAMES = "(Details above; run %tb in a new cell for the full traceback.)"
_full = False  # the learner asked for full tracebacks (full_tracebacks())

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


def mark_course_code(exc: BaseException, filename: str) -> None:
    """Record that frames of ``filename`` (a test cell's code) are the course's, not the
    learner's: the short display of ``exc`` leaves them out.

    Args:
        exc: the exception a check raised.
        filename: the ``co_filename`` of the test cell's code.
    """
    names = set(getattr(exc, _COURSE, ()))
    names.add(filename)
    try:
        setattr(exc, _COURSE, frozenset(names))
    except AttributeError:  # pragma: no cover - an exception type without a __dict__
        pass


def _cell_label(filename: str, shell: Any = None) -> str:
    """How to name the cell or file of a frame: ``Cell In[4]`` where IPython can tell (IPython
    8 and later), else the file's name (IPython 7's kernels name cells by a temporary file)."""
    formatter = getattr(getattr(shell, "compile", None), "format_code_name", None)
    if formatter is not None:
        try:
            named = formatter(filename)
        except Exception:  # noqa: BLE001 - a label is never worth an error
            named = None
        if named:
            return f"{named[0]} {named[1]}"
    match = re.match(r"<ipython-input-(\d+)-", filename)
    if match:
        return f"Cell In[{match.group(1)}]"
    if filename.startswith("<"):
        return filename
    return f'File "{Path(filename).name}"' if "ipykernel_" in filename else f'File "{filename}"'


SUMMARY_CHARS = 300  # the longest summary line first_line makes of a multi-line message


def first_line(exc: BaseException) -> str:
    """``"ClassName: what went wrong"`` in one line (just the class name for an empty message).

    A message whose first line announces the details on the next lines (it ends with a colon,
    as in ``vmap got inconsistent sizes for array axes to be mapped:``) keeps those lines,
    joined, up to :data:`SUMMARY_CHARS` characters: they hold the informative part (which
    argument had which size). Lines naming source frames (``path:line:col (function)``) are
    left out.

    Args:
        exc: any exception.
    """
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    if not lines:
        return f"{type(exc).__name__}:"
    line = lines[0]
    if line.endswith(":"):
        for more in lines[1:]:
            if _FRAME_LINE.match(more) or len(line) >= SUMMARY_CHARS:
                break
            line = f"{line} {more}"
        if len(line) > SUMMARY_CHARS:
            line = line[:SUMMARY_CHARS - 1].rstrip() + "…"
    return f"{type(exc).__name__}: {line}"


def summary(exc: BaseException) -> str:
    """``"ClassName: what went wrong"`` in one line (:func:`first_line`).

    Args:
        exc: any exception.
    """
    return first_line(exc)


def failure_lines(exc: BaseException, tb: TracebackType | None = None, shell: Any = None
                  ) -> list[str]:
    """The short display of a failing check: the learner's innermost frames and how to see
    the full traceback. The question, the error's message and the hints were printed by
    ``feedback`` just above, so the message is not repeated here: one message, once.

    Frames of the course's code are left out: the installed packages, this package, and the
    test cell (:func:`mark_course_code`). At most :data:`MAX_FRAMES` of the learner's frames
    are shown, two lines each; a frame on the line of the frame that called it (a list
    comprehension's, before Python 3.12) is not shown again.

    Args:
        exc: the exception.
        tb: its traceback (default: ``exc.__traceback__``).
        shell: the IPython shell, to name cells as IPython does (optional).
    """
    course = set(getattr(exc, _COURSE, ()))
    roots = _library_roots()
    frames = []
    tb = exc.__traceback__ if tb is None else tb
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        # A comprehension's own frame (Python 3.11) repeats its function's line: shown once.
        same_line = bool(frames) and (frames[-1].tb_frame.f_code.co_filename,
                                      frames[-1].tb_lineno) == (name, tb.tb_lineno)
        if name not in course and not is_library_file(name, roots) and not same_line:
            frames.append(tb)
        tb = tb.tb_next
    lines = []
    if frames:
        lines.append("In your code:")
        if len(frames) > MAX_FRAMES:
            lines.append(f"  ({len(frames) - MAX_FRAMES} outer frame(s) of your code not shown)")
        for item in frames[-MAX_FRAMES:]:
            code = item.tb_frame.f_code
            lines.append(f"  {_cell_label(code.co_filename, shell)}, line {item.tb_lineno}, "
                         f"in {code.co_name}")
            source = linecache.getline(code.co_filename, item.tb_lineno,
                                       item.tb_frame.f_globals).strip()
            if source:
                lines.append(f"    {source}")
    return [*lines, RAISED_HERE if frames else NO_FRAMES]


def _remember(etype: type, value: BaseException, tb: TracebackType | None) -> None:
    """Keep the error for ``%tb`` (IPython does not, for an exception a handler showed)."""
    sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb
    if sys.version_info >= (3, 12):  # pragma: no cover - Colab and the pins run 3.11
        sys.last_exc = value


def _handler(shell: Any, etype: type, value: BaseException, tb: TracebackType | None,
             tb_offset: int | None = None) -> list[str] | None:
    """IPython's custom exception handler: show the short traceback (IPython shows nothing
    itself for a custom exception)."""
    if issubclass(etype, SyntaxError):  # a cell that does not parse: IPython's own display
        shell.showsyntaxerror()
        return None
    _remember(etype, value, tb)
    if getattr(value, _COURSE, None):  # a failing check: feedback printed what and why
        stb = failure_lines(value, tb, shell)
        shell._showtraceback(etype, value, stb)
        return stb
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
        enabled: False restores IPython's full tracebacks (so does the environment variable
            ``LEARN_JAX_FULL_TRACEBACKS=1``, whatever ``enabled`` says).
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is always there in a notebook
        return False
    shell = get_ipython()
    if shell is None:
        return False
    if enabled and wants_full():
        enabled = False
    if enabled:
        shell.set_custom_exc((Exception,), _handler)
    else:
        shell.set_custom_exc((), None)
    return True


def full_tracebacks(enabled: bool = True) -> bool:
    """Show IPython's full tracebacks in this notebook from now on, course frames included
    (``full_tracebacks(False)`` goes back to the short ones).

    Returns True when it changed IPython's display (False outside IPython).

    Args:
        enabled: True for full tracebacks, False for short ones.
    """
    global _full
    _full = enabled
    return short_tracebacks(not enabled)


def wants_full() -> bool:
    """True when the learner asked for full tracebacks (:func:`full_tracebacks` or
    ``LEARN_JAX_FULL_TRACEBACKS=1``)."""
    return _full or os.environ.get(FULL_ENV, "").strip() not in ("", "0")


def ensure_short_tracebacks() -> bool:
    """Turn short tracebacks on unless the learner asked for full ones or they are on already
    (``feedback`` calls it, so exercises need no set-up line). Returns True when they are on.
    """
    if wants_full():
        return False
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    shell = get_ipython()
    if shell is None:
        return False
    if shell.custom_exceptions == (Exception,):
        return True
    return short_tracebacks()
