"""Tests of the course's notebooks and book configuration: the conventions every chapter and
exercise keeps (stems, set-up cell, parameters, no committed outputs, links)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import nbformat
import pytest
import yaml

from autograder.kernel import colab

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ["01_arrays", "02_pure_functions", "03_prng", "04_grad", "05_jit", "06_control_flow",
            "07_vmap", "08_sharding", "09_capstone", "10_key_concepts", "11_performance"]
FOLDERS = ["notebooks", "solutions", "exercises"]
ALL = [ROOT / f / f"{c}.ipynb" for f in FOLDERS for c in CHAPTERS]


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def test_one_stem_per_chapter_in_every_folder() -> None:
    """Does every folder hold exactly the eleven chapter stems?"""
    for folder in FOLDERS:
        assert sorted(p.stem for p in (ROOT / folder).glob("*.ipynb")) == CHAPTERS, folder


def test_committed_notebooks_have_no_outputs() -> None:
    """Is every tracked notebook committed without outputs or execution counts?"""
    tracked = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    assert tracked, "no notebooks are tracked"
    dirty = []
    for rel in tracked:
        if "fixtures/submissions" in rel or "fixtures/runtimes" in rel:
            continue  # submissions carry outputs on purpose, as Colab saved them
        nb = json.loads((ROOT / rel).read_text())
        if any(c.get("outputs") or c.get("execution_count") for c in nb.get("cells", [])):
            dirty.append(rel)
    assert dirty == []


BOOK_NOTEBOOKS = sorted([*(ROOT / "notebooks").glob("*.ipynb"),
                         *(ROOT / "book").glob("**/*.ipynb")])


@pytest.mark.parametrize("path", BOOK_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_line_over_200_characters(path: Path) -> None:
    """Is every line of every cell of a chapter or book page at most 200 characters (a table
    row too: long rows are split), as in the released exercises (test_release.py)?"""
    long = [f"cell {i} line {j + 1}: {len(line)} characters"
            for i, cell in enumerate(_read(path).cells)
            for j, line in enumerate(cell.source.splitlines()) if len(line) > 200]
    assert long == []


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_first_code_cell_is_the_colab_setup(path: Path) -> None:
    """Does each notebook start with the shared set-up cell (Colab install, else nothing)?"""
    first = next(c for c in _read(path).cells if c.cell_type == "code")
    assert first.source == colab.setup_cell()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_structure(chapter: str) -> None:
    """Does each chapter have a parameters cell, a runtime report, and end with a summary,
    pitfalls and a Colab link to its own exercise notebook?"""
    nb = _read(ROOT / "notebooks" / f"{chapter}.ipynb")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert any("parameters" in c.metadata.get("tags", []) for c in code[:3])
    assert any("describe()" in c.source for c in code[:5])
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## Summary" in text and "## Common pitfalls" in text
    assert colab.colab_link(f"exercises/{chapter}.ipynb") in text
    assert nb.metadata.kernelspec.name == "python3"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_deliberate_errors_are_tagged(chapter: str) -> None:
    """Is every cell that raises on purpose tagged, and followed by a cell (the fix)?"""
    cells = _read(ROOT / "notebooks" / f"{chapter}.ipynb").cells
    for i, cell in enumerate(cells):
        if "raises-exception" in cell.metadata.get("tags", []):
            assert i + 1 < len(cells), f"cell {i} raises on purpose but nothing follows it"


def test_timings_use_the_shared_helper() -> None:
    """Do notebooks time code only through autograder.kernel.timing, except the cells tagged
    `plain-timing` that teach the recipe without it (chapter 11, which teaches timing, and
    chapter 05 if it keeps a cell of its own)? Chapter 11 must have one."""
    offenders, plain = [], []
    for path in ALL:
        for cell in _read(path).cells:
            if "plain-timing" in cell.metadata.get("tags", []):
                plain.append(f"{path.parent.name}/{path.name}")
                continue
            if cell.cell_type == "code" and ("time.perf_counter" in cell.source
                                             or "time.time()" in cell.source
                                             or "%timeit" in cell.source):
                offenders.append(f"{path.parent.name}/{path.name}")
    assert offenders == []
    assert "notebooks/11_performance.ipynb" in plain
    assert set(plain) <= {"notebooks/05_jit.ipynb", "notebooks/11_performance.ipynb"}


def test_config_points_launch_buttons_at_the_repository() -> None:
    """Does _config.yml name the repository (read by the set-up cells) and Colab?"""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url, branch = colab.repository()
    assert url.startswith("https://github.com/") and branch
    assert f"git+{url}@{branch}" in colab.setup_cell()
    assert config["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert config["execute"]["allow_errors"] is False and config["execute"]["timeout"] > 0
    assert "exercises/*" in config["execute"]["exclude_patterns"]


def test_toc_lists_pages_chapters_and_exercises() -> None:
    """Does the table of contents hold the book pages, every chapter and every exercise?"""
    toc = (ROOT / "_toc.yml").read_text()
    for chapter in CHAPTERS:
        assert f"notebooks/{chapter}" in toc and f"exercises/{chapter}" in toc
    for page in ["intro", "how_to_use", "runtimes", "exercises", "grading", "glossary",
                 "references"]:
        assert f"book/{page}" in toc and (ROOT / "book" / f"{page}.md").exists()


def test_toc_lists_the_executed_book_pages() -> None:
    """Are the pages that run code (tools, what next, reading older code) notebooks in book/,
    listed in the table of contents, kernel python3, and free of the course's helper package
    (they must run in a fresh Colab runtime without the set-up cell)?"""
    toc = (ROOT / "_toc.yml").read_text()
    for page in ["tools", "what_next", "older_code"]:
        path = ROOT / "book" / f"{page}.ipynb"
        assert f"book/{page}" in toc and path.exists(), page
        nb = _read(path)
        assert nb.metadata.kernelspec.name == "python3", page
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert "autograder" not in code, page


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_book_leaves_out_the_set_up_cell(chapter: str) -> None:
    """Is each chapter's first code cell the Colab set-up cell, tagged ``remove-cell`` so that
    the book's page does not open with it (Colab ignores the tag and runs it first)?"""
    first = next(c for c in _read(ROOT / "notebooks" / f"{chapter}.ipynb").cells
                 if c.cell_type == "code")
    assert first.source.startswith("# Set-up: in Google Colab")
    assert "remove-cell" in first.metadata.get("tags", [])


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_turns_on_short_tracebacks(chapter: str) -> None:
    """Does each chapter's runtime cell turn on short error displays before anything fails?"""
    code = [c for c in _read(ROOT / "notebooks" / f"{chapter}.ipynb").cells
            if c.cell_type == "code"]
    runtime = next(i for i, c in enumerate(code) if "describe()" in c.source)
    assert "short_tracebacks()" in code[runtime].source
    first_error = next((i for i, c in enumerate(code)
                        if "raises-exception" in c.metadata.get("tags", [])), len(code))
    assert runtime < first_error


def test_other_tests_are_grouped_by_module(request: pytest.FixtureRequest) -> None:
    """Is a test not marked ``timing`` put in its module's xdist group (its module-scoped
    fixtures built once, on one worker)?"""
    group = request.node.get_closest_marker("xdist_group")
    assert group is not None and group.args == ("test_notebooks",)
