"""Tests of autograder.grader.reports: LMS exports, item analysis, the figure, regrade changes and
determinism, on synthetic results (no grading, fast)."""

from __future__ import annotations

import csv
import random
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grader.release import ROOT
from autograder.grader.reports import (
    CANVAS_COLUMNS,
    CHANGES_COLUMNS,
    MESSAGE_CHARS,
    format_score,
    item_analysis,
    scores_figure,
    write_reports,
)
from autograder.grader.result import QuestionResult, Result

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LONG = "ValueError: " + "x" * 300


def _q(qid: str, score: float, max_score: float, status: str, message: str = "") -> QuestionResult:
    return QuestionResult(qid, score, max_score, status, message)


def _graded(student: str, assignment: str, *questions: QuestionResult) -> Result:
    return Result(student, assignment, f"{student}/{assignment}.ipynb",
                  score=sum(q.score for q in questions),
                  max_score=sum(q.max_score for q in questions), questions=list(questions),
                  isolation="bubblewrap")


def _results() -> list[Result]:
    """Two assignments; ``cy`` has an invalid 01_b and ``dee`` an error on 00_a and nothing
    of 01_b; the item analysis of 00_a is worked out by hand in the tests below."""
    return [
        _graded("ada", "00_a", _q("q1", 2, 2, "passed"), _q("q2", 3, 3, "passed")),
        _graded("bob", "00_a", _q("q1", 2, 2, "passed"),
                _q("q2", 0, 3, "failed", "AssertionError: wrong | shape\nsee above")),
        _graded("cy", "00_a", _q("q1", 0, 2, "failed", "not attempted"),
                _q("q2", 0, 3, "failed", "AssertionError: wrong | shape\nsee above")),
        _graded("eve", "00_a", _q("q1", 1, 2, "failed", "not attempted"),
                _q("q2", 0, 3, "missing")),
        _graded("ada", "01_b", _q("p1", 2.5, 4, "failed", LONG)),
        _graded("bob", "01_b", _q("p1", 4, 4, "passed")),
        _graded("eve", "01_b", _q("p1", 0, 4, "timeout")),
        Result("cy", "01_b", "cy/01_b.ipynb", status="invalid", message="not a notebook (JSON)",
               isolation="bubblewrap"),
        Result("dee", "00_a", "dee/00_a.ipynb", max_score=5, status="error",
               message="nbgrader failed", questions=[_q("q1", 2, 2, "passed")],
               isolation="bubblewrap"),
    ]


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def test_canvas_export_has_canvas_header_points_row_and_one_row_per_student(tmp_path: Path):
    """Does grades-canvas.csv start with Canvas's student columns and a Points Possible row,
    then hold one row per student with graded scores and empty cells for the rest?"""
    write_reports(_results(), tmp_path, exports=["canvas"])
    rows = _rows(tmp_path / "grades-canvas.csv")
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "00_a", "01_b"]
    assert tuple(rows[0][:5]) == CANVAS_COLUMNS
    assert rows[1] == ["Points Possible", "", "", "", "", "5", "4"]
    body = {row[0]: row for row in rows[2:]}
    assert list(body) == ["ada", "bob", "cy", "dee", "eve"]
    assert body["ada"] == ["ada", "", "", "ada", "", "5", "2.5"]  # folder name as SIS Login ID
    assert body["cy"][5:] == ["0", ""]  # graded 0 stays 0; invalid is no grade
    assert body["dee"][5:] == ["", ""]  # error, and no submission: no grade
    assert not (tmp_path / "grades-moodle.csv").exists()


def test_moodle_export_has_username_column_and_one_row_per_student(tmp_path: Path):
    """Does grades-moodle.csv hold a username column and one score column per assignment,
    one row per student and no other row, with '.' as the decimal point?"""
    write_reports(_results(), tmp_path, exports=["moodle"])
    rows = _rows(tmp_path / "grades-moodle.csv")
    assert rows[0] == ["username", "00_a", "01_b"]
    assert rows[1:] == [["ada", "5", "2.5"], ["bob", "2", "4"], ["cy", "0", ""],
                        ["dee", "", ""], ["eve", "1", "0"]]
    assert not (tmp_path / "grades-canvas.csv").exists()


def test_unknown_export_is_refused_before_anything_is_written(tmp_path: Path):
    """Is an export name outside EXPORTS an error that leaves the folder untouched?"""
    with pytest.raises(ValueError, match="unknown export blackboard"):
        write_reports(_results(), tmp_path, exports=["blackboard"])
    assert list(tmp_path.iterdir()) == []


def test_item_analysis_counts_pass_rate_mean_and_most_common_failure():
    """Are graded count, passes, mean score and the most common failure right for a crafted
    set, with ties broken by sort order and long messages cut, and "not attempted" counted
    apart from the failures (q1's two non-passes are both stubs: no failure among attempts)?"""
    stats = {(s.assignment, s.question): s for s in item_analysis(_results())}
    assert list(stats) == [("00_a", "q1"), ("00_a", "q2"), ("01_b", "p1")]
    q1, q2, p1 = stats.values()
    assert (q1.graded, q1.passed, q1.pass_rate, q1.mean_score, q1.max_score) == (4, 2, 0.5, 1.25, 2)
    assert (q1.failure, q1.failure_count, q1.not_attempted) == ("", 0, 2)
    assert (q2.graded, q2.passed, q2.mean_score) == (4, 1, 0.75)
    assert (q2.failure, q2.failure_count, q2.not_attempted) == (
        "AssertionError: wrong | shape see above", 2, 0)
    assert (p1.graded, p1.passed, p1.mean_score) == (3, 1, pytest.approx(6.5 / 3))
    # one long message and one timeout (no message: its status counts) tie at 1 each
    assert (p1.failure, p1.failure_count) == (LONG[:MESSAGE_CHARS - 1] + "…", 1)
    assert len(p1.failure) == MESSAGE_CHARS


def test_item_analysis_table_in_summary(tmp_path: Path):
    """Does summary.md show the item analysis per assignment, with '|' escaped?"""
    write_reports(_results(), tmp_path)
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "## Item analysis" in summary and "### 00_a" in summary and "### 01_b" in summary
    assert "| q1 | 4 | 2 | 50% | 2 | 1.25 / 2 (62%) |  |" in summary
    assert ("| q2 | 4 | 1 | 25% | 0 | 0.75 / 3 (25%) | AssertionError: wrong \\| shape see above "
            "(2) |" in summary)
    assert "| p1 | 3 | 1 | 33% | 0 | 2.17 / 4 (54%) |" in summary


def test_invalid_and_error_submissions_are_in_grades_but_not_in_item_analysis(tmp_path: Path):
    """Do invalid and error submissions get their grades.csv row (and summary row) but leave
    the item analysis, which counts graded submissions only?"""
    write_reports(_results(), tmp_path)
    header, *body = _rows(tmp_path / "grades.csv")
    rows = {(row[0], row[1]): dict(zip(header, row, strict=True)) for row in body}
    assert len(rows) == 9
    assert (rows["cy", "01_b"]["status"], rows["cy", "01_b"]["score"]) == ("invalid", "0")
    assert rows["dee", "00_a"]["status"] == "error"
    assert rows["dee", "00_a"]["message"] == "nbgrader failed"
    # dee's error result carries a passed q1: it must not count
    assert next(s for s in item_analysis(_results()) if s.question == "q1").graded == 4
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "| dee | 00_a | 0 / 5 | error | nbgrader failed |" in summary
    assert "9 submission(s): 7 graded, 1 invalid, 1 error(s)." in summary


def test_scores_png_is_written_and_referenced(tmp_path: Path):
    """Is scores.png a PNG without a software stamp, referenced from summary.md, drawn from
    a figure with two panels (distribution, pass rates)?"""
    write_reports(_results(), tmp_path)
    png = (tmp_path / "scores.png").read_bytes()
    assert png.startswith(PNG_SIGNATURE) and b"Software" not in png and b"matplotlib" not in png
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width == 1200 and height >= 350  # 12 inches at 100 dpi
    assert "![Scores](scores.png)" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    fig = scores_figure(_results())
    assert fig is not None and len(fig.axes) == 2
    left, right = fig.axes
    assert [t.get_text() for t in left.get_yticklabels()] == ["00_a (n=4)", "01_b (n=3)"]
    assert len(right.patches) == 3  # one bar per question
    assert right.get_xlabel().startswith("Pass rate")


def test_no_figure_when_nothing_was_graded(tmp_path: Path):
    """With only invalid submissions, is there no scores.png (an old one removed) and no
    reference to it?"""
    (tmp_path / "scores.png").write_bytes(b"old")
    invalid = [r for r in _results() if r.status == "invalid"]
    write_reports(invalid, tmp_path)
    assert not (tmp_path / "scores.png").exists()
    assert "scores.png" not in (tmp_path / "summary.md").read_text(encoding="utf-8")


def test_regrade_lists_changed_appeared_and_disappeared_scores(tmp_path: Path):
    """Grading into a folder that has a grades.csv, are changed, new and gone scores listed
    in summary.md and changes.csv?"""
    first = _results()
    write_reports(first, tmp_path)
    assert not (tmp_path / "changes.csv").exists()
    assert "Changes since the previous grading" not in (tmp_path / "summary.md").read_text(
        encoding="utf-8")
    second = [r for r in _results() if (r.student, r.assignment) != ("eve", "01_b")]
    second[1].score = 5  # bob 00_a: 2 -> 5
    second.append(_graded("fay", "00_a", _q("q1", 2, 2, "passed"), _q("q2", 0, 3, "failed")))
    write_reports(second, tmp_path)
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "## Changes since the previous grading" in summary
    assert "- bob · 00_a: 2 → 5" in summary
    assert "- eve · 01_b: 0 → —" in summary
    assert "- fay · 00_a: — → 2" in summary
    rows = _rows(tmp_path / "changes.csv")
    assert rows == [list(CHANGES_COLUMNS), ["bob", "00_a", "2", "5"], ["eve", "01_b", "0", ""],
                    ["fay", "00_a", "", "2"]]


def test_regrade_without_changes_says_so_and_drops_old_changes_csv(tmp_path: Path):
    """Regrading to the same scores, does summary.md say nothing changed, with no
    changes.csv left behind from an earlier regrade?"""
    write_reports(_results(), tmp_path)
    (tmp_path / "changes.csv").write_text("stale\n")
    write_reports(_results(), tmp_path)
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "No score changed since the previous grading." in summary
    assert not (tmp_path / "changes.csv").exists()


@pytest.mark.parametrize("previous", [
    b"\xff\xfe\x00binary", b"name,points\nada,3\n", b"student,assignment,score\nada,00_a,lots\n",
    b"student,assignment,score\nada,00_a\n", b"",
])
def test_malformed_previous_grades_csv_is_reported_not_fatal(tmp_path: Path, previous: bytes):
    """Is a previous grades.csv that cannot be read named in summary.md, replaced, and not a
    crash?"""
    (tmp_path / "grades.csv").write_bytes(previous)
    write_reports(_results(), tmp_path)
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "**The previous grades.csv could not be read**" in summary
    assert str(tmp_path) not in summary
    assert not (tmp_path / "changes.csv").exists()
    assert _rows(tmp_path / "grades.csv")[0][:3] == ["student", "assignment", "score"]


def test_same_results_in_any_order_give_identical_files(tmp_path: Path):
    """Written in a different order into two fresh folders (one run, or shards merged), are
    grades.csv, summary.md, both exports and the figure byte-identical?"""
    shuffled = _results()
    random.Random(7).shuffle(shuffled)
    assert [r.student for r in shuffled] != [r.student for r in _results()]
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    write_reports(_results(), one, exports=["canvas", "moodle"])
    write_reports(shuffled, two, exports=["moodle", "canvas"])
    names = ["grades.csv", "summary.md", "grades-canvas.csv", "grades-moodle.csv", "scores.png"]
    assert sorted(p.name for p in one.iterdir()) == sorted(names)
    for name in names:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


def test_format_score_is_one_stable_spelling():
    """Is a score always written the same way: no '.0', no exponent, at most 6 decimals?"""
    assert [format_score(x) for x in (5.0, 5, 2 / 3, -0.0, 1e-9, 12.5, 1e7)] == [
        "5", "5", "0.666667", "0", "0", "12.5", "10000000"]


def test_command_line_still_imports():
    """Does `python -m autograder grade --help` still start, listing --export?"""
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "--export" in done.stdout


def test_item_analysis_names_the_real_mistake_when_most_did_not_attempt():
    """With five stubs left as released and two wrong answers of one kind, is the most
    common failure the wrong answer (2), and the five counted as not attempted?"""
    results = [_graded(f"s{i}", "00_a", _q("q1", 0, 2, "failed", "not attempted"))
               for i in range(5)]
    results += [_graded(f"w{i}", "00_a", _q("q1", 0, 2, "failed", "AssertionError: sign"))
                for i in range(2)]
    (q1,) = item_analysis(results)
    assert (q1.failure, q1.failure_count, q1.not_attempted) == ("AssertionError: sign", 2, 5)


# ---------------------------------------------------------------- reports are inert: text from
# a submission is neutralised for where it lands (each attack beside its honest twin)

MARKUP = ('<img src=x onerror=alert(1)> ![pixel](https://example.invalid/p.png) '
          '[click](https://example.invalid) **loud** `code` <script>alert(1)</script> '
          'www.example.invalid')


def test_markup_in_a_message_is_shown_as_text_in_summary() -> None:
    """Does a failure message full of HTML and Markdown (an image, a link, a script, emphasis,
    a bare address), as an answer can raise it, reach summary.md with none of it live, while
    an honest message keeps its words readable?"""
    from autograder.grader.reports.summary import summary_markdown

    attack = _graded("mallory", "00_a", _q("q1", 0, 2, "error", "ValueError: " + MARKUP))
    honest = _graded("ann", "01_b", _q("q1", 0, 2, "failed",
                                       "double(arange(3.0)) is wrong: x_max 2.0 != 4.0"))
    text = summary_markdown([attack, honest])
    import re

    for live in ("<img", "<script", "**loud**", "`code`", "www.example", "https://"):
        assert live not in text, live
    assert not re.search(r"(?<!\\)[\[\]]", text.split("## Item analysis")[1]), text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text and "\\[click\\]" in text
    assert "double(arange(3.0)) is wrong: x_max 2.0 != 4.0" in text
    assert "| ann | 01_b |" in text  # names in the safe alphabet are unchanged


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_formula_in_any_csv_is_written_as_text(tmp_path: Path, start: str) -> None:
    """Does every CSV written (grades.csv, changes.csv, both exports) start no cell with a
    formula character (``= + - @``, tab, return): a message such as ``=HYPERLINK(...)`` gets
    a leading ``'``, while an honest row is written unchanged, and a regrade still reads the
    earlier grades.csv back as it was?"""
    from autograder.grader.reports.common import csv_plain

    payload = start + 'HYPERLINK("https://example.invalid","x")'
    bad = Result("mallory", "00_a", "mallory/00_a.ipynb", status="invalid", message=payload,
                 max_score=5)
    good = _graded("ann", "00_a", _q("q1", 2, 2, "passed"))
    write_reports([bad, good], tmp_path, exports=["canvas", "moodle"])
    write_reports([bad, _graded("ann", "00_a", _q("q1", 1, 2, "failed", payload))], tmp_path,
                  exports=["canvas", "moodle"])
    for name in ("grades.csv", "changes.csv", "grades-canvas.csv", "grades-moodle.csv"):
        for row in _rows(tmp_path / name):
            for cell in row:
                assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (name, cell)
    rows = [r[:6] for r in _rows(tmp_path / "grades.csv")]
    assert ["mallory", "00_a", "0", "5", "invalid", "'" + payload] in rows
    assert ["ann", "00_a", "1", "2", "graded", ""] in rows  # the honest twin, unchanged
    assert csv_plain("'" + payload) == payload and csv_plain("'quoted") == "'quoted"
    assert ["ann", "00_a", "2", "1"] in _rows(tmp_path / "changes.csv")


def test_every_csv_writer_uses_the_defusing_writer() -> None:
    """Does no module of the grader write CSV with a bare ``csv.writer`` (every CSV goes
    through the one defusing writer in safe_csv.py)?"""
    grader = ROOT / "autograder" / "grader"
    bare = [str(p.relative_to(grader)) for p in grader.rglob("*.py")
            if ("csv.writer(" in p.read_text() or "csv.DictWriter(" in p.read_text())
            and p.name != "safe_csv.py"]
    assert bare == []
