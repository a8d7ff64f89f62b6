"""Tests of autograder.grader.release: exercises/ generated from solutions/ by nbgrader's steps."""

import shutil
from pathlib import Path

import nbformat

from autograder.core.notebook import is_answer, is_test
from autograder.grader.preprocessors import read_marker
from autograder.grader.release import (
    COURSE_FOLDERS,
    ROOT,
    release,
    render,
    stamp_setup_cell,
    student_version,
)


def _released(tiny_course: Path) -> nbformat.NotebookNode:
    return student_version(nbformat.read(tiny_course / "00_tiny.ipynb", as_version=4))


def test_solutions_become_stubs(tiny_course: Path) -> None:
    """Are answers replaced by NotImplementedError stubs that still define the function?"""
    answers = [c.source for c in _released(tiny_course).cells if is_answer(c)]
    assert len(answers) == 2
    for src in answers:
        assert "raise NotImplementedError()" in src and "def " in src
        assert "BEGIN SOLUTION" not in src and "return" not in src


def test_hidden_tests_removed_visible_kept(tiny_course: Path) -> None:
    """Are hidden tests gone from the student version while visible tests stay?"""
    tests = [c.source for c in _released(tiny_course).cells if is_test(c)]
    assert all("HIDDEN" not in t and "ones((2, 2))" not in t for t in tests)
    assert any("arange(3.0)" in t for t in tests)


def test_answer_cells_marked_and_cells_locked(tiny_course: Path) -> None:
    """Does each answer cell carry its id comment, and are test cells locked with checksums?"""
    nb = _released(tiny_course)
    assert [read_marker(c.source) for c in nb.cells if is_answer(c)] == [
        "q1_double", "q2_set_first"]
    for cell in filter(is_test, nb.cells):
        assert cell.metadata.nbgrader["locked"] and cell.metadata.nbgrader["checksum"]


def test_release_is_deterministic(tiny_course: Path) -> None:
    """Does releasing twice give byte-identical notebooks?"""
    assert render(_released(tiny_course)) == render(_released(tiny_course))


def test_check_reports_missing_edited_and_stale(tiny_course: Path, tmp_path: Path) -> None:
    """Does --check report a missing, a hand-edited and a stale exercise, and pass when clean?"""
    sources, exercises = tmp_path / "solutions", tmp_path / "exercises"
    shutil.copytree(tiny_course, sources)
    assert release(check=True, solutions=sources, exercises=exercises)  # missing
    assert release(solutions=sources, exercises=exercises) == ["wrote exercises/00_tiny.ipynb"]
    assert release(check=True, solutions=sources, exercises=exercises) == []
    edited = exercises / "00_tiny.ipynb"
    edited.write_text(edited.read_text().replace("Question 1", "Question one"))
    assert "differs" in release(check=True, solutions=sources, exercises=exercises)[0]
    release(solutions=sources, exercises=exercises)
    (exercises / "99_old.ipynb").write_text("{}")
    assert release(check=True, solutions=sources, exercises=exercises) == [
        "99_old.ipynb has no source in solutions/"]


def test_committed_exercises_match_solutions() -> None:
    """Is every committed exercise exactly what its source generates, and does every chapter and
    source start with the set-up cell of _config.yml's repository?"""
    assert release(check=True, setup_cells_in=COURSE_FOLDERS) == []
    assert sorted(p.name for p in (ROOT / "exercises").glob("*.ipynb")) == sorted(
        p.name for p in (ROOT / "solutions").glob("*.ipynb"))


def test_release_writes_the_setup_cell(tiny_course: Path, tmp_path: Path) -> None:
    """Does release write the configured set-up cell into a notebook whose first cell differs,
    report it under --check, and leave a notebook that already has it alone?"""
    from autograder.kernel.colab import setup_cell

    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('old set-up')"),
                                         nbformat.v4.new_code_cell("x = 1")])
    (folder / "01_demo.ipynb").write_text(render(nb))
    sources, exercises = tmp_path / "solutions", tmp_path / "exercises"
    shutil.copytree(tiny_course, sources)
    release(solutions=sources, exercises=exercises)
    assert release(check=True, solutions=sources, exercises=exercises,
                   setup_cells_in=(folder,)) == [
        "notebooks/01_demo.ipynb: its set-up cell is not the one _config.yml gives"]
    release(solutions=sources, exercises=exercises, setup_cells_in=(folder,))
    cells = nbformat.read(folder / "01_demo.ipynb", as_version=4).cells
    assert [c.source for c in cells] == [setup_cell(), "x = 1"]
    assert release(check=True, solutions=sources, exercises=exercises,
                   setup_cells_in=(folder,)) == []
    assert not stamp_setup_cell(nbformat.from_dict({"cells": cells}), setup_cell())
