"""Tests of the project's environment files: one place per runtime's versions, and the package's
floor, autograder.compat's tested range and book/runtimes.md's table agreeing with them."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _python_line(name: str) -> str | None:
    """The ``# python: X.Y`` line of a requirements file (the runtime's interpreter)."""
    found = re.search(r"^#\s*python:\s*(\d+\.\d+)\s*$", (ROOT / name).read_text(), re.M)
    return found.group(1) if found else None


def _requirements(name: str = "requirements.txt") -> dict[str, str]:
    pins = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            package, _, version = line.partition("==")
            assert version, f"{name} must pin exactly: {line!r}"
            pins[package.lower()] = version
    return pins


def test_every_requirement_is_pinned_exactly() -> None:
    """Does requirements.txt pin every package with ==, the whole stack included?"""
    pins = _requirements()
    for name in ["jax", "jaxlib", "jupyterlab", "nbgrader", "matplotlib", "nbval", "papermill",
                 "jupyter-book", "pytest"]:
        assert name in pins, name
    assert pins["jupyter-book"].startswith("1."), "Jupyter Book 1.x reads _config.yml"
    assert pins["jax"] == pins["jaxlib"]


def test_environment_yml_mirrors_requirements() -> None:
    """Does environment.yml list exactly the same pins as requirements.txt?"""
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    mirrored = {}
    for item in pip_section:
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", item)
        if match:
            mirrored[match.group(1).lower()] = match.group(2)
    assert mirrored == _requirements()
    assert "python=3.11" in env["dependencies"]


def test_installed_versions_match_pins() -> None:
    """Is the environment running these tests the pinned one?"""
    from importlib.metadata import version

    for name, pinned in _requirements().items():
        assert version(name) == pinned, name


def test_colab_file_pins_colab_stack_and_the_package_floor_agrees() -> None:
    """Does requirements-colab.txt pin Colab's stack exactly, does pyproject's `jax>=` floor
    name the same JAX, and do autograder.kernel.compat's tested range and both files agree?"""
    import tomllib

    from autograder.kernel import compat

    colab = _requirements("requirements-colab.txt")
    for name in ["jax", "jaxlib", "numpy", "ipython", "ipykernel", "matplotlib"]:
        assert name in colab, name
    assert colab["jax"] == colab["jaxlib"]
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    floors = [d.split(">=", 1)[1] for d in deps if re.match(r"jax\s*>=", d)]
    assert floors == [colab["jax"]], (deps, colab["jax"])
    assert compat.OLDEST_TESTED_JAX == colab["jax"]
    assert compat.NEWEST_TESTED_JAX == _requirements("requirements-newest.txt")["jax"]
    assert (compat.version_tuple(colab["jax"]) <= compat.version_tuple(_requirements()["jax"])
            <= compat.version_tuple(compat.NEWEST_TESTED_JAX))


def test_newest_file_pins_one_jax_and_python() -> None:
    """Does requirements-newest.txt pin JAX exactly and leave jaxlib to follow it (so a bump is
    one line), and do both kernel runtimes name their Python?"""
    newest = _requirements("requirements-newest.txt")
    for name in ["jax", "numpy", "ipykernel", "matplotlib", "scikit-learn", "nbformat"]:
        assert name in newest, name
    assert "jaxlib" not in newest
    assert _python_line("requirements-newest.txt") == "3.13"
    assert _python_line("requirements-colab.txt") == "3.13"  # Colab's, as published


_TABLE_FILES = {"requirements.txt", "requirements-colab.txt", "requirements-newest.txt"}


def _runtimes_table() -> dict[str, dict[str, str]]:
    """book/runtimes.md's table of tested versions: one row per requirements file."""
    rows: dict[str, dict[str, str]] = {}
    header: list[str] = []
    for line in (ROOT / "book" / "runtimes.md").read_text().splitlines():
        if not line.startswith("|"):
            header = []
            continue
        cells = [c.strip().strip("`*") for c in line.strip().strip("|").split("|")]
        if "Python" in cells and "JAX" in cells:
            header = cells
        elif header and len(cells) == len(header):
            named = [f for f in _TABLE_FILES if f in line]
            if named:
                rows[named[0]] = dict(zip(header, cells, strict=True))
    return rows


def test_runtimes_page_states_the_tested_versions() -> None:
    """Does book/runtimes.md's table give, for each runtime, the Python, JAX and NumPy its
    requirements file pins (the tooling's Python from environment.yml), and say when they were
    tested?"""
    table = _runtimes_table()
    assert set(table) == _TABLE_FILES, table
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    tooling_python = next(d.split("=", 1)[1] for d in env["dependencies"]
                          if isinstance(d, str) and d.startswith("python="))
    for name, row in table.items():
        pins = _requirements(name)
        python = _python_line(name) or tooling_python
        assert row["Python"].startswith(python), (name, row["Python"], python)
        assert row["JAX"] == pins["jax"], (name, row["JAX"])
        assert row["NumPy"] == pins["numpy"], (name, row["NumPy"])
    text = (ROOT / "book" / "runtimes.md").read_text()
    assert re.search(r"[Tt]ested on \d{4}-\d{2}-\d{2}", text)


def test_library_versions_in_the_text_follow_the_pins() -> None:
    """Do What next's install line and chapter 13's and book/runtimes.md's text name the JAX,
    Flax and Equinox that requirements-newest.txt pins (the runtime that runs chapter 13's
    Flax NNX and Equinox cells), and Colab's Flax as requirements-colab.txt pins it?"""
    import nbformat

    newest = _requirements("requirements-newest.txt")
    colab = _requirements("requirements-colab.txt")
    what_next = "\n".join(c.source for c in nbformat.read(ROOT / "book" / "what_next.ipynb",
                                                           as_version=4).cells)
    line = re.search(r"^pip install jax==.*$", what_next, re.M)
    assert line, "What next has no `pip install jax==...` line"
    named = dict(word.split("==") for word in line.group().split()[2:])
    assert named["jax"] == newest["jax"] and named["flax"] == newest["flax"], named
    capstone = "\n".join(c.source for c in nbformat.read(
        ROOT / "notebooks" / "13_capstone.ipynb", as_version=4).cells)
    runtimes = (ROOT / "book" / "runtimes.md").read_text()
    for text in (capstone, runtimes):
        assert f"Flax {newest['flax']}" in text and f"Equinox {newest['equinox']}" in text
        assert f"Flax {colab['flax']}" in text
    assert "for reading, not running" not in capstone
