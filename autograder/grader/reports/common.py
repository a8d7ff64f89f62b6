"""What every report shares: how numbers and text are written, and the order of results."""

from __future__ import annotations

import re
from collections.abc import Iterable

from autograder.grader.result import Result
from autograder.grader.safe_csv import (  # noqa: F401  (the reports' CSV writing, kept here)
    FORMULA_START,
    SafeCsvWriter,
    csv_cell,
    csv_plain,
    write_csv,
)

FIGURE = "scores.png"  # the figure's file name, beside summary.md


def decimal(value: float, places: int) -> str:
    text = f"{float(value):.{places}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def format_score(value: float) -> str:
    """``value`` as every report writes it: at most 6 decimals, no exponent, no trailing zeros.

    ``5.0`` -> ``"5"``, ``2/3`` -> ``"0.666667"``, ``-0.0`` -> ``"0"``.
    """
    return decimal(value, 6)


def short(value: float) -> str:
    """``value`` for reading: at most 2 decimals."""
    return decimal(value, 2)


def percent(fraction: float) -> str:
    return f"{100 * fraction:.0f}%"


def one_line(text: str) -> str:
    return " ".join(text.split())


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


# What starts Markdown's inline syntax in GitHub's flavour (emphasis, code spans, links and
# images, which need ``[``, table cells, strike-through, math, escapes): each such character is
# written escaped, so it shows as itself. ``_`` between two letters or digits starts no
# emphasis (``00_tiny``), so it stays as it is; ``!``, ``(`` and ``)`` are harmless without
# ``[``. Cells never start a line, so ``#``, ``+``, ``-`` and ``>`` start no block.
_MD_SPECIAL = re.compile(r"[\\`*\[\]|~$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
_AUTOLINK = re.compile(r"(?i)(://|www\.)")  # GitHub links bare addresses: break them


def md(text: str) -> str:
    """``text`` inert inside a Markdown table cell or list item: one line, HTML escaped
    (``<img>``, ``<a>``, entities show as text), Markdown's inline syntax escaped (no image,
    link, emphasis or code span, no ``|`` ending the cell), and bare web addresses broken
    (a zero-width space) so that GitHub does not make them links. Every text that came from
    a submission (names, messages, printed values) goes through this before ``summary.md``,
    which CI appends to its job summary."""
    text = "".join(_HTML.get(ch, ch) for ch in one_line(text))
    text = _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), text)
    return _AUTOLINK.sub(lambda m: m.group(0)[:-1] + "\u200b" + m.group(0)[-1], text)


def sorted_results(results: Iterable[Result]) -> list[Result]:
    """``results`` in report order: by student and assignment (ties by status, score and
    message, so that the order never depends on the order they came in)."""
    return sorted(results, key=lambda r: (r.student, r.assignment, r.status, r.score, r.message))


def by_submission(results: Iterable[Result]) -> dict[tuple[str, str], Result]:
    """One result per (student, assignment), in report order (the last one in that order
    where a pair comes twice)."""
    return {(r.student, r.assignment): r for r in sorted_results(results)}
