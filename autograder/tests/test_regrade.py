"""Tests of autograder.grader.regrade: one student, one assignment or one question graded again
into a term's results folder (shards merged, overrides, exports, the folder's gradebook),
every other row, override and export cell kept, the changes listed, the manifest signed
again; and ``grade --out`` into earlier results refused. Earlier results are synthetic; the
regrades run the tiny fixture course's notebooks."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.grader.regrade import combine
from autograder.grader.result import QuestionResult, Result
from autograder.tests.conftest import FIXTURES

SOURCE = FIXTURES / "course"
KEY = "term-results-key-for-tests"
CASES = {"ann": "correct", "bob": "partial", "cy": "empty-stub", "dee": "correct"}


def _q(qid: str, score: float, points: float) -> QuestionResult:
    passed = score == points
    return QuestionResult(qid, score, points, "passed" if passed else "failed",
                          "" if passed else "AssertionError: wrong")


def _result(student: str, q1: float, q2: float) -> Result:
    return Result(student, "00_tiny", f"{student}/exercises/00_tiny.ipynb", q1 + q2, 5,
                  questions=[_q("q1_double", q1, 2), _q("q2_set_first", q2, 3)],
                  isolation="bubblewrap")


def _submissions(folder: Path) -> Path:
    """fetch's layout: ``<user>/exercises/00_tiny.ipynb`` and its record at the top."""
    for student, case in CASES.items():
        (folder / student / "exercises").mkdir(parents=True)
        shutil.copy(FIXTURES / "submissions" / f"{case}.ipynb",
                    folder / student / "exercises" / "00_tiny.ipynb")
    (folder / "fetched.csv").write_text("student,repository,commit,notebooks\n")
    return folder


def _term(tmp_path: Path, earlier: dict[str, tuple[float, float]], monkeypatch,
          *extra: str) -> Path:
    """The term's results: two signed shards of synthetic results merged with an overrides
    file and both exports (and the folder's own gradebook, or the one ``extra`` names)."""
    from autograder.grader.judging.manifest import write_manifest

    monkeypatch.setenv("LEARN_JAX_RESULTS_KEY", KEY)
    students = sorted(earlier)
    for shard, names in (("shard1", students[::2]), ("shard2", students[1::2])):
        for name in names:
            _result(name, *earlier[name]).write(tmp_path / shard)
        write_manifest(tmp_path / shard, [(n, "00_tiny") for n in names], KEY.encode())
    overrides = tmp_path / "overrides.csv"
    overrides.write_text("student,assignment,question,score,reason\n"
                         "cy,00_tiny,,4,handed in by e-mail\n"
                         "ann,00_tiny,q2_set_first,2,late penalty\n")
    results = tmp_path / "results"
    assert main(["merge", str(tmp_path / "shard1"), str(tmp_path / "shard2"), "--out",
                 str(results), "--source", str(SOURCE), "--export", "canvas,moodle",
                 "--overrides", str(overrides), *extra]) == 0
    return results


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return list(csv.reader(fh))


def _files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _regrade(results: Path, subs: Path, *extra: str) -> int:
    return main(["regrade", str(results), "--submissions", str(subs), "--source", str(SOURCE),
                 "--no-feedback", *extra])


def test_combine_changes_only_the_regraded_question() -> None:
    """Does a question regrade take that question's verdict from the new grading and keep the
    other question's earlier score (even where the new grading found otherwise), while a
    whole regrade takes the new result, a new grading that failed keeps the earlier result,
    and a submission never graded before takes the new one?"""
    earlier, new = _result("ann", 0, 3), _result("ann", 2, 0)
    kept, note = combine(earlier, new, "q1_double")
    assert note == "" and kept.score == 5
    assert [(q.id, q.score, q.status) for q in kept.questions] == [
        ("q1_double", 2, "passed"), ("q2_set_first", 3, "passed")]
    assert "Question q1_double was regraded alone" in kept.message
    assert combine(earlier, new, None) == (new, "")
    broken = Result("ann", "00_tiny", "x", status="invalid", message="not valid JSON")
    kept, note = combine(earlier, broken, "q1_double")
    assert kept is earlier and "not valid JSON" in note
    kept, note = combine(None, new, "q1_double")
    assert kept is new and "no earlier graded result" in note


def test_grade_into_earlier_results_is_refused_and_changes_nothing(tmp_path: Path,
                                                                   monkeypatch,
                                                                   capsys) -> None:
    """Does `grade` of one student's notebook with --out at the term's results (the testers'
    mistake that shrank grades.csv to one row) stop before grading, leave every file of the
    folder byte for byte, and point to regrade; and does the same command into a fresh
    folder pass this check (it refuses only dropping earlier rows)?"""
    results = _term(tmp_path, {"ann": (2, 3), "bob": (0, 0), "cy": (0, 0)}, monkeypatch)
    subs = _submissions(tmp_path / "subs")
    before = _files(results)
    monkeypatch.setenv("LEARN_JAX_NO_SANDBOX", "1")  # so that nothing could be graded
    args = [str(subs / "bob" / "exercises" / "00_tiny.ipynb"), "--source", str(SOURCE),
            "--require-sandbox"]
    status = main(["grade", *args, "--out", str(results)])
    err = capsys.readouterr().err
    assert status == 2 and "holds earlier results of 2 submission(s)" in err
    assert "python -m autograder regrade" in err
    assert _files(results) == before
    # into a folder with nothing earlier, it goes on (to the sandbox that is not there)
    assert main(["grade", *args, "--out", str(tmp_path / "fresh")]) == 2
    err = capsys.readouterr().err
    assert "--require-sandbox" in err and "earlier results" not in err


def test_regrade_refuses_bad_requests_before_grading(tmp_path: Path, monkeypatch,
                                                     capsys) -> None:
    """Are a student given as a path into another's folder, an unknown question, a question
    without its assignment, nothing to regrade, a signed folder without the key (it would
    lose its signature) and a results folder edited after grading each refused (exit 2, the
    folder unchanged)?"""
    results = _term(tmp_path, {"ann": (2, 3), "bob": (0, 0)}, monkeypatch)
    subs = _submissions(tmp_path / "subs")
    before = _files(results)
    for extra, why in ((["--student", "bob/exercises/../ann"], "not a student name"),
                       (["--student", "../subs/ann"], "not a student name"),
                       (["--student", "zed"], "no folder zed"),
                       (["--assignment", "00_tiny", "--question", "q9"], "has no question"),
                       (["--student", "ann", "--question", "q1_double"], "needs --assignment"),
                       ([], "say what to regrade")):
        monkeypatch.setenv("LEARN_JAX_RESULTS_KEY", KEY)
        assert _regrade(results, subs, *extra) == 2, extra
        assert why in capsys.readouterr().err, extra
    assert _files(results) == before
    monkeypatch.delenv("LEARN_JAX_RESULTS_KEY", raising=False)  # (regrade took it)
    assert _regrade(results, subs, "--student", "bob") == 2
    assert "manifest.json is signed: set LEARN_JAX_RESULTS_KEY" in capsys.readouterr().err
    assert _files(results) == before
    path = results / "ann" / "00_tiny" / "result.json"
    path.write_text(path.read_text().replace('"score": 5', '"score": 4'))
    monkeypatch.setenv("LEARN_JAX_RESULTS_KEY", KEY)
    assert _regrade(results, subs, "--student", "bob") == 2
    assert "was changed after grading" in capsys.readouterr().err


@pytest.mark.slow
def test_regrade_one_student_keeps_every_other_row_override_and_cell(
        tmp_path: Path, monkeypatch, capsys) -> None:
    """Regrading bob (fetch's layout; graded 0/5 before, his notebook scores 3/5 now) into a
    merge of two signed shards with overrides and both exports: does only bob's row, his
    export cells and his gradebook entry change, every other row, hand-set score and export
    cell stay as they were, the change show in the terminal (per question too) and in
    changes.csv, and the folder's manifest verify with the key, so that a later merge takes
    it?"""
    from autograder.grader.judging.manifest import verify
    from autograder.grader.merge import merge

    earlier = {"ann": (2, 3), "bob": (0, 0), "cy": (0, 0), "dee": (2, 3)}
    results = _term(tmp_path, earlier, monkeypatch)
    subs = _submissions(tmp_path / "subs")
    grades, canvas = _rows(results / "grades.csv"), _rows(results / "grades-canvas.csv")
    moodle, kept = _rows(results / "grades-moodle.csv"), (results / "overrides.csv").read_text()
    others = {p: p.read_bytes() for p in results.glob("*/00_tiny/*") if "bob" not in p.parts}
    capsys.readouterr()

    assert _regrade(results, subs, "--student", "bob") == 0
    out = capsys.readouterr().out
    assert "bob · 00_tiny: 0 → 3" in out
    assert "bob · 00_tiny · q2_set_first: 0 → 3 (failed → passed)" in out
    assert "bob · 00_tiny · q1_double: 0 → 0 (failed → failed)" not in out

    def changed(before: list[list[str]], after: list[list[str]]) -> set[tuple[str, int]]:
        assert len(before) == len(after) and [len(r) for r in before] == [len(r) for r in after]
        return {(a[0], i) for b, a in zip(before, after, strict=True)
                for i, (x, y) in enumerate(zip(b, a, strict=True)) if x != y}

    # bob's score, message and final_score (what the exports write): nothing else
    assert changed(grades, _rows(results / "grades.csv")) == {("bob", 2), ("bob", 5), ("bob", 6)}
    column = canvas[0].index("00_tiny")
    assert changed(canvas, _rows(results / "grades-canvas.csv")) == {("bob", column)}
    assert changed(moodle, _rows(results / "grades-moodle.csv")) == {("bob", 1)}
    rows = {r[0]: r for r in _rows(results / "grades.csv")}
    assert rows["bob"][2] == "3" and rows["ann"][2] == "4" and rows["cy"][2] == "4"
    assert (results / "overrides.csv").read_text() == kept
    assert _rows(results / "changes.csv") == [
        ["student", "assignment", "old_score", "new_score"], ["bob", "00_tiny", "0", "3"]]
    assert {p: p.read_bytes() for p in results.glob("*/00_tiny/*")
            if "bob" not in p.parts} == others
    bob = json.loads((results / "bob" / "00_tiny" / "result.json").read_text())
    assert bob["student"] == "bob" and bob["submission"].endswith("exercises/00_tiny.ipynb")

    assert set(verify(results, KEY.encode())) == {
        f"{s}/00_tiny/result.json" for s in earlier}
    merged = merge([results], tmp_path / "later", KEY.encode())
    assert sorted((r.student, r.score) for r in merged) == [
        ("ann", 5), ("bob", 3), ("cy", 0), ("dee", 5)]
    from autograder.tests.test_decisions import _gradebook

    book = _gradebook(f"sqlite:///{results / 'gradebook.db'}")
    assert book[("bob", "q2_set_first_tests")][0] == 3
    assert book[("ann", "q2_set_first_tests")] == (3, 2)  # the override, still there


@pytest.mark.slow
def test_question_regrade_for_everyone_changes_only_that_question(
        tmp_path: Path, monkeypatch, capsys, postgres_url: str) -> None:
    """Regrading question q2_set_first of 00_tiny for everyone, where the earlier results
    (synthetic) gave q1 scores the notebooks would not get now, with a PostgreSQL gradebook:
    does each student's q2 come from the new grading and q1 stay as it was, in result.json,
    grades.csv and the gradebook (the hand-set score there kept), and a student with a folder
    but no earlier result get their whole new result?"""
    from autograder.tests.conftest import fresh_database
    from autograder.tests.test_decisions import _gradebook

    db = fresh_database(postgres_url, "regrade")
    earlier = {"ann": (0, 0), "bob": (2, 0)}
    results = _term(tmp_path, earlier, monkeypatch, "--db", db)
    subs = _submissions(tmp_path / "subs")
    shutil.rmtree(subs / "cy")
    shutil.rmtree(subs / "dee")
    (subs / "eve" / "exercises").mkdir(parents=True)
    shutil.copy(FIXTURES / "submissions" / "partial.ipynb", subs / "eve" / "exercises"
                / "Copy of 00_tiny.ipynb")
    capsys.readouterr()
    assert _regrade(results, subs, "--assignment", "00_tiny", "--question",
                    "q2_set_first", "--db", db) == 0
    out = capsys.readouterr().out

    def questions(student: str) -> list[tuple[str, float, str]]:
        data = json.loads((results / student / "00_tiny" / "result.json").read_text())
        return [(q["id"], q["score"], q["status"]) for q in data["questions"]]

    assert questions("ann") == [("q1_double", 0, "failed"), ("q2_set_first", 3, "passed")]
    assert questions("bob") == [("q1_double", 2, "passed"), ("q2_set_first", 3, "passed")]
    assert questions("eve")[1] == ("q2_set_first", 3, "passed")
    assert "eve · 00_tiny: no earlier graded result to keep" in out
    assert "ann · 00_tiny · q1_double" not in out and "bob · 00_tiny · q1_double" not in out
    rows = {r[0]: r[2] for r in _rows(results / "grades.csv")[1:]}
    assert rows == {"ann": "2", "bob": "5", "cy": "4", "eve": "3"}  # ann: her q2 override
    book = _gradebook(db)
    assert book[("ann", "q1_double_tests")] == (0, None)
    assert book[("ann", "q2_set_first_tests")] == (3, 2)  # the override stays on top
    assert book[("bob", "q1_double_tests")] == (2, None)
    assert book[("bob", "q2_set_first_tests")] == (3, None)
    assert book[("eve", "q2_set_first_tests")] == (3, None)


def test_an_export_built_from_the_lms_files_is_not_rewritten_without_them(
        tmp_path: Path) -> None:
    """Would a regrade without --canvas-gradebook rewrite a Canvas file that was built from
    the course's Canvas export (it holds Canvas user IDs), or without --roster a Moodle file
    keyed by the roster? Both are refused, naming the option; the plain files are not."""
    from autograder.grader.classroom.decisions import Inputs
    from autograder.grader.regrade import _export_needs

    (tmp_path / "grades-canvas.csv").write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Lab 0 (7)\n"
        "Points Possible,,,,,5\nAda Lovelace,1001,,ada,S1,5\n", encoding="utf-8")
    (tmp_path / "grades-moodle.csv").write_text("Email address,00_tiny\nada@uni.example,5\n")
    assert "--canvas-gradebook" in _export_needs(tmp_path, ["canvas"], Inputs())
    assert "--roster" in _export_needs(tmp_path, ["moodle"], Inputs())
    (tmp_path / "grades-canvas.csv").write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,00_tiny\n"
        "Points Possible,,,,,5\nada,,,ada,,5\n", encoding="utf-8")
    (tmp_path / "grades-moodle.csv").write_text("username,00_tiny\nada,5\n")
    assert _export_needs(tmp_path, ["canvas", "moodle"], Inputs()) == ""
