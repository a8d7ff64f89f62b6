"""Tests of autograder.grader.grade: the `grade` command, its files, and nbgrader underneath."""

from __future__ import annotations

import argparse
import csv
import html
import json
import re
import shutil
import sqlite3
from pathlib import Path

import nbformat
import pytest

from autograder.__main__ import main
from autograder.grader.grade import _usage_error
from autograder.grader.release import ROOT
from autograder.grader.submissions import Submission, current_name, discover
from autograder.tests.harness_runs import times_answers

EXPECTED = {  # case -> (status, score) for the tiny course (2 + 3 points); empty-stub is the
    # notebook as released: not submitted, decided before any kernel (never a 0)
    "correct": ("graded", 5), "partial": ("graded", 3), "empty-stub": ("not_submitted", 0),
    "colab-saved": ("graded", 5), "colab-saved-no-markers": ("graded", 5),
    "cells-deleted": ("graded", 2), "tests-edited": ("graded", 0),
    "reordered-duplicated": ("graded", 5), "extra-helper-cell": ("graded", 5),
    "old-format-v3": ("graded", 5),
    "invalid-json": ("invalid", 0), "empty-file": ("invalid", 0), "binary-junk": ("invalid", 0),
    "not-a-notebook": ("invalid", 0),
}


def test_discover_takes_students_from_folders_only(tmp_path: Path) -> None:
    """Is the student the folder below the PATH given (never a file name), the assignment the
    stem or the known name inside it, and a file given alone its folder's?"""
    for rel in ["alice/06_jit.ipynb", "bob/Copy of 10_vmap.ipynb", "mallory/alice/10_vmap.ipynb",
                "mallory/06_jit-alice.ipynb", "carol/.ipynb_checkpoints/06_jit.ipynb"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    found = discover([tmp_path], ["06_jit", "10_vmap"])
    got = sorted((s.student, s.assignment, s.problem) for s in found)
    assert got == [("alice", "06_jit", ""), ("bob", "10_vmap", ""), ("mallory", "06_jit", ""),
                   ("mallory", "10_vmap", "")]
    assert discover([tmp_path / "alice"], ["06_jit"]) == [
        Submission(tmp_path / "alice" / "06_jit.ipynb", "alice", "06_jit")]
    assert discover([tmp_path / "alice" / "06_jit.ipynb"], ["06_jit"], "10_vmap") == [
        Submission(tmp_path / "alice" / "06_jit.ipynb", "alice", "10_vmap")]


def test_renamed_assignment_grades_under_its_new_name(tmp_path: Path) -> None:
    """Is a notebook saved under a renamed assignment's old name (08_pmap.ipynb, Colab's
    "Copy of 08_pmap.ipynb", or --assignment 08_pmap) graded as the new one, 11_sharding; is
    the old name kept when the course still defines it; and is a student's old and new copy of
    one assignment marked as two files for one identity?"""
    known = ["10_vmap", "11_sharding"]
    assert current_name("08_pmap", known) == "11_sharding"
    assert current_name("08_pmap", ["08_pmap", "11_sharding"]) == "08_pmap"
    assert current_name("08_pmap", ["10_vmap"]) == "08_pmap"  # nothing to map it to
    for rel in ["alice/08_pmap.ipynb", "bob/Copy of 08_pmap.ipynb", "carol/08_pmap (1).ipynb",
                "dan/11_sharding.ipynb", "erin/08_pmap.ipynb", "erin/11_sharding.ipynb"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    found = {(s.student, s.path.name): s for s in discover([tmp_path], known)}
    for key in [("alice", "08_pmap.ipynb"), ("bob", "Copy of 08_pmap.ipynb"),
                ("carol", "08_pmap (1).ipynb"), ("dan", "11_sharding.ipynb")]:
        assert (found[key].assignment, found[key].problem) == ("11_sharding", "")
    assert "2 files hold work for assignment 11_sharding of student erin" in \
        found["erin", "08_pmap.ipynb"].problem
    (only,) = discover([tmp_path / "alice" / "08_pmap.ipynb"], known, "08_pmap")
    assert only.assignment == "11_sharding"
    args = argparse.Namespace(paths=[tmp_path], assignment="08_pmap", jobs=1,
                              reference_cache=None)
    assert _usage_error(args, known) == ""
    assert "unknown assignment" in _usage_error(
        argparse.Namespace(**{**vars(args), "assignment": "99_nope"}), known)


def test_discover_marks_two_files_for_one_identity(tmp_path: Path) -> None:
    """When two files that cannot be told apart map to one (student, assignment), are they
    one submission marked as needing attention and naming both, so that nothing is graded or
    overwritten; and do folder names that need cleaning stay distinct?"""
    for rel in ["mallory/06_jit.ipynb", "mallory/06_jit-alice.ipynb", "eve/10_vmap.ipynb",
                "eve./10_vmap.ipynb", "dan/06_jit.ipynb"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    found = {(s.path.parent.name, s.path.name): s for s in discover([tmp_path],
                                                                     ["06_jit", "10_vmap"])}
    assert ("needs attention: 2 files hold work for assignment 06_jit of student mallory "
            "(06_jit-alice.ipynb, 06_jit.ipynb)") in found["mallory", "06_jit-alice.ipynb"].problem
    assert ("mallory", "06_jit.ipynb") not in found
    assert found["eve", "10_vmap.ipynb"].problem == found["eve.", "10_vmap.ipynb"].problem == ""
    assert found["eve", "10_vmap.ipynb"].student == "eve"
    assert found["eve.", "10_vmap.ipynb"].student.startswith("eve-")
    assert found["dan", "06_jit.ipynb"].problem == ""


def test_discover_never_follows_links(tmp_path: Path) -> None:
    """Are a linked notebook, a linked folder and a linked PATH marked as links, and is
    nothing behind them listed?"""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "06_jit.ipynb").write_text("{}")
    subs = tmp_path / "subs"
    (subs / "alice").mkdir(parents=True)
    (subs / "alice" / "06_jit.ipynb").symlink_to(secret / "06_jit.ipynb")
    (subs / "bob").symlink_to(secret)
    found = discover([subs], ["06_jit"])
    assert sorted((s.student, s.assignment) for s in found) == [("alice", "06_jit"),
                                                                ("bob", "linked-folder")]
    assert all("symbolic link" in s.problem for s in found)
    (tmp_path / "link.ipynb").symlink_to(secret / "06_jit.ipynb")
    (only,) = discover([tmp_path / "link.ipynb"], ["06_jit"])
    assert "symbolic link" in only.problem


def test_jobs_pin_their_kernels_unless_told_not_to() -> None:
    """Does ``grade`` give each job's kernels their share of the CPUs by default, and every
    CPU with ``--no-pin-cpus``?"""
    from autograder.grader.grade import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["x", "--out", "o", "--jobs", "2"]).pin_cpus is True
    assert parser.parse_args(["x", "--out", "o", "--jobs", "2", "--no-pin-cpus"]).pin_cpus is False


def test_usage_errors_exit_2(tmp_path: Path, capsys) -> None:
    """Do a missing path, an unknown assignment, --jobs 0 and an empty folder exit 2?"""
    out = str(tmp_path / "out")
    assert main(["grade", str(tmp_path / "nope"), "--out", out]) == 2
    assert main(["grade", str(tmp_path), "--out", out, "--assignment", "99_nope"]) == 2
    assert main(["grade", str(tmp_path), "--out", out, "--jobs", "0"]) == 2
    assert main(["grade", str(tmp_path), "--out", out]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "unknown assignment" in err and "no .ipynb" in err
    with pytest.raises(SystemExit) as info:
        main(["grade"])
    assert info.value.code == 2


@pytest.fixture(scope="module")
def graded(tmp_path_factory, ) -> Path:
    """Grade every case fixture of the tiny course in one run, two jobs in parallel."""
    from autograder.tests.conftest import FIXTURES

    out = tmp_path_factory.mktemp("graded")
    course = out / "course"
    subs = out / "subs"  # one folder per case: the folder names the student
    for case in (FIXTURES / "submissions").glob("*.ipynb"):
        (subs / case.stem).mkdir(parents=True)
        shutil.copy(case, subs / case.stem / case.name)
    status = main(["grade", str(subs), "--assignment", "00_tiny",
                   "--source", str(FIXTURES / "course"), "--out", str(out), "--jobs", "2",
                   "--course", str(course)])
    assert status == 0
    return out


@pytest.mark.slow
@pytest.mark.parametrize("case", EXPECTED)
def test_each_case_gets_its_result(graded: Path, case: str) -> None:
    """Does each case (Colab-saved, damaged, invalid, ...) get its expected status and score?"""
    result = json.loads((graded / case / "00_tiny" / "result.json").read_text())
    assert (result["status"], result["score"]) == EXPECTED[case], result["message"]
    assert result["max_score"] == 5 and result["environment"]["jax"]
    if result["status"] in ("invalid", "not_submitted"):
        assert result["message"] and (graded / case / "00_tiny" / "result.json").exists()
        assert result["questions"] == [] and "execute" not in result["stages"]
    else:
        from autograder.grader.grading import STAGES

        assert (graded / case / "00_tiny" / "feedback.html").exists()
        assert {q["id"] for q in result["questions"]} == {"q1_double", "q2_set_first"}
        assert set(result["stages"]) == set(STAGES), result["stages"]
        assert result["stages"]["execute"] > 0


@pytest.mark.slow
def test_question_statuses(graded: Path) -> None:
    """Are not-attempted, missing and passed questions told apart (a question left as
    released in a notebook with other work is not attempted)?"""
    def statuses(case):
        data = json.loads((graded / case / "00_tiny" / "result.json").read_text())
        return {q["id"]: (q["status"], q["message"]) for q in data["questions"]}

    assert statuses("partial")["q1_double"] == ("failed", "not attempted")
    assert statuses("cells-deleted")["q2_set_first"][0] == "missing"
    assert statuses("correct")["q2_set_first"] == ("passed", "")


@pytest.mark.slow
def test_csv_summary_and_gradebook(graded: Path) -> None:
    """Do grades.csv, summary.md and the one gradebook hold every submission exactly once?"""
    rows = list(csv.DictReader((graded / "grades.csv").open()))
    assert sorted(r["student"] for r in rows) == sorted(EXPECTED)
    summary = (graded / "summary.md").read_text()
    assert "| correct | 00_tiny | 5 / 5 | graded |" in summary
    assert f"{len(EXPECTED)} submission(s)" in summary
    db = sqlite3.connect(graded / "course" / "gradebook.db")
    totals = dict(db.execute(
        "select s.student_id, sum(g.auto_score) from grade g "
        "join submitted_notebook n on g.notebook_id = n.id "
        "join submitted_assignment s on n.assignment_id = s.id group by s.student_id"))
    graded_cases = {c: s for c, (st, s) in EXPECTED.items() if st == "graded"}
    assert totals == graded_cases


@pytest.mark.slow
def test_feedback_hides_hidden_tests(graded: Path) -> None:
    """Does feedback.html show the visible tests but never the hidden tests' source?"""
    page = (graded / "partial" / "00_tiny" / "feedback.html").read_text()
    text = html.unescape(re.sub(r"<[^>]+>", "", page))  # code is split into highlight spans
    assert "arange(3.0)" in text and "hidden tests ran here" in text
    assert "ones((2, 2))" not in text and "BEGIN HIDDEN" not in text


@pytest.mark.slow
@pytest.mark.parametrize("case", ["partial", "tests-edited", "cells-deleted"])
def test_feedback_page_starts_with_what_to_fix(graded: Path, case: str) -> None:
    """Does the page of a submission with failures open with the table of questions, each
    failed question's message there before the first answer's code, its links all landing
    on the page, and the page small (about 10 kB; 133 kB with nbgrader's template)?"""
    folder = graded / case / "00_tiny"
    page = (folder / "feedback.html").read_text()
    result = json.loads((folder / "result.json").read_text())
    first_answer = page.index('<div class="answer">')
    table = page.index('<table id="summary">')
    assert table < first_answer
    failed = [q for q in result["questions"] if q["status"] != "passed"]
    assert failed
    for q in failed:
        assert page.index(html.escape(q["message"], quote=False), table) < first_answer, q
    links = set(re.findall(r'href="#([^"]+)"', page))
    assert {"q-q1_double", "q-q2_set_first"} <= links
    assert links <= set(re.findall(r'id="([^"]+)"', page))
    assert (folder / "feedback.html").stat().st_size < 16_000
    assert "<script" not in page


SOURCES = sorted((ROOT / "solutions").glob("*.ipynb"))
TIMED = [p.stem for p in SOURCES if times_answers(p)]


@pytest.mark.slow
@pytest.mark.parametrize("stems", [
    pytest.param(TIMED, id="timing-questions", marks=pytest.mark.timing),  # speedups graded
    pytest.param([p.stem for p in SOURCES if p.stem not in TIMED], id="the-others")])
def test_solutions_score_full_marks_and_exercises_zero(tmp_path: Path, stems: list[str]
                                                       ) -> None:
    """Graded by nbgrader, does every solution score full marks, and is every exercise as
    released not submitted (never a 0, no kernel run)? (The
    assignments whose tests time answers are graded apart, one timing test at a time under
    xdist; the two runs together grade every assignment.)"""
    assert stems and set(TIMED) < {p.stem for p in SOURCES}
    subs = tmp_path / "subs"
    for folder, student in (("solutions", "reference"), ("exercises", "stub")):
        (subs / student).mkdir(parents=True)
        for stem in stems:
            shutil.copy(ROOT / folder / f"{stem}.ipynb", subs / student / f"{stem}.ipynb")
    out = tmp_path / "out"
    assert main(["grade", str(subs), "--out", str(out), "--jobs", "2"]) == 0
    results = [json.loads(p.read_text()) for p in sorted(out.glob("*/*/result.json"))]
    assert len(results) == 2 * len(stems)
    for r in results:
        reference = r["student"] == "reference"
        assert r["status"] == ("graded" if reference else "not_submitted"), r["message"]
        want = r["max_score"] if reference else 0
        assert r["score"] == want, (r["assignment"], r["student"], r["questions"])


def test_no_feedback_skips_the_page_and_keeps_the_score(tmp_path: Path) -> None:
    """With --no-feedback, is the submission scored as usual, with no feedback page written
    and no feedback step timed?"""
    from autograder.tests.conftest import FIXTURES

    (tmp_path / "ada").mkdir()
    shutil.copy(FIXTURES / "submissions" / "correct.ipynb", tmp_path / "ada" / "00_tiny.ipynb")
    out = tmp_path / "out"
    assert main(["grade", str(tmp_path / "ada"), "--source", str(FIXTURES / "course"),
                 "--out", str(out), "--no-feedback"]) == 0
    result = json.loads((out / "ada" / "00_tiny" / "result.json").read_text())
    assert (result["status"], result["score"]) == ("graded", 5), result["message"]
    assert not (out / "ada" / "00_tiny" / "feedback.html").exists()
    assert "feedback" not in result["stages"] and "execute" in result["stages"]


def test_the_grader_process_never_imports_jax(tmp_path: Path) -> None:
    """Does a grading run keep JAX out of the grader's own process (so nothing it starts can
    be forked from a process holding JAX's threads), while each result still names the JAX,
    backend and devices its kernel ran with (from the trusted run, in a process of its own)?"""
    import subprocess
    import sys

    from autograder.tests.conftest import FIXTURES

    (tmp_path / "ada").mkdir()
    shutil.copy(FIXTURES / "submissions" / "correct.ipynb", tmp_path / "ada" / "00_tiny.ipynb")
    out = tmp_path / "out"
    code = ("import sys\nfrom autograder.grader.cli import main\n"
            f"status = main(['grade', {str(tmp_path / 'ada')!r}, '--source', "
            f"{str(FIXTURES / 'course')!r}, '--out', {str(out)!r}, '--no-feedback'])\n"
            "print('STATUS', status, 'jax' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert "STATUS 0 False" in proc.stdout, proc.stderr[-2000:]
    env = json.loads((out / "ada" / "00_tiny" / "result.json").read_text())["environment"]
    assert env["jax"] and env["backend"] in ("cpu", "gpu", "tpu") and env["devices"]


def test_a_feedback_page_not_made_is_said(tmp_path: Path, monkeypatch) -> None:
    """When the feedback page cannot be made (here: its template is missing), is the
    submission scored as usual, with no page, and its message saying why?"""
    from autograder.grader import feedback_page
    from autograder.tests.conftest import FIXTURES

    monkeypatch.setattr(feedback_page, "TEMPLATE", "no_such_template")
    (tmp_path / "ada").mkdir()
    shutil.copy(FIXTURES / "submissions" / "partial.ipynb", tmp_path / "ada" / "00_tiny.ipynb")
    out = tmp_path / "out"
    assert main(["grade", str(tmp_path / "ada"), "--source", str(FIXTURES / "course"),
                 "--out", str(out)]) == 0
    result = json.loads((out / "ada" / "00_tiny" / "result.json").read_text())
    assert (result["status"], result["score"]) == ("graded", 3), result["message"]
    assert "the feedback page could not be made: ValueError: No template" in result["message"]
    assert not (out / "ada" / "00_tiny" / "feedback.html").exists()


def test_reference_cache_is_reused_by_the_next_run(tmp_path: Path) -> None:
    """With --reference-cache, does a second grading run reuse the first run's trusted run
    (its records untouched, no new one) and its compiled programs, and score the same?"""
    from autograder.grader.compile_cache import label
    from autograder.tests.conftest import FIXTURES

    (tmp_path / "ada").mkdir()
    shutil.copy(FIXTURES / "submissions" / "correct.ipynb", tmp_path / "ada" / "00_tiny.ipynb")
    cache = tmp_path / "reference"
    args = ["grade", str(tmp_path / "ada"), "--source", str(FIXTURES / "course"),
            "--no-feedback", "--reference-cache", str(cache)]
    assert main([*args, "--out", str(tmp_path / "first")]) == 0
    (kept,) = cache.glob("00_tiny-*.json")
    when = kept.stat().st_mtime_ns
    assert (cache / "compiled" / label()).is_dir()
    assert main([*args, "--out", str(tmp_path / "second")]) == 0
    assert list(cache.glob("00_tiny-*.json")) == [kept] and kept.stat().st_mtime_ns == when
    for run in ("first", "second"):
        result = json.loads((tmp_path / run / "ada" / "00_tiny" / "result.json").read_text())
        assert (result["status"], result["score"]) == ("graded", 5), result["message"]


def test_reference_cache_must_be_a_folder(tmp_path: Path, capsys) -> None:
    """Is a --reference-cache that names a file, or a folder inside what sandboxed kernels
    can read (the package), a usage error (exit 2), nothing written?"""
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / "00_tiny.ipynb").write_text("{}")
    taken = tmp_path / "notes.txt"
    taken.write_text("mine")
    assert main(["grade", str(tmp_path / "ada"), "--out", str(tmp_path / "out"),
                 "--reference-cache", str(taken)]) == 2
    assert "is not a folder" in capsys.readouterr().err and taken.read_text() == "mine"
    inside = ROOT / "autograder" / "reference-cache"  # the package: every kernel reads it
    assert main(["grade", str(tmp_path / "ada"), "--out", str(tmp_path / "out"),
                 "--reference-cache", str(inside)]) == 2
    assert "which sandboxed kernels can read" in capsys.readouterr().err
    assert not inside.exists()


def test_a_screened_helper_cell_does_not_fail_a_passing_question(tmp_path: Path) -> None:
    """Does a student's own cell that the screen stops leave a passing answer passed, noted?"""
    from autograder.tests.conftest import FIXTURES

    nb = nbformat.read(FIXTURES / "submissions" / "correct.ipynb", as_version=4)
    first = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                 and c.metadata.get("nbgrader", {}).get("solution"))
    nb.cells.insert(first + 1, nbformat.v4.new_code_cell("import time\nstart = time.time()"))
    (tmp_path / "ada").mkdir()
    nbformat.write(nb, tmp_path / "ada" / "00_tiny.ipynb")
    out = tmp_path / "out"
    assert main(["grade", str(tmp_path / "ada"), "--source", str(FIXTURES / "course"),
                 "--out", str(out)]) == 0
    result = json.loads((out / "ada" / "00_tiny" / "result.json").read_text())
    assert result["score"] == 5
    assert all(q["status"] == "passed" for q in result["questions"])
    assert "import time" in result["message"] and "not run" in result["message"]


def test_require_sandbox_refuses_before_any_code_runs(tmp_path: Path, monkeypatch,
                                                      capsys) -> None:
    """Without a working sandbox, does `grade --require-sandbox` exit 2 with a clear message
    before any kernel starts (nothing graded, no result written), while the same command
    without the option goes on to grade?"""
    from autograder.__main__ import main as cli
    from autograder.grader import grade
    from autograder.tests.conftest import FIXTURES

    (tmp_path / "subs" / "ann").mkdir(parents=True)
    shutil.copy(FIXTURES / "submissions" / "correct.ipynb",
                tmp_path / "subs" / "ann" / "00_tiny.ipynb")
    monkeypatch.setattr(grade, "isolation", lambda: "none")
    started = []
    monkeypatch.setattr(grade, "_grade_all",
                        lambda todo, *a: (started.append(todo) or [], {}))
    args = ["grade", str(tmp_path / "subs"), "--source", str(FIXTURES / "course"), "--out",
            str(tmp_path / "out")]
    assert cli([*args, "--require-sandbox"]) == 2
    assert "--require-sandbox" in capsys.readouterr().err and started == []
    assert not list((tmp_path / "out").glob("*/*/result.json"))
    assert cli(args) == 0 and len(started) == 1  # the twin: unisolated, with a warning
