"""Tests of autograder.grader.release: exercises/ generated from solutions/ by nbgrader's steps."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.core.evidence import Entry
from autograder.core.notebook import is_answer, is_test, nbgrader_meta
from autograder.core.released import merged, read_values, render_values, written_reference
from autograder.grader.preprocessors import read_marker
from autograder.grader.release import (
    COURSE_FOLDERS,
    ROOT,
    VALUES,
    release,
    render,
    stamp_setup_cell,
    student_version,
    written_records,
)

MAX_LINE = 200  # characters in one line of a released notebook's cell (issue 28)
EXERCISE_FILES = sorted((ROOT / "exercises").glob("*.ipynb"))


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
    assert release(solutions=sources, exercises=exercises) == [
        "wrote exercises/00_tiny.ipynb", "wrote autograder/kernel/released/00_tiny.json"]
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


def test_release_writes_values_files_and_check_compares_them(tiny_course: Path,
                                                             tmp_path: Path) -> None:
    """Does release write the visible checks' values into the exercise's values file (the
    hidden ones never), name them in a short line of each test cell, keep the values of
    earlier releases, and does --check report a values file that lacks the named values, was
    edited by hand, or has no source?"""
    sources, exercises = tmp_path / "solutions", tmp_path / "exercises"
    values = tmp_path / "autograder" / "kernel" / "released"  # the course's own package folder
    shutil.copytree(tiny_course, sources)
    assert sorted(release(solutions=sources, exercises=exercises)) == [
        "wrote autograder/kernel/released/00_tiny.json", "wrote exercises/00_tiny.ipynb"]
    store = values / "00_tiny.json"
    text = (exercises / "00_tiny.ipynb").read_text()
    cells = [c for c in nbformat.reads(text, as_version=4).cells if is_test(c)]
    refs = {nbgrader_meta(c)["grade_id"]: written_reference(c.source) for c in cells}
    assert refs and all(ref is not None for ref in refs.values())
    sets = read_values(store.read_text(), "00_tiny")
    records = written_records(text, values)
    assert records == {gid: sets[gid][ref.digest] for gid, ref in refs.items()}
    assert not any(e.hidden for entries in records.values() for e in entries)
    check = {"check": True, "solutions": sources, "exercises": exercises}
    assert release(**check) == []

    earlier = merged(sets, {"q1_double_tests": [Entry("value", "an older check", "ok")]})
    store.write_text(render_values("00_tiny", earlier))
    assert release(**check) == []  # an earlier release's values stay
    store.write_text(store.read_text().replace('"an older check"', '"edited"'))
    assert release(**check)[0].startswith("00_tiny.json cannot be read")
    with pytest.raises(ValueError, match="fix or delete it"):
        release(solutions=sources, exercises=exercises)
    store.write_text(render_values("00_tiny", {}))
    report = release(**check)
    assert any(line.startswith("00_tiny.ipynb: q1_double_tests names the values")
               and "00_tiny.json lacks" in line for line in report)
    (values / "99_old.json").write_text(render_values("99_old", {}))
    assert "99_old.json has no source in solutions/" in release(**check)


@pytest.mark.parametrize("path", EXERCISE_FILES, ids=lambda p: p.stem)
def test_released_notebooks_have_no_long_lines(path: Path) -> None:
    """Is every line of every cell of a released exercise at most 200 characters (the expected
    values are in the package, not in the notebook)?"""
    long = [f"cell {i} line {j + 1}: {len(line)} characters"
            for i, cell in enumerate(nbformat.read(path, as_version=4).cells)
            for j, line in enumerate(cell.source.splitlines()) if len(line) > MAX_LINE]
    assert long == []


@pytest.mark.parametrize("path", EXERCISE_FILES, ids=lambda p: p.stem)
def test_released_test_cells_name_values_the_package_holds(path: Path) -> None:
    """Does every test cell of a released exercise that loads values name them (none inline),
    in the exercise's own values file, which holds them under their digest? (That these values
    are the reference answers' is test_exercises.py's test_reference_runs_cleanly.)"""
    cells = [c for c in nbformat.read(path, as_version=4).cells if is_test(c)]
    loading = [c for c in cells if "expected_values(" in c.source]
    assert loading, "no test cell loads expected values"
    sets = read_values((VALUES / f"{path.stem}.json").read_text(), path.stem)
    for cell in loading:
        ref = written_reference(cell.source)
        assert ref is not None, cell.source.splitlines()[1][:120]
        assert (ref.exercise, ref.test_id) == (path.stem, nbgrader_meta(cell)["grade_id"])
        assert sets[ref.test_id][ref.digest]
    assert written_records(path.read_text()).keys() == {
        nbgrader_meta(c)["grade_id"] for c in loading}


def test_the_wheel_ships_the_values_files(tmp_path: Path) -> None:
    """Does a wheel built from a checkout (what Colab's set-up cell installs with pip) contain
    every values file, byte for byte?"""
    pytest.importorskip("setuptools")
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "autograder", checkout / "autograder",
                    ignore=shutil.ignore_patterns("__pycache__", "tests"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, checkout / name)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", str(checkout), "-w", str(tmp_path / "dist")],
        capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name: archive.read(name) for name in archive.namelist()
                   if name.startswith("autograder/kernel/released/")}
    expected = {f"autograder/kernel/released/{p.name}": p.read_bytes()
                for p in VALUES.glob("*.json")}
    assert len(expected) == len(EXERCISE_FILES)
    assert shipped == expected
