"""What every report shares: how numbers and text are written, and the order of results."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from autograder.grader.result import Result

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


def md(text: str) -> str:
    """``text`` safe inside a Markdown table cell (one line, ``|`` escaped)."""
    return one_line(text).replace("|", "\\|")


def sorted_results(results: Iterable[Result]) -> list[Result]:
    """``results`` in report order: by student and assignment (ties by status, score and
    message, so that the order never depends on the order they came in)."""
    return sorted(results, key=lambda r: (r.student, r.assignment, r.status, r.score, r.message))


def by_submission(results: Iterable[Result]) -> dict[tuple[str, str], Result]:
    """One result per (student, assignment), in report order (the last one in that order
    where a pair comes twice)."""
    return {(r.student, r.assignment): r for r in sorted_results(results)}


def write_csv(path: Path, rows: Iterable[Sequence[str]]) -> None:
    """Write ``rows`` (the header first) as a UTF-8 CSV at ``path``: every CSV the grader
    writes goes through here."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        for row in rows:
            writer.writerow(list(row))
