"""Which JAX runtime grades a submission: the one its learner ran.

The course is tested on three runtimes (book/runtimes.md): Colab's (``colab``, JAX
``OLDEST_TESTED_JAX``), the newest JAX (``newest``, ``NEWEST_TESTED_JAX``), both Python 3.13
environments that ``.ci/runtimes.py`` builds and registers as Jupyter kernels
(``learn-jax-colab``, ``learn-jax-newest``), and the tools' own (``tools``: the grader's
Python and JAX). A learner writes on one of them; an answer that uses an API only that JAX
has, or meets a behaviour only it shows, is graded there (:func:`choose`):

1. an instructor's ``grade --runtime NAME`` (``colab``, ``newest`` or ``tools``; the
   environment variable ``LEARN_JAX_GRADE_RUNTIME`` sets the default) for every submission;
   else, with ``--runtime auto`` (the default):
2. the JAX version the notebook recorded: the course's runtime cell (``describe()``) prints
   ``JAX <version> on <backend>``; a version one of the runtimes has picks it;
3. a notebook Colab saved (its metadata holds a ``colab`` section): Colab's runtime;
4. otherwise the tools' runtime.

What a notebook says about itself is the learner's to write, and none of it is trusted for
anything but this choice: every runtime runs the same tests, in the same sandbox, and the
reference answers are run on the same runtime (one trusted run per assignment and runtime,
:mod:`autograder.grader.judging.reference_run`), where they pass their own checks (``make test``).
A learner who claims another runtime is graded fairly on that one: the claim only chooses
which tested JAX decides, never what is expected.

A runtime that is not installed is never replaced by another: :func:`resolve` raises
:class:`RuntimeMissing`, whose message says how to add it.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOOLS = "tools"
AUTO = "auto"
# The Python 3.13 runtimes .ci/runtimes.py builds: name -> its kernel's name there.
KERNELS = {"colab": "learn-jax-colab", "newest": "learn-jax-newest"}
NAMES = (*KERNELS, TOOLS)
CHOICES = (*NAMES, AUTO)
RUNTIME_VARIABLE = "LEARN_JAX_GRADE_RUNTIME"  # grade --runtime's default, when set
_RECORDED = re.compile(r"^JAX (\d+(?:\.\d+)+) on (?:CPU|GPU|TPU)\b", re.M)


class RuntimeMissing(RuntimeError):
    """The runtime chosen is not installed here; the message says how to add it."""

    def __init__(self, name: str) -> None:
        super().__init__(how_to_add(name))
        self.name = name


@dataclass(frozen=True)
class Runtime:
    """One runtime kernels and trusted runs can use.

    ``python`` runs its interpreter for a trusted run (for a built runtime, the command
    ``.ci/runtimes.py`` wrote, which enters its Debian root when it has one); ``venv`` is its
    virtual environment and ``root`` the system root (its ``/usr`` and ``/etc``) the sandbox
    shows its kernels instead of this machine's, or None for this machine's own.
    """

    name: str
    python: str
    venv: Path | None = None
    root: Path | None = None
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def jax(self) -> str:
        """Its JAX version (``"none"`` where it has none)."""
        return self.versions.get("jax", "none")

    def describe(self) -> dict[str, str]:
        """What ``result.json`` and the feedback page say about it."""
        return {"name": self.name, "jax": self.jax, "python": self.versions.get("python", ""),
                "title": title(self.name, self.jax)}

    @property
    def kernel_python(self) -> str:
        """The interpreter of its kernels, by a path the sandbox shows them."""
        if self.venv is None:
            return self.python
        return str(self.venv / "bin" / "python")


def title(name: str, jax: str) -> str:
    """How the page names runtime ``name`` (with JAX ``jax``)."""
    what = {"colab": "Colab's runtime", "newest": "the newest JAX",
            TOOLS: "the grader's own runtime"}.get(name, name)
    return f"{what} (JAX {jax})"


def tools() -> Runtime:
    """The grader's own runtime: this Python and its JAX."""
    import platform

    found = {"python": platform.python_version()}
    for dist in ("jax", "jaxlib", "numpy"):
        try:
            found[dist] = md.version(dist)
        except md.PackageNotFoundError:
            found[dist] = "none"
    return Runtime(TOOLS, sys.executable, versions=found)


def _root_of(command: Path) -> Path | None:
    """The Debian root the runtime command ``command`` (written by .ci/runtimes.py) enters,
    or None when it runs this machine's own Python."""
    try:
        text = command.read_text(errors="replace")
    except OSError:
        return None
    found = re.search(r"^root=(.+)$", text, re.M)
    if not found:
        return None
    parts = shlex.split(found.group(1))
    return Path(parts[0]) if parts else None


def _from_spec(name: str, spec: dict[str, Any]) -> Runtime | None:
    """Runtime ``name`` as its kernelspec ``spec`` describes it, or None when the spec is not
    one .ci/runtimes.py wrote or its files are gone."""
    meta = spec.get("metadata", {}).get("learn_jax", {})
    argv = spec.get("argv") or []
    if meta.get("runtime") != name or not argv:
        return None
    command = Path(argv[0])
    venv = command.parent / "venv"
    if not command.is_file() or not os.path.lexists(venv / "bin" / "python"):
        return None
    versions = {k: str(v) for k, v in (meta.get("versions") or {}).items()}
    return Runtime(name, str(command), venv, _root_of(command), versions)


def installed() -> dict[str, Runtime]:
    """Every runtime this machine can grade on: the tools' and each built one whose kernel
    is registered where this Python's Jupyter finds kernels."""
    from jupyter_client.kernelspec import KernelSpecManager

    found = {TOOLS: tools()}
    manager = KernelSpecManager()
    for name, kernel in KERNELS.items():
        try:
            spec = manager.get_kernel_spec(kernel).to_dict()
        except Exception:  # noqa: BLE001 - not registered (NoSuchKernel) or unreadable
            continue
        runtime = _from_spec(name, spec)
        if runtime is not None:
            found[name] = runtime
    return found


def how_to_add(name: str) -> str:
    """The sentence saying how to build and register runtime ``name``."""
    return (f"the {name} runtime is not installed here (no '{KERNELS.get(name, name)}' kernel "
            f"built by .ci/runtimes.py): add it with `make setup-{name}`, or "
            f"`python .ci/runtimes.py setup {name} --kernels-into .venv`, then grade again")


def recorded_jax(nb: Any) -> str | None:
    """The JAX version the notebook's runtime cell printed (``describe()``), or None."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []):
            text = out.get("text") if out.get("output_type") == "stream" else (
                out.get("data", {}).get("text/plain"))
            text = "".join(text) if isinstance(text, list) else text
            found = _RECORDED.search(text) if isinstance(text, str) else None
            if found:
                return found.group(1)
    return None


def saved_by_colab(nb: Any) -> bool:
    """Whether Colab saved the notebook (it writes a ``colab`` section into its metadata)."""
    return isinstance(nb.get("metadata", {}).get("colab"), dict)


def known_versions() -> dict[str, str]:
    """Runtime name -> the JAX version it has (the tested ones, and the grader's)."""
    from autograder.kernel.compat import NEWEST_TESTED_JAX, OLDEST_TESTED_JAX

    return {"colab": OLDEST_TESTED_JAX, "newest": NEWEST_TESTED_JAX, TOOLS: tools().jax}


def choose(nb: Any, requested: str = AUTO) -> tuple[str, str]:
    """The runtime (a name of :data:`NAMES`) to grade ``nb`` on, and why, in a few words.

    Raises:
        ValueError: ``requested`` is not one of :data:`CHOICES`.
    """
    if requested not in CHOICES:
        raise ValueError(f"unknown runtime {requested!r}; choose from {', '.join(CHOICES)}")
    if requested != AUTO:
        return requested, "chosen by the instructor"
    jax = recorded_jax(nb)
    if jax is not None:
        for name, version in known_versions().items():
            if version == jax:
                return name, f"the notebook ran JAX {jax}"
    if saved_by_colab(nb):
        return "colab", "the notebook was saved by Colab"
    return TOOLS, "the notebook names no runtime"


def resolve(name: str, found: dict[str, Runtime] | None = None) -> Runtime:
    """The installed runtime ``name``.

    Raises:
        RuntimeMissing: it is not installed (the message says how to add it).
    """
    found = installed() if found is None else found
    if name not in found:
        raise RuntimeMissing(name)
    return found[name]



# The graded notebook's metadata the feedback page reads: the runtime that graded it
# (written by the grader after autograde, over anything a submission put there).
PAGE_KEY = "learn_jax_graded_on"


@dataclass(frozen=True)
class Chosen:
    """The runtime a submission is graded on, and what its result and page say about it."""

    runtime: Runtime
    why: str

    @property
    def page(self) -> dict[str, str]:
        """``result.json``'s ``runtime`` and the page's line: name, JAX, Python, title, why."""
        return {**self.runtime.describe(), "why": self.why}


def choose_runtime(submitted: Any, requested: str = AUTO) -> Chosen:
    """Choose the runtime for the ``submitted`` notebook (:func:`choose`, from what the
    learner's notebook says) and check it is installed.

    Raises:
        RuntimeMissing: the runtime chosen is not installed (never replaced by another).
    """
    name, why = choose(submitted, requested)
    return Chosen(resolve(name), why)
