"""Tests of autograder.grader.classroom.decisions: hand-set scores (``--overrides``) and manual
scores in the gradebook survive merges and regrades, in every output and in a real PostgreSQL
gradebook (synthetic results of the tiny fixture course; no notebook is run)."""

from __future__ import annotations

import csv
from pathlib import Path

from autograder.__main__ import main
from autograder.grader.result import QuestionResult, Result
from autograder.tests.conftest import FIXTURES, fresh_database

SOURCE = FIXTURES / "course"
HEADER = "student,assignment,question,score,reason\n"


def _shard(folder: Path) -> Path:
    """A results folder as `grade` leaves it: ann 1/5 (q1 failed), ben 5/5, cat invalid."""
    def q(qid: str, score: float, points: float) -> QuestionResult:
        return QuestionResult(qid, score, points, "passed" if score == points else "failed",
                              "" if score == points else "AssertionError: wrong")

    for r in (Result("ann", "00_tiny", "ann/00_tiny.ipynb", 1, 5,
                     questions=[q("q1_double", 0, 2), q("q2_set_first", 1, 3)],
                     isolation="bubblewrap"),
              Result("ben", "00_tiny", "ben/00_tiny.ipynb", 5, 5,
                     questions=[q("q1_double", 2, 2), q("q2_set_first", 3, 3)],
                     isolation="bubblewrap"),
              Result("cat", "00_tiny", "cat/00_tiny.ipynb", status="invalid",
                     message="not a notebook (JSON)", isolation="bubblewrap")):
        r.write(folder)
    return folder


def _grades(out: Path) -> dict[str, tuple[str, str]]:
    with open(out / "grades.csv", newline="") as fh:
        return {r["student"]: (r["score"], r["status"]) for r in csv.DictReader(fh)}


def _gradebook(url: str) -> dict[tuple[str, str], tuple[float, float | None]]:
    """(student, grade cell) -> (auto_score, manual_score) in the gradebook at ``url``."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sqlalchemy.text(
                "select s.student_id, g.cell_id, g.auto_score, g.manual_score from grade g "
                "join submitted_notebook n on g.notebook_id = n.id "
                "join submitted_assignment s on n.assignment_id = s.id")).all()
            cells = dict(conn.execute(sqlalchemy.text(
                "select c.id, b.name from grade_cells c join base_cell b on b.id = c.id")).all())
    finally:
        engine.dispose()
    return {(s, cells[c]): (a, m) for s, c, a, m in rows}


def _set_manual(url: str, student: str, cell: str, score: float) -> None:
    """Set a manual score the way formgrader does: on the grade row itself."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(sqlalchemy.text(
                "update grade set manual_score = :score where id = (select g.id from grade g "
                "join base_cell c on g.cell_id = c.id "
                "join submitted_notebook n on g.notebook_id = n.id "
                "join submitted_assignment s on n.assignment_id = s.id "
                "where s.student_id = :student and c.name = :cell)"),
                {"score": score, "student": student, "cell": cell})
    finally:
        engine.dispose()


def test_overrides_survive_a_regrade_without_the_option(tmp_path: Path) -> None:
    """Merged with --overrides, then merged again into the same folder without it: are the
    hand-set scores (ann's q1 raised to 2, cat's invalid submission given 4) in grades.csv
    both times, kept as overrides.csv, listed with reasons, and does the regrade report no
    changed score?"""
    shard, out = _shard(tmp_path / "shard"), tmp_path / "out"
    overrides = tmp_path / "decisions.csv"
    overrides.write_text(HEADER + "ann,00_tiny,q1_double,2,counted the transposed answer\n"
                         "cat,00_tiny,,4,re-submitted by e-mail\n")
    args = ["merge", str(shard), "--out", str(out), "--source", str(SOURCE)]
    assert main([*args, "--overrides", str(overrides)]) == 0
    assert _grades(out) == {"ann": ("3", "graded"), "ben": ("5", "graded"),
                            "cat": ("4", "graded")}
    assert (out / "overrides.csv").read_text() == overrides.read_text()
    assert main(args) == 0
    assert _grades(out)["ann"] == ("3", "graded") and _grades(out)["cat"] == ("4", "graded")
    summary = (out / "summary.md").read_text()
    assert "No score changed since the previous grading." in summary
    assert "- ann · 00_tiny · q1_double: 0 → 2 (counted the transposed answer)" in summary
    assert "- cat · 00_tiny: — → 4 (re-submitted by e-mail)" in summary
    assert (shard / "ann" / "00_tiny" / "result.json").read_text().count('"score": 1') == 2


def test_bad_overrides_file_stops_before_anything_is_written(tmp_path: Path, capsys) -> None:
    """Is an overrides file with a non-numeric score refused (exit 2, line named) before
    merge writes grades.csv?"""
    shard, out = _shard(tmp_path / "shard"), tmp_path / "out"
    overrides = tmp_path / "o.csv"
    overrides.write_text(HEADER + "ann,00_tiny,,full marks,kind\n")
    assert main(["merge", str(shard), "--out", str(out), "--source", str(SOURCE),
                 "--overrides", str(overrides)]) == 2
    assert "line 2: the score 'full marks' is not a number" in capsys.readouterr().err
    assert not (out / "grades.csv").exists()


def test_manual_scores_in_postgres_are_never_erased(tmp_path: Path, postgres_url: str) -> None:
    """In a real PostgreSQL gradebook: does a merge write the override as nbgrader's
    manual_score (auto_score untouched), does a manual score set afterwards in the gradebook
    (ben's q2 to 1.5, as formgrader would) survive the next merge, and do grades.csv and the
    summary then show it?"""
    url = fresh_database(postgres_url, "decisions")
    shard, out = _shard(tmp_path / "shard"), tmp_path / "out"
    overrides = tmp_path / "decisions.csv"
    overrides.write_text(HEADER + "ann,00_tiny,q1_double,2,counted the transposed answer\n")
    args = ["merge", str(shard), "--out", str(out), "--source", str(SOURCE), "--db", url]
    assert main([*args, "--overrides", str(overrides)]) == 0
    book = _gradebook(url)
    assert book[("ann", "q1_double_tests")] == (0, 2)
    assert book[("ann", "q2_set_first_tests")] == (1, None)
    _set_manual(url, "ben", "q2_set_first_tests", 1.5)
    assert main(args) == 0
    book = _gradebook(url)
    assert book[("ben", "q2_set_first_tests")] == (3, 1.5)
    assert book[("ann", "q1_double_tests")] == (0, 2)
    assert _grades(out)["ben"] == ("3.5", "graded") and _grades(out)["ann"] == ("3", "graded")
    summary = (out / "summary.md").read_text()
    assert "- ben · 00_tiny · q2_set_first: 3 → 1.5 (manual score in the gradebook)" in summary
    assert "- ben · 00_tiny: 5 → 3.5" in summary  # the regrade's changes


def test_merge_decides_by_the_term_file_and_time(tmp_path: Path, capsys) -> None:
    """Through ``merge`` (as ``grade`` ends): with ``--term`` and ``--now``, is a notebook
    left as released given nothing in the Moodle import before the due time and the term's
    ``missing`` points after it, with the graded learner's score the same both times; and do
    an unknown ``--assignments`` name and a bad term file stop the run (exit 2) naming what is
    wrong, the term file's line included?"""
    shard = _shard(tmp_path / "shard")
    Result("dan", "00_tiny", "dan/00_tiny.ipynb", max_score=5, status="not_submitted",
           message="left as released", isolation="bubblewrap").write(shard)
    term = tmp_path / "term.toml"
    term.write_text("[assignment.00_tiny]\ndue = 2026-03-01T23:59:00+01:00\nmissing = 0\n")

    def moodle(now: str) -> dict[str, list[str]]:
        out = tmp_path / f"out-{now[:10]}"
        assert main(["merge", str(shard), "--out", str(out), "--source", str(SOURCE),
                     "--export", "moodle", "--term", str(term), "--now", now]) == 0
        if not (out / "grades-moodle.csv").exists():
            assert "give Moodle's own export (--moodle-gradebook)" in (
                out / "summary.md").read_text()
            return {}
        with open(out / "grades-moodle.csv", newline="") as fh:
            return {r[0]: r[1:] for r in list(csv.reader(fh))[1:]}

    assert moodle("2026-02-20T12:00:00+01:00") == {"ann": ["1"], "ben": ["5"], "cat": [""],
                                                   "dan": [""]}
    # after the due time the term writes dan's 0: without Moodle's export that could write
    # over a score typed into Moodle, so the import is refused
    assert moodle("2026-03-05T12:00:00+01:00") == {}
    capsys.readouterr()
    out = str(tmp_path / "bad")
    assert main(["merge", str(shard), "--out", out, "--source", str(SOURCE),
                 "--assignments", "99_nope"]) == 2
    term.write_text("[assignment.00_tiny]\n\ndue = 2026-03-01\n")
    assert main(["merge", str(shard), "--out", out, "--source", str(SOURCE),
                 "--term", str(term)]) == 2
    err = capsys.readouterr().err
    assert "--assignments: unknown assignment 99_nope" in err
    assert f"term file {term}: line 3: due = 2026-03-01 is a date" in err
