"""The set-up cell every course notebook starts with, and what it installs in Colab.

Colab already has JAX, NumPy and matplotlib; the course's own ``autograder`` package is
installed from the repository, without dependencies, so Colab's own packages stay as they are.
Elsewhere (``make lab``, the book build, grading) the package is already in the environment and
the cell does nothing.

The repository URL and branch live in one place, ``_config.yml`` (``repository.url`` and
``repository.branch``, which the book's launch buttons read too); ``python -m autograder release``
writes them into the first cell of every notebook.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "_config.yml"
PACKAGE = "learn-jax-autograder"

# Kept short: a learner reads this cell first. On failure it says what to do in one sentence
# (plus pip's last line, for the instructor), not a pip traceback.
_TEMPLATE = """\
# Set-up: in Google Colab this installs the course's helper package; elsewhere it does nothing.
import sys

if "google.colab" in sys.modules:
    import importlib
    import subprocess

    _pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "{package} @ git+{url}@{branch}"], capture_output=True, text=True)
    if _pip.returncode != 0:
        _why = (_pip.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError("Could not install the course's helper package: check that the "
                           "runtime is connected (Runtime > Reconnect), then run this cell "
                           f"again. (pip: {{_why}})") from None
    importlib.invalidate_caches()
"""


def repository(config: Path = CONFIG) -> tuple[str, str]:
    """The course repository's URL and branch, as ``_config.yml`` names them.

    Args:
        config: the Jupyter Book configuration file.

    Raises:
        ValueError: when ``repository.url`` or ``repository.branch`` is missing.
    """
    import yaml

    settings = (yaml.safe_load(config.read_text()) or {}).get("repository") or {}
    url, branch = settings.get("url"), settings.get("branch")
    if not url or not branch:
        raise ValueError(f"{config.name} must set repository.url and repository.branch")
    return str(url).rstrip("/"), str(branch)


def setup_cell(url: str | None = None, branch: str | None = None) -> str:
    """The source of the set-up cell for a repository ``url`` and ``branch``.

    Args:
        url: the repository (``https://github.com/...`` or, in tests, ``file:///...``);
            default: ``_config.yml``'s.
        branch: the branch or commit to install; default: ``_config.yml``'s.
    """
    if url is None or branch is None:
        default_url, default_branch = repository()
        url, branch = url or default_url, branch or default_branch
    return _TEMPLATE.format(package=PACKAGE, url=url, branch=branch)


def colab_link(path: str, url: str | None = None, branch: str | None = None) -> str:
    """The "Open in Colab" address of a notebook of the repository (``exercises/06_jit.ipynb``).

    Args:
        path: the notebook's path inside the repository.
        url: the repository (a GitHub address); default: ``_config.yml``'s.
        branch: default: ``_config.yml``'s.
    """
    if url is None or branch is None:
        default_url, default_branch = repository()
        url, branch = url or default_url, branch or default_branch
    slug = url.split("github.com/", 1)[-1]
    return f"https://colab.research.google.com/github/{slug}/blob/{branch}/{path}"


def in_colab() -> bool:
    """True inside a Google Colab runtime."""
    return "google.colab" in sys.modules
