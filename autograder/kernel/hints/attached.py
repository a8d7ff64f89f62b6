"""A test's own words about a failure: advice for an error, and the case a check covers.

:func:`advice` attaches the test's own advice to an error (it replaces the generic hint, see
:mod:`autograder.kernel.hints`); :func:`case` names the test case the checks inside it cover,
so that a failure says which case failed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

_ADVICE = "_autograder_advice"


# --- a test's own advice ----------------------------------------------------------------------


def attach_advice(exc: BaseException, text: str) -> None:
    """Record a test's own advice on ``exc``; :func:`~autograder.kernel.hints.feedback` shows it
    before any generic hint.

    Args:
        exc: the exception to annotate.
        text: the advice, a sentence or two.
    """
    existing = list(getattr(exc, _ADVICE, ()))
    if text not in existing:
        existing.append(text)
    try:
        setattr(exc, _ADVICE, tuple(existing))
    except AttributeError:  # an exception type without a __dict__: show the advice as a note
        exc.add_note(f"Hint: {text}")


def attached_advice(exc: BaseException) -> tuple[str, ...]:
    """The advice tests attached to ``exc`` (:func:`attach_advice`), innermost first."""
    return tuple(getattr(exc, _ADVICE, ()))


@contextlib.contextmanager
def advice(text: str, *, on: type[BaseException] | tuple[type[BaseException], ...] = Exception,
           match: str | None = None, unless: str | None = None) -> Iterator[None]:
    """Attach the test's own advice to an error of type ``on`` raised inside the block.

    Use it where a check can fail with JAX's generic error but the test knows what the mistake
    must be::

        with advice("Every epoch used the same key: derive the epoch's key with "
                    "jax.random.fold_in(key, epoch).", on=jax.errors.KeyReuseError):
            check_no_key_reuse(several_epochs, key, [0, 1], 10, 3)

    The advice replaces the generic hint for that error (see :mod:`autograder.kernel.hints`).
    Errors of other types, whose message lacks ``match`` or holds ``unless``, pass through
    untouched (and get the generic hint for their error).

    Args:
        text: the advice to show.
        on: the exception type(s) it applies to.
        match: when given, only errors whose message contains this text get the advice.
        unless: when given, errors whose message contains this text do not get the advice: a
            different mistake raising the same type, which the generic hint names.
    """
    try:
        yield
    except on as exc:
        said = str(exc)
        if (match is None or match in said) and (unless is None or unless not in said):
            attach_advice(exc, text)
        raise


# --- the case a check covers -------------------------------------------------------------------

_CASE = "_autograder_case"


def case_of(exc: BaseException) -> str | None:
    """The description of the test case ``exc`` was raised in (see :func:`case`), or None."""
    found = getattr(exc, _CASE, None)
    return found if isinstance(found, str) else None


@contextlib.contextmanager
def case(description: str) -> Iterator[None]:
    """Name the case the checks inside the block cover, in words that reveal no input or
    expected value: every hidden test is written as one::

        with feedback("Question 6 (hidden tests)"):
            with case("an example whose gradient is all zeros"):
                q6_case(4, n=4, d=2, max_norm=0.5, zero_first=True)

    Each check made inside records the description (the grader's verdict names it when the
    check fails, :func:`autograder.core.decide.decide`), and an error raised inside (the
    learner's code failing on that case) carries it, so :func:`feedback` says which case
    failed.

    Args:
        description: the case in a few words, e.g. ``"an empty batch"``.
    """
    from autograder.kernel.reporter import current_case

    with current_case(description):
        try:
            yield
        except Exception as exc:
            if case_of(exc) is None:
                with contextlib.suppress(AttributeError):
                    setattr(exc, _CASE, description)
            raise
