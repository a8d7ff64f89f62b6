"""Tests of autograder.colab: the set-up cell is inert outside Colab and installs inside."""

from IPython.core.inputtransformer2 import TransformerManager

from autograder import colab


def test_setup_cell_does_nothing_outside_colab() -> None:
    """Does the set-up cell run without installing anything when google.colab is absent?"""
    calls: list = []

    class FakeShell:
        def run_line_magic(self, *args):
            calls.append(args)

    code = TransformerManager().transform_cell(colab.SETUP_CELL)
    exec(code, {"get_ipython": FakeShell})
    assert calls == [] and not colab.in_colab()


def test_setup_cell_installs_package_in_colab(monkeypatch) -> None:
    """In Colab, does it pip-install this package from the configured repository?"""
    import sys
    import types

    calls: list = []

    class FakeShell:
        def run_line_magic(self, *args):
            calls.append(args)

    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    code = TransformerManager().transform_cell(colab.SETUP_CELL)
    exec(code, {"get_ipython": lambda: FakeShell()})
    assert calls and calls[0][0] == "pip"
    assert f"git+{colab.REPOSITORY}@{colab.BRANCH}" in calls[0][1]
    assert "learn-jax-autograder" in calls[0][1]
