"""The ``unpack`` command: an LMS's bulk download of submissions, laid out for ``grade``.

``python -m autograder unpack canvas ZIP --gradebook FILE --assignment A --out DIR``
``python -m autograder unpack moodle ZIP --worksheet FILE --assignment A --out DIR``

The zip is the one the LMS gives for one assignment: Canvas's "Download Submissions" (on the
assignment's page), Moodle's "Download all submissions" (View all submissions > Actions). Its
file names say whose each file is; the gradebook export says who that is:

Canvas (``lib/content_zipper.rb`` of instructure/canvas-lms, ``get_filename`` and
``add_upload_submission``) writes every uploaded file flat as
``<name>[_LATE]_<user id>_<attachment id>_<file name>``: ``<name>`` is the learner's sortable
name lower-cased with everything but letters, digits and ``_`` removed (``lovelaceada``),
``LATE`` marks a submission Canvas counts late, the user id is Canvas's ``ID`` (the column of
its gradebook export, Grades > Export), and under anonymous grading ``anon_<id>`` stands in
its place. A text entry or a link is ``<name>_<user id>_text.html`` / ``_link.html``. Canvas
keeps a learner's file names unique (``Attachment.make_unique_filename`` in
``app/models/attachment.rb``): a file uploaded again under a name already used becomes
``04_prng-1.ipynb``, ``04_prng-2.ipynb``.

Moodle (``mod/assign/locallib.php`` of moodle/moodle, ``download_submissions``) writes a
folder per learner and plugin, ``<Full name>_<participant id>_assignsubmission_file_`` (from
4.1 without the last ``_``; with "Download submissions in folders" off, that prefix on each
file name instead): the full name has its ``_`` made spaces, under blind marking it is
``Participant``, and the participant id is the assignment's own number for the learner (the
``Identifier`` column, ``Participant 1234567``, of the grading worksheet: View all
submissions > Actions > Download grading worksheet), not a user id. Moodle's file manager
renames a second upload of one name ``04_prng (1).ipynb``. Moodle's zip marks nothing late:
the worksheet's ``Status`` does (``... - 2 days 3 hours late``).

What lands in ``DIR``: ``DIR/<student>/<assignment>.ipynb`` (``grade DIR --assignment A``
grades it), where ``<student>`` is the learner's key in the gradebook the results go back to:
Canvas's user ``ID`` (the Canvas export finds the row by it, with or without a roster); for
Moodle the worksheet's ``Email address`` (else ``ID number``, else the participant
identifier), made folder-safe. ``DIR/lms-roster.csv`` maps each folder back to that key, in
the roster's columns, so ``grade --roster DIR/lms-roster.csv --export moodle`` writes
Moodle's own identifiers. ``DIR/unpacked-<assignment>.csv`` records every entry of the zip:
``taken`` with the file it became, or ``not taken`` and why (not a notebook, a text entry,
unknown learner, Canvas's Test Student, a notebook naming another assignment, superseded by
a later upload of the same file, the released notebook unchanged beside one with work, two
files with work, and every refused entry); learners of the gradebook with nothing in the zip
are rows ``no submission``. ``feedback-zip`` reads it to name the feedback files.

A learner's several notebooks: a file and its renames by the LMS (``04_prng.ipynb``,
``04_prng-1.ipynb``) are one file uploaded again, and the last upload (Canvas's highest
attachment id, Moodle's highest number) is taken; different files are all written
(``04_prng.ipynb``, ``04_prng-2.ipynb``) and ``grade``'s own rule settles them: the one
holding work is graded beside released notebooks left unchanged, and two with work are
graded neither, marked for attention (the record says which, from the same rule).

The zip is untrusted: nothing is written from an entry's name (every path written is
``DIR/<student>/<assignment>[-N].ipynb``, from the gradebook and the command line). Entries
with an absolute path, a ``..`` part, a backslash or control character, a symbolic link, an
encrypted entry, or a name the zip holds twice are refused (recorded, never read); more than
:data:`MAX_ENTRIES` entries or more than :data:`MAX_TOTAL` bytes of notebooks refuse the
whole zip, and a notebook over :data:`MAX_NOTEBOOK` bytes (counted as it is read, not as the
zip declares) or damaged (its checksum fails) is not taken.
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import re
import shutil
import stat
import sys
import tempfile
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path, PurePosixPath

from autograder.core.renames import rename_note
from autograder.grader.classroom.classlist import ROSTER_COLUMNS, read_canvas_gradebook
from autograder.grader.release import SOLUTIONS
from autograder.grader.safe_csv import csv_plain, write_csv
from autograder.grader.submissions import (
    MAX_BYTES,
    assignments,
    current_name,
    discover,
    safe_name,
)

LMSES = ("canvas", "moodle")
MAX_ENTRIES = 20_000  # a class of 1,000 with many files each fits
MAX_NOTEBOOK = MAX_BYTES  # grade's own limit for one notebook
MAX_TOTAL = 2 * 1024**3  # notebooks read from one zip, in bytes
ROSTER = "lms-roster.csv"
TAKEN, NOT_TAKEN, NO_SUBMISSION = "taken", "not taken", "no submission"

# Canvas: <name>[_LATE]_<user id | anon_id>_<attachment id>_<file>  (content_zipper.rb)
_CANVAS_FILE = re.compile(r"^(?P<slug>.*?)(?P<late>_LATE)?_(?P<user>\d+|anon_[A-Za-z0-9]+)_"
                          r"(?P<attachment>\d+)_(?P<file>.+)$")
_CANVAS_INLINE = re.compile(r"^(?P<slug>.*?)(?:_LATE)?_(?P<user>\d+|anon_[A-Za-z0-9]+)_"
                            r"(?P<kind>text|link)\.html$")
# Moodle: <Full name>_<participant id>_<subtype>_<plugin>[_][<file>]  (locallib.php)
_MOODLE_PART = re.compile(r"^(?P<name>[^_]*)_(?P<pid>\d+)_(?P<subtype>assignsubmission)_"
                          r"(?P<plugin>[a-z0-9]+)(?:_(?P<rest>.*))?$")
# An LMS's rename of a second upload under one name: Canvas "-1", Moodle " (1)".
_RENAMED = {"canvas": re.compile(r"^(?P<base>.+)-(?P<n>\d+)$"),
            "moodle": re.compile(r"^(?P<base>.+) \((?P<n>\d+)\)$")}
_ODD = re.compile(r"[\x00-\x1f\x7f\\]")


class UnpackError(Exception):
    """A problem that stops the whole unpack (nothing is written), fit for one line."""


@dataclass
class Learner:
    """One learner as the LMS's gradebook export names them."""

    lms_id: str  # Canvas user ID, or Moodle participant id
    key: str  # the identifier the gradebook import matches (Canvas ID, Moodle e-mail...)
    name: str
    late: bool = False  # Moodle: the worksheet says so
    test_student: bool = False
    submitted: str = ""  # Moodle: the worksheet's "Last modified (submission)", as written
    maximum: str = ""  # Moodle: the worksheet's "Maximum Grade" (the item's scale)


@dataclass
class Row:
    """One line of ``unpacked-<assignment>.csv``."""

    lms: str
    assignment: str
    entry: str
    outcome: str
    student: str = ""
    lms_id: str = ""
    attachment_id: str = ""
    name: str = ""
    late: str = ""
    file: str = ""
    reason: str = ""
    submitted: str = ""  # when the LMS says the work came in (Moodle's worksheet)
    maximum: str = ""  # the LMS item's maximum grade (Moodle's worksheet)


RECORD_COLUMNS = tuple(f.name for f in fields(Row))
OLD_RECORD_COLUMNS = RECORD_COLUMNS[:-2]  # records written before submitted and maximum


def record_path(out: Path, assignment: str) -> Path:
    """Where the unpack of ``assignment`` into ``out`` keeps its record."""
    return out / f"unpacked-{assignment}.csv"


# ------------------------------------------------------------------------ the gradebooks

def canvas_learners(path: Path) -> dict[str, Learner]:
    """Canvas user ID -> learner, from Canvas's gradebook export at ``path``.

    Raises:
        ValueError: not a Canvas export, or one ID on two rows.
    """
    book = read_canvas_gradebook(path)
    cid = book.column("ID")
    found: dict[str, Learner] = {}
    for row in book.students:
        user = row[cid].strip()
        if not user:
            continue
        if user in found:
            raise ValueError(f"Canvas gradebook {path}: the ID {user} is on two rows")
        found[user] = Learner(user, user, book.name(row),
                              test_student=book.is_test_student(row))
    return found


WORKSHEET_KEYS = {"email": "Email address", "idnumber": "ID number", "participant": "Identifier"}
_PARTICIPANT = re.compile(r"(\d+)\s*$")
_LATE_STATUS = re.compile(r"\blate\b", re.IGNORECASE)
WORKSHEET_SUBMITTED = "Last modified (submission)"
WORKSHEET_MAXIMUM = "Maximum Grade"


def moodle_learners(path: Path, key: str = "") -> dict[str, Learner]:
    """Participant id -> learner, from Moodle's grading worksheet at ``path``
    (``Identifier``, ``Full name``, the identity columns the site shows, ``Status``...).

    ``key``: the column the learner is known by (:data:`WORKSHEET_KEYS`): by default
    ``Email address`` where the worksheet has it, else ``ID number``, else the participant
    identifier itself (blind marking).

    Raises:
        ValueError: not a worksheet, the key column absent, or a row without that key.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"Moodle worksheet {path}: cannot be read as UTF-8 CSV ({exc})") \
            from None
    header = [h.strip() for h in rows[0]] if rows else []
    if "Identifier" not in header or "Full name" not in header:
        raise ValueError(f"Moodle worksheet {path}: expected Moodle's grading worksheet "
                         "(columns Identifier, Full name, ...); the header starts "
                         f"{', '.join(header[:4])}")
    if not key:
        key = next(k for k in WORKSHEET_KEYS if WORKSHEET_KEYS[k] in header)
    column = WORKSHEET_KEYS[key]
    if column not in header:
        raise ValueError(f"Moodle worksheet {path}: no {column} column (shown by the site's "
                         "identity fields)")
    at = {h: i for i, h in enumerate(header)}
    found: dict[str, Learner] = {}
    for line, row in enumerate(rows[1:], start=2):
        cells = [csv_plain(c.strip()) for c in row] + [""] * len(header)
        if not any(cells):
            continue
        match = _PARTICIPANT.search(cells[at["Identifier"]])
        if not match:
            raise ValueError(f"Moodle worksheet {path}: line {line}: the Identifier "
                             f"{cells[at['Identifier']]!r} is not 'Participant <number>'")
        value = cells[at[column]]
        if not value:
            raise ValueError(f"Moodle worksheet {path}: line {line}: no {column}")
        status = cells[at["Status"]] if "Status" in at else ""
        late = bool(_LATE_STATUS.search(status))
        when = cells[at[WORKSHEET_SUBMITTED]] if WORKSHEET_SUBMITTED in at else ""
        maximum = cells[at[WORKSHEET_MAXIMUM]] if WORKSHEET_MAXIMUM in at else ""
        found[match[1]] = Learner(match[1], value, cells[at["Full name"]], late=late,
                                  submitted=when if late and when != "-" else "",
                                  maximum=maximum)
    return found


# ----------------------------------------------------------------------- reading the zip

@dataclass
class Entry:
    """One file of the zip as its LMS named it (``problem`` set: refused or not a file to
    grade)."""

    name: str  # the name in the zip
    info: zipfile.ZipInfo | None
    lms_id: str = ""
    attachment_id: str = ""
    file: str = ""  # the learner's own file name
    late: bool = False
    problem: str = ""


def refusal(info: zipfile.ZipInfo, names: Counter) -> str:
    """Why the entry ``info`` is refused as it stands in the zip, or ``""``."""
    name = info.filename
    mode = info.external_attr >> 16
    if names[name] > 1:
        return "the zip holds this name twice: refused, neither is taken"
    if _ODD.search(name):
        return "an odd name (a control character or backslash): refused"
    path = PurePosixPath(name)
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return "an absolute path: refused"
    if ".." in path.parts:
        return "a path with '..': refused"
    if stat.S_ISLNK(mode):
        return "a symbolic link: refused, never followed"
    if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return "not a plain file: refused"
    if info.flag_bits & 0x1:
        return "an encrypted entry: refused"
    return ""


def parse_canvas(name: str) -> Entry:
    """The learner and file a Canvas submissions-zip entry names."""
    base = PurePosixPath(name).name
    inline = _CANVAS_INLINE.match(base)
    if inline:
        what = "a text entry" if inline["kind"] == "text" else "a website URL"
        return Entry(name, None, lms_id=inline["user"],
                     problem=f"{what} submitted in Canvas, not a notebook file")
    m = _CANVAS_FILE.match(base)
    if not m:
        return Entry(name, None, problem=NOT_NAMED.format(lms="Canvas") + " <name>_<user "
                     "id>_<attachment id>_<file>")
    entry = Entry(name, None, lms_id=m["user"], attachment_id=m["attachment"], file=m["file"],
                  late=bool(m["late"]))
    if m["user"].startswith("anon_"):
        entry.problem = ("anonymous grading: Canvas's zip does not say who this is (grade "
                         "it after Canvas shows the names)")
    return entry


def parse_moodle(name: str) -> Entry:
    """The learner and file a Moodle all-submissions-zip entry names."""
    parts = PurePosixPath(name).parts
    m = _MOODLE_PART.match(parts[0]) if parts else None
    if not m:
        return Entry(name, None, problem=NOT_NAMED.format(lms="Moodle") + " <Full "
                     "name>_<participant id>_assignsubmission_<plugin>_")
    inner = "/".join(parts[1:]) if len(parts) > 1 else (m["rest"] or "")
    entry = Entry(name, None, lms_id=m["pid"], file=PurePosixPath(inner).name if inner else "")
    if m["plugin"] != "file":
        entry.problem = f"from Moodle's {m['plugin']} submission plugin, not a file upload"
    return entry


PARSERS = {"canvas": parse_canvas, "moodle": parse_moodle}
_TITLE = {"canvas": "Canvas", "moodle": "Moodle"}


def read_notebook(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, to: Path) -> int:
    """Copy the entry into the new file ``to``, in pieces: its size, or -1 (and ``to``
    removed) past ``limit`` bytes. The size the zip declares is not trusted."""
    size = 0
    with zf.open(info) as fh, open(to, "xb") as dest:
        while chunk := fh.read(1 << 16):
            size += len(chunk)
            if size > limit:
                break
            dest.write(chunk)
    if size > limit:
        to.unlink()
        return -1
    return size


# ------------------------------------------------------------------------------- unpack

def _family(lms: str, file: str) -> tuple[str, int]:
    """(the file name before the LMS renamed an upload of it again, the rename's number)."""
    path = PurePosixPath(file)
    m = _RENAMED[lms].match(path.stem)
    if m:
        return m["base"] + path.suffix, int(m["n"])
    return file, 0


def unpack(lms: str, zip_path: Path, learners: dict[str, Learner], assignment: str,
           out: Path, known: list[str], source: Path | None = None, replace: bool = False,
           max_entries: int = MAX_ENTRIES, max_notebook: int = MAX_NOTEBOOK,
           max_total: int = MAX_TOTAL) -> list[Row]:
    """Unpack ``zip_path`` (the ``lms``'s download for ``assignment``) into ``out`` as
    ``out/<student>/<assignment>.ipynb``; write and return the record (module docstring).

    Args:
        learners: the LMS's id -> learner (:func:`canvas_learners`, :func:`moodle_learners`).
        known: the assignments the course defines (a notebook named for another is left out).
        source: the course's source notebooks, to tell a released notebook left unchanged.
        replace: remove what an earlier unpack of this assignment into ``out`` wrote first
            (otherwise an earlier record is an error).

    Raises:
        UnpackError: not a zip, too many entries or bytes, a file in the way, or an
            earlier unpack of this assignment without ``replace``; nothing is written then.
    """
    parse = parse_canvas if lms == "canvas" else parse_moodle
    record = record_path(out, assignment)
    folders: dict[str, Learner] = {}
    for learner in learners.values():
        other = folders.setdefault(_folder(learner), learner)
        if other is not learner:
            raise UnpackError(f"{other.name} and {learner.name} share the key {learner.key} "
                              "(case aside): the gradebook cannot tell them apart (Moodle: "
                              "choose another --moodle-key)")
    freed = _earlier_files(out, assignment, record, replace)
    roster = _roster(out, learners)
    try:
        zf = zipfile.ZipFile(zip_path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise UnpackError(f"{zip_path}: not a zip file ({exc})") from None
    with zf, tempfile.TemporaryDirectory(prefix="unpack-") as staging:
        infos = zf.infolist()
        if len(infos) > max_entries:
            raise UnpackError(f"{zip_path}: {len(infos)} entries, more than {max_entries}: "
                              "refused (not an LMS download of one assignment?)")
        names = Counter(i.filename for i in infos)
        rows: list[Row] = []
        entries: list[Entry] = []
        for info in infos:
            if info.is_dir() and not stat.S_ISLNK(info.external_attr >> 16):
                continue
            why = refusal(info, names)
            base = PurePosixPath(info.filename)
            if not why and (base.parts[:1] == ("__MACOSX",) or base.name.startswith("._")):
                rows.append(Row(lms, assignment, info.filename, NOT_TAKEN,
                                reason="macOS metadata, not a submission"))
                continue
            entry = parse(info.filename) if not why else Entry(info.filename, None, problem=why)
            entry.info = info
            entries.append(entry)
        taken = _choose(lms, entries, learners, assignment, known, rows, zf,
                        (max_notebook, max_total), Path(staging))
        check_download(lms, zip_path, assignment, entries, rows, taken)
        _write(out, lms, assignment, taken, learners, rows, freed)
    _settle_pairs(out, assignment, known, source, rows)
    seen = {r.lms_id for r in rows}
    for learner in learners.values():
        if not learner.test_student and learner.lms_id not in seen:
            rows.append(Row(lms, assignment, "", NO_SUBMISSION, _folder(learner),
                            learner.lms_id, name=learner.name,
                            reason="in the gradebook, nothing in the zip",
                            maximum=learner.maximum))
    rows.sort(key=lambda r: (r.student, r.entry))
    write_csv(record, [RECORD_COLUMNS, *([getattr(r, c) for c in RECORD_COLUMNS]
                                         for r in rows)])
    write_csv(out / ROSTER, roster)
    return rows


NOT_NAMED = "not in {lms}'s naming"  # how an entry the LMS did not name is recorded
OTHER_ASSIGNMENT = "names another assignment"


def check_download(lms: str, zip_path: Path, assignment: str, entries: list[Entry],
                   rows: list[Row], taken: dict) -> None:
    """Refuse a zip that is not ``lms``'s download of ``assignment``: files but none named
    as ``lms`` names them (the other LMS's zip), or nothing taken while notebooks name
    another assignment, or nothing taken while no learner is in the gradebook export.

    Raises:
        UnpackError: the zip is one of those; nothing is written then.
    """
    if taken or not entries:
        return
    other = next(o for o in LMSES if o != lms)
    named = [e for e in entries if not e.problem.startswith(NOT_NAMED.format(lms=_TITLE[lms]))]
    if not named:
        theirs = PARSERS[other]
        hint = (f" (they are named as {_TITLE[other]} names its download: unpack {other} "
                "...?)") if any(not theirs(e.name).problem for e in entries) else ""
        raise UnpackError(f"{zip_path}: no entry is named as {_TITLE[lms]} names its "
                          f"download{hint}; e.g. {entries[0].name!r}; nothing written")
    elsewhere = sorted({r.reason for r in rows if r.reason.startswith(OTHER_ASSIGNMENT)})
    if elsewhere:
        raise UnpackError(f"{zip_path}: no notebook is {assignment}'s and some "
                          f"{elsewhere[0]}: is it that assignment's download (--assignment)? "
                          "nothing written")
    placed = [r for r in rows if r.entry and r.lms_id]
    if placed and all(r.reason.startswith("unknown learner") for r in placed):
        raise UnpackError(f"{zip_path}: none of its learners is in the gradebook export given: "
                          "is the export from the same course? nothing written")


def _folder(learner: Learner) -> str:
    """The learner's folder: their key, folder-safe (case folded, so one learner is one
    folder across assignments)."""
    return safe_name(learner.key.casefold())


def _choose(lms: str, entries: list[Entry], learners: dict[str, Learner], assignment: str,
            known: list[str], rows: list[Row], zf: zipfile.ZipFile, limits: tuple[int, int],
            staging: Path) -> dict[str, list[tuple[Entry, Path]]]:
    """Which entries are taken, per learner (records the others in ``rows``), each copied
    into ``staging`` (at most ``limits``: bytes per notebook, bytes in all)."""
    max_notebook, max_total = limits
    def skip(e: Entry, why: str, learner: Learner | None = None) -> None:
        rows.append(Row(lms, assignment, e.name, NOT_TAKEN,
                        _folder(learner) if learner else "", e.lms_id, e.attachment_id,
                        learner.name if learner else "", _late(e, learner), reason=why))

    candidates: dict[str, list[Entry]] = {}
    for e in entries:
        learner = learners.get(e.lms_id)
        if e.problem:
            skip(e, e.problem, learner)
        elif not e.file.lower().endswith(".ipynb"):
            skip(e, "not a notebook (.ipynb)", learner)
        elif learner is None:
            skip(e, f"unknown learner: {lms} id {e.lms_id} is not in the gradebook export")
        elif learner.test_student:
            skip(e, "Canvas's Test Student (Student View), not a learner", learner)
        else:
            named = current_name(PurePosixPath(e.file).stem, known)
            other = next((a for a in sorted(known, key=len, reverse=True)
                          if a != assignment and a in named and assignment not in named), "")
            if other:
                skip(e, f"{OTHER_ASSIGNMENT} ({other}), not {assignment}", learner)
            else:
                candidates.setdefault(e.lms_id, []).append(e)
    taken: dict[str, list[tuple[Entry, Path]]] = {}
    total, numbers = 0, itertools.count()
    for lms_id, group in sorted(candidates.items()):
        learner = learners[lms_id]
        latest: dict[str, Entry] = {}
        order = {}
        for e in group:
            family, n = _family(lms, e.file)
            rank = (int(e.attachment_id or 0), n) if lms == "canvas" else (n, 0)
            if family not in latest or rank > order[family]:
                if family in latest:
                    older = latest[family]
                    skip(older, f"superseded: {e.file} is a later upload of the same file",
                         learner)
                latest[family], order[family] = e, rank
            else:
                skip(e, f"superseded: {latest[family].file} is a later upload of the same "
                     "file", learner)
        for e in sorted(latest.values(), key=lambda e: e.name):
            staged = staging / f"{next(numbers)}.ipynb"
            try:
                size = read_notebook(zf, e.info, max_notebook, staged)
            except (zipfile.BadZipFile, EOFError, NotImplementedError, zlib.error) as exc:
                staged.unlink(missing_ok=True)
                skip(e, f"damaged in the zip, not taken ({exc})", learner)
                continue
            if size < 0:
                skip(e, f"over {max_notebook:,} bytes unpacked: not taken (clear its outputs "
                     "first)", learner)
                continue
            total += size
            if total > max_total:
                raise UnpackError(f"the zip's notebooks pass {max_total:,} bytes: refused (a "
                                  "zip bomb, or not one assignment's download)")
            taken.setdefault(lms_id, []).append((e, staged))
    return taken


def _late(e: Entry, learner: Learner | None) -> str:
    return "yes" if e.late or (learner is not None and learner.late) else ""


def assignment_file(assignment: str, n: int) -> str:
    """The file name of a learner's ``n``-th notebook (from 0) for ``assignment``."""
    return f"{assignment}.ipynb" if n == 0 else f"{assignment}-{n + 1}.ipynb"


def _earlier_files(out: Path, assignment: str, record: Path, replace: bool) -> set[Path]:
    """The files an earlier unpack of ``assignment`` into ``out`` wrote, to be replaced.

    Raises:
        UnpackError: there was one and ``replace`` is not set, or ``out`` is no folder.
    """
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UnpackError(f"--out {out} is not a folder")
    if not (record.exists() or record.is_symlink()):
        return set()
    if not replace:
        raise UnpackError(f"{record} exists: {assignment} was unpacked into {out} before; "
                          "give --replace to replace it with this download")
    try:
        earlier = read_record(record)
    except ValueError as exc:
        raise UnpackError(str(exc)) from None
    return {out / r.file for r in earlier if r.outcome == TAKEN and r.file
            and _inside(out, out / r.file)}


def _inside(out: Path, path: Path) -> bool:
    """Is ``path`` a plain file (no link on the way) below ``out``?"""
    try:
        rel = path.relative_to(out)
    except ValueError:
        return False
    if ".." in rel.parts or path.is_symlink() or not path.is_file():
        return False
    here = out
    for part in rel.parts[:-1]:
        here = here / part
        if here.is_symlink():
            return False
    return True


def _write(out: Path, lms: str, assignment: str, taken: dict[str, list[tuple[Entry, Path]]],
           learners: dict[str, Learner], rows: list[Row], freed: set[Path]) -> None:
    """Write the taken notebooks (none if any file is in the way; ``freed`` are the earlier
    unpack's, removed first)."""
    plan: list[tuple[Path, Path, Row]] = []
    for lms_id, files in sorted(taken.items()):
        learner = learners[lms_id]
        student = _folder(learner)
        for n, (e, data) in enumerate(files):
            rel = f"{student}/{assignment_file(assignment, n)}"
            plan.append((out / rel, data, Row(lms, assignment, e.name, TAKEN, student, lms_id,
                                                e.attachment_id, learner.name,
                                                _late(e, learner), rel,
                                                submitted=learner.submitted,
                                                maximum=learner.maximum)))
    clash = [str(p) for p, _, _ in plan
             if p.parent.is_symlink() or (p.parent.exists() and not p.parent.is_dir())
             or ((p.exists() or p.is_symlink()) and p not in freed)]
    if clash:
        raise UnpackError(f"in the way, not overwritten: {', '.join(clash[:5])} (unpack into "
                          "an empty folder, or --replace an earlier unpack)")
    for path in freed:
        path.unlink()
    out.mkdir(parents=True, exist_ok=True)
    for path, staged, row in plan:
        path.parent.mkdir(exist_ok=True)
        with open(staged, "rb") as src, open(path, "xb") as dest:  # no link, no overwrite
            shutil.copyfileobj(src, dest)
        rows.append(row)


def _settle_pairs(out: Path, assignment: str, known: list[str], source: Path | None,
                  rows: list[Row]) -> None:
    """Where a learner has several notebooks written, say what ``grade`` will do with them
    (its own rule: :func:`autograder.grader.submissions.discover`)."""
    per: dict[str, list[Row]] = {}
    for r in rows:
        if r.outcome == TAKEN:
            per.setdefault(r.student, []).append(r)
    for student, written in per.items():
        if len(written) < 2:
            continue
        kept = discover([out / student], known, assignment, source)
        mine = [s for s in kept if s.student == student or s.path.parent.name == student]
        if len(mine) == 1 and not mine[0].problem:
            for r in written:
                if (out / r.file).resolve() != mine[0].path.resolve():
                    r.outcome = NOT_TAKEN
                    r.reason = (f"grade leaves it out: the released notebook unchanged "
                                f"(it grades {Path(mine[0].path).name})")
                    (out / r.file).unlink()
                    r.file = ""
        else:
            for r in written:
                r.reason = (f"needs attention: {len(written)} files hold work for "
                            f"{assignment}; grade grades none of them until one is kept")


def read_record(path: Path) -> list[Row]:
    """The rows of an ``unpacked-<assignment>.csv``.

    Raises:
        ValueError: not such a record.
    """
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if tuple(reader.fieldnames or ()) not in (RECORD_COLUMNS, OLD_RECORD_COLUMNS):
                raise ValueError(f"{path}: not an unpack record (columns "
                                 f"{','.join(RECORD_COLUMNS)})")
            return [Row(**{c: csv_plain(r.get(c) or "") for c in RECORD_COLUMNS})
                    for r in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{path}: cannot be read ({exc})") from None


def _roster(out: Path, learners: dict[str, Learner]) -> list[list[str]]:
    """The rows of ``out/lms-roster.csv`` (folder -> LMS key) with this gradebook's learners
    added to those of earlier unpacks.

    Raises:
        UnpackError: a folder an earlier unpack gave another learner.
    """
    path = out / ROSTER
    entries: dict[str, dict[str, str]] = {}
    if path.is_file() and not path.is_symlink():
        with open(path, newline="", encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                entries[csv_plain(r.get("github_username", ""))] = {
                    c: csv_plain(r.get(c) or "") for c in ROSTER_COLUMNS}
    for learner in learners.values():
        if learner.test_student:
            continue
        folder = _folder(learner)
        old = entries.get(folder)
        if old and old["identifier"].casefold() != learner.key.casefold():
            raise UnpackError(f"{path}: folder {folder} is {old['identifier']} there, "
                              f"{learner.key} in this gradebook")
        entries[folder] = {"identifier": learner.key, "github_username": folder,
                           "github_id": "", "name": learner.name}
    return [list(ROSTER_COLUMNS), *([e[c] for c in ROSTER_COLUMNS]
                                    for _, e in sorted(entries.items()))]


# ---------------------------------------------------------------------------- command

def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``unpack`` command's options."""
    parser.add_argument("lms", choices=LMSES, help="the LMS the zip comes from")
    parser.add_argument("zip", type=Path, metavar="ZIP",
                        help="Canvas's Download Submissions or Moodle's Download all "
                             "submissions zip, for one assignment")
    parser.add_argument("--assignment", required=True,
                        help="the course assignment the LMS assignment is (e.g. 04_prng)")
    parser.add_argument("--out", type=Path, required=True,
                        help="submissions folder to lay out (grade it with grade OUT "
                             "--assignment A)")
    parser.add_argument("--gradebook", type=Path, metavar="FILE",
                        help="Canvas: the gradebook export (Grades > Export)")
    parser.add_argument("--worksheet", type=Path, metavar="FILE",
                        help="Moodle: the assignment's grading worksheet (View all "
                             "submissions > Actions > Download grading worksheet)")
    parser.add_argument("--moodle-key", choices=tuple(WORKSHEET_KEYS), default="",
                        help="Moodle: the worksheet column learners are known by (default: "
                             "Email address, else ID number, else Identifier)")
    parser.add_argument("--source", type=Path, default=SOLUTIONS,
                        help="folder of nbgrader source notebooks (default: solutions/)")
    parser.add_argument("--replace", action="store_true",
                        help="replace an earlier unpack of this assignment into OUT (the "
                             "files it wrote) with this download")


def run(args: argparse.Namespace) -> int:
    """Unpack; exit status 0, or 2 with one line saying why nothing was written."""
    known = assignments(args.source)
    assignment = current_name(args.assignment, known)
    if assignment != args.assignment:
        print(f"warning: {rename_note(args.assignment, assignment)}", file=sys.stderr)
    try:
        if assignment not in known:
            raise UnpackError(f"unknown assignment {args.assignment!r}; known: "
                              f"{', '.join(known)}")
        if args.lms == "canvas":
            if not args.gradebook:
                raise UnpackError("canvas: give --gradebook, Canvas's gradebook export")
            learners = canvas_learners(args.gradebook)
        else:
            if not args.worksheet:
                raise UnpackError("moodle: give --worksheet, the assignment's grading "
                                  "worksheet")
            learners = moodle_learners(args.worksheet, args.moodle_key)
        rows = unpack(args.lms, args.zip, learners, assignment, args.out, known, args.source,
                      args.replace)
    except (UnpackError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = Counter(r.outcome for r in rows)
    late = sum(1 for r in rows if r.outcome == TAKEN and r.late)
    print(f"{args.zip.name}: {counts[TAKEN]} notebook(s) taken ({late} late) for "
          f"{len({r.student for r in rows if r.outcome == TAKEN})} learner(s); "
          f"{counts[NOT_TAKEN]} file(s) not taken; {counts[NO_SUBMISSION]} learner(s) of the "
          f"gradebook with nothing in the zip. Every entry and why: "
          f"{record_path(args.out, assignment)}")
    for r in rows:
        if r.outcome == NOT_TAKEN or (r.outcome == TAKEN and r.reason):
            print(f"  {r.outcome}: {r.entry or r.student}: {r.reason}")
    return 0
