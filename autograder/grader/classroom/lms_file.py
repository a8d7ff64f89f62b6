"""An LMS's CSV file kept as the LMS wrote it, so an import can be that file again with only
the grader's cells changed.

:func:`read_lms_file` splits the text into records and fields and keeps, for every field,
its text exactly as it stood in the file (quotes, doubled quotes, spaces), every record's own
line ending and the file's byte-order mark and separator. :meth:`LmsFile.write` writes the
file back: a field the grader did not change is copied byte for byte; a changed one is
written defused (:func:`~autograder.grader.safe_csv.csv_cell`) and quoted as CSV needs. A
copied cell is never defused: it is the LMS's own, and the LMS reads it back as it wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.grader.safe_csv import csv_cell

BOM = "\ufeff"
SEPARATORS = (",", ";", "\t")


@dataclass
class Record:
    """One record of the file: its fields as written, their values, and its line ending."""

    raw: list[str]
    values: list[str]
    end: str  # "\r\n", "\n", "\r" or "" (the last record without one)
    line: int  # the file line the record starts on (from 1)


@dataclass
class LmsFile:
    """The file, record by record (:func:`read_lms_file`)."""

    path: Path
    separator: str
    bom: bool
    records: list[Record] = field(default_factory=list)

    def rows(self) -> list[list[str]]:
        """Every record's values (unquoted), as ``csv.reader`` gives them."""
        return [r.values for r in self.records]

    def quote(self, value: str) -> str:
        """``value`` as a field the grader writes: defused, then quoted when it holds the
        separator, a quote, a line break or space at either end."""
        text = csv_cell(value)
        if (any(c in text for c in (self.separator, '"', "\n", "\r"))
                or text != text.strip()):
            return '"' + text.replace('"', '""') + '"'
        return text

    def text(self, changes: dict[tuple[int, int], str] | None = None,
             keep_rows: list[int] | None = None, keep_columns: list[int] | None = None
             ) -> str:
        """The file again: ``changes`` ((record, field) -> value) written in, only the
        records ``keep_rows`` and fields ``keep_columns`` (by index; None: all), everything
        else as it came."""
        changes = changes or {}
        out = [BOM] if self.bom else []
        for n in range(len(self.records)) if keep_rows is None else keep_rows:
            record = self.records[n]
            if keep_columns is None:
                wanted = max([i + 1 for (m, i) in changes if m == n], default=0)
                columns: range | list[int] = range(max(len(record.raw), wanted))
            else:
                columns = keep_columns
            fields = []
            for i in columns:
                if (n, i) in changes:
                    fields.append(self.quote(changes[(n, i)]))
                else:  # a field of a short row the LMS left off stays empty
                    fields.append(record.raw[i] if i < len(record.raw) else "")
            out.append(self.separator.join(fields) + record.end)
        return "".join(out)

    def write(self, path: Path, changes: dict[tuple[int, int], str] | None = None,
              keep_rows: list[int] | None = None, keep_columns: list[int] | None = None
              ) -> None:
        """Write :meth:`text` to ``path`` (UTF-8, the file's own line endings)."""
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(self.text(changes, keep_rows, keep_columns))


def _separator(first_line: str) -> str:
    """The file's separator: the one of :data:`SEPARATORS` its header uses most, outside
    quotes (a comma when none)."""
    outside, quoted = [], False
    for c in first_line:
        if c == '"':
            quoted = not quoted
        elif not quoted:
            outside.append(c)
    counts = {s: outside.count(s) for s in SEPARATORS}
    best = max(SEPARATORS, key=lambda s: counts[s])
    return best if counts[best] else ","


def split_records(text: str, separator: str, what: str) -> list[Record]:
    """The records of ``text``, each field kept raw and unquoted.

    Raises:
        ValueError: a quote left open, or text after a closing quote, with ``what`` and the
            line.
    """
    records: list[Record] = []
    raw: list[str] = []
    values: list[str] = []
    i, line, start_line, n = 0, 1, 1, len(text)
    while i <= n:
        # one field from i
        if i < n and text[i] == '"':
            j, parts = i + 1, []
            while True:
                k = text.find('"', j)
                if k < 0:
                    raise ValueError(f"{what}: line {start_line}: a quote is never closed")
                parts.append(text[j:k])
                if k + 1 < n and text[k + 1] == '"':
                    parts.append('"')
                    j = k + 2
                    continue
                j = k + 1
                break
            if j < n and text[j] not in (separator, "\r", "\n"):
                raise ValueError(f"{what}: line {line + text.count(chr(10), i, j)}: text "
                                 "after a closing quote")
            value = "".join(parts)
        else:
            j = i
            while j < n and text[j] not in (separator, "\r", "\n"):
                j += 1
            value = text[i:j]
        raw.append(text[i:j])
        values.append(value)
        line += text.count("\n", i, j)
        if j < n and text[j] == separator:
            i = j + 1
            continue
        end = ""
        if j < n:
            end = "\r\n" if text.startswith("\r\n", j) else text[j]
        records.append(Record(raw, values, end, start_line))
        i = j + len(end) if end else n + 1
        line += 1 if end else 0
        start_line = line
        raw, values = [], []
        if i == n:
            break
    return records


def read_lms_file(path: Path, what: str) -> LmsFile:
    """The CSV file at ``path`` as the LMS wrote it (UTF-8, a byte-order mark allowed; the
    separator the header uses: comma, semicolon or tab).

    Raises:
        ValueError: not UTF-8, cannot be read, or not CSV, naming ``what``, the file and line.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what} {path}: not UTF-8 text (save it as CSV UTF-8)") from None
    except OSError as exc:
        raise ValueError(f"{what} {path}: {exc.strerror or type(exc).__name__}") from None
    bom = text.startswith(BOM)
    body = text[1:] if bom else text
    first = body.splitlines()[0] if body else ""
    separator = _separator(first)
    records = split_records(body, separator, f"{what} {path}") if body else []
    return LmsFile(path, separator, bom, records)
