"""Tests of autograder.grader.judging.question: a question's points, status and message from
what its test cell left. Each attack pairs with the honest case it imitates."""

from __future__ import annotations

from typing import Any

import nbformat
import numpy as np

from autograder.core.evidence import MIME as EVIDENCE
from autograder.core.evidence import Entry, encode
from autograder.core.notebook import Question
from autograder.grader.judging.proof import MIME as PROOF
from autograder.grader.judging.question import decide_question, evidence_in

Q = Question("q1_double", "q1_double_tests", 2.0)
TOKEN = "a" * 32
RECORDS = [Entry("array", "double(x)", encode(np.array([0.0, 2.0, 4.0])),
                 {"rtol": 1e-5, "atol": 1e-6, "check_dtype": False})]


def cell(*outputs: Any) -> dict:
    """A test cell as the learner's run left it, with these outputs."""
    return {"cell_type": "code", "metadata": {}, "outputs": list(outputs)}


def published(value: Any) -> Any:
    """The evidence output of the check ``double(x)`` having seen ``value``."""
    entry = Entry("array", "double(x)", encode(np.asarray(value)))
    return nbformat.v4.new_output("display_data", data={EVIDENCE: entry.to_json()})


def proof(token: str = TOKEN) -> Any:
    """The proof output of the cell, for ``token``."""
    return nbformat.v4.new_output("display_data", data={PROOF: f"{Q.tests_id} {token}"})


def error(ename: str, evalue: str = "") -> Any:
    """An error output."""
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[])


def test_a_proved_cell_whose_checks_pass_earns_the_points() -> None:
    """Honest case: own proof and passing evidence: full points, passed, no message?"""
    got = decide_question(Q, cell(published([0.0, 2.0, 4.0]), proof()), RECORDS, TOKEN)
    assert (got.score, got.status, got.message, got.raised) == (2.0, "passed", "", False)
    assert evidence_in(cell(published([0.0, 2.0, 4.0]))) != []


def test_a_proof_without_evidence_earns_nothing() -> None:
    """Attack: the cell publishes its proof but its checks left no result (the checks were
    silenced). Zero, and said as the tests not reporting?"""
    got = decide_question(Q, cell(proof()), RECORDS, TOKEN)
    assert (got.score, got.status) == (0.0, "error")
    assert "did not report" in got.message


def test_another_runs_proof_earns_nothing() -> None:
    """Attack: passing evidence with a proof that is not this run's token (replayed from an
    earlier run). Zero?"""
    got = decide_question(Q, cell(published([0.0, 2.0, 4.0]), proof("b" * 32)), RECORDS, TOKEN)
    assert got.score == 0.0 and got.status != "passed"


def test_a_wrong_value_fails_with_the_checks_message() -> None:
    """A proved cell whose evidence differs from the record: failed, with the check's own
    message naming it?"""
    got = decide_question(Q, cell(published([0.0, 2.0, 5.0]), proof()), RECORDS, TOKEN)
    assert (got.score, got.status) == (0.0, "failed") and "double(x)" in got.message


def test_what_the_grader_knew_before_the_run_comes_first() -> None:
    """An answer missing from the submission is 'missing'; a screened answer fails with the
    screen's message; an untouched stub is 'not attempted'; an answer that raised is an error
    the page calls the learner's."""
    assert decide_question(Q, {}, RECORDS, TOKEN, missing=True).status == "missing"
    screened = decide_question(Q, cell(error("RuntimeError", "not run")), RECORDS, TOKEN,
                               screened="this answer was not run: it uses exec")
    assert (screened.status, screened.message) == ("failed",
                                                   "this answer was not run: it uses exec")
    stub = decide_question(Q, cell(error("NotImplementedError")), RECORDS, TOKEN)
    assert (stub.status, stub.message) == ("failed", "not attempted")
    raised = decide_question(Q, cell(error("ValueError", "bad shape")), RECORDS, TOKEN)
    assert (raised.status, raised.message, raised.raised) == ("error", "ValueError: bad shape",
                                                               True)


def test_dropped_evidence_is_said() -> None:
    """When the evidence budget cut results from the cell, does the message say how many,
    whatever the outcome?"""
    got = decide_question(Q, cell(proof()), RECORDS, TOKEN, dropped=3)
    assert got.score == 0.0 and "(3 check result(s) of this test cell were dropped" in got.message
