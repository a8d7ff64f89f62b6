"""Tests of autograder.grader.classroom.classlist and the LMS exports built on it: a GitHub
Classroom roster and a Canvas gradebook export (the shapes Canvas and GitHub Classroom write) give a
grades-canvas.csv that re-imports into the same columns, a grades-moodle.csv keyed by the
roster's identifier, and an unmatched.csv; hand-set scores on top (synthetic results, fast)."""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pytest

from autograder.grader.classroom.classlist import (
    Classroom,
    Override,
    apply_overrides,
    read_canvas_gradebook,
    read_column_map,
    read_overrides,
    read_roster,
)
from autograder.grader.reports import write_reports
from autograder.grader.result import QuestionResult, Result
from autograder.tests.conftest import FIXTURES

CLASSROOM = FIXTURES / "classroom"
CANVAS_MANUAL_POSTING = CLASSROOM / "canvas-export-manual-posting.csv"
CANVAS_PLAIN = CLASSROOM / "canvas-export-plain.csv"
TITLE_ID = re.compile(r"^.*\(\d+\)$")
IDENTITY = {"Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section"}


def _q(qid: str, score: float, max_score: float) -> QuestionResult:
    return QuestionResult(qid, score, max_score, "passed" if score == max_score else "failed")


def _graded(student: str, assignment: str, *questions: QuestionResult) -> Result:
    return Result(student, assignment, f"{student}/{assignment}.ipynb",
                  score=sum(q.score for q in questions),
                  max_score=sum(q.max_score for q in questions), questions=list(questions),
                  isolation="bubblewrap")


def _class_results() -> list[Result]:
    """Six GitHub users: five on the roster (``bochen`` spelt in another case than the
    roster's ``BoChen``), ``faynz`` on the roster but not in Canvas, ``zed-x`` on neither;
    ``cyito``'s 02_random is invalid; ``ada-l`` also left an ``Untitled`` notebook."""
    return [
        _graded("ada-l", "01_arrays", _q("q1", 10, 10), _q("q2", 5, 10)),
        _graded("ada-l", "02_random", _q("r1", 10, 10)),
        _graded("ada-l", "09_transformers", _q("t1", 5, 10)),
        Result("ada-l", "Untitled", "ada-l/Untitled.ipynb", status="invalid",
               message="unknown assignment 'Untitled'", isolation="bubblewrap"),
        _graded("bochen", "01_arrays", _q("q1", 10, 10), _q("q2", 2, 10)),
        _graded("cyito", "01_arrays", _q("q1", 10, 10), _q("q2", 10, 10)),
        Result("cyito", "02_random", "cyito/02_random.ipynb", status="invalid",
               message="not a notebook (JSON)", isolation="bubblewrap"),
        _graded("evemoss", "01_arrays", _q("q1", 5, 10), _q("q2", 0, 10)),
        _graded("faynz", "01_arrays", _q("q1", 10, 10), _q("q2", 10, 10)),
        _graded("zed-x", "01_arrays", _q("q1", 0, 10), _q("q2", 0, 10)),
    ]


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return list(csv.reader(fh))


def canvas_import(original: Path, upload: Path) -> dict[tuple[str, str], str]:
    """What Canvas's gradebook import would change, by the rules its documentation gives:
    the file's first columns are Student and ID, Section closes the student columns; a row
    is a student found by ID (then SIS User ID, then SIS Login ID); a column is an existing
    assignment when its heading is that assignment's ``Title (id)`` (any other heading would
    create a new assignment, refused here); read-only columns are ignored; rows with no
    student (Points Possible, Manual Posting) are not students. Returns {(Canvas ID, column):
    new value} for every cell that differs from the gradebook, and fails on any student or
    column Canvas would not find."""
    before, after = _rows(original), _rows(upload)
    head_before, head_after = before[0], after[0]
    assert head_after[:2] == ["Student", "ID"], "Canvas wants Student and ID first"
    last_identity = max(i for i, h in enumerate(head_after) if h in IDENTITY)
    assert head_after[last_identity] == "Section", "Section closes the student columns"
    points = next(r for r in before if r[0].strip() == "Points Possible")
    read_only = {head_before[i] for i, c in enumerate(points) if c == "(read only)"}
    columns = [h for h in head_after[last_identity + 1:] if h not in read_only]
    for h in columns:
        assert TITLE_ID.match(h) and h in head_before, f"{h!r} would create a new assignment"
    by_id = {r[1]: dict(zip(head_before, r, strict=True)) for r in before[1:] if r[1].strip()}
    changes = {}
    for row in after[1:]:
        cells = dict(zip(head_after, row, strict=True))
        if not cells["ID"].strip():
            assert cells["Student"].strip() in ("Points Possible", ""), cells
            continue
        assert cells["ID"] in by_id, f"Canvas finds no student with ID {cells['ID']}"
        old = by_id[cells["ID"]]
        for h in columns:
            if cells[h] != old[h]:
                float(cells[h])  # a score Canvas can read
                changes[(cells["ID"], h)] = cells[h]
    return changes


def _classroom(**parts) -> Classroom:
    return Classroom(roster=read_roster(CLASSROOM / "roster-emails.csv"),
                     canvas=read_canvas_gradebook(CANVAS_MANUAL_POSTING),
                     canvas_columns=read_column_map(CLASSROOM / "canvas-columns.csv"), **parts)


def test_canvas_export_reimports_into_the_same_columns_scaled_to_points(tmp_path: Path):
    """From the roster and a Canvas export with a Manual Posting row, an Integration ID, a
    Test Student and read-only totals: does Canvas's import find every matched student by
    ID and every course column as an existing assignment, changing exactly the course's
    cells (scaled to each column's points possible: 15/20 stays 15, 10/10 stays 10, a mapped
    column included), leaving the unmatched, ungraded and other cells as they were?"""
    write_reports(_class_results(), tmp_path, exports=["canvas"], classroom=_classroom())
    changes = canvas_import(CANVAS_MANUAL_POSTING, tmp_path / "grades-canvas.csv")
    lab1, lab2, capstone = ("Lab 1: Arrays (51201)", "Lab 2 - Random numbers (51202)",
                            "Capstone notebook (51209)")
    assert changes == {("7301", lab1): "15", ("7301", lab2): "10", ("7301", capstone): "5",
                       ("7303", lab1): "20", ("7305", lab1): "5"}
    rows = _rows(tmp_path / "grades-canvas.csv")
    # the read-only totals stay as Canvas wrote them (its import ignores them)
    assert rows[0] == _rows(CANVAS_MANUAL_POSTING)[0]
    assert rows[1][6] == "Manual Posting" and rows[2][0].strip() == "Points Possible"
    assert [r[0] for r in rows[3:]] == ["Lovelace, Ada", "Chen, Bo", "Ito, Cy", "Okafor, Dee",
                                        "Moss, Eve"]  # the Test Student has no row
    assert not any("Untitled" in h or h == "01_arrays" for h in rows[0])


def test_scaling_to_points_possible_and_matching_by_sis_user_id(tmp_path: Path):
    """With a roster of student numbers and a Canvas export whose 01 Arrays is out of 100
    and 02_random out of 50 (no Integration ID, no Manual Posting): are students found by
    SIS User ID, 15/20 written as 75 and 10/10 as 50, and the unmatched left out?"""
    classroom = Classroom(roster=read_roster(CLASSROOM / "roster-student-numbers.csv"),
                          canvas=read_canvas_gradebook(CANVAS_PLAIN))
    write_reports(_class_results(), tmp_path, exports=["canvas"], classroom=classroom)
    changes = canvas_import(CANVAS_PLAIN, tmp_path / "grades-canvas.csv")
    assert changes == {("7301", "01 Arrays (880)"): "75", ("7301", "02_random (881)"): "50",
                       ("7302", "01 Arrays (880)"): "60", ("7303", "01 Arrays (880)"): "100"}
    unmatched = _rows(tmp_path / "unmatched.csv")
    assert unmatched[0] == ["student", "export", "reason"]
    assert {(r[0], r[2]) for r in unmatched[1:]} == {
        ("evemoss", "not in the roster"), ("faynz", "not in the roster"),
        ("zed-x", "not in the roster")}


def test_moodle_export_is_keyed_by_roster_email_and_names_only_roster_students(tmp_path: Path):
    """Is grades-moodle.csv headed ``Email address`` (what Moodle's "Identify user by" maps
    from), one row per student on the roster with their e-mail, one column per course
    assignment (no Untitled), and ``zed-x`` (on no roster) only in unmatched.csv?"""
    write_reports(_class_results(), tmp_path, exports=["canvas", "moodle"],
                  classroom=_classroom())
    rows = _rows(tmp_path / "grades-moodle.csv")
    assert rows[0] == ["Email address", "01_arrays", "02_random", "09_transformers"]
    assert rows[1:] == [["ada.lovelace@uni.example", "15", "10", "5"],
                        ["bo.chen@uni.example", "12", "", ""],
                        ["cy.ito@uni.example", "20", "", ""],
                        ["eve.moss@uni.example", "5", "", ""],
                        ["fay.nunez@uni.example", "20", "", ""]]
    unmatched = _rows(tmp_path / "unmatched.csv")[1:]
    assert unmatched == [["faynz", "canvas", "fay.nunez@uni.example is in no Canvas row "
                          "(ID, SIS User ID, SIS Login ID or name)"],
                         ["zed-x", "canvas", "not in the roster"],
                         ["zed-x", "moodle", "not in the roster"]]
    summary = (tmp_path / "summary.md").read_text()
    assert "## Left out of the gradebook imports" in summary
    assert "- faynz (canvas): fay.nunez@uni.example is in no Canvas row" in summary


def test_moodle_export_says_id_number_when_identifiers_are_not_emails(tmp_path: Path):
    """With a roster of student numbers, is the key column ``ID number``?"""
    classroom = Classroom(roster=read_roster(CLASSROOM / "roster-student-numbers.csv"))
    write_reports(_class_results(), tmp_path, exports=["moodle"], classroom=classroom)
    rows = _rows(tmp_path / "grades-moodle.csv")
    assert rows[0][0] == "ID number"
    assert [r[0] for r in rows[1:]] == ["20230001", "20230002", "20230003"]


def test_two_github_users_on_one_canvas_student_are_both_left_out(tmp_path: Path):
    """When a roster links two GitHub accounts to identifiers Canvas resolves to one person
    (an e-mail in SIS Login ID, the same person's SIS User ID), is neither written, so that
    no one's grade lands on the wrong person?"""
    roster = tmp_path / "roster.csv"
    roster.write_text("identifier,github_username,github_id,name\n"
                      "ada.lovelace@uni.example,ada-l,1,Ada\nS0001,ada-alt,2,Ada again\n")
    classroom = Classroom(roster=read_roster(roster),
                          canvas=read_canvas_gradebook(CANVAS_MANUAL_POSTING))
    results = [_graded("ada-l", "01_arrays", _q("q1", 10, 10)),
               _graded("ada-alt", "01_arrays", _q("q1", 0, 10))]
    out = tmp_path / "out"
    out.mkdir()
    write_reports(results, out, exports=["canvas"], classroom=classroom)
    assert canvas_import(CANVAS_MANUAL_POSTING, out / "grades-canvas.csv") == {}
    assert sorted(r[0] for r in _rows(out / "unmatched.csv")[1:]) == ["ada-alt", "ada-l"]


def test_assignment_no_canvas_title_names_is_reported_not_created(tmp_path: Path):
    """Without the column map, is 09_transformers (whose Canvas column is titled Capstone)
    left out with a note in summary.md, instead of a new column Canvas would create?"""
    classroom = Classroom(roster=read_roster(CLASSROOM / "roster-emails.csv"),
                          canvas=read_canvas_gradebook(CANVAS_MANUAL_POSTING))
    write_reports(_class_results(), tmp_path, exports=["canvas"], classroom=classroom)
    changes = canvas_import(CANVAS_MANUAL_POSTING, tmp_path / "grades-canvas.csv")
    assert not any(column.startswith("Capstone") for _, column in changes)
    assert "09_transformers: no Canvas assignment's title names it" in \
        (tmp_path / "summary.md").read_text()


@pytest.mark.parametrize("name, text, message", [
    ("roster-no-username.csv", "identifier,name\nx@y.z,X\n", "no github_username column"),
    ("roster-duplicate.csv", "identifier,github_username,github_id,name\na,u1,1,A\nb,U1,2,B\n",
     "line 3: GitHub user U1 is also on line 2"),
])
def test_bad_roster_is_refused_with_line_and_reason(tmp_path: Path, name: str, text: str,
                                                    message: str):
    """Is a roster without a github_username column, or with one GitHub user twice, refused
    with a message naming the problem (and line)?"""
    (tmp_path / name).write_text(text)
    with pytest.raises(ValueError, match=message):
        read_roster(tmp_path / name)


def test_not_a_canvas_export_is_refused(tmp_path: Path):
    """Is a file that does not start with Canvas's Student and ID columns refused?"""
    shutil.copy(CLASSROOM / "roster-emails.csv", tmp_path / "x.csv")
    with pytest.raises(ValueError, match="expected Canvas's export"):
        read_canvas_gradebook(tmp_path / "x.csv")


@pytest.mark.parametrize("row, message", [
    ("ada-l,01_arrays,,ten,typo", "the score 'ten' is not a number"),
    ("ada-l,01_arrays,,-1,typo", "the score -1 must be a number >= 0"),
    ("ada-l,01_arrays,,3,", "the reason is empty"),
])
def test_bad_override_is_refused(tmp_path: Path, row: str, message: str):
    """Is an override with a score that is not a number, a negative one, or no reason
    refused, naming the line?"""
    path = tmp_path / "overrides.csv"
    path.write_text(f"student,assignment,question,score,reason\n{row}\n")
    with pytest.raises(ValueError, match=f"line 2: {message}"):
        read_overrides(path)


def test_overrides_by_username_or_identifier_change_scores_and_keep_originals():
    """Does a question override (by GitHub username, in another case) set that question and
    the total, does a whole-assignment override (by roster e-mail) grade an invalid
    submission, is one for an unknown question reported, and are the results given left
    as the grader found them?"""
    results = _class_results()
    overrides = read_overrides(CLASSROOM / "overrides.csv") + [
        Override("ada-l", "01_arrays", "q9", 1, "typo")]
    shown, applied, problems = apply_overrides(results, overrides,
                                               read_roster(CLASSROOM / "roster-emails.csv"))
    scores = {(r.student, r.assignment): (r.score, r.status) for r in shown}
    assert scores[("bochen", "01_arrays")] == (13, "graded")
    assert scores[("cyito", "02_random")] == (8, "graded")
    assert [(a.student, a.question, a.old, a.new) for a in applied] == [
        ("bochen", "q2", 2, 3), ("cyito", "", None, 8)]
    assert problems == ["ada-l · 01_arrays · q9: no such question (the submission has q1, q2)"]
    assert {(r.student, r.assignment): r.score for r in results}[("bochen", "01_arrays")] == 12


def test_overrides_reach_every_export_and_the_summary(tmp_path: Path):
    """With the overrides applied, do grades.csv, the Canvas and the Moodle exports all show
    13 for bochen's 01_arrays and 8 (out of Canvas's 10) for cyito's 02_random, and does
    summary.md list both with their reasons? Canvas already holds 12 for bochen: without
    --replace-lms-scores that cell is kept and listed (kept-in-lms.csv), with it, 13."""
    roster = read_roster(CLASSROOM / "roster-emails.csv")
    shown, applied, problems = apply_overrides(
        _class_results(), read_overrides(CLASSROOM / "overrides.csv"), roster)
    write_reports(shown, tmp_path, exports=["canvas"],
                  classroom=_classroom(applied=applied, override_problems=problems))
    assert ("7302", "Lab 1: Arrays (51201)") not in canvas_import(
        CANVAS_MANUAL_POSTING, tmp_path / "grades-canvas.csv")
    assert ["bochen", "canvas", "01_arrays", "12.00", "13"] in [
        r[:5] for r in _rows(tmp_path / "kept-in-lms.csv")]
    write_reports(shown, tmp_path, exports=["canvas", "moodle"],
                  classroom=_classroom(applied=applied, override_problems=problems,
                                       replace_scores=True))
    assert not (tmp_path / "kept-in-lms.csv").exists()
    grades = {(r[0], r[1]): r[2] for r in _rows(tmp_path / "grades.csv")[1:]}
    assert grades[("bochen", "01_arrays")] == "13" and grades[("cyito", "02_random")] == "8"
    changes = canvas_import(CANVAS_MANUAL_POSTING, tmp_path / "grades-canvas.csv")
    assert changes[("7302", "Lab 1: Arrays (51201)")] == "13"
    assert changes[("7303", "Lab 2 - Random numbers (51202)")] == "8"
    moodle = {r[0]: r[1:] for r in _rows(tmp_path / "grades-moodle.csv")[1:]}
    assert moodle["bo.chen@uni.example"][0] == "13" and moodle["cy.ito@uni.example"][1] == "8"
    summary = (tmp_path / "summary.md").read_text()
    assert ("- bochen · 01_arrays · q2: 2 → 3 (regrade request: the shape check was too "
            "strict)") in summary
    assert "- cyito · 02_random: — → 8 (handed in by e-mail after a Colab outage)" in summary


def test_unknown_notebook_never_becomes_an_export_column(tmp_path: Path):
    """Without roster or Canvas export, is ada-l's Untitled.ipynb (an unknown assignment,
    invalid) in grades.csv and summary.md but a column of neither export?"""
    write_reports(_class_results(), tmp_path, exports=["canvas", "moodle"])
    assert _rows(tmp_path / "grades-canvas.csv")[0][5:] == [
        "01_arrays", "02_random", "09_transformers"]
    assert _rows(tmp_path / "grades-moodle.csv")[0] == [
        "username", "01_arrays", "02_random", "09_transformers"]
    assert ["ada-l", "Untitled", "0", "0", "invalid", "unknown assignment 'Untitled'"] in \
        [r[:6] for r in _rows(tmp_path / "grades.csv")]
    assert "Untitled" in (tmp_path / "summary.md").read_text()
