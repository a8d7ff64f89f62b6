"""Tests of autograder.grader.publish: the released course copied into a checkout of its public
repository, with nothing private (answers, hidden tests, their values) in it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.core.evidence import Entry
from autograder.core.released import merged, read_values, render_values
from autograder.grader.cli import main
from autograder.grader.publish import PUBLIC_FILES, publish
from autograder.grader.release import ROOT

# What the course's chapters show verbatim of an answer (a chapter teaching the idiom):
# published, with a note. A new one fails test_published_tree_holds_no_answer_or_hidden_test.
# None today: 05 q3 asks for a rule per leaf, which the chapter's sgd_update does not show.
CHAPTER_ANSWERS: set[tuple[str, str]] = set()
_BLOCK = {"answer": re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S),
          "hidden tests": re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)}


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course itself, published into an empty folder."""
    dest = tmp_path_factory.mktemp("public") / "learn-jax-public"
    publish(dest)
    return dest


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A copy of the course (no git: every file of the published folders counts)."""
    root = tmp_path / "course"
    skip = shutil.ignore_patterns("__pycache__", "tests", ".ipynb_checkpoints")
    for name in ("solutions", "exercises", "notebooks", "book", "autograder"):
        shutil.copytree(ROOT / name, root / name, ignore=skip)
    for name in PUBLIC_FILES:
        shutil.copy(ROOT / name, root / name)
    shutil.copytree(ROOT / "bench" / "results", root / "bench" / "results")
    return root


def _text(path: Path) -> str | None:
    """What a published file says: a notebook's cell sources, another file's text; None for a
    file that is not text."""
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        return None
    if path.suffix == ".ipynb":
        return "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
    return text


def _lines(text: str) -> str:
    return "\n" + "\n".join(line.strip() for line in text.splitlines() if line.strip()) + "\n"


def _private_blocks() -> list[tuple[str, str, str]]:
    """(what, cell id, body) of every answer and hidden-test block of solutions/."""
    found = []
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            for what, pattern in _BLOCK.items():
                found += [(what, f"{path.stem} {gid}", body)
                          for body in pattern.findall(cell.source) if body.strip()]
    return found


def test_published_tree_holds_the_public_course_only(published: Path) -> None:
    """Does the published tree hold exactly the exercises, chapters, book pages (and the images
    they show), the book's configuration and the package with its values files, and no
    solutions/, package tests or other file of the course?"""
    top = sorted(p.name for p in published.iterdir())
    assert top == sorted(["autograder", "bench", "book", "exercises", "notebooks",
                          *PUBLIC_FILES])
    names = sorted(str(p.relative_to(published)) for p in published.rglob("*") if p.is_file())
    assert not [n for n in names if n.startswith(("solutions", "autograder/tests"))
                or "__pycache__" in n or "/." in n]
    assert sorted(p.name for p in (published / "exercises").glob("*")) == sorted(
        p.name for p in (ROOT / "solutions").glob("*.ipynb"))
    assert sorted(p.name for p in (published / "notebooks").glob("*")) == sorted(
        p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    package = sorted(p.name for p in (published / "autograder").iterdir())
    assert package == sorted(p.name for p in (ROOT / "autograder").iterdir()
                             if p.name not in ("tests", "__pycache__"))
    assert {"kernel", "core", "grader", "__init__.py"} <= set(package)
    values = ROOT / "autograder" / "kernel" / "released"
    for path in values.glob("*.json"):
        assert (published / "autograder/kernel/released" / path.name).read_bytes() == \
            path.read_bytes()
    assert {n for n in names if n.startswith("bench/")} == {
        "bench/results/book_build.png", "bench/results/course_speedups.png",
        "bench/results/grading_throughput.png", "bench/results/timing_fidelity.png",
        "bench/results/term_at_scale.png",
        "bench/results/gpu/course_speedups.png"}


def test_published_tree_holds_no_answer_or_hidden_test(published: Path) -> None:
    """Grepping every published file: does none hold nbgrader's hidden-test or solution markers
    in a notebook, any hidden test's source, any answer's body (but the chapter that teaches
    one, listed above), or the name of a hidden check in a values file?"""
    blocks = _private_blocks()
    assert sum(what == "hidden tests" for what, _, _ in blocks) >= 9
    assert sum(what == "answer" for what, _, _ in blocks) >= 40
    found: set[tuple[str, str]] = set()
    markers: list[str] = []
    for path in sorted(p for p in published.rglob("*") if p.is_file()):
        text = _text(path)
        if text is None:
            continue
        name = str(path.relative_to(published))
        if path.suffix == ".ipynb" and re.search(r"### (BEGIN|END) (SOLUTION|HIDDEN TESTS)", text):
            markers.append(name)
        haystack = _lines(text)
        found |= {(name, f"{where} {what}") for what, where, body in blocks
                  if _lines(body) in haystack}
    assert markers == []
    assert found == {(name, f"{cell} answer") for name, cell in CHAPTER_ANSWERS}

    names = re.compile(r"""name=(?:f?)(["'])(.*?)\1""")
    hidden, visible = set(), set()
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            parts = cell.source.split("### BEGIN HIDDEN TESTS")
            visible |= {m[1] for part in parts[:1] for m in names.findall(part)}
            hidden |= {m[1] for part in parts[1:] for m in names.findall(part)}
    assert len(hidden - visible) > 30
    released = {entry["name"] for path in (published / "autograder/kernel/released").glob("*")
                for sets in json.loads(path.read_text())["cells"].values()
                for entries in sets.values() for entry in entries}
    assert released and not released & (hidden - visible)


def test_publish_again_changes_nothing_and_keeps_the_repositorys_own_files(
        course: Path, tmp_path: Path) -> None:
    """Publishing into a checkout: are its .git and workflows kept, does a second publish write
    nothing, and does an exercise the course dropped leave the checkout?"""
    dest = tmp_path / "public"
    (dest / ".git").mkdir(parents=True)
    (dest / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (dest / ".github" / "workflows").mkdir(parents=True)
    (dest / ".github" / "workflows" / "book.yml").write_text("name: book\n")
    (dest / "exercises").mkdir()
    (dest / "exercises" / "00_dropped.ipynb").write_text("{}")
    report = publish(dest, course)
    assert "removed exercises/00_dropped.ipynb" in report
    assert "wrote exercises/06_jit.ipynb" in report
    assert (dest / ".git" / "HEAD").exists() and (dest / ".github/workflows/book.yml").exists()
    assert [line for line in publish(dest, course) if not line.startswith("note:")] == []
    for name in ("solutions/13_capstone.ipynb", "exercises/13_capstone.ipynb"):
        (course / name).unlink()
    (course / "autograder/kernel/released/13_capstone.json").unlink()
    report = publish(dest, course)
    assert sorted(line for line in report if line.startswith("removed")) == [
        "removed autograder/kernel/released/13_capstone.json",
        "removed exercises/13_capstone.ipynb"]


def _paste(path: Path, source: str) -> None:
    """Add a code cell holding ``source`` to the notebook ``path``."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(source))
    nbformat.write(nb, path)


def _hidden_test(stem: str) -> str:
    """The first hidden tests of a source, without their markers."""
    nb = nbformat.read(ROOT / "solutions" / f"{stem}.ipynb", as_version=4)
    return next(m for c in nb.cells for m in _BLOCK["hidden tests"].findall(c.source))


def _answer(stem: str) -> str:
    """The first answer body of a source, without its markers."""
    nb = nbformat.read(ROOT / "solutions" / f"{stem}.ipynb", as_version=4)
    return next(m for c in nb.cells for m in _BLOCK["answer"].findall(c.source))


def _leak(course: Path, dest: Path, case: str) -> str:
    """Put one kind of private material where publishing would take it; return the path the
    refusal must name."""
    if case == "hidden test pasted in a chapter":
        _paste(course / "notebooks/06_jit.ipynb", "# worked example\n" + _hidden_test("06_jit"))
        return "notebooks/06_jit.ipynb holds 06_jit: the hidden tests of q1_clip_by_norm_tests"
    if case == "answer quoted in a book page":
        page = course / "book/answers.md"
        page.write_text("# Answers\n\n```python\n" + _answer("10_vmap") + "```\n")
        return "book/answers.md holds 10_vmap: the answer"
    if case == "answer in an exercise":
        _paste(course / "exercises/04_prng.ipynb", _answer("04_prng"))
        return "exercises/04_prng.ipynb holds 04_prng: the answer"
    if case == "source copied over its exercise":
        shutil.copy(course / "solutions/03_pure_functions.ipynb",
                    course / "exercises/03_pure_functions.ipynb")
        return "exercises/03_pure_functions.ipynb holds nbgrader's markers"
    if case == "hidden value in a values file":
        store = course / "autograder/kernel/released/01_arrays.json"
        sets = read_values(store.read_text(), "01_arrays")
        extra = {"q1_apply_updates_tests": [Entry("value", "a hidden check", "ok",
                                                  hidden=True)]}
        store.write_text(render_values("01_arrays", merged(sets, extra)))
        return "autograder/kernel/released/01_arrays.json holds the value of a hidden check"
    if case == "solutions left in the checkout":
        shutil.copytree(course / "solutions", dest / "solutions")
        return "solutions/01_arrays.ipynb holds nbgrader's markers"
    if case == "hidden tests in a module of the package":
        (course / "autograder/kernel/scratch.py").write_text(
            "CASE = '''\n" + _hidden_test("09_control_flow") + "'''\n")
        return "autograder/kernel/scratch.py holds 09_control_flow: the hidden tests"
    raise AssertionError(case)


LEAKS = ["hidden test pasted in a chapter", "answer quoted in a book page",
         "answer in an exercise", "source copied over its exercise",
         "hidden value in a values file", "solutions left in the checkout",
         "hidden tests in a module of the package"]


@pytest.mark.parametrize("case", LEAKS)
def test_publish_refuses_private_material_and_writes_nothing(course: Path, tmp_path: Path,
                                                             case: str) -> None:
    """Attack: private material where publishing would take it (or already in the checkout).
    Is the whole publication refused, naming the file and what it holds, with the checkout
    left exactly as it was?"""
    dest = tmp_path / "public"
    publish(dest, course)
    before = {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    expected = _leak(course, dest, case)
    after_leak = {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    with pytest.raises(ValueError, match="nothing was published") as refused:
        publish(dest, course)
    assert expected in str(refused.value)
    assert {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()} == after_leak
    assert set(before) <= set(after_leak)


def test_publish_takes_honest_pages_that_show_the_markers(course: Path, tmp_path: Path) -> None:
    """Honest twin: a book page that explains nbgrader's markers around code that is no answer,
    and a chapter that teaches an answer's idiom (a cell showing 05 q3's answer, added to the
    copy: the course's chapters show none today), are published (the latter with a note)."""
    (course / "book/markers.md").write_text(
        "# Markers\n\n```python\ndef f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n"
        "    ### END SOLUTION\n```\n")
    answers = [cell.source for cell in nbformat.read(course / "solutions/05_grad.ipynb", 4).cells
               if cell.metadata.get("nbgrader", {}).get("grade_id") == "q3_sgd_step"]
    chapter = nbformat.read(course / "notebooks/05_grad.ipynb", as_version=4)
    chapter.cells.append(nbformat.v4.new_code_cell(_BLOCK["answer"].search(answers[0])[1]))
    nbformat.write(chapter, course / "notebooks/05_grad.ipynb")
    dest = tmp_path / "public"
    report = publish(dest, course)
    assert "wrote book/markers.md" in report
    assert [line for line in report if line.startswith("note:")] == [
        "note: the chapter notebooks/05_grad.ipynb shows 05_grad: the answer q3_sgd_step "
        "verbatim"]


def test_publish_refuses_links(course: Path, tmp_path: Path) -> None:
    """Attack: a link in a published folder (pointing at a source) or a published folder of the
    checkout that is a link out of it. Is either refused with nothing written outside?"""
    (course / "book/reference.ipynb").symlink_to(course / "solutions/06_jit.ipynb")
    with pytest.raises(ValueError, match="book/reference.ipynb is a link"):
        publish(tmp_path / "public", course)
    (course / "book/reference.ipynb").unlink()
    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "public2"
    dest.mkdir()
    (dest / "exercises").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValueError, match="exercises in .* is a link"):
        publish(dest, course)
    assert list(outside.iterdir()) == []


def test_publish_refuses_an_unreleased_course_and_an_overlapping_dest(course: Path,
                                                                     tmp_path: Path) -> None:
    """Is a course whose exercises are not a release of its sources refused (run release), and
    a DEST inside the course (or the course itself)?"""
    with pytest.raises(ValueError, match="overlaps the course"):
        publish(course / "public", course)
    with pytest.raises(ValueError, match="overlaps the course"):
        publish(course, course)
    (course / "exercises/05_grad.ipynb").unlink()
    with pytest.raises(ValueError, match=r"exercises/05_grad.ipynb is missing.*autograder "
                                         "release"):
        publish(tmp_path / "public", course)


def test_publish_command(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch, course: Path) -> None:
    """Does `python -m autograder publish DEST` publish (exit 0) and refuse a leak with one
    clear message (exit 1)?"""
    import autograder.grader.publish as module

    monkeypatch.setattr(module, "ROOT", course)
    assert main(["publish", str(tmp_path / "public")]) == 0
    assert "files written or removed" in capsys.readouterr().out
    _paste(course / "exercises/06_jit.ipynb", _answer("06_jit"))
    assert main(["publish", str(tmp_path / "public")]) == 1
    assert "error: nothing was published" in capsys.readouterr().err


def test_publish_takes_a_pages_images_but_never_from_solutions(course: Path,
                                                              tmp_path: Path) -> None:
    """Is an image a book page shows published from where it lies, while one it shows from
    solutions/ (a plot of the answers, say) is left out, and an image that is a link refused?"""
    (course / "solutions/answers.png").write_bytes(b"\x89PNG answers")
    (course / "bench/results/extra.png").write_bytes(b"\x89PNG extra")
    (course / "book/plots.md").write_text("# Plots\n\n![a](../bench/results/extra.png)\n"
                                          "![b](../solutions/answers.png)\n")
    dest = tmp_path / "public"
    publish(dest, course)
    assert (dest / "bench/results/extra.png").read_bytes() == b"\x89PNG extra"
    assert not (dest / "solutions").exists()
    (course / "bench/results/linked.png").symlink_to(course / "solutions/answers.png")
    (course / "book/plots.md").write_text("![c](../bench/results/linked.png)\n")
    with pytest.raises(ValueError, match="bench/results/linked.png is a link"):
        publish(dest, course)
