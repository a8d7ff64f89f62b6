"""Tests of autograder.grader.judging.proof: per-run proof tokens of test cells."""

from __future__ import annotations

import nbformat

from autograder.grader.judging.proof import MIME, new_tokens, proved, strip_proofs, with_proof
from autograder.tests.conftest import FIXTURES


def test_tokens_are_fresh_and_verified_only_when_published_without_error() -> None:
    """Is a token new per run (the notebook left as it was), and proved only by its own
    output with no error?"""
    nb = nbformat.read(FIXTURES / "course" / "00_tiny.ipynb", as_version=4)
    before = nbformat.writes(nb)
    first = new_tokens(nb)
    tokens = new_tokens(nb)
    assert set(tokens) == {"q1_double_tests", "q2_set_first_tests"}
    assert all(first[k] != tokens[k] for k in tokens)
    assert nbformat.writes(nb) == before
    cell = next(c for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == "q1_double_tests")
    cell.source = with_proof(cell.source, "q1_double_tests", tokens["q1_double_tests"])
    out = nbformat.v4.new_output("display_data", data={MIME: f"q1_double_tests "
                                                             f"{tokens['q1_double_tests']}"})
    cell.outputs = [out]
    assert proved(cell, "q1_double_tests", tokens["q1_double_tests"])
    assert not proved(cell, "q1_double_tests", first["q1_double_tests"])
    cell.outputs.append(nbformat.v4.new_output("error", ename="E", evalue="", traceback=[]))
    assert not proved(cell, "q1_double_tests", tokens["q1_double_tests"])
    strip_proofs(cell)
    assert "proof" not in cell.source and all(MIME not in o.get("data", {})
                                              for o in cell.outputs)
