"""What the learner sees: the hint for an error, and the ``feedback`` wrapper of test cells.

:func:`hint_for` and :func:`hint_name` look an error up in the hint table
(:mod:`autograder.kernel.hints.table`, the first match wins); :func:`explain` decides what to
show for one failure (with the test's own advice and case, :mod:`.attached`) and
:func:`feedback` wraps a test cell's checks (see :mod:`autograder.kernel.hints` for the order
in which a failure's lines are shown).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from autograder.kernel.hints.attached import attached_advice, case_of
from autograder.kernel.hints.matchers import Hint, raised_by_library
from autograder.kernel.hints.table import HINTS
from autograder.kernel.hints.where import Where, chapter_of_cell, mark
from autograder.kernel.tracebacks import first_line


def matching_hint(exc: BaseException) -> Hint | None:
    """The first :class:`Hint` of the table whose matcher accepts ``exc`` (None when none does).

    A matcher that raises counts as not matching: it must never hide the learner's error.

    Args:
        exc: the exception a check or the learner's code raised.
    """
    for hint in HINTS:
        try:
            if hint.matches(exc):
                return hint
        except Exception:  # noqa: BLE001 - a matcher must never hide the learner's error
            continue
    return None


def hint_for(exc: BaseException) -> str | None:
    """The generic course hint for an error, or None when there is nothing specific to say.

    Args:
        exc: the exception a check or the learner's code raised.
    """
    hint = matching_hint(exc)
    return hint.say(exc) if hint else None


def hint_name(exc: BaseException) -> str | None:
    """The :class:`Hint` ``name`` matching ``exc`` (None when no hint matches).

    Args:
        exc: the exception a check or the learner's code raised.
    """
    hint = matching_hint(exc)
    return hint.name if hint else None


# --- what the learner sees --------------------------------------------------------------------


@dataclass(frozen=True)
class Explanation:
    """What :func:`feedback` says about one failure.

    Attributes:
        error: ``"ClassName: first line of the message"``.
        own: True when the course wrote the message (an ``AssertionError`` raised by a test or
            by a check in ``autograder``, not by JAX).
        advice: the test's own advice attached with
            :func:`~autograder.kernel.hints.attached.advice`, innermost first.
        hint: the generic course hint, when one matches and adds something (None otherwise).
    """

    error: str
    own: bool
    advice: tuple[str, ...]
    hint: str | None
    case: str | None = None

    @property
    def hints(self) -> list[str]:
        """The ``Hint: ...`` lines, the test's own advice first."""
        return [f"Hint: {text}" for text in (*self.advice, *([self.hint] if self.hint else []))]

    @property
    def message(self) -> str:
        """The course's words about this failure, the same on every supported JAX version.

        A test's own message is kept; JAX's error text (which can change between JAX
        versions) is replaced by the advice or hint that explains it, and kept only when the
        course has nothing to say about the error.
        """
        lines = self.hints
        if self.own or not lines:
            lines = [self.error, *lines]
        if self.case_line:
            lines = [self.case_line, *lines]
        return "\n".join(lines)

    @property
    def case_line(self) -> str | None:
        """``Case: ...``: the test case that failed, when the error's text does not name it."""
        if self.case is None or self.case in self.error:
            return None
        return f"Case: {self.case}."


def explain(exc: BaseException) -> Explanation:
    """Decide what to show for ``exc``: its first line, the test's advice, a generic hint.

    The generic hint is dropped when the test attached its own advice, and when the test's own
    message (an ``AssertionError`` written by the course) already contains one of the hint's
    ``keys``.

    Args:
        exc: the exception raised inside a :func:`feedback` block.
    """
    # An empty AssertionError is never a check's (every check says what differed): JAX's own
    # ``assert`` raises it, and outside IPython JAX removes its frames from the traceback.
    own = (isinstance(exc, AssertionError) and bool(str(exc).strip())
           and not raised_by_library(exc))
    attached = attached_advice(exc)
    hint = None
    if not attached:
        found = matching_hint(exc)
        if found is not None:
            text = str(exc).lower()
            redundant = own and any(key.lower() in text for key in found.keys)
            hint = None if redundant else found.say(exc)
    return Explanation(first_line(exc), own, attached, hint, case_of(exc))


def _caller() -> tuple[str | None, dict]:
    """The code name and globals of the cell that entered :func:`feedback` (the test cell),
    skipping the frames of ``contextlib`` and of this module."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename in (__file__, contextlib.__file__):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_globals) if frame is not None else (None, {})


@contextlib.contextmanager
def feedback(question: str) -> Iterator[None]:
    """Run a question's checks; on success print a pass line, on failure say what and why.

    When grading, the checks only publish what they saw and the grader decides
    (:mod:`autograder.kernel.reporter`): no pass line is printed then, the verdict being the
    grader's.

    Used in every test cell::

        with feedback("Q2 (jit a loss)"):
            check_array(loss(params, x, y), 0.25, name="loss(params, x, y)")

    The checks run with JAX's settings as they were before any answer ran (debugging checks
    off): a setting an earlier cell changed (``jax_disable_jit``, x64, debug flags, any other,
    a ``with`` block of settings left open; see
    :func:`autograder.kernel.jax_checks.restore_default_config`) is put back first, and a line
    says so.
    Their matrix products run at full float32 precision (``jax.default_matmul_precision``):
    on GPUs and TPUs the default is lower (TF32, bfloat16 passes), and a correct answer that
    batches its products differently from the reference would then differ by about 1e-3 from
    the expected values, which were recorded on a CPU.
    Each failure is marked with its question and chapter (:mod:`.where`), so that its hint
    says where an API the chapter has not taught yet is taught (:mod:`.syllabus`).
    On failure it prints ``Question: not yet. Error: summary``, the test case that failed (when
    the check was made inside :func:`case`), then the test's own advice and a generic hint when
    one adds something (see :func:`explain`). The exception still propagates (nbgrader counts
    the cell as failed) and carries the same lines as notes, for a full traceback. In IPython
    it is shown short: the test cell's frames and the course's are left out, only the
    learner's own frames and the summary stay
    (:func:`autograder.kernel.tracebacks.failure_lines`); ``%tb`` shows everything.
    ``NotImplementedError`` from an untouched stub is reported as not attempted.

    Args:
        question: how to name the question in the printed lines, e.g. ``"Question 2"``.
    """
    import jax

    from autograder.kernel.jax_checks import restore_default_config
    from autograder.kernel.tracebacks import ensure_short_tracebacks, mark_course_code

    ensure_short_tracebacks()
    caller, namespace = _caller()
    changed = restore_default_config()
    if changed:
        print(f"{question}: the tests run with JAX's settings as the notebook started "
              f"(debugging checks off), so they set {', '.join(changed)} back.")
    try:
        with jax.default_matmul_precision("float32"):
            yield
    except NotImplementedError as exc:
        mark(exc, Where(question, chapter_of_cell(caller, namespace)))
        print(f"{question}: not attempted yet.")  # said once: the hint says what to do
        hint = f"Hint: {hint_for(exc)}"
        print(hint)
        exc.add_note(hint)
        if caller:
            mark_course_code(exc, caller)
        raise
    except Exception as exc:
        mark(exc, Where(question, chapter_of_cell(caller, namespace)))
        said = explain(exc)
        print(f"{question}: not yet. {said.error}")
        for line in filter(None, [said.case_line, *said.hints]):
            print(line)
            exc.add_note(line)  # under a full traceback (%tb, full_tracebacks()) too
        if caller:
            mark_course_code(exc, caller)
        raise
    else:
        from autograder.kernel.reporter import publishing

        if not publishing():  # when grading, the verdict is the grader's, not the kernel's
            print(f"{question}: passed.")
