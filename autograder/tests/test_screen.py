"""Tests of autograder.grader.screen: the static screen of answer cells."""

from __future__ import annotations

import nbformat
import pytest

from autograder.core.notebook import is_answer
from autograder.grader.release import ROOT
from autograder.grader.screen import message, screen


def test_no_solution_answer_trips_the_screen() -> None:
    """Do all answer cells of the nine solutions pass the screen untouched?"""
    notebooks = sorted((ROOT / "solutions").glob("*.ipynb"))
    assert len(notebooks) == 9
    flagged = {}
    for path in notebooks:
        for cell in nbformat.read(path, as_version=4).cells:
            if is_answer(cell) and screen(cell.source):
                flagged[(path.stem, cell.metadata["nbgrader"]["grade_id"])] = screen(cell.source)
    assert flagged == {}


@pytest.mark.parametrize("source", [
    "import sys\nsys.exit(0)", "import os\nos._exit(1)", "get_ipython().events.register",
    "time.perf_counter = lambda: 0", "jax.jit = lambda f: f", "x = jax\nx.jit = None",
    "setattr(jax, 'jit', None)", "__builtins__['print'] = None", "%xmode Minimal",
    "exec('1')", "f.__code__ = g.__code__", "open('result.json', 'w')",
    "from autograder import compare", "import ctypes", "import socket",
    # modules an allowed one re-exports, by import or by attribute
    "from warnings import sys\nsys.modules['jax'] = None", "import warnings\nwarnings.sys.exit(0)",
    "from functools import builtins",
])
def test_tampering_is_flagged(source: str) -> None:
    """Is each kind of tampering code flagged?"""
    assert screen(source)


def test_ordinary_jax_code_passes_and_message_names_the_reason() -> None:
    """Does ordinary JAX code pass, and does the message name what was found?"""
    code = ("import jax\nimport jax.numpy as jnp\nfrom functools import partial\n"
            "@jax.jit\ndef f(x):\n    d = {}\n    d['a'] = x\n    return jnp.sum(x ** 2)\n")
    assert screen(code) == []
    assert "import sys" in message(screen("import sys"))
    # the honest twin of the re-export attacks: submodules of allowed libraries stay allowed
    assert screen("import scipy.signal\nfrom scipy import io, signal\nfrom jax import numpy, "
                  "tree_util\nimport warnings\nwarnings.warn('x')\ny = scipy.signal.lfilter") == []
