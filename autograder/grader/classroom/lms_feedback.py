"""The ``feedback-zip`` command: feedback pages back through the LMS, one zip to upload.

``python -m autograder feedback-zip RESULTS --record SUBMISSIONS/unpacked-A.csv --out FILE``

``RESULTS`` is a results folder of ``grade`` or ``merge`` (``<student>/<assignment>/
feedback.html``); the record is what ``unpack`` wrote when it laid out the LMS's download
(:mod:`.lms_zips`): it says which LMS, and for every learner taken their LMS ids. Each
learner's page goes into the zip under the name that LMS reads back as theirs:

Canvas: upload on the assignment's page, "Re-Upload Submissions". Canvas
(``Assignment#infer_comment_context_from_filename`` in ``app/models/assignment.rb`` of
instructure/canvas-lms) splits each file name at ``_`` and takes the first two all-digit parts
as the user id and the attachment id, and attaches the file as a comment to that user's
submission only when the attachment is one of that submission's files. So a page is named
like the learner's own download, ``<name>[_LATE]_<user id>_<attachment id>_feedback-<A>.html``,
with the attachment id of the notebook that was graded; ``<name>`` keeps letters only, so no
part of it reads as a number.

Moodle: "Upload multiple feedback files in a zip" (View all submissions > Actions; needs
the "Feedback files" feedback type on). Moodle (``assignfeedback_file_zip_importer::
is_valid_filename_for_import`` in ``mod/assign/feedback/file/importziplib.php`` of
moodle/moodle) looks in each path part for ``<name>_<participant id>_<subtype>_<plugin>``,
finds the learner by the participant id and keeps the rest of the path as the feedback
file's name, ignoring files whose name starts with ``.`` or ``~``. So a page goes into the
learner's folder as Moodle's download named it, ``<Full name>_<participant id>_
assignsubmission_file_/feedback-<A>.html`` (the trailing ``_`` is read by Moodle before and
after 4.1); ``<Full name>`` has its ``_`` made spaces, as Moodle writes it.

Before the zip is written every name in it is read back with that LMS's rule
(:func:`canvas_reupload_target`, :func:`moodle_upload_target`) and must reach the learner it
was made for; pages are read from the learner's own folder only, never through a link.
"""

from __future__ import annotations

import argparse
import os
import re
import stat
import sys
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from autograder.grader.classroom.lms_zips import TAKEN, Row, read_record

MAX_PAGE = 20 * 1024 * 1024
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the same pages give the same zip
_MOODLE_NAME_DROP = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|_]")


class FeedbackZipError(Exception):
    """A problem that stops the feedback zip (nothing written), fit for one line."""


def canvas_reupload_target(name: str) -> tuple[str, str] | None:
    """(user id, attachment id) that Canvas's "Re-Upload Submissions" reads from the file
    ``name`` of the zip, or None where it ignores the file."""
    base = PurePosixPath(name).name
    parts = base.split("_")
    digits = [p for p in parts if p.isascii() and p.isdigit()]
    if len(digits) < 2 or parts[-1].startswith("link") or base.startswith("._"):
        return None
    return digits[0], digits[1]


MOODLE_PLUGINS = {("assignsubmission", "file"), ("assignfeedback", "file")}


def moodle_upload_target(name: str) -> tuple[str, str] | None:
    """(participant id, feedback file name) that Moodle's "Upload multiple feedback files in
    a zip" reads from the path ``name`` of the zip, or None where it ignores the file."""
    path = PurePosixPath(name)
    if name.endswith("/") or path.name.startswith((".", "~")):
        return None
    parts = list(path.parts)
    while parts:
        info = parts.pop(0).split("_", 4)
        if len(info) < 4 or not (info[1].isascii() and info[1].isdigit()):
            continue
        if (info[2], info[3]) not in MOODLE_PLUGINS:
            continue
        rest = [info[4] if len(info) == 5 else "", *parts]
        return str(int(info[1])), "/".join(rest)
    return None


def canvas_name(row: Row, assignment: str) -> str:
    """The file name Canvas attaches to ``row``'s learner: their download's own shape."""
    slug = "".join(ch for ch in _slug(row.entry) if ch.isalpha()) or "student"
    late = "_LATE" if row.late else ""
    return f"{slug.lower()}{late}_{row.lms_id}_{row.attachment_id}_feedback-{assignment}.html"


def _slug(entry: str) -> str:
    m = re.match(r"^(?P<slug>.*?)(?:_LATE)?_\d+_\d+_", PurePosixPath(entry).name)
    return m["slug"] if m else ""


def moodle_name(row: Row, assignment: str) -> str:
    """The path Moodle files as ``row``'s learner's feedback: in their download's folder."""
    full = " ".join(_MOODLE_NAME_DROP.sub(" ", row.name).split()) or "Participant"
    return f"{full}_{row.lms_id}_assignsubmission_file_/feedback-{assignment}.html"


def _read_page(results: Path, student: str, assignment: str) -> bytes | None:
    """``results/<student>/<assignment>/feedback.html``, or None where it is missing, not a
    plain file, or reached through a link."""
    folder = results / student
    for part in (folder, folder / assignment):
        if part.is_symlink() or not part.is_dir():
            return None
    try:
        fd = os.open(folder / assignment / "feedback.html", os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_PAGE:
            return None
        return fh.read(MAX_PAGE + 1)


def feedback_zip(results: Path, record: list[Row], out: Path) -> tuple[list[str], list[str]]:
    """Write the upload zip for the learners of ``record`` to ``out``: (the names written,
    the learners left out with why).

    Raises:
        FeedbackZipError: an empty or mixed record, a name that the LMS would not read back
            as its learner (never expected), or ``out`` unwritable.
    """
    taken = [r for r in record if r.outcome == TAKEN and r.student]
    kinds = {(r.lms, r.assignment) for r in record}
    if len(kinds) != 1:
        raise FeedbackZipError("the record names no assignment, or several: give one "
                               "unpacked-<assignment>.csv")
    lms, assignment = kinds.pop()
    entries: dict[str, bytes] = {}
    left: list[str] = []
    done: set[str] = set()
    for row in sorted(taken, key=lambda r: (r.student, r.file)):
        if row.student in done:
            continue  # one page per learner, whichever of their notebooks was graded
        done.add(row.student)
        page = _read_page(results, row.student, assignment)
        if page is None:
            left.append(f"{row.student} ({row.name}): no feedback page in {results} (not "
                        "graded there, or not a plain file)")
            continue
        if lms == "canvas":
            name = canvas_name(row, assignment)
            back = canvas_reupload_target(name)
            ok = back == (row.lms_id, row.attachment_id)
        else:
            name = moodle_name(row, assignment)
            back = moodle_upload_target(name)
            ok = back == (row.lms_id, f"/feedback-{assignment}.html")  # as Moodle joins it
        if not ok or name in entries:
            raise FeedbackZipError(f"{name}: {lms} would not read this name back as "
                                   f"{row.student}'s ({back}); nothing written")
        entries[name] = page
    if not entries:
        raise FeedbackZipError(f"no feedback page in {results} for any learner of the record")
    if out.is_dir():
        raise FeedbackZipError(f"--out {out} is a folder; name the zip file")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".feedback-", suffix=".zip", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, page in sorted(entries.items()):
                info = zipfile.ZipInfo(name, _FIXED_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                zf.writestr(info, page)
        os.replace(tmp, out)  # replaces a link at out, never writes through it
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise FeedbackZipError(f"{out}: {exc.strerror or exc}") from None
    return sorted(entries), left


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``feedback-zip`` command's options."""
    parser.add_argument("results", type=Path, metavar="RESULTS",
                        help="results folder of grade or merge")
    parser.add_argument("--record", type=Path, required=True, metavar="FILE",
                        help="unpacked-<assignment>.csv that unpack wrote in the submissions "
                             "folder")
    parser.add_argument("--out", type=Path, required=True, metavar="ZIP",
                        help="the zip to write (upload it to the LMS)")


def run(args: argparse.Namespace) -> int:
    """Write the zip; exit status 0, or 2 with one line saying why nothing was written."""
    try:
        record = read_record(args.record)
        names, left = feedback_zip(args.results, record, args.out)
    except (ValueError, FeedbackZipError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    lms = record[0].lms
    where = ("Canvas: the assignment's page > Re-Upload Submissions" if lms == "canvas" else
             "Moodle: View all submissions > Actions > Upload multiple feedback files in a zip")
    print(f"{args.out}: {len(names)} feedback page(s), each named for its learner; upload it "
          f"in {where}.")
    for line in left:
        print(f"  left out: {line}")
    return 0
