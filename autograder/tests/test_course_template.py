"""Tests of autograder.grader.course_template: generated courses kept in the reference cache."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import nbformat
import pytest

from autograder.__main__ import main
from autograder.grader import course_template
from autograder.grader.course_template import KEPT, cached_course, template_key
from autograder.tests.conftest import FIXTURES


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A private copy of the tiny course's source (tests change it)."""
    folder = tmp_path / "source"
    shutil.copytree(FIXTURES / "course", folder)
    return folder


def _set_points(source: Path, grade_id: str, points: int) -> None:
    """Give the test cell ``grade_id`` of the tiny course ``points`` (a source edit)."""
    path = source / "00_tiny.ipynb"
    nb = nbformat.read(path, as_version=4)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    cell.metadata["nbgrader"]["points"] = points
    nbformat.write(nb, path)


def _counting_generations(monkeypatch) -> list[list[str]]:
    """Record every course generation (the names generated) while still generating."""
    calls: list[list[str]] = []
    real = course_template.make_course

    def counted(course: Path, names: list[str], *args, **kwargs) -> str:
        calls.append(list(names))
        return real(course, names, *args, **kwargs)

    monkeypatch.setattr(course_template, "make_course", counted)
    return calls


def test_the_key_follows_the_sources_bytes_and_not_the_order_of_names(source: Path) -> None:
    """Is the key the same for the same sources however the names are listed, and different
    once a source notebook changes (a point value here)?"""
    shutil.copy(source / "00_tiny.ipynb", source / "00_other.ipynb")
    key = template_key(["00_tiny", "00_other"], source)
    assert key == template_key(["00_other", "00_tiny", "00_tiny"], source)
    assert key != template_key(["00_tiny"], source)
    _set_points(source, "q1_double_tests", 4)
    assert key != template_key(["00_tiny", "00_other"], source)


def test_a_kept_course_is_generated_once_and_holds_only_the_course(tmp_path: Path,
                                                                    source: Path,
                                                                    monkeypatch) -> None:
    """Does the first call generate the course and keep only the gradebook, the source and
    the released notebooks (no configuration, kernelspec or scratch files), and does a second
    call find it without generating again?"""
    calls = _counting_generations(monkeypatch)
    cache = tmp_path / "cache"
    kept = cached_course(cache, ["00_tiny"], source)
    assert calls == [["00_tiny"]]
    assert sorted(p.name for p in kept.iterdir()) == sorted(KEPT)
    assert (kept / "release" / "00_tiny" / "00_tiny.ipynb").is_file()
    assert [p.name for p in (cache / "courses").iterdir() if p.is_dir()] == [kept.name]
    assert cached_course(cache, ["00_tiny"], source) == kept
    assert calls == [["00_tiny"]]


def test_an_incomplete_kept_course_is_generated_again(tmp_path: Path, source: Path,
                                                       monkeypatch) -> None:
    """Is a kept course that lost a part (its gradebook, or a released notebook) generated
    again, whole, instead of being copied as it is?"""
    calls = _counting_generations(monkeypatch)
    cache = tmp_path / "cache"
    kept = cached_course(cache, ["00_tiny"], source)
    (kept / "gradebook.db").unlink()
    assert cached_course(cache, ["00_tiny"], source) == kept
    assert (kept / "gradebook.db").is_file() and len(calls) == 2
    shutil.rmtree(kept / "release" / "00_tiny")
    assert cached_course(cache, ["00_tiny"], source) == kept
    assert (kept / "release" / "00_tiny" / "00_tiny.ipynb").is_file() and len(calls) == 3


def test_callers_at_once_generate_one_course(tmp_path: Path, source: Path,
                                             monkeypatch) -> None:
    """Do three callers asking for the same missing course at the same moment (shards sharing
    a cache) get the same course, generated once?"""
    calls = _counting_generations(monkeypatch)
    cache = tmp_path / "cache"
    found: list[Path] = []
    threads = [threading.Thread(target=lambda: found.append(
        cached_course(cache, ["00_tiny"], source))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(found) == 3 and len(set(found)) == 1 and calls == [["00_tiny"]]


def test_only_the_most_recently_used_courses_are_kept(tmp_path: Path) -> None:
    """Does pruning keep the KEEP most recently used courses and remove older ones, with
    their lock files?"""
    courses = tmp_path / "courses"
    courses.mkdir()
    for i in range(course_template.KEEP + 2):
        (courses / f"k{i:02d}").mkdir()
        (courses / f".k{i:02d}.lock").touch()
        when = 1_000_000 + i
        os.utime(courses / f"k{i:02d}", (when, when))
    course_template._prune(courses)
    left = sorted(p.name for p in courses.iterdir() if p.is_dir())
    assert left == [f"k{i:02d}" for i in range(2, course_template.KEEP + 2)]
    assert not (courses / ".k00.lock").exists() and (courses / ".k02.lock").exists()


@pytest.mark.slow
def test_a_changed_source_is_graded_by_its_own_course_never_a_stale_one(
        tmp_path: Path, source: Path) -> None:
    """After a source notebook changes (question 1 worth 4 points instead of 2), does the
    next grading run with the same --reference-cache grade by the changed source (out of 7),
    and the run before it by the old one (out of 5), in one job and in two?"""
    (tmp_path / "ada").mkdir()
    shutil.copy(FIXTURES / "submissions" / "correct.ipynb", tmp_path / "ada" / "00_tiny.ipynb")
    cache = tmp_path / "reference"

    def graded(run: str, jobs: int) -> tuple[float, float]:
        out = tmp_path / run
        assert main(["grade", str(tmp_path / "ada"), "--source", str(source), "--no-feedback",
                     "--reference-cache", str(cache), "--jobs", str(jobs),
                     "--out", str(out)]) == 0
        result = json.loads((out / "ada" / "00_tiny" / "result.json").read_text())
        assert result["status"] == "graded", result["message"]
        return result["score"], result["max_score"]

    assert graded("before", 1) == (5, 5)
    _set_points(source, "q1_double_tests", 4)
    assert graded("after", 1) == (7, 7)
    assert graded("after-two-jobs", 2) == (7, 7)
    assert len([p for p in (cache / "courses").iterdir() if p.is_dir()]) == 2
