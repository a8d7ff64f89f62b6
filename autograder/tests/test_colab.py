"""Tests of autograder.kernel.colab: a notebook's first cell, which installs the course package.

The first tests check the set-up cell itself. The ones marked ``runtimes`` run it end to end on
Colab's runtime (``requirements-colab.txt``, Python 3.13, built by ``.ci/runtimes.py``; ``make
test`` and ``make test-colab`` run them): in a fresh runtime that lacks the package, the first
cell installs it from the repository and the next cells run. Every chapter and exercise on
Colab's runtime: ``test_runtimes.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from autograder.kernel import colab
from autograder.tests.conftest import kernel_runtime

ROOT = Path(__file__).resolve().parents[2]


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


# ----------------------------------------------------------------- the first cell, end to end
# (every chapter and exercise on Colab's runtime: test_runtimes.py)


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


_NOT_COPIED = ("autograder", "learn_jax_autograder", "__editable__", "pip", "setuptools",
               "_distutils_hack", "distutils-precedence.pth", "pkg_resources", "__pycache__")


def _site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


@pytest.fixture(scope="module")
def fresh_runtime(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A fresh runtime like Colab's (Colab's Python and packages) lacking the course package,
    a kernelspec for it, a stand-in ``google.colab`` imported at kernel start, and a local
    clone of this checkout."""
    colab_python = Path(kernel_runtime("colab").python)
    # .ci/runtimes.py lays a runtime out as `python` (the command) beside `venv/`; the command
    # runs the venv beside it, so a copy of it beside a new venv runs that one.
    colab_venv = colab_python.parent / "venv"
    base = tmp_path_factory.mktemp("colab-runtime")
    venv = base / "venv"
    subprocess.run([str(colab_python), "-m", "venv", str(venv)], check=True, cwd=base)
    python = base / "python"
    shutil.copy2(colab_python, python)
    site = _site_packages(venv)
    colab_site = _site_packages(colab_venv)
    for entry in colab_site.iterdir():  # Colab's packages, not the course's
        if entry.name.startswith(_NOT_COPIED) or (site / entry.name).exists():
            continue
        if entry.name == "google":  # a namespace shared with the stand-in: link its members,
            (site / "google").mkdir()  # so the stand-in never lands in the cached runtime
            for member in entry.iterdir():
                if member.name != "colab":
                    (site / "google" / member.name).symlink_to(member)
        else:
            (site / entry.name).symlink_to(entry)
    (site / "google" / "colab").mkdir(parents=True, exist_ok=True)
    (site / "google" / "colab" / "__init__.py").write_text('"""Stand-in for Colab."""\n')
    # JAX's debugger imports google.colab.output when google.colab exists, as in Colab.
    (site / "google" / "colab" / "output.py").write_text('"""Stand-in."""\n')
    startup = base / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-colab.py").write_text("import google.colab  # as Colab's runtime does\n")
    spec = base / "jupyter" / "kernels" / "fresh-colab"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f",
                 "{connection_file}"],
        "display_name": "fresh Colab-like runtime", "language": "python",
        # No PYTHONPATH: a checkout put on the path (to test a worktree) must not stand in for
        # the package the first cell installs.
        "env": {"IPYTHONDIR": str(base / "ipython"), "PYDEVD_DISABLE_FILE_VALIDATION": "1",
                "PYTHONPATH": ""}}))
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
    yield {"python": python, "url": f"file://localhost{clone}", "base": base,
           "jax": kernel_runtime("colab").pinned("jax")}
    if saved is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = saved


def _first_cells(url: str) -> nbformat.NotebookNode:
    """Exercise 06's cells up to its first answer, the set-up cell pointed at ``url``."""
    nb = nbformat.read(ROOT / "exercises" / "06_jit.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    end = next(i for i, c in enumerate(code) if "answer-id" in c.source)
    code[0].source = colab.setup_cell(url, "main")
    return nbformat.v4.new_notebook(cells=code[:end], metadata=nb.metadata)


def _loads_first_values() -> str:
    """A cell that loads the values 06_jit's first test cell names (its first two lines) from
    the installed package, and prints how many it got."""
    nb = nbformat.read(ROOT / "exercises" / "06_jit.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code" and "expected_values(" in c.source)
    return ("".join(first.source.splitlines(keepends=True)[:2])
            + "from autograder.kernel import reporter\n"
            + "print('released values:', len(reporter._state.expected))\n")


@pytest.mark.runtimes
def test_first_cell_installs_the_package_in_a_fresh_runtime(fresh_runtime: dict) -> None:
    """In a fresh runtime without the package, does the first cell install it from the
    repository (a local git+file clone here), do the next cells import it and run, and does a
    test cell's first line find its expected values in the installed package?"""
    python = str(fresh_runtime["python"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    missing = subprocess.run([python, "-c", "import autograder"], capture_output=True, env=env,
                             cwd=fresh_runtime["base"])
    assert missing.returncode != 0, "the fresh runtime must lack the course package"
    nb = _first_cells(fresh_runtime["url"])
    nb.cells.append(nbformat.v4.new_code_cell(_loads_first_values()))
    nb = _execute(nb, "fresh-colab", fresh_runtime["base"], timeout=300)
    assert _errors(nb) == []
    printed = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
    assert f"JAX {fresh_runtime['jax']} on CPU" in printed
    assert "released values: 3" in printed  # the package data came with the install
    where = subprocess.run([python, "-c", "import autograder; print(autograder.__file__)"], env=env,
                           capture_output=True, text=True, cwd=fresh_runtime["base"], check=True)
    assert "site-packages" in where.stdout


@pytest.mark.runtimes
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
