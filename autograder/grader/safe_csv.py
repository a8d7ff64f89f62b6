"""Every CSV the grader writes, defused for spreadsheets: ``grades.csv``, ``changes.csv``, the
LMS imports, ``fetched.csv`` (OWASP's rule against formula injection). Used by the reports
and by the classroom side alike."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

# Spreadsheets (Excel, LibreOffice, Google Sheets) read a cell starting with one of these as
# a formula (or a tab/return that hides one); OWASP's rule for CSV injection prefixes ``'``.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> str:
    """``value`` as a CSV cell a spreadsheet shows as text: one that starts a formula
    (:data:`FORMULA_START`) gets a leading ``'``, which spreadsheets hide (OWASP's rule)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_plain(text: str) -> str:
    """A cell written by :func:`csv_cell` as it was (its ``'`` removed), for reading back."""
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA_START) else text


class SafeCsvWriter:
    """A ``csv.writer`` whose every cell goes through :func:`csv_cell`: every CSV the grader
    writes (``grades.csv``, ``changes.csv``, LMS exports) is written with one."""

    def __init__(self, fh: IO[str]) -> None:
        self._writer = csv.writer(fh)

    def writerow(self, row: Iterable[Any]) -> None:
        """Write one row, every cell defused."""
        self._writer.writerow([csv_cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        """Write rows, every cell defused."""
        for row in rows:
            self.writerow(row)


def write_csv(path: Path, rows: Iterable[Sequence[str]]) -> None:
    """Write ``rows`` (the header first) as a UTF-8 CSV at ``path``: every CSV the grader
    writes goes through here."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        SafeCsvWriter(fh).writerows(rows)
