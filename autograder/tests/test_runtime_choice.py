"""Tests of autograder.grader.runtime_choice: each submission is graded on the runtime its
learner ran (Colab's JAX, the newest, the grader's own), its reference answers too.

The tests that grade on a built runtime (``.ci/runtimes.py``) run when ``LEARN_JAX_RUNTIMES``
names it, as ``make test`` does, and are skipped otherwise (conftest's ``kernel_runtime``).
"""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.__main__ import main
from autograder.grader import runtime_choice
from autograder.grader.runtime_choice import (
    PAGE_KEY,
    RuntimeMissing,
    choose,
    how_to_add,
    recorded_jax,
    resolve,
)
from autograder.kernel.compat import NEWEST_TESTED_JAX, OLDEST_TESTED_JAX
from autograder.tests.conftest import FIXTURES, kernel_runtime

COURSE = FIXTURES / "course"
COLAB_ONLY = FIXTURES / "runtimes" / "colab-only-api.ipynb"  # jax.experimental.enable_x64


def _notebook(colab: bool = False, printed: str | None = None) -> nbformat.NotebookNode:
    """A notebook saved by Colab (or not) whose runtime cell printed ``printed``."""
    nb = nbformat.v4.new_notebook()
    if colab:
        nb.metadata["colab"] = {"provenance": []}
    cell = nbformat.v4.new_code_cell("from autograder.kernel.runtime import describe\ndescribe();")
    if printed is not None:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)]
    nb.cells = [cell]
    return nb


def test_a_notebook_colab_saved_is_graded_on_colabs_runtime() -> None:
    """Does a notebook with Colab's metadata and no recorded version go to Colab's runtime,
    and one with neither to the grader's own?"""
    assert choose(_notebook(colab=True)) == ("colab", "the notebook was saved by Colab")
    assert choose(_notebook()) == ("tools", "the notebook names no runtime")


def test_the_recorded_jax_version_picks_the_runtime_that_has_it() -> None:
    """Does the version the runtime cell printed (``JAX x on CPU: ...``) pick the runtime with
    that JAX, before Colab's metadata (a learner who installed the newest JAX in Colab), and
    does a version no runtime has leave the choice to the metadata?"""
    newest = f"JAX {NEWEST_TESTED_JAX} on CPU: 1 device(s), cpu\n"
    oldest = f"JAX {OLDEST_TESTED_JAX} on GPU: 1 device(s), Tesla T4\n"
    assert recorded_jax(_notebook(printed=newest)) == NEWEST_TESTED_JAX
    assert choose(_notebook(colab=True, printed=newest))[0] == "newest"
    assert choose(_notebook(printed=oldest)) == ("colab",
                                                 f"the notebook ran JAX {OLDEST_TESTED_JAX}")
    assert choose(_notebook(colab=True, printed="JAX 0.1.0 on CPU: 1 device(s)\n"))[0] == (
        "colab")
    assert choose(_notebook(printed="JAX 0.1.0 on CPU: 1 device(s)\n"))[0] == "tools"
    assert recorded_jax(_notebook(printed="I like JAX 0.7.2 on CPU\n")) is None  # not its line


def test_the_instructors_choice_overrides_the_notebook() -> None:
    """Does ``--runtime NAME`` win over what the notebook says, and is an unknown name refused
    with the choices named?"""
    assert choose(_notebook(colab=True), "newest") == ("newest", "chosen by the instructor")
    assert choose(_notebook(colab=True), "tools")[0] == "tools"
    with pytest.raises(ValueError, match="colab, newest, tools, auto"):
        choose(_notebook(), "jax-0.4")


def test_a_runtime_not_installed_is_never_replaced() -> None:
    """Does asking for a runtime that is not installed raise, with a message that says how to
    add it (the make target and the runtimes script), instead of grading on another?"""
    found = {"tools": runtime_choice.tools()}
    with pytest.raises(RuntimeMissing) as missing:
        resolve("colab", found)
    assert missing.value.name == "colab"
    message = str(missing.value)
    assert "make setup-colab" in message
    assert ".ci/runtimes.py setup colab --kernels-into .venv" in message
    assert resolve("tools", found) is found["tools"]
    assert how_to_add("newest").count("newest") >= 2


def test_grade_refuses_a_runtime_not_installed_before_any_kernel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """Is ``grade --runtime colab`` where Colab's runtime is not installed a usage error
    (exit 2) naming how to add it, with nothing graded?"""
    monkeypatch.setattr(runtime_choice, "installed", lambda: {"tools": runtime_choice.tools()})
    (tmp_path / "ada").mkdir()
    shutil.copy(FIXTURES / "submissions" / "correct.ipynb", tmp_path / "ada" / "00_tiny.ipynb")
    status = main(["grade", str(tmp_path / "ada"), "--source", str(COURSE), "--out",
                   str(tmp_path / "out"), "--runtime", "colab"])
    assert status == 2
    assert "make setup-colab" in capsys.readouterr().err
    assert not list((tmp_path / "out").glob("*/*/result.json"))


def test_a_learner_cannot_name_the_kernel_or_the_runtime_shown(tmp_path: Path) -> None:
    """A submission whose metadata names the grader's kernel key (an unsandboxed ``python3``)
    and a runtime for the page: does the notebook the grader executes keep neither (it has the
    released notebook's metadata), while the grader's own choice is what it writes?"""
    from autograder.grader.preprocessors.execute_with_limits import KERNEL_KEY
    from autograder.grader.rebuild import rebuild
    from autograder.grader.release import student_version

    released = student_version(nbformat.read(COURSE / "00_tiny.ipynb", as_version=4))
    forged = nbformat.read(FIXTURES / "submissions" / "correct.ipynb", as_version=4)
    forged.metadata[KERNEL_KEY] = "python3"
    forged.metadata[PAGE_KEY] = {"title": "a runtime of my own", "why": "I said so"}
    rebuilt = rebuild(released, forged).notebook
    assert KERNEL_KEY not in rebuilt.metadata and PAGE_KEY not in rebuilt.metadata
    honest = rebuild(released, nbformat.read(FIXTURES / "submissions" / "correct.ipynb",
                                             as_version=4)).notebook
    assert rebuilt.metadata == honest.metadata


def _grade(tmp_path: Path, cases: dict[str, Path], *options: str) -> dict[str, dict]:
    """Grade ``cases`` (student -> notebook) of the tiny course; student -> result.json."""
    subs = tmp_path / "subs"
    for student, notebook in cases.items():
        (subs / student).mkdir(parents=True)
        shutil.copy(notebook, subs / student / "00_tiny.ipynb")
    out = tmp_path / "out"
    assert main(["grade", str(subs), "--source", str(COURSE), "--out", str(out),
                 *options]) == 0
    return {s: json.loads((out / s / "00_tiny" / "result.json").read_text()) for s in cases}


def _page(tmp_path: Path, student: str) -> str:
    """The text of ``student``'s feedback page, its entities decoded."""
    return html.unescape((tmp_path / "out" / student / "00_tiny" / "feedback.html").read_text())


@pytest.mark.slow
def test_a_runtime_chosen_but_missing_is_an_error_never_another_runtime(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --runtime auto and Colab's runtime missing: is the Colab-saved submission an
    ``error`` whose message says how to add the runtime and whose result names it, while the
    notebook naming no runtime beside it is graded (5 points) on the grader's own?"""
    monkeypatch.setattr(runtime_choice, "installed", lambda: {"tools": runtime_choice.tools()})
    results = _grade(tmp_path, {"colab": FIXTURES / "submissions" / "colab-saved.ipynb",
                                "plain": FIXTURES / "submissions" / "correct.ipynb"},
                     "--runtime", "auto", "--no-feedback")
    colab, plain = results["colab"], results["plain"]
    assert (colab["status"], colab["score"]) == ("error", 0), colab
    assert "make setup-colab" in colab["message"] and colab["runtime"]["name"] == "colab"
    assert (plain["status"], plain["score"]) == ("graded", 5), plain["message"]
    assert plain["runtime"]["name"] == "tools"


@pytest.mark.runtimes
@pytest.mark.slow
def test_an_answer_written_on_colabs_jax_passes_there(tmp_path: Path) -> None:
    """An answer using an API only Colab's JAX has (``jax.experimental.enable_x64``), in a
    notebook Colab saved: graded with --runtime auto, does it get every point on Colab's JAX,
    its result and feedback page naming that runtime? Its twin, the same notebook without
    Colab's metadata, is graded on the grader's own JAX, where that API is gone: does its
    question 1 fail there (so the runtime really changed what ran)?"""
    kernel_runtime("colab")
    twin = nbformat.read(COLAB_ONLY, as_version=4)
    del twin.metadata["colab"]
    nbformat.write(twin, tmp_path / "twin.ipynb")
    results = _grade(tmp_path, {"ada": COLAB_ONLY, "bob": tmp_path / "twin.ipynb"},
                     "--runtime", "auto")
    ada, bob = results["ada"], results["bob"]
    assert (ada["status"], ada["score"]) == ("graded", 5), ada
    assert ada["runtime"]["name"] == "colab" and ada["runtime"]["jax"] == OLDEST_TESTED_JAX
    assert ada["environment"]["jax"] == OLDEST_TESTED_JAX  # the trusted run's JAX too
    assert (f"Graded on Colab's runtime (JAX {OLDEST_TESTED_JAX}): the notebook was "
            "saved by Colab." in _page(tmp_path, "ada"))
    assert bob["runtime"]["name"] == "tools" and bob["score"] == 3, bob
    q1 = next(q for q in bob["questions"] if q["id"] == "q1_double")
    assert q1["status"] == "error" and "enable_x64" in q1["message"], q1
    assert "Graded on the grader's own runtime" in _page(tmp_path, "bob")


@pytest.mark.runtimes
@pytest.mark.slow
@pytest.mark.parametrize("name", ["colab", "newest"])
def test_the_tiny_course_grades_alike_on_each_runtime(tmp_path: Path, name: str) -> None:
    """Graded with ``--runtime NAME`` on a built runtime, do the tiny course's correct and
    partial answers score 5 and 3 as on the grader's own, with the result naming
    the runtime and its JAX, and the trusted run kept under the runtime's name?"""
    kernel_runtime(name)
    runtime = resolve(name)
    cases = {c: FIXTURES / "submissions" / f"{c}.ipynb"
             for c in ("correct", "partial")}
    results = _grade(tmp_path, cases, "--runtime", name, "--reference-cache",
                     str(tmp_path / "cache"))
    assert {c: r["score"] for c, r in results.items()} == {"correct": 5, "partial": 3}, results
    for case, result in results.items():
        assert result["runtime"]["name"] == name and result["runtime"]["jax"] == runtime.jax
        assert result["environment"]["jax"] == runtime.jax
        assert result["isolation"] in ("bubblewrap", "none")
        assert f"Graded on {runtime_choice.title(name, runtime.jax)}" in _page(tmp_path, case)
    assert list((tmp_path / "cache").glob(f"00_tiny-{name}-*.json"))
