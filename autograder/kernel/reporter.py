"""The kernel's side of a check: report what was seen, or compare with released values.

Checks that name no expected value (``check_array(f(x), name="f(x)")``, ``check_jitted``,
``check_speedup``...) hand an :class:`~autograder.core.evidence.Entry` to :func:`submit`, which
does one of three things:

- **Grading** (the grader starts each test cell with :func:`start_test_cell`): the entry is
  published as an output of its own MIME type and nothing is decided here. The grader records
  the reference answers' entries in a trusted run and decides each check outside the kernel
  (:mod:`autograder.grader.judging.verdict`), so the student's kernel never holds an expected value.
- **A released exercise** (Colab, Jupyter, ``python -m autograder check``): the test cell
  first loads the expected values of its visible checks with :func:`expected_values`, data
  written at release time into the values files installed with this package
  (:data:`RELEASED`, :mod:`autograder.core.released`), and each check is decided at once with
  the grader's own :func:`~autograder.core.decide.decide`: the same message, the same verdict.
- **Anything else** (a course source run by hand): a check that can decide alone (a timing
  test, "is it jitted") does; a differential check has nothing to compare with and passes.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from autograder.core.evidence import MIME, Entry, unpack
from autograder.core.released import NAME_RE, read_values
from autograder.core.renames import rename_chain

# The values files of the course's own exercises (package data, written by the release).
RELEASED = Path(__file__).resolve().with_name("released")
# Folders searched before RELEASED (os.pathsep between them): a course outside the package.
RELEASED_ENV = "LEARN_JAX_RELEASED"

Sink = Callable[[Entry], None]


def _display(entry: Entry) -> None:
    from IPython.display import display

    display({MIME: entry.to_json()}, raw=True)


@dataclass
class _State:
    publish: bool = False  # grading: publish entries, decide nothing
    recording: bool = False  # the trusted run of the reference answers
    expected: list[Entry] | None = None  # released values for the running test cell
    used: Counter = field(default_factory=Counter)
    sink: Sink = _display
    hooked: bool = False
    case: str | None = None  # the test case the running checks cover (hints.case)


_state = _State()


def start_test_cell() -> None:
    """Publish this cell's checks for the grader (the grader puts this call first in each
    test cell it runs)."""
    _state.publish, _state.expected = True, None
    _state.used.clear()


def publishing() -> bool:
    """True while checks publish their entries instead of deciding (grading)."""
    return _state.publish


def recording() -> bool:
    """True in the grader's trusted run of the reference answers (nothing is timed there)."""
    return _state.recording


@contextlib.contextmanager
def current_case(description: str) -> Iterator[None]:
    """Record ``description`` in the options of every check made inside the block (the key
    ``"case"``), so a verdict reached anywhere can name the case
    (:func:`autograder.kernel.hints.case` is the idiom test cells use)."""
    saved, _state.case = _state.case, str(description)
    try:
        yield
    finally:
        _state.case = saved


class ReleaseMismatch(RuntimeError):
    """The values a test cell names are not in the installed course package."""


def released_folders() -> list[Path]:
    """Where values files are looked for: the folders of ``$LEARN_JAX_RELEASED``, then
    :data:`RELEASED`."""
    extra = os.environ.get(RELEASED_ENV, "")
    return [Path(p) for p in extra.split(os.pathsep) if p] + [RELEASED]


def released_values(exercise: str, test_id: str, digest: str) -> list[Entry]:
    """The values released for test cell ``test_id`` of ``exercise`` under ``digest``.

    The files are read at each call, so a package reinstalled by the set-up cell is seen
    without restarting the kernel.

    Raises:
        ReleaseMismatch: when no values file has them (the notebook and the installed package
            come from different releases), in one line that says what to do.
    """
    if NAME_RE.match(exercise) and NAME_RE.match(test_id):
        # a notebook saved before its chapter was renamed names the old exercise: its values
        # are kept, under their digests, in the file of the new name (core.renames)
        for name in rename_chain(exercise):
            for folder in released_folders():
                path = folder / f"{name}.json"
                try:
                    sets = read_values(path.read_text(), name)
                except (OSError, ValueError):  # a missing or unreadable file: look further
                    continue
                if digest in sets.get(test_id, {}):
                    return sets[test_id][digest]
    raise ReleaseMismatch(
        f"This notebook and the installed course package come from different releases (no "
        f"expected values {digest} for {exercise} {test_id}): run the set-up cell at the top "
        "again, then this cell; if this message stays, download the current notebook from the "
        "course and copy your answers into it.")


def expected_values(exercise_or_packed: str, test_id: str | None = None,
                    digest: str | None = None) -> None:
    """Load the expected values released for the checks of the test cell now running.

    A released test cell calls ``expected_values(exercise, test_id, digest)``: the values are
    read from the installed package (:func:`released_values`). Notebooks released before the
    values moved out of sight call it with one argument, the values packed inline
    (:func:`~autograder.core.evidence.pack`); that form still works.

    Raises:
        ReleaseMismatch: when the installed package lacks the values the cell names.
        TypeError: when only one of ``test_id`` and ``digest`` is given.
    """
    if test_id is None and digest is None:
        entries = unpack(exercise_or_packed)
    elif test_id is None or digest is None:
        raise TypeError("expected_values takes the packed values, or an exercise, a test cell "
                        "id and a digest")
    else:
        entries = released_values(exercise_or_packed, test_id, digest)
    _state.expected = entries
    _state.used.clear()
    _clear_after_this_cell()


def _clear_after_this_cell() -> None:
    if _state.hooked:
        return
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.events.register("post_run_cell", lambda *_: reset())
        _state.hooked = True


def reset() -> None:
    """Forget the released values of the last test cell."""
    _state.expected = None
    _state.used.clear()


def _released(key: tuple[str, str]) -> Entry | None:
    assert _state.expected is not None
    index = _state.used[key]
    _state.used[key] += 1
    found = [e for e in _state.expected if e.key == key]
    return found[index] if index < len(found) else None


def submit(entry: Entry, alone: Entry | None = None) -> None:
    """Hand over one check's entry (see the module docstring).

    Args:
        entry: what the check saw.
        alone: the record a check can decide with by itself (its rule, no reference value);
            None for a differential check.

    Raises:
        AssertionError: when the check is decided here and fails.
    """
    from autograder.core.decide import decide

    if _state.case is not None:
        entry = replace(entry, options={**entry.options, "case": _state.case})
    if _state.publish:
        if alone is not None:  # the rule travels with the entry: the trusted record keeps it
            entry = replace(entry, options={**entry.options, "rule": alone.got})
        _state.sink(entry)
        return
    record = _released(entry.key) if _state.expected is not None else None
    if alone is not None and (record is None or entry.check == "speedup"):
        record = alone  # a timing bar is this backend's, not the release machine's
    if record is None and _state.expected is not None:
        raise AssertionError(f"No expected value was released for {entry.name}: regenerate "
                             "the exercise (python -m autograder release).")
    if record is not None:
        decide(record, entry)


def observe(name: str, failure: str | None) -> None:
    """Report a check of *how* an answer works: ``failure`` is None, or what went wrong."""
    options = {"message": "{got}"}
    submit(Entry("value", name, "ok" if failure is None else failure, options),
           Entry("value", name, "ok", options))


@contextlib.contextmanager
def collecting(sink: Sink, *, recording: bool = False) -> Iterator[None]:
    """Publish every entry to ``sink`` inside the block (the course's own runs)."""
    saved = (_state.publish, _state.recording, _state.sink, _state.expected)
    _state.publish, _state.recording, _state.sink, _state.expected = True, recording, sink, None
    try:
        yield
    finally:
        _state.publish, _state.recording, _state.sink, _state.expected = saved


@contextlib.contextmanager
def expecting(entries: list[Entry]) -> Iterator[None]:
    """Decide every check inside the block against ``entries`` (as a released cell does)."""
    saved = (_state.publish, _state.expected)
    _state.publish, _state.expected = False, list(entries)
    _state.used.clear()
    try:
        yield
    finally:
        _state.publish, _state.expected = saved
        _state.used.clear()
