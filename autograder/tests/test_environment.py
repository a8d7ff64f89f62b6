"""Tests of the project's environment files: one set of pins, mirrored for conda."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


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
    assert compat.NEWEST_TESTED_JAX == _requirements()["jax"]
    assert compat.version_tuple(colab["jax"]) <= compat.version_tuple(_requirements()["jax"])
