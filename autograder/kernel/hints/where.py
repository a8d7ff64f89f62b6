"""Where a failure happened: the question, and the chapter (exercise) it belongs to.

:func:`~autograder.kernel.hints.feedback` knows the question it checks (its label, e.g.
``"Question 4"``) and, when a check fails, finds the chapter from the test cell
(:func:`chapter_of_cell`); it marks the failure with both (:func:`mark`), so a hint can fit
what the learner has been taught (:mod:`.syllabus`) and the question it fires in (a hint's
text may read :func:`where_of`).

A test cell says its chapter in four ways, tried in order:

1. a released exercise's test cell loads its expected values with
   ``expected_values("06_jit", ...)``: its first argument is the exercise;
2. a graded test cell names its own id in its proof line (``q1_clip_by_norm_tests``,
   :mod:`autograder.grader.judging.proof`), an id that one released values file holds;
3. the cell's code name holds an exercise's name (the course's test harness names its cells
   ``<06_jit tests ...>``; a file named after the exercise does too);
3. the notebook's path, where Jupyter tells the kernel (``__session__``, ``JPY_SESSION_NAME``).

An exercise's name is the stem of one of the released values files
(:func:`autograder.kernel.reporter.released_folders`), the same as its chapter's stem in
``notebooks/``; the test cell ids are that file's keys. When none of these says, the chapter
is unknown (None).
"""

from __future__ import annotations

import contextlib
import functools
import json
import linecache
import os
import re
from dataclasses import dataclass

_WHERE = "_autograder_where"
_STEM = re.compile(r"(?<![\w])(\d\d_[a-z0-9_]+?)(?=\.ipynb|\.json|\.py|[^a-z0-9_]|$)")
_TEST_ID = re.compile(r"\b(q\d+_\w+?_tests)\b")
_DECLARED = re.compile(r"expected_values\(\s*['\"](\d\d_[a-z0-9_]+)['\"]")


@dataclass(frozen=True)
class Where:
    """The question and chapter a failure belongs to (None when not known).

    Attributes:
        question: the label of the :func:`~autograder.kernel.hints.feedback` block, e.g.
            ``"Question 4"`` or ``"Question 4 (hidden tests)"``.
        chapter: the exercise's stem, e.g. ``"11_sharding"``.
    """

    question: str | None = None
    chapter: str | None = None


@functools.cache
def chapters() -> frozenset[str]:
    """The exercises' names: the stems of the released values files."""
    from autograder.kernel.reporter import released_folders

    return frozenset(path.stem for folder in released_folders() if folder.is_dir()
                     for path in folder.glob("[0-9][0-9]_*.json"))


@functools.cache
def test_cells() -> dict[str, str]:
    """Each released test cell's id (``q1_clip_by_norm_tests``) with its exercise's name."""
    from autograder.kernel.reporter import released_folders

    found: dict[str, str] = {}
    for folder in released_folders():
        for path in sorted(folder.glob("[0-9][0-9]_*.json")) if folder.is_dir() else ():
            try:
                cells = json.loads(path.read_text()).get("cells", {})
            except (OSError, ValueError, AttributeError):
                continue
            for test_id in cells:
                found.setdefault(test_id, path.stem)
    return found


def _named_in(text: str | None) -> str | None:
    """The first exercise name (:func:`chapters`) that ``text`` holds."""
    known = chapters()
    for found in _STEM.findall(text or ""):
        if found in known:
            return found
    return None


def chapter_of_cell(filename: str | None, namespace: dict | None = None) -> str | None:
    """The chapter of the test cell whose code name is ``filename`` (see the module docstring
    for the three places it is looked for), or None.

    Args:
        filename: the cell's code name (``co_filename`` of its frame).
        namespace: the cell's globals (for ``__session__`` and ``linecache``'s loader).
    """
    namespace = namespace or {}
    if filename:
        source = "".join(linecache.getlines(filename, namespace))
        declared = _DECLARED.search(source)
        if declared and declared.group(1) in chapters():
            return declared.group(1)
        ids = test_cells()
        for test_id in _TEST_ID.findall(source):
            if test_id in ids:
                return ids[test_id]
    for place in (os.path.basename(filename or ""), namespace.get("__session__"),
                  os.environ.get("JPY_SESSION_NAME")):
        found = _named_in(os.path.basename(place) if isinstance(place, str) else None)
        if found:
            return found
    return None


def mark(exc: BaseException, where: Where) -> None:
    """Record on ``exc`` the question it failed (kept if already marked by an inner block)."""
    if not isinstance(getattr(exc, _WHERE, None), Where):
        with contextlib.suppress(AttributeError):
            setattr(exc, _WHERE, where)


def where_of(exc: BaseException) -> Where:
    """The question ``exc`` failed (:func:`mark`), else an unknown one."""
    found = getattr(exc, _WHERE, None)
    return found if isinstance(found, Where) else Where()
