"""Tests of autograder.grader.release: exercises/ generated from solutions/ by nbgrader's steps."""

import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder.core.evidence import Entry, decode, encode
from autograder.core.notebook import is_answer, is_test, nbgrader_meta
from autograder.core.released import (
    digest,
    merged,
    read_values,
    render_values,
    written_reference,
)
from autograder.grader.judging.reference_run import trusted_records
from autograder.grader.preprocessors import read_marker
from autograder.grader.release import (
    COURSE_FOLDERS,
    ROOT,
    VALUES,
    Recorder,
    release,
    render,
    settled,
    stamp_setup_cell,
    student_version,
    visible_records,
    written_records,
)
from autograder.tests.conftest import KernelRuntime

MAX_LINE = 200  # characters in one line of a released notebook's cell (issue 28)
EXERCISE_FILES = sorted((ROOT / "exercises").glob("*.ipynb"))


@pytest.fixture(scope="module")
def recorded() -> Recorder:
    """The trusted records of the tiny course's source, from one real trusted run (a release
    made on this machine), handed out as a recorder."""
    from autograder.tests.conftest import FIXTURES

    records = trusted_records(FIXTURES / "course" / "00_tiny.ipynb")
    return lambda src: {gid: list(entries) for gid, entries in records.items()}


def _nudged(record: Recorder, rel: float, cells: tuple[str, ...] | None = None) -> Recorder:
    """``record`` as another machine would make it: every float of the visible values (and of
    their known mistakes) of ``cells`` (all when None) scaled by ``1 + rel``."""
    def scale(encoded: dict) -> dict:
        value = decode(encoded)
        return encode(value * value.dtype.type(1 + rel)) if value.dtype.kind == "f" else encoded

    def nudge(entry: Entry) -> Entry:
        if entry.check not in ("array", "scalar") or entry.hidden:
            return entry
        return Entry(entry.check, entry.name, scale(entry.got), dict(entry.options),
                     [[advice, scale(value)] for advice, value in entry.mistakes], entry.hidden)

    def other_machine(src: Path) -> dict[str, list[Entry]]:
        return {gid: [nudge(e) for e in entries] if cells is None or gid in cells else entries
                for gid, entries in record(src).items()}
    return other_machine


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _references(notebook: Path) -> dict[str, str]:
    """Test cell id -> the digest of the values its released test cell names."""
    cells = nbformat.read(notebook, as_version=4).cells
    return {nbgrader_meta(c)["grade_id"]: written_reference(c.source).digest
            for c in cells if is_test(c) and written_reference(c.source)}


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


def test_check_reports_missing_edited_and_stale(tiny_course: Path, tmp_path: Path,
                                                recorded: Recorder) -> None:
    """Does --check report a missing, a hand-edited and a stale exercise, and pass when clean?"""
    sources, exercises = tmp_path / "solutions", tmp_path / "exercises"
    shutil.copytree(tiny_course, sources)
    paths = {"solutions": sources, "exercises": exercises, "record": recorded}
    assert release(check=True, **paths)  # missing
    assert release(**paths) == [
        "wrote exercises/00_tiny.ipynb", "wrote autograder/kernel/released/00_tiny.json"]
    assert release(check=True, **paths) == []
    edited = exercises / "00_tiny.ipynb"
    edited.write_text(edited.read_text().replace("Question 1", "Question one"))
    assert "differs" in release(check=True, **paths)[0]
    release(**paths)
    (exercises / "99_old.ipynb").write_text("{}")
    assert release(check=True, **paths) == ["99_old.ipynb has no source in solutions/"]


def test_committed_exercises_match_solutions() -> None:
    """Is every committed exercise exactly what its source generates with the values it names,
    and does every chapter and source start with the set-up cell of _config.yml's repository?
    (Those values are compared with a fresh trusted run, within each check's tolerance, by
    test_exercises.py; `make test` runs `release --check`, which records them too.)"""
    def committed(src: Path) -> dict[str, list[Entry]]:
        return written_records((ROOT / "exercises" / src.name).read_text())

    assert release(check=True, setup_cells_in=COURSE_FOLDERS, record=committed) == []
    assert sorted(p.name for p in (ROOT / "exercises").glob("*.ipynb")) == sorted(
        p.name for p in (ROOT / "solutions").glob("*.ipynb"))


def test_release_writes_the_setup_cell(tiny_course: Path, tmp_path: Path,
                                       recorded: Recorder) -> None:
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
    paths = {"solutions": sources, "exercises": exercises, "record": recorded}
    release(**paths)
    assert release(check=True, setup_cells_in=(folder,), **paths) == [
        "notebooks/01_demo.ipynb: its set-up cell is not the one _config.yml gives"]
    release(setup_cells_in=(folder,), **paths)
    cells = nbformat.read(folder / "01_demo.ipynb", as_version=4).cells
    assert [c.source for c in cells] == [setup_cell(), "x = 1"]
    assert release(check=True, setup_cells_in=(folder,), **paths) == []
    assert not stamp_setup_cell(nbformat.from_dict({"cells": cells}), setup_cell())


def test_release_writes_values_files_and_check_compares_them(tiny_course: Path,
                                                             tmp_path: Path,
                                                             recorded: Recorder) -> None:
    """Does release write the visible checks' values into the exercise's values file (the
    hidden ones never), name them in a short line of each test cell, keep the values of
    earlier releases, and does --check report a values file that lacks the named values, was
    edited by hand, or has no source?"""
    sources, exercises = tmp_path / "solutions", tmp_path / "exercises"
    values = tmp_path / "autograder" / "kernel" / "released"  # the course's own package folder
    shutil.copytree(tiny_course, sources)
    assert sorted(release(solutions=sources, exercises=exercises, record=recorded)) == [
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
    check = {"check": True, "solutions": sources, "exercises": exercises, "record": recorded}
    assert release(**check) == []

    earlier = merged(sets, {"q1_double_tests": [Entry("value", "an older check", "ok")]})
    store.write_text(render_values("00_tiny", earlier))
    assert release(**check) == []  # an earlier release's values stay
    store.write_text(store.read_text().replace('"an older check"', '"edited"'))
    assert release(**check)[0].startswith("00_tiny.json cannot be read")
    with pytest.raises(ValueError, match="fix or delete it"):
        release(solutions=sources, exercises=exercises, record=recorded)
    store.write_text(render_values("00_tiny", {}))
    report = release(**check)
    assert any(line.startswith("00_tiny.ipynb: q1_double_tests names the values")
               and "00_tiny.json lacks" in line for line in report)
    (values / "99_old.json").write_text(render_values("99_old", {}))
    assert "99_old.json has no source in solutions/" in release(**check)


def _released_course(tiny_course: Path, tmp_path: Path, recorded: Recorder,
                     ) -> Callable[..., list[str]]:
    """The tiny course released into ``tmp_path`` by this machine; returns ``release`` bound
    to that copy."""
    sources = tmp_path / "solutions"
    shutil.copytree(tiny_course, sources)

    def again(record: Recorder, check: bool = False) -> list[str]:
        return release(check=check, solutions=sources, exercises=tmp_path / "exercises",
                       record=record)
    again(recorded)
    return again


def test_release_on_another_machine_within_tolerance_changes_nothing(
        tiny_course: Path, tmp_path: Path, recorded: Recorder) -> None:
    """Released again where JAX computes every float a few units in the last place apart
    (values whose digests differ), do release and --check leave every file as it was?"""
    again = _released_course(tiny_course, tmp_path, recorded)
    before = _files(tmp_path)
    noisy = _nudged(recorded, 3e-7)
    source = tmp_path / "solutions" / "00_tiny.ipynb"
    fresh, mine = visible_records(noisy(source)), visible_records(recorded(source))
    assert all(digest(fresh[gid]) != digest(mine[gid]) for gid in mine)  # the old churn
    assert again(noisy, check=True) == []
    assert again(noisy) == []
    assert _files(tmp_path) == before


def test_release_of_a_value_moved_beyond_tolerance_fails_check_and_names_new_values(
        tiny_course: Path, tmp_path: Path, recorded: Recorder) -> None:
    """When one test cell's reference value really changed, does --check fail naming the cell
    and the largest difference, does release give that cell (only) a new digest while the
    values file keeps the old one loadable, and does going back to the first values bring
    back their digest?"""
    again = _released_course(tiny_course, tmp_path, recorded)
    notebook = tmp_path / "exercises" / "00_tiny.ipynb"
    store = tmp_path / "autograder" / "kernel" / "released" / "00_tiny.json"
    first = written_records(notebook.read_text(), store.parent)
    first_text, first_refs = notebook.read_text(), _references(notebook)
    moved = _nudged(recorded, 1e-2, cells=("q1_double_tests",))

    report = again(moved, check=True)
    assert report[0].startswith("00_tiny q1_double_tests: the values changed beyond tolerance: "
                                "'double(arange(3.0))': largest difference 0.04 at index (2,)")
    assert "00_tiny.ipynb differs from what 00_tiny.ipynb generates (" in report[1]
    assert len(report) == 3 and report[2].startswith("00_tiny.json differs")

    report = again(moved)
    assert report[0].startswith("00_tiny q1_double_tests: the values released anew: ")
    assert report[1:] == ["wrote exercises/00_tiny.ipynb",
                          "wrote autograder/kernel/released/00_tiny.json"]
    refs = _references(notebook)
    assert refs["q1_double_tests"] != first_refs["q1_double_tests"]
    assert refs["q2_set_first_tests"] == first_refs["q2_set_first_tests"]
    now = written_records(notebook.read_text(), store.parent)
    assert np.allclose(decode(now["q1_double_tests"][0].got), [0.0, 2.02, 4.04])
    sets = read_values(store.read_text(), "00_tiny")
    assert sets["q1_double_tests"][first_refs["q1_double_tests"]] == first["q1_double_tests"]
    assert again(moved, check=True) == []

    report = again(recorded)  # back on the first machine: its values, under their digest
    assert report[0].startswith("00_tiny q1_double_tests: the values released anew: ")
    assert report[1:] == ["wrote exercises/00_tiny.ipynb"]
    assert notebook.read_text() == first_text
    assert set(read_values(store.read_text(), "00_tiny")["q1_double_tests"]) == {
        first_refs["q1_double_tests"], refs["q1_double_tests"]}


@pytest.mark.slow
@pytest.mark.runtimes
def test_release_on_another_jax_keeps_the_committed_values(runtime: KernelRuntime) -> None:
    """Recorded on another build of JAX (Colab's, the newest; Python 3.13), where 13_capstone's
    float32 values may differ in their last bits from the committed ones (the tools' JAX; on
    the newest, 5 of the 7 test cells it had then gave other digests on 2026-11-27), does
    every test cell keep its committed values, so release writes nothing there?"""
    source = ROOT / "solutions" / "13_capstone.ipynb"
    fresh = visible_records(trusted_records(source, python=runtime.python))
    committed = written_records((ROOT / "exercises" / source.name).read_text())
    kept, changes = settled(committed, fresh)
    assert changes == {}
    assert kept == committed


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
