"""Tests of autograder.kernel.tracebacks: short error displays in notebooks."""

from __future__ import annotations

import io
import re
import sys
from contextlib import redirect_stdout

import pytest

from autograder.kernel import tracebacks


def _plain(stb: list[str]) -> str:
    """The structured traceback as plain text (IPython colours it)."""
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(stb))


@pytest.fixture
def shell():
    """An in-process IPython shell with short tracebacks on (turned off again afterwards)."""
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    shown: list[list[str]] = []
    ip._showtraceback = lambda etype, value, stb: shown.append(stb)  # what a kernel would send
    assert tracebacks.short_tracebacks()
    yield ip, shown
    tracebacks.short_tracebacks(False)
    del ip._showtraceback


def test_library_files_are_told_apart() -> None:
    """Are the standard library, installed packages and the course package library code, and
    notebook cells not?"""
    import json

    import numpy

    assert tracebacks.is_library_file(json.__file__)
    assert tracebacks.is_library_file(numpy.__file__)
    assert tracebacks.is_library_file(tracebacks.__file__)
    assert not tracebacks.is_library_file("<ipython-input-3-0123456789ab>")
    assert not tracebacks.is_library_file("/tmp/ipykernel_123/456.py")


def test_error_inside_jax_shows_the_cell_and_the_message(shell) -> None:
    """Does an error raised deep inside JAX show the cell's frame and the message, count the
    hidden library frames, and name no path of an installed package?"""
    ip, shown = shell
    result = ip.run_cell("import jax.numpy as jnp\njnp.ones(3) + jnp.ones(4)")
    assert isinstance(result.error_in_exec, TypeError)
    (stb,) = shown
    text = _plain(stb)
    assert "incompatible shapes" in text and "jnp.ones(3) + jnp.ones(4)" in text
    assert "frame(s) inside JAX, NumPy or other libraries not shown" in text
    assert "site-packages" not in text and sys.prefix not in text
    assert len(text.splitlines()) <= 15


def test_the_learner_s_own_frames_stay(shell) -> None:
    """Are frames of functions defined in cells kept, in order?"""
    ip, shown = shell
    ip.run_cell("def inner():\n    raise ValueError('deep')\n\ndef outer():\n    inner()\n")
    ip.run_cell("outer()")
    text = _plain(shown[-1])
    assert text.index("outer()") < text.index("inner()") < text.index("ValueError: deep")
    assert "not shown" not in text


def test_library_frame_lines_in_messages_are_dropped() -> None:
    """Are `path:line:col (function)` lines naming installed code dropped from a message, and
    lines naming a cell kept?"""
    import IPython

    lib = f"{IPython.__file__}:78:8 (_pseudo_sync_runner)"
    cell = "/tmp/ipykernel_1/2.py:10:6 (<module>)"
    text = f"frames were:\n{lib}\n{cell}\nend"
    assert tracebacks.drop_library_frame_lines(text) == f"frames were:\n{cell}\nend"


def test_syntax_errors_keep_ipython_s_display(shell) -> None:
    """Does a cell that does not parse still get IPython's own syntax-error display?"""
    ip, shown = shell
    out = io.StringIO()
    with redirect_stdout(out):
        result = ip.run_cell("def broken(:\n    pass")
    assert isinstance(result.error_before_exec, SyntaxError)


def test_turning_it_off_restores_full_tracebacks(shell) -> None:
    """After short_tracebacks(False), does IPython handle errors itself again?"""
    ip, _ = shell
    tracebacks.short_tracebacks(False)
    assert ip.custom_exceptions == ()


def test_chained_exceptions_are_shortened_too(shell) -> None:
    """Is a chained cause (as JAX attaches the stack before transformation) shown without its
    library frames as well?"""
    ip, shown = shell
    ip.run_cell("import json\n"
                "def parse():\n"
                "    try:\n"
                "        json.loads('{')\n"
                "    except ValueError as exc:\n"
                "        raise RuntimeError('could not parse') from exc\n")
    ip.run_cell("parse()")
    text = _plain(shown[-1])
    assert "JSONDecodeError" in text and "RuntimeError: could not parse" in text
    assert "json/decoder.py" not in text and "json/__init__.py" not in text
