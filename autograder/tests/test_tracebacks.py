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


_ANSWER = "import jax.numpy as jnp\ndef double(x):\n    return jnp.asarray(x) * 3\n"
_TEST = ("from autograder.kernel.checks import check_array\n"
         "from autograder.kernel.hints import feedback\n"
         "def q_case(x):\n"
         "    check_array(double(x), 2 * jnp.asarray(x), name='double(x)')\n"
         "with feedback('Question 1'):\n"
         "    q_case(jnp.arange(3.0))\n")


def _run_shown(ip, shown, code: str) -> tuple[str, str]:
    """Run ``code`` in the shell; return what it printed and the error display it sent."""
    out = io.StringIO()
    before = len(shown)
    with redirect_stdout(out):
        ip.run_cell(code)
    return out.getvalue(), _plain(shown[-1]) if len(shown) > before else ""


def test_a_failing_check_shows_a_few_lines_without_course_frames(shell) -> None:
    """Does a failing check inside feedback show the question and the message once, in at
    most 15 lines, with no frame of the test cell or of the course package (the learner's
    function returned: none of its frames is in the traceback), and no "only your own code is
    shown" when no code is shown?"""
    ip, shown = shell
    ip.run_cell(_ANSWER)
    printed, display = _run_shown(ip, shown, _TEST)
    text = printed + display
    assert "Question 1: not yet. AssertionError: double(x)" in printed
    assert text.count("has the right shape") == 1
    assert display.splitlines() == [tracebacks.NO_FRAMES]
    assert "Only your own code" not in text
    assert "In your code" not in display and "q_case" not in display
    assert "check_array(" not in display
    assert "autograder" not in display and "site-packages" not in display
    assert "%tb" in display
    assert len(text.strip().splitlines()) <= 15


def test_an_error_in_the_learner_s_code_keeps_its_frames(shell) -> None:
    """When the learner's function raises inside a check, are its frames (innermost last) kept,
    and the test cell's left out?"""
    ip, shown = shell
    ip.run_cell("def inner(x):\n    raise ValueError('bad x')\n\n"
                "def double(x):\n    return inner(x)\n")
    printed, display = _run_shown(ip, shown, _TEST)
    assert display.index("return inner(x)") < display.index("raise ValueError('bad x')")
    assert display.splitlines()[-1] == tracebacks.RAISED_HERE
    assert (printed + display).count("ValueError: bad x") == 1  # printed once, by feedback
    assert "q_case" not in display and "with feedback" not in display


def test_percent_tb_shows_the_full_traceback(shell) -> None:
    """After a short failure display, does %tb show the full traceback, course frames
    included?"""
    ip, shown = shell
    ip.run_cell(_ANSWER)
    _run_shown(ip, shown, _TEST)
    out = io.StringIO()
    with redirect_stdout(out):
        ip.run_line_magic("tb", "")
    full = _plain([out.getvalue()]) + "".join(_plain(s) for s in shown[-1:])
    assert "q_case" in full and "AssertionError" in full


def test_full_tracebacks_can_be_asked_for(shell, monkeypatch) -> None:
    """Do full_tracebacks() and LEARN_JAX_FULL_TRACEBACKS=1 give IPython's own display back,
    and does feedback then leave it so?"""
    ip, _ = shell
    assert tracebacks.full_tracebacks()
    try:
        assert ip.custom_exceptions == ()
        ip.run_cell(_ANSWER)
        with redirect_stdout(io.StringIO()):
            ip.run_cell(_TEST)
        assert ip.custom_exceptions == ()
    finally:
        tracebacks.full_tracebacks(False)
    assert ip.custom_exceptions == (Exception,)
    monkeypatch.setenv(tracebacks.FULL_ENV, "1")
    tracebacks.short_tracebacks()
    assert ip.custom_exceptions == ()
    assert not tracebacks.ensure_short_tracebacks()


def test_a_comprehension_s_line_is_shown_once(shell) -> None:
    """When the learner's error is raised inside a list comprehension (its own frame before
    Python 3.12, on the same line as its function's), is that line shown once?"""
    ip, shown = shell
    ip.run_cell("def double(x):\n    return [v / 0 for v in [1, 2]]\n")
    printed, display = _run_shown(ip, shown, _TEST)
    assert display.count("return [v / 0 for v in [1, 2]]") == 1
    assert display.splitlines()[-1] == tracebacks.RAISED_HERE
