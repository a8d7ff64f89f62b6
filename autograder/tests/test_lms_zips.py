"""Tests of ``unpack`` and ``feedback-zip`` (:mod:`autograder.grader.classroom.lms_zips`,
:mod:`autograder.grader.classroom.lms_feedback`): Canvas's and Moodle's bulk downloads, built
here in each LMS's own naming, become the grader's layout with a record of every entry, hostile
entries are refused with nothing written outside ``--out``, and the feedback zips are named so
that each LMS's own parsing rule reaches the right learner."""

from __future__ import annotations

import csv
import json
import shutil
import stat
import warnings
import zipfile
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.grader.classroom.classlist import read_canvas_gradebook, read_roster
from autograder.grader.classroom.lms_feedback import (
    canvas_reupload_target,
    feedback_zip,
    moodle_upload_target,
)
from autograder.grader.classroom.lms_zips import (
    NO_SUBMISSION,
    NOT_TAKEN,
    TAKEN,
    UnpackError,
    canvas_learners,
    moodle_learners,
    read_record,
    unpack,
)
from autograder.grader.reports.exports import canvas_students
from autograder.grader.submissions import safe_name
from autograder.tests.conftest import FIXTURES

CLASSROOM = FIXTURES / "classroom"
GRADEBOOK = CLASSROOM / "canvas-export-lms-zip.csv"
WORKSHEET = CLASSROOM / "moodle-worksheet-lms-zip.csv"
COURSE = FIXTURES / "course"
CASES = FIXTURES / "submissions"
KNOWN = ["00_tiny", "01_arrays"]


def _nb(case: str) -> bytes:
    """A case fixture's bytes; ``released``: the notebook as released, untouched."""
    if case == "released":
        import nbformat

        from autograder.grader.release import student_version

        nb = student_version(nbformat.read(COURSE / "00_tiny.ipynb", as_version=4))
        return nbformat.writes(nb).encode()
    return (CASES / f"{case}.ipynb").read_bytes()


def _zip(path: Path, entries: list[tuple[str, bytes] | tuple[str, bytes, int]]) -> Path:
    """A zip of ``(name, data[, unix mode])`` entries, written as given (hostile ones too)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a duplicate name is one of the attacks
        for name, data, *mode in entries:
            info = zipfile.ZipInfo(name, (2026, 11, 2, 9, 0, 0))
            info.create_system = 3
            info.external_attr = (mode[0] if mode else stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return path


def canvas_entry(sortable: str, user: int, attachment: int, file: str, late: bool = False
                 ) -> str:
    """A file name as Canvas's ContentZipper writes it: the sortable name lower-cased with
    non-word characters removed, ``LATE`` when late, the user id, the attachment id, the
    learner's own file name."""
    slug = "".join(ch for ch in sortable.lower() if ch.isalnum() or ch == "_")
    return f"{slug}{'_LATE' if late else ''}_{user}_{attachment}_{file}"


CANVAS_ZIP = [
    (canvas_entry("Lovelace, Ada", 7301, 90001, "00_tiny.ipynb"), "correct"),
    (canvas_entry("Lovelace, Ada", 7301, 90009, "notes.pdf"), None),
    (canvas_entry("Chen, Bo", 7302, 90002, "00_tiny.ipynb", late=True), "partial"),
    (canvas_entry("Ito, Cy", 7303, 90003, "Copy of 00_tiny.ipynb"), "correct"),
    (canvas_entry("Ito, Cy", 7303, 90011, "00_tiny.ipynb"), "released"),
    (canvas_entry("Okafor, Dee", 7304, 90004, "00_tiny.ipynb"), "correct"),
    (canvas_entry("Okafor, Dee", 7304, 90005, "my work.ipynb"), "partial"),
    (canvas_entry("Nakamura, Eve", 7305, 90006, "00_tiny.ipynb"), "partial"),
    (canvas_entry("Nakamura, Eve", 7305, 90007, "00_tiny-1.ipynb"), "correct"),
    (canvas_entry("Student, Test", 7399, 90008, "00_tiny.ipynb"), "correct"),
    (canvas_entry("Nobody, Who", 7777, 90010, "00_tiny.ipynb"), "correct"),
    (canvas_entry("Lovelace, Ada", 7301, 90013, "01_arrays.ipynb"), "correct"),
]


def _canvas_zip(tmp: Path, extra: list | None = None) -> Path:
    entries = [(n, _nb(c) if c else b"%PDF-1.4 notes") for n, c in CANVAS_ZIP]
    return _zip(tmp / "course-lab-0-tiny submissions.zip", entries + (extra or []))


@pytest.fixture
def canvas_unpacked(tmp_path: Path) -> tuple[Path, dict[str, list]]:
    """Canvas's zip unpacked with its gradebook: (the folder, rows by entry)."""
    out = tmp_path / "submissions"
    rows = unpack("canvas", _canvas_zip(tmp_path), canvas_learners(GRADEBOOK), "00_tiny", out,
                  KNOWN, COURSE)
    by: dict[str, list] = {}
    for r in rows:
        by.setdefault(r.entry or r.student, []).append(r)
    return out, by


def _one(by: dict, name: str):
    (row,) = by[name]
    return row


def test_canvas_zip_is_laid_out_by_canvas_user_id(canvas_unpacked) -> None:
    """Does each learner's notebook land in ``<Canvas ID>/00_tiny.ipynb``, the late one
    marked, and is every other entry recorded as not taken with its reason?"""
    out, by = canvas_unpacked
    ada = _one(by, CANVAS_ZIP[0][0])
    assert (ada.outcome, ada.student, ada.attachment_id, ada.file, ada.late) == (
        TAKEN, "7301", "90001", "7301/00_tiny.ipynb", "")
    assert (out / "7301" / "00_tiny.ipynb").read_bytes() == _nb("correct")
    bo = _one(by, CANVAS_ZIP[2][0])
    assert (bo.outcome, bo.late, bo.file) == (TAKEN, "yes", "7302/00_tiny.ipynb")
    reasons = {name: _one(by, name).reason for name, _ in CANVAS_ZIP}
    assert _one(by, CANVAS_ZIP[1][0]).outcome == NOT_TAKEN
    assert "not a notebook" in reasons[CANVAS_ZIP[1][0]]
    assert "Test Student" in reasons[CANVAS_ZIP[9][0]]
    assert "unknown learner" in reasons[CANVAS_ZIP[10][0]]
    assert "another assignment (01_arrays)" in reasons[CANVAS_ZIP[11][0]]
    assert not (out / "7399").exists() and not (out / "7777").exists()
    gil = _one(by, safe_name("7306"))
    assert (gil.outcome, gil.name) == (NO_SUBMISSION, "Fox, Gil")


def test_canvas_resubmission_supersedes_the_earlier_upload(canvas_unpacked) -> None:
    """Is ``00_tiny-1.ipynb`` (Canvas's rename of a second upload) taken and the first
    upload recorded as superseded?"""
    out, by = canvas_unpacked
    newer, older = _one(by, CANVAS_ZIP[8][0]), _one(by, CANVAS_ZIP[7][0])
    assert (newer.outcome, newer.file) == (TAKEN, "7305/00_tiny.ipynb")
    assert older.outcome == NOT_TAKEN and "superseded" in older.reason
    assert (out / "7305" / "00_tiny.ipynb").read_bytes() == _nb("correct")
    assert sorted(p.name for p in (out / "7305").iterdir()) == ["00_tiny.ipynb"]


def test_two_notebooks_follow_grades_own_rule(canvas_unpacked) -> None:
    """A released notebook left unchanged beside one with work is not taken; two with work
    are both written and marked for attention (grade grades neither)."""
    out, by = canvas_unpacked
    work, untouched = _one(by, CANVAS_ZIP[3][0]), _one(by, CANVAS_ZIP[4][0])
    assert work.outcome == TAKEN and untouched.outcome == NOT_TAKEN
    assert "the released notebook unchanged (it grades 00_tiny.ipynb)" in untouched.reason
    assert [p.name for p in (out / "7303").iterdir()] == [Path(work.file).name]
    dee = [_one(by, CANVAS_ZIP[5][0]), _one(by, CANVAS_ZIP[6][0])]
    assert {r.outcome for r in dee} == {TAKEN}
    assert all("2 files hold work" in r.reason for r in dee)
    assert sorted(p.name for p in (out / "7304").iterdir()) == ["00_tiny-2.ipynb",
                                                                  "00_tiny.ipynb"]


def test_canvas_folders_match_the_canvas_export(canvas_unpacked) -> None:
    """Are the folder names keys the Canvas export finds, with and without the roster
    ``unpack`` writes, each on the learner's own row?"""
    out, _ = canvas_unpacked
    students = sorted(p.name for p in out.iterdir() if p.is_dir())
    book = read_canvas_gradebook(GRADEBOOK)
    roster = read_roster(out / "lms-roster.csv")
    for given in (None, roster):
        rows, unmatched = canvas_students(book, students, given)
        assert not unmatched
        assert {s: book.students[i][1] for s, i in rows.items()} == {s: s for s in students}
    assert roster.find("7399") is None  # Canvas's Test Student is on no roster


MOODLE_ZIP = [
    ("Ada Lovelace_1234501_assignsubmission_file_/00_tiny.ipynb", "correct"),
    ("Bo Chen_1234502_assignsubmission_file/00_tiny.ipynb", "partial"),  # Moodle 4.1+
    ("Cy Ito_1234503_assignsubmission_file_Copy of 00_tiny.ipynb", "correct"),  # flat
    ("Dee Okafor_1234504_assignsubmission_onlinetext_/onlinetext.html", None),
    ("Eve O Nakamura_1234505_assignsubmission_file_/00_tiny.ipynb", "partial"),
    ("Eve O Nakamura_1234505_assignsubmission_file_/00_tiny (1).ipynb", "correct"),
    ("Zed Unknown_1234599_assignsubmission_file_/00_tiny.ipynb", "correct"),
]


def test_moodle_zip_is_laid_out_by_email_with_moodles_identifiers(tmp_path: Path) -> None:
    """Are Moodle's folder and flat namings both read, the worksheet's late status and
    participant ids applied, the resubmission ``(1)`` taken, and the roster written with
    the worksheet's e-mail as Moodle has it?"""
    zf = _zip(tmp_path / "tiny.zip", [(n, _nb(c) if c else b"<p>hi</p>") for n, c in MOODLE_ZIP])
    out = tmp_path / "subs"
    rows = unpack("moodle", zf, moodle_learners(WORKSHEET), "00_tiny", out, KNOWN, COURSE)
    by = {r.entry or r.name: r for r in rows}
    ada = by[MOODLE_ZIP[0][0]]
    assert (ada.outcome, ada.lms_id, ada.student) == (TAKEN, "1234501",
                                                      safe_name("ada.lovelace@uni.example"))
    assert (out / ada.file).read_bytes() == _nb("correct")
    bo = by[MOODLE_ZIP[1][0]]
    assert (bo.outcome, bo.late, bo.student) == (TAKEN, "yes", safe_name("bo.chen@uni.example"))
    assert by[MOODLE_ZIP[2][0]].outcome == TAKEN
    assert "onlinetext" in by[MOODLE_ZIP[3][0]].reason
    assert "superseded" in by[MOODLE_ZIP[4][0]].reason
    assert by[MOODLE_ZIP[5][0]].outcome == TAKEN
    assert "unknown learner" in by[MOODLE_ZIP[6][0]].reason
    assert by["Gil Fox"].outcome == NO_SUBMISSION
    roster = read_roster(out / "lms-roster.csv")
    assert roster.identifier_kind() == "email"
    assert roster.find(bo.student).identifier == "Bo.Chen@Uni.Example"  # as Moodle wrote it


def test_moodle_folders_export_under_moodles_identifiers(tmp_path: Path) -> None:
    """Given the roster ``unpack`` wrote, does the Moodle export key each graded folder by
    the worksheet's e-mail, as Moodle wrote it, under ``Email address``?"""
    from autograder.grader.classroom.classlist import Classroom
    from autograder.grader.reports.exports import write_moodle
    from autograder.grader.result import Result

    zf = _zip(tmp_path / "tiny.zip", [(n, _nb(c) if c else b"x") for n, c in MOODLE_ZIP])
    out = tmp_path / "subs"
    rows = unpack("moodle", zf, moodle_learners(WORKSHEET), "00_tiny", out, KNOWN, COURSE)
    results = [Result(r.student, "00_tiny", r.file, score=4.0, max_score=5.0)
               for r in rows if r.outcome == TAKEN]
    report = write_moodle(results, tmp_path / "grades-moodle.csv",
                          Classroom(roster=read_roster(out / "lms-roster.csv")))
    assert not report.unmatched
    written = list(csv.reader((tmp_path / "grades-moodle.csv").open(encoding="utf-8")))
    assert written[0] == ["Email address", "00_tiny"]
    assert sorted(row[0] for row in written[1:]) == sorted([
        "ada.lovelace@uni.example", "Bo.Chen@Uni.Example", "cy.ito@uni.example",
        "eve.nakamura@uni.example"])


# ------------------------------------------------------------------- hostile zip entries

LINK = stat.S_IFLNK | 0o777
ADA = canvas_entry("Lovelace, Ada", 7301, 90001, "00_tiny.ipynb")
ATTACKS = {  # attack: (its entry, the honest twin that is taken)
    "zip-slip": ([(f"../../{ADA}", b"")], [(f"submissions/{ADA}", b"")]),
    "absolute": ([(f"/tmp/{ADA}", b"")], [(f"tmp/{ADA}", b"")]),
    "symlink": ([(ADA, b"../../../../etc/passwd", LINK)], [(ADA, b"")]),
    "duplicate": ([(ADA, b""), (ADA, b"")], [(ADA, b"")]),
    "backslash": ([(f"..\\..\\{ADA}", b"")], [(f"submissions/{ADA}", b"")]),
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_hostile_entry_is_refused_and_its_twin_taken(tmp_path: Path, attack: str) -> None:
    """Is each hostile entry refused and recorded, with nothing written anywhere (inside or
    outside ``--out``), while its honest twin is taken?"""
    bad, good = ATTACKS[attack]
    work = tmp_path / "work"
    work.mkdir()
    entries = [(n, d or _nb("correct"), *m) for n, d, *m in bad]
    rows = unpack("canvas", _zip(tmp_path / "bad.zip", entries), canvas_learners(GRADEBOOK),
                  "00_tiny", work / "out", KNOWN, COURSE)
    refused = [r for r in rows if r.entry]
    assert refused and all(r.outcome == NOT_TAKEN and "refused" in r.reason for r in refused)
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["bad.zip", "work/out/lms-roster.csv", "work/out/unpacked-00_tiny.csv"]
    twin = [(n, d or _nb("correct"), *m) for n, d, *m in good]
    rows = unpack("canvas", _zip(tmp_path / "good.zip", twin), canvas_learners(GRADEBOOK),
                  "00_tiny", tmp_path / "twin", KNOWN, COURSE)
    assert [r.outcome for r in rows if r.entry] == [TAKEN]
    assert (tmp_path / "twin" / "7301" / "00_tiny.ipynb").read_bytes() == _nb("correct")


def test_zip_bomb_and_too_many_entries_refuse_the_zip(tmp_path: Path) -> None:
    """Is a notebook that inflates past the limit not taken (its declared size not
    trusted), are too many bytes or entries a refusal with nothing written, and does an
    honest zip under the same limits pass?"""
    learners = canvas_learners(GRADEBOOK)
    bomb = _zip(tmp_path / "bomb.zip", [(ADA, b" " * 5_000_000)])
    assert bomb.stat().st_size < 50_000
    rows = unpack("canvas", bomb, learners, "00_tiny", tmp_path / "a", KNOWN, COURSE,
                  max_notebook=1_000_000)
    assert "over" in next(r for r in rows if r.entry).reason
    assert not (tmp_path / "a" / "7301").exists()
    many = _zip(tmp_path / "many.zip", [(f"x{i}.txt", b"") for i in range(30)])
    with pytest.raises(UnpackError, match="30 entries"):
        unpack("canvas", many, learners, "00_tiny", tmp_path / "b", KNOWN, max_entries=20)
    two = _zip(tmp_path / "two.zip", [(ADA, _nb("correct")),
                                      (canvas_entry("Chen, Bo", 7302, 2, "00_tiny.ipynb"),
                                       _nb("correct"))])
    with pytest.raises(UnpackError, match="zip bomb"):
        unpack("canvas", two, learners, "00_tiny", tmp_path / "c", KNOWN,
               max_total=len(_nb("correct")) + 10)
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()
    rows = unpack("canvas", two, learners, "00_tiny", tmp_path / "d", KNOWN, COURSE,
                  max_total=2 * len(_nb("correct")), max_notebook=len(_nb("correct")))
    assert [r.outcome for r in rows if r.entry] == [TAKEN, TAKEN]


def test_a_damaged_entry_is_not_taken_and_the_rest_is(tmp_path: Path) -> None:
    """Is a notebook whose compressed bytes were damaged (its CRC no longer matches) recorded
    as damaged and not taken, while the learner beside it (the twin) is taken?"""
    bo = canvas_entry("Chen, Bo", 7302, 2, "00_tiny.ipynb")
    path = _zip(tmp_path / "z.zip", [(ADA, _nb("correct")), (bo, _nb("correct"))])
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(ADA)
    start = info.header_offset + 30 + len(ADA.encode()) + len(info.extra) + 40
    data[start:start + 8] = bytes(b ^ 0xFF for b in data[start:start + 8])
    path.write_bytes(bytes(data))
    rows = unpack("canvas", path, canvas_learners(GRADEBOOK), "00_tiny", tmp_path / "o",
                  KNOWN, COURSE)
    by = {r.entry: r for r in rows if r.entry}
    assert by[ADA].outcome == NOT_TAKEN and "damaged" in by[ADA].reason
    assert by[bo].outcome == TAKEN and not (tmp_path / "o" / "7301").exists()


def test_a_second_unpack_needs_replace_and_never_writes_through_links(tmp_path: Path
                                                                       ) -> None:
    """Does a second unpack of one assignment refuse without ``--replace`` and replace only
    its own files with it, and is a link planted at a learner's folder never written
    through?"""
    learners = canvas_learners(GRADEBOOK)
    out = tmp_path / "subs"
    zf = _zip(tmp_path / "one.zip", [(ADA, _nb("partial"))])
    unpack("canvas", zf, learners, "00_tiny", out, KNOWN, COURSE)
    (out / "7301" / "mine.txt").write_text("the instructor's note")
    with pytest.raises(UnpackError, match="--replace"):
        unpack("canvas", zf, learners, "00_tiny", out, KNOWN, COURSE)
    newer = _zip(tmp_path / "newer.zip", [(ADA, _nb("correct"))])
    unpack("canvas", newer, learners, "00_tiny", out, KNOWN, COURSE, replace=True)
    assert (out / "7301" / "00_tiny.ipynb").read_bytes() == _nb("correct")
    assert (out / "7301" / "mine.txt").read_text() == "the instructor's note"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "7301").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnpackError, match="in the way"):
        unpack("canvas", newer, learners, "00_tiny", linked, KNOWN, COURSE)
    assert not any(elsewhere.iterdir())


def test_unpack_command_reports_and_refuses_bad_input(tmp_path: Path, capsys) -> None:
    """Does ``python -m autograder unpack`` lay out the zip and summarise it, and exit 2
    with a message for a missing gradebook, an unknown assignment or a file that is no
    zip?"""
    zf = _canvas_zip(tmp_path)
    base = ["unpack", "canvas", str(zf), "--assignment", "00_tiny", "--source", str(COURSE)]
    assert main([*base, "--out", str(tmp_path / "o"), "--gradebook", str(GRADEBOOK)]) == 0
    said = capsys.readouterr().out
    # only 00_tiny is known here: Ada's 01_arrays.ipynb is a second notebook with work
    assert ("7 notebook(s) taken (1 late) for 5 learner(s); 5 file(s) not taken; 1 "
            "learner(s) of the gradebook with nothing") in said
    assert main([*base, "--out", str(tmp_path / "p")]) == 2
    assert "--gradebook" in capsys.readouterr().err
    assert main([*base[:3], "--assignment", "99_nope", "--source", str(COURSE), "--out",
                 str(tmp_path / "q"), "--gradebook", str(GRADEBOOK)]) == 2
    (tmp_path / "no.zip").write_text("not a zip")
    assert main(["unpack", "canvas", str(tmp_path / "no.zip"), "--assignment", "00_tiny",
                 "--source", str(COURSE), "--out", str(tmp_path / "r"), "--gradebook",
                 str(GRADEBOOK)]) == 2
    assert "not a zip" in capsys.readouterr().err
    assert not (tmp_path / "p").exists() and not (tmp_path / "r").exists()


# ------------------------------------------------------------------------ feedback zips

def _results(tmp: Path, record: list) -> Path:
    """A results folder with a feedback page naming its learner for each one taken."""
    results = tmp / "results"
    for r in record:
        if r.outcome == TAKEN:
            page = results / r.student / r.assignment / "feedback.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"<p>feedback for {r.student}</p>")
    return results


def test_canvas_feedback_zip_reaches_each_learner_by_canvas_rule(canvas_unpacked,
                                                                 tmp_path: Path) -> None:
    """Does every name in the Canvas feedback zip read back, by Canvas's own rule (the
    first two all-digit parts), as the user and an attachment of that learner's own
    submission, with that learner's page inside, and no learner twice?"""
    out, _ = canvas_unpacked
    record = read_record(out / "unpacked-00_tiny.csv")
    results = _results(tmp_path, record)
    zpath = tmp_path / "canvas-feedback.zip"
    assert main(["feedback-zip", str(results), "--record", str(out / "unpacked-00_tiny.csv"),
                 "--out", str(zpath)]) == 0
    mine = {r.lms_id: {x.attachment_id for x in record if x.lms_id == r.lms_id and x.entry}
            for r in record if r.outcome == TAKEN}
    with zipfile.ZipFile(zpath) as zf:
        names = zf.namelist()
        assert len(names) == len(mine) == 5
        for name in names:
            user, attachment = canvas_reupload_target(name)
            assert attachment in mine[user], name
            student = next(r.student for r in record if r.lms_id == user)
            assert zf.read(name) == f"<p>feedback for {student}</p>".encode()
    late = [n for n in names if "_LATE_" in n]
    assert late == [n for n in names if n.startswith("chenbo_")]


def test_moodle_feedback_zip_reaches_each_learner_by_moodle_rule(tmp_path: Path) -> None:
    """Does every path in the Moodle feedback zip read back, by Moodle's own importer rule,
    as that learner's participant id, in the folder Moodle's download gave them?"""
    zf = _zip(tmp_path / "tiny.zip", [(n, _nb(c) if c else b"x") for n, c in MOODLE_ZIP])
    out = tmp_path / "subs"
    record = unpack("moodle", zf, moodle_learners(WORKSHEET), "00_tiny", out, KNOWN, COURSE)
    results = _results(tmp_path, record)
    names, left = feedback_zip(results, record, tmp_path / "moodle.zip")
    assert not left
    taken = {r.lms_id: r for r in record if r.outcome == TAKEN}
    assert names == sorted(names) and len(names) == len(taken) == 4
    for name in names:
        pid, file = moodle_upload_target(name)
        assert file == "/feedback-00_tiny.html"  # Moodle joins the folder's empty rest
        folder = name.split("/")[0]
        download = [r.entry for r in record if r.lms_id == pid and r.entry]
        assert any(e.startswith(folder.rstrip("_")) for e in download), (name, download)
    assert "Eve O Nakamura_1234505_assignsubmission_file_/feedback-00_tiny.html" in names


def test_lms_rules_read_the_downloads_own_names() -> None:
    """Do the two read-back rules, applied to names as each LMS downloads them, give the ids
    in them (so they are the rules the uploads are checked against), and ignore what each
    LMS ignores?"""
    assert canvas_reupload_target(ADA) == ("7301", "90001")
    assert canvas_reupload_target("lovelaceada_7301_link.html") is None
    assert moodle_upload_target(MOODLE_ZIP[0][0]) == ("1234501", "/00_tiny.ipynb")
    assert moodle_upload_target(MOODLE_ZIP[1][0]) == ("1234502", "/00_tiny.ipynb")
    assert moodle_upload_target(MOODLE_ZIP[2][0]) == ("1234503", "Copy of 00_tiny.ipynb")
    assert moodle_upload_target("Ada_1_assignsubmission_file_/.hidden") is None
    assert moodle_upload_target("no participant here/page.html") is None


def test_feedback_page_through_a_link_is_left_out(tmp_path: Path) -> None:
    """Is a learner whose results folder is a link (to another learner's pages) left out,
    while a learner with a plain folder (the twin) gets their page?"""
    learners = canvas_learners(GRADEBOOK)
    two = _zip(tmp_path / "two.zip", [(ADA, _nb("correct")),
                                      (canvas_entry("Chen, Bo", 7302, 2, "00_tiny.ipynb"),
                                       _nb("correct"))])
    record = unpack("canvas", two, learners, "00_tiny", tmp_path / "subs", KNOWN, COURSE)
    results = tmp_path / "results"
    (results / "7301" / "00_tiny").mkdir(parents=True)
    (results / "7301" / "00_tiny" / "feedback.html").write_text("Ada's page")
    (results / "7302").symlink_to(results / "7301", target_is_directory=True)
    names, left = feedback_zip(results, record, tmp_path / "fb.zip")
    assert [canvas_reupload_target(n)[0] for n in names] == ["7301"]
    assert len(left) == 1 and left[0].startswith("7302")


@pytest.mark.slow
def test_canvas_zip_graded_end_to_end(canvas_unpacked, tmp_path: Path) -> None:
    """Unpacked as it came, graded with ``grade``, exported to Canvas through the course's
    own export and returned as a feedback zip: does each learner's score reach their own
    Canvas row, the two-files learner get nothing graded, and each page go to its learner?"""
    out, _ = canvas_unpacked
    results = tmp_path / "graded"
    assert main(["grade", str(out), "--assignment", "00_tiny", "--source", str(COURSE),
                 "--out", str(results), "--jobs", "2", "--export", "canvas",
                 "--canvas-gradebook", str(GRADEBOOK)]) == 0
    grades = {r["student"]: r for r in csv.DictReader((results / "grades.csv").open())}
    assert (grades["7301"]["score"], grades["7305"]["score"]) == ("5", "5")
    assert grades["7304"]["status"] == "invalid" and "hold work" in grades["7304"]["message"]
    assert json.loads((results / "7302" / "00_tiny" / "result.json").read_text())["score"] < 5
    canvas = list(csv.reader((results / "grades-canvas.csv").open(encoding="utf-8")))
    by_id = {row[1]: row for row in canvas[1:]}
    col = canvas[0].index("Lab 0: Tiny (51200)")
    assert by_id["7301"][col] == "5" and by_id["7306"][col] == "EX"
    zpath = tmp_path / "fb.zip"
    assert main(["feedback-zip", str(results), "--record", str(out / "unpacked-00_tiny.csv"),
                 "--out", str(zpath)]) == 0
    with zipfile.ZipFile(zpath) as zf:
        users = sorted(canvas_reupload_target(n)[0] for n in zf.namelist())
    assert users == ["7301", "7302", "7303", "7305"]
    shutil.rmtree(results)


def test_two_learners_with_one_key_refuse_the_unpack(tmp_path: Path) -> None:
    """Do two worksheet rows whose e-mails differ only in case (Moodle can allow that) stop
    the unpack before anything is written, while ``--moodle-key participant`` (the twin)
    tells them apart?"""
    sheet = tmp_path / "worksheet.csv"
    sheet.write_text('"Identifier","Full name","Email address","Status"\n'
                     '"Participant 11","Ann One","ann@uni.example","Submitted for grading"\n'
                     '"Participant 12","Ann Two","ANN@uni.example","Submitted for grading"\n')
    zf = _zip(tmp_path / "z.zip", [("Ann One_11_assignsubmission_file_/00_tiny.ipynb",
                                    _nb("correct"))])
    with pytest.raises(UnpackError, match="share the key"):
        unpack("moodle", zf, moodle_learners(sheet), "00_tiny", tmp_path / "a", KNOWN)
    assert not (tmp_path / "a").exists()
    rows = unpack("moodle", zf, moodle_learners(sheet, "participant"), "00_tiny",
                  tmp_path / "b", KNOWN, COURSE)
    taken = [(r.outcome, r.student) for r in rows if r.entry]
    assert taken == [(TAKEN, safe_name("participant 11"))]
