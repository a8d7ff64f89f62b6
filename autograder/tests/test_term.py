"""Tests of autograder.grader.classroom.term and a whole term of grading through the LMS
exports: three assignments released over time (one not yet due), a late learner, an excused
one, an extension, hand-set scores, a learner on the roster who never submits and one who
never linked a GitHub account. At every step the Canvas and Moodle imports are compared cell
by cell with the LMS export they started from (the fixtures are written as Canvas and Moodle
write them: byte-order mark, CRLF, a Manual Posting row, read-only totals, EX, a test
student; Moodle's ``-`` and export time), then "imported" into it for the next step.
Synthetic results: no kernel runs.

A regrade of one learner's one question (the verdict merged as ``regrade`` merges it) sits
between the third week's run and the sixth's; ``test_regrade.py`` runs the command itself on
real notebooks.
"""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from autograder.grader.classroom.classlist import (
    Override,
    apply_overrides,
    read_canvas_gradebook,
    read_moodle_gradebook,
    read_roster,
)
from autograder.grader.classroom.decisions import Inputs, classroom
from autograder.grader.classroom.term import NOT_SUBMITTED, decide, read_term
from autograder.grader.regrade import combine
from autograder.grader.reports import write_reports
from autograder.grader.reports.pages import END, START
from autograder.grader.result import QuestionResult, Result
from autograder.tests.conftest import FIXTURES

CLASSROOM = FIXTURES / "classroom"
TERM = CLASSROOM / "term.toml"
ROSTER = CLASSROOM / "roster-term.csv"
CANVAS = CLASSROOM / "canvas-export-term.csv"
MOODLE = CLASSROOM / "moodle-export-term.csv"
KNOWN = ["01_arrays", "03_pure_functions", "04_prng"]
TEST_STUDENT = "7399"  # Canvas's Test Student (Student View) in the Canvas fixtures
MAXIMUM = {"01_arrays": 20.0, "03_pure_functions": 10.0, "04_prng": 12.0}  # Moodle's items
LAB1, LAB2, LAB3 = ("Lab 1: Arrays (51201)", "Lab 3: Pure functions (51202)",
                    "Lab 4: PRNG (51203)")
M1, M2, M3 = ("Assignment: Lab 1: Arrays (Real)", "Assignment: Lab 3: Pure functions (Real)",
              "Assignment: Lab 4: PRNG (Real)")


def at(text: str) -> datetime:
    """A time of the term (ISO 8601 with offset)."""
    return datetime.fromisoformat(text)


def graded(student: str, assignment: str, score: float, points: float) -> Result:
    """A graded submission with one question."""
    status = "passed" if score == points else "failed"
    return Result(student, assignment, f"{student}/{assignment}.ipynb", score=score,
                  max_score=points, questions=[QuestionResult("q1", score, points, status)],
                  isolation="bubblewrap")


def untouched(student: str, assignment: str, points: float) -> Result:
    """A notebook left as released (grading's ``not_submitted``)."""
    return Result(student, assignment, f"{student}/{assignment}.ipynb", max_score=points,
                  status=NOT_SUBMITTED, message="left as released", isolation="bubblewrap")


def _table(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))


def _same(old: str, new: str) -> bool:
    """One LMS value: ``-`` and empty are both "no grade"; 12.00 is 12."""
    a, b = old.strip(), new.strip()
    a, b = ("" if a == "-" else a), ("" if b == "-" else b)
    if a == b:
        return True
    try:
        return abs(float(a) - float(b)) < 1e-6
    except ValueError:
        return False


def lms_changes(before: Path, export: Path, key: str) -> dict[tuple[str, str], str]:
    """The cells an import of ``export`` would change in the LMS export ``before``, by (the
    row's ``key`` column, heading). Fails when the import drops or adds a learner row, or
    names a column the LMS does not have."""
    old, new = _table(before), _table(export)
    assert set(new[0]) <= set(old[0]), set(new[0]) - set(old[0])
    ko, kn = old[0].index(key), new[0].index(key)
    old_rows = {r[ko]: dict(zip(old[0], r, strict=False)) for r in old[1:] if r[ko].strip()}
    new_rows = {r[kn]: dict(zip(new[0], r, strict=False)) for r in new[1:] if r[kn].strip()}
    # every learner row kept, none added; Canvas's Test Student's row left out
    assert new_rows.keys() == old_rows.keys() - {TEST_STUDENT}
    return {(k, h): cell for k, row in new_rows.items() for h, cell in row.items()
            if not _same(old_rows[k][h], cell)}


def imported(before: Path, changes: dict[tuple[str, str], str], key: str, out: Path,
             newline: str) -> Path:
    """``before`` with ``changes`` in it, written as the LMS writes its export (Canvas: a
    byte-order mark and CRLF), as the LMS would export it after the import."""
    rows = _table(before)
    k = rows[0].index(key)
    for row in rows[1:]:
        for h, cell in ((h, c) for (who, h), c in changes.items() if who == row[k]):
            row[rows[0].index(h)] = cell
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=newline).writerows(rows)
    bom = "\ufeff" if newline == "\r\n" else ""
    out.write_text(bom + buffer.getvalue(), encoding="utf-8", newline="")
    return out


def run_step(results: list[Result], out: Path, canvas: Path, moodle: Path, now: str,
             overrides: list[Override] = (), assignments: list[str] | None = None,
             replace_scores: bool = False) -> Path:
    """Write the reports and both imports for ``results`` at ``now``, as ``grade``/``merge``
    would (hand-set scores, then the term's decisions); return ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    roster = read_roster(ROSTER)
    inputs = Inputs(roster=roster, canvas=read_canvas_gradebook(canvas),
                    moodle=read_moodle_gradebook(moodle), term=read_term(TERM, KNOWN),
                    overrides=list(overrides), assignments=assignments, now=at(now),
                    replace_scores=replace_scores, moodle_maximum=MAXIMUM)
    shown, applied, problems = apply_overrides(results, inputs.overrides, roster)
    assert problems == []
    write_reports(shown, out, exports=["canvas", "moodle"],
                  classroom=classroom(shown, inputs, applied, problems))
    return out


def _kept(out: Path) -> set[tuple[str, str, str, str, str]]:
    path = out / "kept-in-lms.csv"
    return {tuple(r[:5]) for r in _table(path)[1:]} if path.exists() else set()


def _grades(out: Path) -> dict[tuple[str, str], dict[str, str]]:
    rows = _table(out / "grades.csv")
    return {(r[0], r[1]): dict(zip(rows[0], r, strict=True)) for r in rows[1:]}


def _week1() -> list[Result]:
    """01_arrays as graded on 17 September: Bo late (submitted on the 16th), Eve's
    notebook left as released, Fay (on the roster) with nothing."""
    return [graded("ada-l", "01_arrays", 15, 20), graded("BoChen", "01_arrays", 20, 20),
            graded("cyito", "01_arrays", 10, 20), untouched("evemoss", "01_arrays", 20)]


def _week3() -> list[Result]:
    """01 again, 02 (Cy excused, Eve with an extension), 03 just released: every 03
    notebook left as released."""
    return _week1() + [
        graded("ada-l", "03_pure_functions", 8, 10), graded("BoChen", "03_pure_functions", 10, 10),
        graded("cyito", "03_pure_functions", 6, 10), graded("evemoss", "03_pure_functions", 9, 10),
        untouched("ada-l", "04_prng", 12), untouched("BoChen", "04_prng", 12)]


def test_a_term_changes_only_the_cells_it_should(tmp_path: Path):
    """Across three grading runs of a term, does each Canvas and Moodle import change exactly
    the cells it should, compared cell by cell with the export it started from: no cell of
    work not yet due, no EX, no score already in the LMS (unless --replace-lms-scores, and
    then every such cell is listed), the late penalty and the points for missing work
    written once the assignment closed, a regrade of one learner's one question changing that
    learner's cell alone, and a run of one assignment (--assignments) leaving the other
    columns as they are? No learner row and no existing score is lost."""
    canvas, moodle = CANVAS, MOODLE
    # Week 1 (17 Sep): 01 due on the 14th, late work accepted until the 21st.
    one = run_step(_week1(), tmp_path / "week1", canvas, moodle, "2026-09-17T12:00:00+02:00")
    changed = lms_changes(canvas, one / "grades-canvas.csv", "ID")
    assert changed == {("7301", LAB1): "15", ("7303", LAB1): "10"}
    assert _kept(one) == {("BoChen", "canvas", "01_arrays", "12.00", "16"),
                          ("BoChen", "moodle", "01_arrays", "12.00", "16")}
    moodle_changed = lms_changes(moodle, one / "grades-moodle.csv", "Email address")
    assert moodle_changed == {("ada.lovelace@uni.example", M1): "15",
                              ("cy.ito@uni.example", M1): "10"}
    assert _table(one / "grades-moodle.csv")[0] == [
        "First name", "Last name", "ID number", "Institution", "Department", "Email address",
        M1, "Last downloaded from this course"]  # Moodle's own columns, this run's item only
    grades = _grades(one)
    assert grades[("BoChen", "01_arrays")]["final_score"] == "16"
    assert "late by 2 day(s)" in grades[("BoChen", "01_arrays")]["decision"]
    assert grades[("evemoss", "01_arrays")]["final_score"] == ""  # open: never a 0 yet
    assert grades[("faynz", "01_arrays")]["status"] == "open"
    canvas = imported(canvas, changed, "ID", tmp_path / "canvas-1.csv", "\r\n")
    moodle = imported(moodle, moodle_changed, "Email address", tmp_path / "moodle-1.csv", "\n")

    # Week 3 (29 Sep): 01 closed, 02 due yesterday, 03 released this morning. Ada's 01 is set
    # by hand; the instructor asks to write over scores already in the LMS.
    override = Override("Ada.Lovelace@uni.example", "01_arrays", "", 18,
                        "regrade request: the answer is right")
    three = run_step(_week3(), tmp_path / "week3", canvas, moodle, "2026-09-29T12:00:00+02:00",
                     [override], replace_scores=True)
    changed = lms_changes(canvas, three / "grades-canvas.csv", "ID")
    assert changed == {
        ("7301", LAB1): "18", ("7302", LAB1): "16", ("7305", LAB1): "0", ("7306", LAB1): "0",
        ("7301", LAB2): "8", ("7302", LAB2): "10", ("7303", LAB2): "EX", ("7306", LAB2): "0"}
    assert _kept(three) == {("evemoss", "canvas", "03_pure_functions", "EX", "9")}
    moodle_changed = lms_changes(moodle, three / "grades-moodle.csv", "Email address")
    assert moodle_changed == {
        ("ada.lovelace@uni.example", M1): "18", ("bo.chen@uni.example", M1): "16",
        ("eve.moss@uni.example", M1): "0", ("fay.nunez@uni.example", M1): "0",
        ("ada.lovelace@uni.example", M2): "8", ("bo.chen@uni.example", M2): "10",
        ("eve.moss@uni.example", M2): "9", ("fay.nunez@uni.example", M2): "0"}
    summary = (three / "summary.md").read_text()
    assert "## Needs attention" in summary
    assert "**faynz**: on the roster, nothing submitted" in summary
    assert "**gil.ortiz@uni.example**: on the roster, no GitHub username linked" in summary
    assert "**BoChen**: 01_arrays: late: late by 2 day(s)" in summary
    grades = _grades(three)
    assert grades[("ada-l", "01_arrays")]["decision"] == (
        "18 set by hand (regrade request: the answer is right)")
    assert grades[("cyito", "03_pure_functions")]["final_score"] == "EX"
    assert grades[("ada-l", "04_prng")]["final_score"] == ""  # not yet due
    canvas = imported(canvas, changed, "ID", tmp_path / "canvas-3.csv", "\r\n")
    moodle = imported(moodle, moodle_changed, "Email address", tmp_path / "moodle-3.csv", "\n")

    # Week 3, a day later: Ada's 03 question q1 is regraded alone (regrade --student ada-l
    # --assignment 03_pure_functions --question q1: its verdict merged into her earlier
    # result, regrade.combine); the instructor asks for the new score to reach the LMS.
    # Only her 02 cell changes; her hand-set 01 and every other learner's cells stay.
    regraded = [r for r in _week3()]
    where = next(i for i, r in enumerate(regraded)
                 if (r.student, r.assignment) == ("ada-l", "03_pure_functions"))
    kept, note = combine(regraded[where], graded("ada-l", "03_pure_functions", 10, 10), "q1")
    assert note == "" and kept.score == 10 and "regraded alone" in kept.message
    regraded[where] = kept
    again = run_step(regraded, tmp_path / "week3-regrade", canvas, moodle,
                     "2026-09-30T12:00:00+02:00", [override], replace_scores=True)
    assert lms_changes(canvas, again / "grades-canvas.csv", "ID") == {("7301", LAB2): "10"}
    assert lms_changes(moodle, again / "grades-moodle.csv", "Email address") == {
        ("ada.lovelace@uni.example", M2): "10"}
    assert _kept(again) == {("evemoss", "canvas", "03_pure_functions", "EX", "9")}
    grades = _grades(again)
    assert grades[("ada-l", "01_arrays")]["final_score"] == "18"  # the override stays
    assert grades[("ada-l", "03_pure_functions")]["final_score"] == "10"
    assert {k: v for k, v in grades.items() if k != ("ada-l", "03_pure_functions")} == {
        k: v for k, v in _grades(three).items() if k != ("ada-l", "03_pure_functions")}

    # Week 6 (13 Oct): only 03 is graded (--assignments 04_prng); 03 has no closed time and
    # no points for missing work, so Fay's cell stays as it is.
    six = run_step([graded("ada-l", "04_prng", 10, 12), graded("BoChen", "04_prng", 9, 12),
                    graded("cyito", "04_prng", 12, 12), graded("evemoss", "04_prng", 6, 12)],
                   tmp_path / "week6", canvas, moodle, "2026-10-13T12:00:00+02:00",
                   assignments=["04_prng"])
    changed = lms_changes(canvas, six / "grades-canvas.csv", "ID")
    assert changed == {("7305", LAB3): "6"}  # Ada's 10 is Canvas's 10.00: unchanged
    assert _kept(six) == {("BoChen", "canvas", "04_prng", "7.00", "9"),
                          ("cyito", "canvas", "04_prng", "EX", "12"),
                          ("BoChen", "moodle", "04_prng", "7.00", "9")}
    assert lms_changes(moodle, six / "grades-moodle.csv", "Email address") == {
        ("cy.ito@uni.example", M3): "12", ("eve.moss@uni.example", M3): "6"}
    assert M1 not in _table(six / "grades-moodle.csv")[0]  # not graded: not imported
    before = {(r[1], h): c for r in _table(canvas)[3:]
              for h, c in zip(_table(canvas)[0], r, strict=True)}
    after = {(r[1], h): c for r in _table(six / "grades-canvas.csv")[3:]
             for h, c in zip(_table(six / "grades-canvas.csv")[0], r, strict=True)}
    lost = [k for k, v in before.items() if v.strip() and k in after and
            not _same(v, after[k]) and k not in changed]
    assert lost == []


def test_the_feedback_page_shows_the_decisions(tmp_path: Path):
    """Does a learner's feedback page say the score the instructor set (and why) and the
    late penalty, between the template's markers, escaped, and the same after a second run
    (replaced, not added twice)?"""
    out = tmp_path / "out"
    for student in ("ada-l", "BoChen"):
        page = out / student / "01_arrays" / "feedback.html"
        page.parent.mkdir(parents=True)
        page.write_text(f"<header id=\"top\"><p>Score</p>{START}{END}</header><main></main>")
    override = Override("ada-l", "01_arrays", "", 18, "accepted <by hand>")
    for _ in range(2):
        run_step(_week1(), out, CANVAS, MOODLE, "2026-09-17T12:00:00+02:00", [override])
    ada = (out / "ada-l" / "01_arrays" / "feedback.html").read_text()
    assert ada.count("set by your instructor to 18 / 20 (accepted &lt;by hand&gt;)") == 1
    bo = (out / "BoChen" / "01_arrays" / "feedback.html").read_text()
    assert "Late: late by 2 day(s)" in bo and "Score recorded: 16 / 20" in bo


def test_a_notebook_left_as_released_is_never_zero_before_the_due_time():
    """Is a notebook left as released (or none at all) left out of the LMS before the due
    time, and while late work is still accepted, and given the term's ``missing`` points
    once the assignment closed; while an honest submission keeps its score throughout?"""
    term = read_term(TERM, KNOWN)
    results = [untouched("eve", "01_arrays", 20), graded("ada", "01_arrays", 5, 20)]
    for now, state, score in (("2026-09-10T12:00:00+02:00", "pending", None),
                              ("2026-09-17T12:00:00+02:00", "open", None),
                              ("2026-09-22T12:00:00+02:00", "missing", 0.0)):
        found = decide(results, term, at(now))
        assert (found[("eve", "01_arrays")].state, found[("eve", "01_arrays")].score) == (
            state, score)
        assert found[("ada", "01_arrays")].score == 5


@pytest.mark.parametrize(("text", "message"), [
    ("[assignment.01_arrays]\nreleased = 2026-09-01T09:00:00+02:00\n", "line 1: "
     "[assignment.01_arrays] has no due time"),
    ("\n[assignment.01_arrays]\ndue = 2026-09-14\n", "line 3: due = 2026-09-14 is a date"),
    ("[assignment.01_arrays]\ndue = 2026-09-14T23:59:00\n", "has no UTC offset"),
    ("[assignment.01_arrays]\ndue = 2026-09-14T23:59:00Z\nclosed = 2026-09-01T00:00:00Z\n",
     "closed (2026-09-01T00:00:00+00:00) is before due"),
    ("[assignment.99_nope]\ndue = 2026-09-14T23:59:00Z\n", "unknown assignment '99_nope'"),
    ("[assignment.01_arrays]\ndue = 2026-09-14T23:59:00Z\nlate_penalty = 150\n",
     "late_penalty must be a number >= 0 and at most 100"),
    ("[assignment.01_arrays]\ndue = 2026-09-14T23:59:00Z\n\n[[excused]]\nstudent = \"a\"\n"
     "assignment = \"01_arrays\"\n", "line 4: [[excused]] needs reason"),
    ("[assignment.01_arrays]\ndue = 2026-09-14T23:59:00Z\n[[extension]]\nstudent = \"a\"\n"
     "assignment = \"03_pure_functions\"\ndue = 2026-09-20T00:00:00Z\n",
     "line 5: [[extension]] names assignment '03_pure_functions', which has no"),
    ("[assignment.01_arrays\n", "not TOML"),
])
def test_a_bad_term_file_is_refused_naming_the_file_and_line(tmp_path: Path, text: str,
                                                             message: str):
    """Is each mistake in a term file refused with the file, the line (where TOML gives one)
    and what is wrong?"""
    path = tmp_path / "term.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as caught:
        read_term(path, KNOWN)
    assert str(path) in str(caught.value) and message in str(caught.value)


def test_the_job_summary_stays_under_its_bound_with_the_whole_beside_it(tmp_path: Path):
    """With a summary larger than the bound, is summary.md under it (table rows dropped from
    the end, with a line naming summary-full.md), and summary-full.md the whole; and with a
    small class, is there no summary-full.md?"""
    results = [graded(f"learner-{i:04d}", "01_arrays", i % 20, 20) for i in range(1000)]
    write_reports(results, tmp_path, summary_limit=20_000)
    short = (tmp_path / "summary.md").read_text()
    whole = (tmp_path / "summary-full.md").read_text()
    assert len(short.encode()) <= 20_000 < len(whole.encode())
    assert "learner-0999" in whole and "learner-0999" not in short and "learner-0000" in short
    assert "summary-full.md" in short and "## Item analysis" in short
    write_reports(results[:3], tmp_path)
    assert not (tmp_path / "summary-full.md").exists()


def test_moodle_identifiers_match_in_any_case_and_are_written_as_moodle_has_them(
        tmp_path: Path):
    """Does a roster identifier ``Bo.Chen@Uni.Example`` reach Moodle's ``bo.chen@uni.example``
    row, and the import carry Moodle's spelling (never the roster's)?"""
    out = run_step([graded("BoChen", "04_prng", 12, 12)], tmp_path, CANVAS, MOODLE,
                   "2026-10-13T12:00:00+02:00", assignments=["04_prng"], replace_scores=True)
    rows = _table(out / "grades-moodle.csv")
    emails = [r[rows[0].index("Email address")] for r in rows[1:]]
    assert "bo.chen@uni.example" in emails and "Bo.Chen@Uni.Example" not in emails
    assert lms_changes(MOODLE, out / "grades-moodle.csv", "Email address") == {
        ("bo.chen@uni.example", M3): "12"}
    assert not (out / "unmatched.csv").exists()


def test_the_term_fixtures_are_written_as_each_lms_writes_them():
    """Are the term's fixtures as Canvas and Moodle write them: Canvas's with a byte-order
    mark and CRLF, a Manual Posting row, read-only totals, EX and a test student; Moodle's
    with ``-`` for no grade and its export time?"""
    raw = CANVAS.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw and b"Manual Posting" in raw
    assert b"(read only)" in raw and b",EX," in raw and b"Student, Test" in raw
    text = MOODLE.read_text()
    assert ",-," in text and "Last downloaded from this course" in text


# ------------------------------------------- a term through the LMS's own files, both ways

NOTES_CANVAS = CLASSROOM / "canvas-export-notes.csv"
NOTES_MOODLE = CLASSROOM / "moodle-export-notes.csv"
NOTES_WORKSHEET = CLASSROOM / "moodle-worksheet-term.csv"
LMS_TERM = """\
[assignment.01_arrays]
due = 2026-09-14T23:59:00+02:00

[assignment.04_prng]
released = 2026-10-20T09:00:00+01:00
due = 2026-11-03T23:59:00+01:00
closed = 2026-11-10T23:59:00+01:00
late_penalty = 10
missing = 0

[[excused]]
student = "{excused}"
assignment = "04_prng"
reason = "medical certificate"
"""


def _lms_zip(path: Path, names: list[str]) -> Path:
    """A bulk download holding ``names`` (written with ``writestr``, as a script would)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name in names:
            zf.writestr(name, b'{"cells": [], "nbformat": 4, "nbformat_minor": 5}')
    return path


def _cells(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline="")))


def _differing(before: Path, after: Path, key: str) -> dict[tuple[str, str], str]:
    """Every cell of ``after`` that differs from the same cell (row by ``key``, column by
    heading) of ``before``; fails on a row or heading ``before`` lacks."""
    old, new = _cells(before), _cells(after)
    ko, kn = old[0].index(key), new[0].index(key)
    rows = {r[ko]: r for r in old[1:]}
    found = {}
    for row in new[1:]:
        assert row[kn] in rows, row
        for h, cell in zip(new[0], row, strict=True):
            if cell != rows[row[kn]][old[0].index(h)]:
                found[(row[kn], h)] = cell
    return found


def _lms_run(tmp_path: Path, lms: str, records: list[Path], gradebook: Path,
             results: list[Result], excused: str, roster: Path | None = None) -> Path:
    """Read the term's inputs as grade does (the unpack records beside them) and write the
    reports and ``lms``'s import."""
    from autograder.grader.classroom.decisions import check_names, read_marks

    tmp_path.mkdir(exist_ok=True)
    term = tmp_path / f"term-{lms}.toml"
    term.write_text(LMS_TERM.format(excused=excused))
    marks, maximum, learners = read_marks(records)
    book = (read_canvas_gradebook(gradebook) if lms == "canvas"
            else read_moodle_gradebook(gradebook))
    inputs = Inputs(roster=read_roster(roster) if roster else None,
                    canvas=book if lms == "canvas" else None,
                    moodle=book if lms == "moodle" else None, term=read_term(term, KNOWN),
                    now=at("2026-11-12T12:00:00+01:00"), moodle_maximum=maximum,
                    marks=marks, lms_learners=learners)
    check_names(inputs, {r.student for r in results}, KNOWN)
    out = tmp_path / f"results-{lms}"
    out.mkdir()
    write_reports(results, out, exports=[lms], classroom=classroom(results, inputs))
    return out


def test_a_term_through_the_lms_files_changes_only_the_graders_cells(tmp_path: Path):
    """A term through both LMSes' own files: Canvas's and Moodle's bulk downloads (both Moodle
    folder styles, entries written with writestr), a Notes column with +, -, = and @ values,
    Canvas's Test Student with its 40-hex SIS login, the LMS's late markers with no time typed
    by hand, an excused learner, a score typed into Moodle. Is each import the LMS's file
    with only the grader's cells changed (every other cell, quote and line ending as it
    came), Moodle's full mark its item's maximum (100), the Moodle late work penalised by
    the worksheet's time, Canvas's LATE listed for attention, the Test Student given no row;
    and are a zip from the other LMS, a term file naming nobody and an overrides row with an
    unquoted comma refused, naming the file and line?"""
    from autograder.grader.classroom.classlist import read_overrides
    from autograder.grader.classroom.lms_zips import (
        UnpackError,
        canvas_learners,
        moodle_learners,
        record_path,
        unpack,
    )

    # Canvas: in, graded (synthetic results), back.
    subs = tmp_path / "canvas-subs"
    canvas_zip = _lms_zip(tmp_path / "canvas.zip", [
        "lovelaceada_7301_90001_04_prng.ipynb", "chenbo_LATE_7302_90002_04_prng.ipynb",
        "studenttest_7399_90009_04_prng.ipynb"])
    with pytest.raises(UnpackError, match="no entry is named as Moodle names its download"):
        unpack("moodle", canvas_zip, moodle_learners(NOTES_WORKSHEET), "04_prng", subs, KNOWN)
    assert not subs.exists()  # refused: nothing written
    rows = unpack("canvas", canvas_zip, canvas_learners(NOTES_CANVAS), "04_prng", subs, KNOWN)
    taken = {r.student: r for r in rows if r.outcome == "taken"}
    assert sorted(taken) == ["7301", "7302"] and taken["7302"].late == "yes"
    assert any("Test Student" in r.reason for r in rows if r.lms_id == "7399")
    out = _lms_run(tmp_path, "canvas", [record_path(subs, "04_prng")], NOTES_CANVAS,
                   [graded("7301", "04_prng", 12, 12), graded("7302", "04_prng", 9, 12)], "7303",
                   subs / "lms-roster.csv")
    export = out / "grades-canvas.csv"
    assert _differing(NOTES_CANVAS, export, "ID") == {
        ("7301", LAB3): "12", ("7302", LAB3): "9", ("7303", LAB3): "EX", ("7304", LAB3): "0"}
    before = NOTES_CANVAS.read_bytes().split(b"\r\n")
    after = export.read_bytes().split(b"\r\n")
    assert after[:2] == before[:2] and before[6].startswith(b"Test Student")
    assert after[6:] == before[7:]  # the Test Student's row alone left out, CRLF kept
    assert b',+1 bonus (office hours),' in after[2] and b',=see e-mail,' in after[4]
    assert b'"@tutor: ""check"", then grade"' in after[5]
    summary = (out / "summary.md").read_text()
    assert "**7302**: 04_prng: late: late in Canvas" in summary  # no time typed by hand
    assert "penalty is taken twice" in summary
    # the excused learner and the one given the term's missing points each get a page
    assert "excused (medical certificate)" in (out / "7303" / "04_prng" / "feedback.html"
                                               ).read_text()
    assert "Not submitted: not submitted (no notebook found)" in (
        out / "7304" / "04_prng" / "feedback.html").read_text()

    # Moodle: both folder styles (a folder per learner, and the files flat), the worksheet's
    # maximum (100) and late time.
    subs = tmp_path / "moodle-subs"
    moodle_zip = _lms_zip(tmp_path / "moodle.zip", [
        "Ada Lovelace_1234501_assignsubmission_file_/04_prng.ipynb",
        "Bo Chen_1234502_assignsubmission_file_04_prng.ipynb",
        "Cy Ito_1234503_assignsubmission_file/04_prng.ipynb"])
    with pytest.raises(UnpackError, match="no entry is named as Canvas names"):
        unpack("canvas", moodle_zip, canvas_learners(NOTES_CANVAS), "04_prng", subs, KNOWN)
    rows = unpack("moodle", moodle_zip, moodle_learners(NOTES_WORKSHEET), "04_prng", subs,
                  KNOWN)
    folder = {r.name: r.student for r in rows if r.outcome == "taken"}
    assert sorted(folder) == ["Ada Lovelace", "Bo Chen", "Cy Ito"]
    record = record_path(subs, "04_prng")
    results = [graded(folder["Ada Lovelace"], "04_prng", 12, 12),
               graded(folder["Bo Chen"], "04_prng", 9, 12),
               graded(folder["Cy Ito"], "04_prng", 6, 12)]
    out = _lms_run(tmp_path, "moodle", [record], NOTES_MOODLE, results, "cy.ito@uni.example",
                   subs / "lms-roster.csv")
    export = out / "grades-moodle.csv"
    # full marks are Moodle's 100; Bo 1 day 2 hours late: 2 started days, 20% off (9 -> 6.6
    # of 12: 55); Cy excused (left, Moodle has no EX); Dee's hand-typed 15 kept, not a 0
    assert _differing(NOTES_MOODLE, export, "Email address") == {
        ("ada.lovelace@uni.example", "Assignment: Lab 4: PRNG (Real)"): "100",
        ("bo.chen@uni.example", "Assignment: Lab 4: PRNG (Real)"): "55"}
    assert [k[1:] for k in _kept(out)] == [("moodle", "04_prng", "15.00", "0")]  # Dee
    text = export.read_text()
    # copied as Moodle wrote them: quotes, "-" for no grade, values a spreadsheet would read
    # as formulas
    assert 'Cy,Ito,S0003,"Uni Example","=Informatics",cy.ito@uni.example,-,1790000000\n' in text
    assert ',-Informatics,dee.okafor@uni.example,15.00,1790000000\n' in text
    assert _cells(export)[0] == [
        "First name", "Last name", "ID number", "Institution", "Department", "Email address",
        "Assignment: Lab 4: PRNG (Real)", "Last downloaded from this course"]

    # Refused: a term file naming nobody, an overrides row with an unquoted comma.
    with pytest.raises(ValueError, match=r"term-moodle\.toml: line 12: \[\[excused\]\] names "
                                         "student 'cy.itto@uni.example'"):
        _lms_run(tmp_path / "typo", "moodle", [record], NOTES_MOODLE, results,
                 "cy.itto@uni.example", subs / "lms-roster.csv")
    bad = tmp_path / "overrides.csv"
    bad.write_text("student,assignment,question,score,reason\n"
                   "7301,04_prng,,10,regrade, accepted after review\n")
    with pytest.raises(ValueError, match=r"overrides .*: line 2 has 6 cells, the header 5"):
        read_overrides(bad)
