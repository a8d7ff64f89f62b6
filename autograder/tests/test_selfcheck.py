"""Tests of ``python -m autograder check``: the learner's visible checks, run in one go."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.__main__ import main
from autograder.core.notebook import is_answer, nbgrader_meta
from autograder.grader.selfcheck import (
    ANSWER_ERROR,
    NOT_ATTEMPTED,
    NOT_RUN,
    NOT_YET,
    PASSED,
    TIMED_OUT,
    check_notebook,
)

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = ROOT / "exercises" / "01_arrays.ipynb"
SOLUTION = ROOT / "solutions" / "01_arrays.ipynb"
QUESTIONS = ["q1_apply_updates", "q2_count_labels", "q3_safe_lookup", "q4_one_hot",
             "q5_place_and_fetch"]


def _answers() -> dict[str, str]:
    """The reference answers of 01_arrays, by answer id."""
    source = nbformat.read(SOLUTION, as_version=4)
    return {nbgrader_meta(c)["grade_id"]: c.source for c in source.cells if is_answer(c)}


def _exercise(folder: Path, answers: dict[str, str], name: str = "01_arrays.ipynb") -> Path:
    """A copy of the released 01_arrays in ``folder`` with ``answers`` typed in."""
    nb = nbformat.read(EXERCISE, as_version=4)
    for cell in nb.cells:
        if is_answer(cell) and nbgrader_meta(cell)["grade_id"] in answers:
            cell.source = answers[nbgrader_meta(cell)["grade_id"]]
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / name)
    return folder / name


def _tiny(folder: Path, answer: str, test: str) -> Path:
    """A one-question notebook with nbgrader metadata: ``answer`` then its test ``test``."""
    meta = {"schema_version": 3, "locked": False, "task": False}
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(answer, metadata={"nbgrader": {
            **meta, "grade": False, "solution": True, "grade_id": "q1"}}),
        nbformat.v4.new_code_cell(test, metadata={"nbgrader": {
            **meta, "grade": True, "solution": False, "grade_id": "q1_tests", "points": 1}}),
        nbformat.v4.new_code_cell("print('after')"),
    ])
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "tiny.ipynb")
    return folder / "tiny.ipynb"


@pytest.mark.slow
def test_released_stub_is_not_attempted(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    """Does the released 01_arrays report every question as not attempted, exit 0 (feedback,
    not a grade), and append its table to --summary without touching what was there?"""
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    code = main(["check", str(_exercise(tmp_path / "repo", {})), "--summary", str(summary)])
    out = capsys.readouterr().out
    assert code == 0
    text = summary.read_text()
    assert text.startswith("earlier step\n") and text.endswith(out.rstrip("\n") + "\n")
    rows = [line for line in out.splitlines() if line.startswith("| q") and "|---" not in line
            and not line.startswith("| question")]
    assert [row.split(" | ")[0].lstrip("| ") for row in rows] == QUESTIONS
    assert all(f"| {NOT_ATTEMPTED} |" in row for row in rows)
    assert "0 of 5 question(s) pass" in out and "not your grade" in out


@pytest.mark.slow
def test_reference_answers_pass(tmp_path: Path) -> None:
    """With the answers of solutions/01_arrays typed in, do all visible checks pass?"""
    found = check_notebook(_exercise(tmp_path, _answers()))
    assert [(c.question, c.status, c.message) for c in found] == [
        (q, PASSED, "") for q in QUESTIONS]
    assert [c.points for c in found] == [3, 2, 2, 2, 2]


@pytest.mark.slow
def test_wrong_and_broken_answers_say_why(tmp_path: Path) -> None:
    """Does a wrong answer report its check's first error line, and an answer cell that does
    not run say so (not the NameError its test cell then raises), the others passing?"""
    answers = _answers()
    answers["q1_apply_updates"] = "def apply_updates(x):\n    return x\n"
    answers["q2_count_labels"] = "def count_labels(labels, num_classes)\n    return 0\n"
    found = {c.question: c for c in check_notebook(_exercise(tmp_path, answers))}
    assert found["q1_apply_updates"].status == NOT_YET
    assert found["q1_apply_updates"].message.startswith("AssertionError: ")
    assert "\n" not in found["q1_apply_updates"].message
    assert found["q2_count_labels"].status == ANSWER_ERROR
    assert found["q2_count_labels"].message.startswith("the answer cell: SyntaxError")
    assert {q: c.status for q, c in found.items() if q not in (QUESTIONS[0], QUESTIONS[1])} == {
        q: PASSED for q in QUESTIONS[2:]}


@pytest.mark.slow
def test_a_slow_cell_is_stopped_and_the_rest_runs(tmp_path: Path) -> None:
    """Is a check that runs past --timeout reported as timed out, with the notebook going on?"""
    from autograder.grader.selfcheck import checks, execute

    nb = nbformat.read(_tiny(tmp_path, "x = 1", "import time\ntime.sleep(60)"), as_version=4)
    found = checks(nb, execute(nb, tmp_path, timeout=2))
    assert [(c.question, c.status) for c in found] == [("q1", TIMED_OUT)]
    assert "2 s" in found[0].message
    assert nb.cells[2].outputs[0]["text"] == "after\n"


@pytest.mark.slow
def test_a_dead_kernel_leaves_the_check_not_run(tmp_path: Path) -> None:
    """When the answer kills the kernel, is its check reported as not run, with a reason?"""
    found = check_notebook(_tiny(tmp_path, "import os\nos._exit(1)", "assert True"))
    assert [(c.question, c.status) for c in found] == [("q1", NOT_RUN)]
    assert "kernel stopped" in found[0].message


@pytest.mark.parametrize("case", ["missing", "text", "not-json", "empty-folder"])
def test_bad_paths_exit_2_with_a_message(case: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Does a path that is not a notebook (missing, a text file, broken JSON, a folder with no
    notebook) exit 2 with a one-line message naming it, and no traceback?"""
    path = {"missing": tmp_path / "nope.ipynb", "text": tmp_path / "notes.txt",
            "not-json": tmp_path / "broken.ipynb", "empty-folder": tmp_path / "empty"}[case]
    if case == "text":
        path.write_text("hello")
    elif case == "not-json":
        path.write_text("{not json")
    elif case == "empty-folder":
        path.mkdir()
        (path / "chapter.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}") and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_folders_skip_checkpoints_and_notebooks_without_checks(tmp_path: Path) -> None:
    """Does a folder yield its notebooks with checks, and not Jupyter's checkpoint copies or
    chapters without test cells?"""
    from autograder.grader.selfcheck import find_notebooks

    real = _tiny(tmp_path / "exercises", "x = 1", "assert x == 1")
    _tiny(tmp_path / "exercises" / ".ipynb_checkpoints", "x = 1", "assert x == 1")
    (tmp_path / "chapter.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    assert find_notebooks([tmp_path]) == [real]


@pytest.mark.slow
def test_check_needs_neither_nbgrader_nor_solutions(tmp_path: Path) -> None:
    """Does `python -m autograder check` run where nbgrader cannot be imported, on a notebook
    outside the course checkout (as in a learner's repository)?"""
    path = _tiny(tmp_path, "x = 1", "assert x == 1")
    code = ("import sys; sys.modules['nbgrader'] = None; "
            "from autograder.__main__ import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, "check", str(path)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"| q1 | 1 | {PASSED} |" in proc.stdout


def test_every_skipped_notebook_is_named_with_its_reason(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """In a folder with one exercise, an exercise whose nbgrader metadata Colab stripped, a
    chapter without checks and a broken file: does `check` run the exercise and name each
    of the three others, with why, on stderr and in the report?"""
    from autograder.grader.selfcheck import find_notebooks

    real = _tiny(tmp_path, "x = 1", "assert x == 1")
    stripped = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("# answer-id: q1  (keep this line)\nx = 1"),
        nbformat.v4.new_code_cell('with feedback("Question 1"):\n    assert x == 1')])
    (tmp_path / "Copy of 01_arrays.ipynb").write_text(nbformat.writes(stripped))
    (tmp_path / "chapter.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    (tmp_path / "broken.ipynb").write_text("{not json")
    skipped: list[tuple[Path, str]] = []
    assert find_notebooks([tmp_path], skipped) == [real]
    why = {p.name: reason for p, reason in skipped}
    assert set(why) == {"Copy of 01_arrays.ipynb", "chapter.ipynb", "broken.ipynb"}
    assert why["Copy of 01_arrays.ipynb"].startswith("an exercise whose cells lost their "
                                                     "nbgrader metadata")
    assert why["chapter.ipynb"] == "no checks (nbgrader test cells): not an exercise"
    assert why["broken.ipynb"].startswith("not a readable Jupyter notebook")
    assert main(["check", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert f"Skipped {tmp_path / 'chapter.ipynb'}: no checks" in err
    assert "## Not checked" in out and "Copy of 01_arrays.ipynb: an exercise whose" in out
