"""Per-run proofs that a test cell really ran to its end.

Before grading, each test cell gets a fresh random token (:func:`new_tokens`) and, where
nbgrader's autograde builds the cell from the gradebook's source, a last line that publishes
the token as an output of its own MIME type (:func:`with_proof`, added by
:class:`~autograder.grader.preprocessors.prove_test_cells.ProveTestCells`). Only a test cell
that ran to its end without an exception publishes its token; the grader, outside the kernel,
counts a question as passed only when nbgrader gave it points *and* the cell's output holds its
own token. The kernel never sees a token before the test cell runs, so printing a made-up
proof does not help.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from autograder.core.notebook import is_test, nbgrader_meta

MIME = "application/x-learn-jax-proof"
_LINE_RE = re.compile(r"^# learn-jax proof\n.*\Z", re.S | re.M)
# First line of every test cell graded: its checks publish what they saw
# (autograder.kernel.reporter).
JUDGE_LINE = ("__import__('autograder.kernel.reporter').kernel.reporter.start_test_cell()"
              "  # learn-jax judge\n")
_LINE = ("\n# learn-jax proof\n__import__('IPython.display').display.display("
         "{{{mime!r}: {payload!r}}}, raw=True)\n")


def new_tokens(nb: Any) -> dict[str, str]:
    """A fresh random token for every test cell of ``nb`` (test id -> token); ``nb`` is not
    changed: the proof lines are added where the cells are built for the run."""
    return {nbgrader_meta(cell)["grade_id"]: secrets.token_hex(16)
            for cell in nb.cells if is_test(cell)}


def with_proof(source: str, test_id: str, token: str) -> str:
    """``source`` followed by the line that publishes ``test_id``'s ``token``."""
    return JUDGE_LINE + source.rstrip("\n") + _LINE.format(mime=MIME,
                                                          payload=f"{test_id} {token}")


def proofs_in(cell: Any) -> list[str]:
    """The proof payloads a cell's outputs hold."""
    return [str(out.get("data", {})[MIME]) for out in cell.get("outputs", [])
            if out.get("output_type") in ("display_data", "execute_result")
            and MIME in out.get("data", {})]


def proved(cell: Any, test_id: str, token: str) -> bool:
    """True when ``cell`` published exactly its own token and shows no error."""
    errors = any(o.get("output_type") == "error" for o in cell.get("outputs", []))
    return not errors and f"{test_id} {token}" in proofs_in(cell)


def strip_proofs(cell: Any) -> None:
    """Remove the judge and proof lines, proof and evidence outputs from a cell (for
    feedback)."""
    from autograder.core.evidence import MIME as EVIDENCE

    if isinstance(cell.get("source"), str):
        source = cell["source"]
        source = source[len(JUDGE_LINE):] if source.startswith(JUDGE_LINE) else source
        cell["source"] = _LINE_RE.sub("", source).rstrip("\n")
    if "outputs" in cell:
        cell["outputs"] = [o for o in cell["outputs"]
                           if MIME not in o.get("data", {}) and EVIDENCE not in o.get("data", {})]
