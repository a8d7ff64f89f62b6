"""What a hint is, and the matchers a hint table is written with.

A :class:`Hint` pairs advice with a *matcher*: a function that says whether an exception is
the kind of error the advice is for. The groups in :mod:`autograder.kernel.hints.table` build
their matchers from the small pieces here, so that an entry reads as a sentence::

    Hint("python-while-on-tracer", "...",
         all_of(kind("TracerBoolConversionError", "ConcretizationTypeError"),
                user_line_re(r"^while\\b")))

Matchers look at the exception's class (:func:`kind`), its message (:func:`says`,
:func:`says_re`), where JAX raised it (:func:`raised_in`) and the learner's line that led
there (:func:`user_line_re`), so that one mistake gets one hint on every JAX version the
course supports even where JAX words its error differently. :func:`transformation` tells
a hint which transformation was tracing, for advice worded after it.
"""

from __future__ import annotations

import linecache
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType, TracebackType

Matcher = Callable[[BaseException], bool]


@dataclass(frozen=True)
class Hint:
    """A generic course hint for one kind of error.

    Attributes:
        name: a short identifier (tests refer to hints by it, see
            :func:`autograder.kernel.hints.hint_name`).
        text: the advice shown to the learner.
        matches: decides whether an exception is this kind of error.
        keys: phrases that, found in a test's own message, mean that the message already gives
            this advice (the hint is then left out as noise).
    """

    name: str
    text: str | Callable[[BaseException], str]
    matches: Matcher
    keys: tuple[str, ...] = ()

    def say(self, exc: BaseException) -> str:
        """The advice for ``exc``, saying where each API it names is taught when the chapter
        ``exc`` failed in has not taught it yet (:func:`~.syllabus.annotate`). A hint may word
        its advice after the error, the transformation in play, or the question
        (:func:`~.where.where_of`)."""
        from autograder.kernel.hints.syllabus import annotate
        from autograder.kernel.hints.where import where_of

        text = self.text(exc) if callable(self.text) else self.text
        return annotate(text, where_of(exc).chapter)


# --- the exception's class and message ---------------------------------------------------------


def kind(*names: str) -> Matcher:
    """The exception's class (or one of its bases) has one of these names.

    Args:
        names: class names, e.g. ``"ConcretizationTypeError"`` (which also matches its
            subclass ``TracerBoolConversionError``).
    """
    return lambda exc: any(cls.__name__ in names for cls in type(exc).__mro__)


def says(*fragments: str) -> Matcher:
    """The exception's message contains one of these fragments.

    Args:
        fragments: literal text to look for.
    """
    return lambda exc: any(fragment in str(exc) for fragment in fragments)


def says_re(pattern: str) -> Matcher:
    """The exception's message matches this regular expression.

    Args:
        pattern: a regular expression, searched for anywhere in the message.
    """
    compiled = re.compile(pattern)
    return lambda exc: compiled.search(str(exc)) is not None


def all_of(*matchers: Matcher) -> Matcher:
    """Every one of ``matchers`` matches."""
    return lambda exc: all(m(exc) for m in matchers)


def any_of(*matchers: Matcher) -> Matcher:
    """At least one of ``matchers`` matches."""
    return lambda exc: any(m(exc) for m in matchers)


# --- where it was raised -----------------------------------------------------------------------


def chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from or during (JAX re-raises with a cause)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _frames(exc: BaseException) -> Iterator[tuple[str, str, int]]:
    """(file name, function name, line number) of every frame of ``exc``'s tracebacks."""
    for link in chain(exc):
        tb: TracebackType | None = link.__traceback__
        for frame, lineno in traceback.walk_tb(tb):
            yield frame.f_code.co_filename, frame.f_code.co_name, lineno


def _library_dirs() -> tuple[str, ...]:
    """Folders of JAX and jaxlib (their frames are not the learner's or the course's code)."""
    dirs = []
    for name in ("jax", "jaxlib"):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            dirs.append(os.path.dirname(path) + os.sep)
    return tuple(dirs)


def raised_by_library(exc: BaseException) -> bool:
    """True when the innermost frame of ``exc`` is inside JAX or jaxlib."""
    frames = list(traceback.walk_tb(exc.__traceback__))
    if not frames:
        return False
    return frames[-1][0].f_code.co_filename.startswith(_library_dirs())


def raised_in(*parts: str) -> Matcher:
    """A frame of JAX's own code (file or function name) contains one of ``parts``.

    For example ``raised_in("pmap")``: the error came from inside ``jax.pmap``. Only JAX's
    frames count, so a learner's cell or file named after ``pmap`` does not.

    Args:
        parts: fragments of a file's base name or a function's name.
    """
    def match(exc: BaseException) -> bool:
        library = _library_dirs()
        return any(part in os.path.basename(filename) or part in function
                   for filename, function, _ in _frames(exc) if filename.startswith(library)
                   for part in parts)
    return match


def user_line(exc: BaseException) -> str:
    """The source line of the innermost frame outside the installed libraries, Python's own
    and this package (:func:`autograder.kernel.tracebacks.is_library_file`).

    That is the learner's code that raised (or called into JAX). Empty when the source is not
    available (IPython and the exercise harness register cells in ``linecache``).
    """
    from autograder.kernel.tracebacks import is_library_file

    frames = list(traceback.walk_tb(exc.__traceback__))
    for frame, lineno in reversed(frames):
        if not is_library_file(frame.f_code.co_filename):
            return linecache.getline(frame.f_code.co_filename, lineno, frame.f_globals).strip()
    return ""


def user_line_re(pattern: str) -> Matcher:
    """The learner's line that raised (:func:`user_line`) matches this regular expression.

    Args:
        pattern: a regular expression, e.g. ``r"^while\\b"`` for a Python ``while`` loop.
    """
    compiled = re.compile(pattern)
    return lambda exc: compiled.search(user_line(exc)) is not None


def learner_frames(exc: BaseException) -> Iterator[FrameType]:
    """The frames of ``exc``'s traceback outside the libraries and this package, innermost
    first (the learner's code, :func:`autograder.kernel.tracebacks.is_library_file`)."""
    from autograder.kernel.tracebacks import is_library_file

    for frame, _ in reversed(list(traceback.walk_tb(exc.__traceback__))):
        if not is_library_file(frame.f_code.co_filename):
            yield frame


# --- the question it failed in ------------------------------------------------------------------


def in_question(chapter: str, number: int) -> Matcher:
    """The error failed question ``number`` of chapter ``chapter`` (its visible or its hidden
    tests), as :func:`~autograder.kernel.hints.feedback` marked it (:mod:`.where`).

    A hint written for one question's typical mistake uses it, so that the same error in
    another question still gets the generic hint.

    Args:
        chapter: the exercise's stem, e.g. ``"06_jit"``.
        number: the question's number, as its ``feedback`` label says it (``"Question 6"``).
    """
    label = re.compile(rf"^Question {number}(?!\d)")

    def match(exc: BaseException) -> bool:
        from autograder.kernel.hints.where import where_of

        where = where_of(exc)
        return where.chapter == chapter and label.match(where.question or "") is not None
    return match


# --- collectives and mesh axes -------------------------------------------------------------------

_COLLECTIVE = re.compile(r"(?<![\w])(psum|pmean|pmax|pmin|all_gather|all_to_all|ppermute|"
                         r"psum_scatter|axis_index|axis_size|pshuffle|pswapaxes)\(")


def collective_on_line(exc: BaseException) -> str | None:
    """The collective (``psum``, ``pmean``, ``all_gather``...) the learner's line that raised
    calls, or None."""
    found = _COLLECTIVE.search(user_line(exc))
    return found.group(1) if found else None


def unknown_axis_name(exc: BaseException) -> bool:
    """A collective named a mesh axis that nothing declares. JAX says so in its own words
    ("unbound axis name: i") under ``jit``, ``vmap`` and ``pmap``; inside ``shard_map`` it raises
    a bare ``KeyError: 'i'`` (JAX 0.7) or an empty ``AssertionError`` (JAX 0.10 to 0.12) from the
    learner's line that calls the collective."""
    if "unbound axis name" in str(exc):
        return True
    bare = (isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str)
            ) or (isinstance(exc, AssertionError) and not str(exc).strip())
    return bare and collective_on_line(exc) is not None


def axis_named(exc: BaseException) -> str | None:
    """The axis name a collective asked for: from JAX's message, the ``KeyError``, or the first
    string on the learner's line that calls the collective."""
    said = re.search(r"unbound axis name: (\w+)", str(exc))
    if said:
        return said.group(1)
    if isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], str):
        return exc.args[0]
    quoted = re.search(r"""\(.*?['"](\w+)['"]""", user_line(exc))
    return quoted.group(1) if quoted else None


def mesh_axis_names(exc: BaseException) -> tuple[str, ...]:
    """The axis names of a mesh the learner's frames hold (``mesh`` passed to their function),
    innermost frame first; empty when none does."""
    for frame in learner_frames(exc):
        for value in list(frame.f_locals.values()):
            names = getattr(value, "axis_names", None)
            if type(value).__name__.endswith("Mesh") and isinstance(names, tuple):
                return tuple(str(name) for name in names)
    return ()


# --- the transformation in play ------------------------------------------------------------------


def transformation(exc: BaseException) -> str:
    """The JAX transformation that was tracing when ``exc`` was raised, from what JAX says:
    ``"vmap"``, ``"grad"``, ``"jit"``, ``"scan"``... (``"jit"`` when JAX does not say).

    Args:
        exc: a tracer error (``TracerBoolConversionError``, ``ConcretizationTypeError``...).
    """
    text = "\n".join(str(link) for link in chain(exc))
    found = re.search(r"while tracing the function .*? for (\w+)", text)
    if found:
        return found.group(1)
    if re.search(r"\b(BatchTracer|VmapTracer)\b", text):  # VmapTracer from JAX 0.12
        return "vmap"
    if re.search(r"\b(JVPTracer|LinearizeTracer|JaxprTracer.*grad)", text):
        return "grad"
    return "jit"
