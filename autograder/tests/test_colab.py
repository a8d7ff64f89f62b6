"""Tests of autograder.kernel.colab and of the course on Google Colab's runtime.

The first tests check the set-up cell itself. The ones marked ``colab`` run the course on
Colab's packages (``requirements-colab.txt``, built into ``.venv-colab/`` by ``make
setup-colab``; ``make test`` and ``make test-colab`` run them): every chapter executes, every
exercise's reference answers pass with their hidden tests, stubs fail and wrong answers fail with
the same messages as on the pinned stack, and a notebook's first cell installs the package into
a fresh runtime that lacks it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from autograder.kernel import colab
from autograder.tests.harness_runs import harness_report, long_or_course_failures

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGES = sorted((ROOT / "book").glob("*.ipynb"))  # the book's own pages that run code
SOURCES = sorted((ROOT / "solutions").glob("*.ipynb"))
KERNEL = "learn-jax-colab"  # installed into .venv-colab by `make setup-colab`


def _run_setup_cell(source: str, run: object) -> None:
    """Execute a set-up cell with ``google.colab`` present and ``subprocess.run`` replaced."""
    fake = types.SimpleNamespace(run=run)
    code = TransformerManager().transform_cell(source)
    saved = sys.modules.get("subprocess")
    sys.modules["subprocess"] = fake  # the cell imports subprocess inside its `if`
    try:
        exec(code, {})
    finally:
        sys.modules["subprocess"] = saved


def test_setup_cell_does_nothing_outside_colab() -> None:
    """Does the set-up cell run without installing anything when google.colab is absent?"""
    calls: list = []
    assert not colab.in_colab()
    _run_setup_cell(colab.setup_cell(), lambda *a, **k: calls.append(a))
    assert calls == []


def test_setup_cell_installs_without_dependencies_in_colab(monkeypatch) -> None:
    """In Colab, does it pip-install this package from _config.yml's repository and branch,
    without dependencies (Colab's own JAX and NumPy stay)?"""
    calls: list = []
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    url, branch = colab.repository()

    def run(cmd, **kwargs):
        calls.append(cmd)
        return types.SimpleNamespace(returncode=0, stderr="")

    _run_setup_cell(colab.setup_cell(), run)
    assert len(calls) == 1 and calls[0][1:4] == ["-m", "pip", "install"]
    assert "--no-deps" in calls[0]
    assert f"{colab.PACKAGE} @ git+{url}@{branch}" in calls[0]


def test_setup_cell_failure_says_what_to_do(monkeypatch) -> None:
    """When pip fails, does the cell raise one clear sentence (and pip's last line), not a
    pip traceback?"""
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    stderr = ("Traceback (most recent call last):\n  File \"pip/_internal/cli.py\", line 1\n"
              "ERROR: Could not resolve host: github.com")

    def run(cmd, **kwargs):
        return types.SimpleNamespace(returncode=1, stderr=stderr)

    with pytest.raises(RuntimeError) as info:
        _run_setup_cell(colab.setup_cell(), run)
    message = str(info.value)
    assert message.startswith("Could not install the course's helper package: check that")
    assert "run this cell again" in message and "Could not resolve host" in message
    assert "Traceback" not in message and "\n" not in message
    assert info.value.__cause__ is None and info.value.__suppress_context__


# ----------------------------------------------------------------- on Colab's packages


@pytest.fixture(scope="session")
def colab_venv() -> Path:
    """The Colab-stack environment (``LEARN_JAX_COLAB_VENV``); skip when not asked for."""
    where = os.environ.get("LEARN_JAX_COLAB_VENV")
    if not where:
        pytest.skip("set LEARN_JAX_COLAB_VENV (make test and make test-colab do)")
    venv = (ROOT / where).resolve()
    if not (venv / "bin" / "python").exists():
        pytest.fail(f"{where} has no bin/python: run `make setup-colab`")
    return venv


@pytest.fixture(scope="session")
def colab_kernel_env(colab_venv: Path) -> Iterator[None]:
    """Make the Colab stack's kernelspec visible to nbclient for the session."""
    saved = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        p for p in [str(colab_venv / "share" / "jupyter"), saved] if p)
    yield
    if saved is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = saved


def _execute(nb: nbformat.NotebookNode, kernel: str, cwd: Path, timeout: int = 180
             ) -> nbformat.NotebookNode:
    """Execute ``nb`` with nbclient (cells tagged raises-exception may raise)."""
    from nbclient import NotebookClient

    client = NotebookClient(nb, kernel_name=kernel, timeout=timeout,
                            resources={"metadata": {"path": str(cwd)}})
    client.execute()
    return nb


def _errors(nb: nbformat.NotebookNode) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if o.output_type == "error"]


@pytest.mark.colab
def test_colab_stack_is_colab_s(colab_venv: Path) -> None:
    """Does .venv-colab hold requirements-colab.txt's versions, and the course package
    installed as a package (not this checkout on the path)?"""
    code = ("import importlib.metadata as m, autograder, pathlib; "
            "print(m.version('jax'), m.version('numpy'), m.version('ipython')); "
            "print(pathlib.Path(autograder.__file__).parent.parent.name)")
    out = subprocess.run([str(colab_venv / "bin" / "python"), "-c", code], cwd="/",
                         capture_output=True, text=True, check=True).stdout.split()
    pins = dict(line.split("==") for line in (ROOT / "requirements-colab.txt").read_text()
                .splitlines() if "==" in line and not line.startswith("#"))
    assert out[:3] == [pins["jax"], pins["numpy"], pins["ipython"]]
    assert out[3] == "site-packages"


@pytest.mark.colab
@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_runs_on_colab_stack(chapter: Path, colab_kernel_env: None) -> None:
    """Does every chapter execute on Colab's packages with no error except the cells tagged
    raises-exception, each shown in at most 40 lines, and say it runs inside the tested
    range?"""
    nb = _execute(nbformat.read(chapter, as_version=4), KERNEL, chapter.parent)
    tagged = [c for c in nb.cells if "raises-exception" in c.metadata.get("tags", [])]
    untagged = [c for c in nb.cells if c.cell_type == "code" and c not in tagged]
    assert _errors(nbformat.from_dict({"cells": untagged})) == []
    for cell in tagged:
        for out in cell.outputs:
            if out.output_type == "error":
                shown = "\n".join(out.traceback)
                assert len(shown.splitlines()) <= 40 and "site-packages" not in shown, shown
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []))
    assert "JAX 0.7.2 on CPU" in printed and "Note: JAX" not in printed


@pytest.mark.colab
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_book_page_runs_on_colab_stack(page: Path, colab_kernel_env: None) -> None:
    """Does each book page that runs code (tools, what next, reading older code) execute on
    Colab's packages without an error, and print the JAX version it ran on?"""
    nb = _execute(nbformat.read(page, as_version=4), KERNEL, page.parent, timeout=300)
    assert _errors(nb) == []
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []))
    assert "JAX 0.7.2" in printed


@pytest.mark.colab
def test_compat_on_colab_stack(colab_venv: Path) -> None:
    """Do autograder.kernel.compat's shims (nested jaxprs, scoped x64, key-reuse checks, the
    tested range) work on Colab's JAX, as they do on the pinned one?"""
    from autograder.tests import test_compat

    code = ("from autograder.tests import test_compat as t\n"
            "for name in dir(t):\n"
            "    if name.startswith('test_'):\n"
            "        getattr(t, name)(); print('ok', name)\n")
    count = sum(name.startswith("test_") for name in dir(test_compat))
    proc = subprocess.run([str(colab_venv / "bin" / "python"), "-c", code], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("ok ") == count >= 5


@pytest.fixture(scope="module", params=SOURCES, ids=[p.stem for p in SOURCES])
def both_reports(request: pytest.FixtureRequest, colab_venv: Path) -> tuple[dict, dict]:
    """The exercise harness's report for one source on the pinned stack and on Colab's."""
    return (harness_report(request.param),
            harness_report(request.param, str(colab_venv / "bin" / "python")))


@pytest.mark.colab
def test_exercise_on_colab_stack(both_reports: tuple[dict, dict]) -> None:
    """On Colab's packages, does every reference answer pass with its hidden tests, every stub
    fail, and every wrong answer fail with the same message as on the pinned stack?"""
    pinned, colab_run = both_reports
    assert colab_run["errors"] == []
    questions = colab_run["questions"]
    assert sorted(questions) == sorted(pinned["questions"])
    assert {q: e["reference"] for q, e in questions.items()} == {q: "passed" for q in questions}
    assert [q for q, e in questions.items() if "should fail" in e["stub"]] == []
    for q, entry in questions.items():
        # `wrong` is the course's message (the test's own, and hints in place of JAX's text,
        # which differs between versions); `seen` is everything the learner sees.
        assert entry["wrong"] == pinned["questions"][q]["wrong"], q
        for case, expect in entry["expect"].items():
            assert expect and expect in entry["seen"][case], (q, case, entry["seen"][case])


@pytest.mark.colab
def test_failures_are_short_on_colab_ipython(both_reports: tuple[dict, dict]) -> None:
    """On Colab's IPython (7.34), is every wrong answer's failure, as a notebook shows it, at
    most 15 lines with no frame of the test cell or of the course's package?"""
    _, colab_run = both_reports
    shown = [s for e in colab_run["questions"].values() for s in e["shown"].values()]
    assert shown
    assert long_or_course_failures(colab_run) == {}


# ----------------------------------------------------------------- the first cell, end to end

_NOT_COPIED = ("autograder", "learn_jax_autograder", "__editable__", "pip", "setuptools",
               "_distutils_hack", "distutils-precedence.pth", "pkg_resources", "__pycache__")


def _site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


@pytest.fixture(scope="module")
def fresh_runtime(colab_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A fresh Colab-like runtime lacking the course package, a kernelspec for it, a stand-in
    ``google.colab`` imported at kernel start, and a local clone of this checkout."""
    base = tmp_path_factory.mktemp("colab-runtime")
    venv = base / "venv"
    subprocess.run([str(colab_venv / "bin" / "python"), "-m", "venv", str(venv)], check=True)
    site = _site_packages(venv)
    for entry in _site_packages(colab_venv).iterdir():  # Colab's packages, not the course's
        if not entry.name.startswith(_NOT_COPIED) and not (site / entry.name).exists():
            (site / entry.name).symlink_to(entry)
    (site / "google" / "colab").mkdir(parents=True)
    (site / "google" / "colab" / "__init__.py").write_text('"""Stand-in for Colab."""\n')
    # JAX's debugger imports google.colab.output when google.colab exists, as in Colab.
    (site / "google" / "colab" / "output.py").write_text('"""Stand-in."""\n')
    startup = base / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-colab.py").write_text("import google.colab  # as Colab's runtime does\n")
    spec = base / "jupyter" / "kernels" / "fresh-colab"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(venv / "bin" / "python"), "-m", "ipykernel_launcher", "-f",
                 "{connection_file}"],
        "display_name": "fresh Colab-like runtime", "language": "python",
        "env": {"IPYTHONDIR": str(base / "ipython"), "PYDEVD_DISABLE_FILE_VALIDATION": "1"}}))
    clone = base / "repo"  # this checkout's files as one commit on a branch `main`
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split("\n")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, clone / rel)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@localhost"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=clone, check=True)
    subprocess.run([*git, "add", "-A"], cwd=clone, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "snapshot"], cwd=clone, check=True)
    saved = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in [str(base / "jupyter"), saved] if p)
    # pip's requirement parser (23.x) wants a host in a file URL: file://localhost/...
    yield {"python": venv / "bin" / "python", "url": f"file://localhost{clone}", "base": base}
    if saved is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = saved


def _first_cells(url: str) -> nbformat.NotebookNode:
    """Exercise 05's cells up to its first answer, the set-up cell pointed at ``url``."""
    nb = nbformat.read(ROOT / "exercises" / "05_jit.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    end = next(i for i, c in enumerate(code) if "answer-id" in c.source)
    code[0].source = colab.setup_cell(url, "main")
    return nbformat.v4.new_notebook(cells=code[:end], metadata=nb.metadata)


@pytest.mark.colab
def test_first_cell_installs_the_package_in_a_fresh_runtime(fresh_runtime: dict) -> None:
    """In a fresh runtime without the package, does the first cell install it from the
    repository (a local git+file clone here) and do the next cells import it and run?"""
    python = str(fresh_runtime["python"])
    missing = subprocess.run([python, "-c", "import autograder"], capture_output=True,
                             cwd=fresh_runtime["base"])
    assert missing.returncode != 0, "the fresh runtime must lack the course package"
    nb = _execute(_first_cells(fresh_runtime["url"]), "fresh-colab", fresh_runtime["base"],
                  timeout=300)
    assert _errors(nb) == []
    printed = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
    assert "JAX 0.7.2 on CPU" in printed
    where = subprocess.run([python, "-c", "import autograder; print(autograder.__file__)"],
                           capture_output=True, text=True, cwd=fresh_runtime["base"], check=True)
    assert "site-packages" in where.stdout


@pytest.mark.colab
def test_first_cell_failure_in_a_fresh_runtime(fresh_runtime: dict) -> None:
    """When the repository cannot be reached, does the cell show one sentence saying what to
    do, in a few lines, instead of pip's traceback?"""
    nb = _first_cells(f"file://localhost{fresh_runtime['base']}/no-such-repository")
    nb.cells = nb.cells[:1]
    nb.cells[0].metadata["tags"] = ["raises-exception"]
    nb = _execute(nb, "fresh-colab", fresh_runtime["base"], timeout=300)
    (error,) = [o for o in nb.cells[0].outputs if o.output_type == "error"]
    assert error.ename == "RuntimeError"
    assert error.evalue.startswith("Could not install the course's helper package")
    assert len(error.traceback) <= 40 and "pip/_internal" not in "".join(error.traceback)
