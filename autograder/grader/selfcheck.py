"""The ``check`` command: run released notebooks and report their visible checks.

``python -m autograder check NOTEBOOK_OR_FOLDER... [--summary FILE]``

This is what a learner sees in Colab, run in one go: each notebook is executed from top to
bottom (errors do not stop it), and for every question the command says whether the test
cell's visible checks passed and, when not, the first line of the error. It needs neither
nbgrader nor ``solutions/``: the released notebook's own test cells are the checks, so hidden
tests never run here. The classroom template ``autograder/workflows/feedback.yml`` runs it on
every push of a learner's repository and appends the table to the job summary
(``--summary "$GITHUB_STEP_SUMMARY"``).

It is feedback, not a grade: the exit status is 0 whatever the checks say, and 2 only for a
usage error (a path that is not a notebook, or a folder without one).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from autograder.core.notebook import is_answer, is_test, nbgrader_meta

CELL_TIMEOUT = 300  # seconds one cell may run (timing checks measure on a CPU runner)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_TIMEOUT_NAME = "CellTimeoutError"

PASSED = "passed"
NOT_ATTEMPTED = "not attempted"
NOT_YET = "not yet"
ANSWER_ERROR = "answer raised an error"
TIMED_OUT = "timed out"
NOT_RUN = "not run"


class UsageError(Exception):
    """A path the command cannot check (not a notebook, or a folder without one)."""


@dataclass
class Check:
    """The visible checks of one question, after running its notebook.

    Attributes:
        question: the answer cell's ``grade_id`` (the test cell's when no answer precedes it).
        points: the points the question is worth when graded (hidden tests included).
        status: ``passed``, ``not attempted``, ``not yet``, ``answer raised an error``,
            ``timed out`` or ``not run``.
        message: when not passed, the first line of the error (empty when passed).
    """

    question: str
    points: float
    status: str
    message: str = ""


def find_notebooks(paths: list[Path],
                   skipped: list[tuple[Path, str]] | None = None) -> list[Path]:
    """The notebooks to check: each file given, and the notebooks with checks below each
    folder given (hidden folders such as ``.ipynb_checkpoints`` skipped). Every other
    notebook found in a folder is appended to ``skipped`` with the reason.

    Raises:
        UsageError: for a path that does not exist, a file that is not a notebook, or a
            folder holding no notebook with checks.
    """
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            below = sorted(p for p in path.rglob("*.ipynb")
                           if not any(part.startswith(".") for part in
                                      p.relative_to(path).parts) and p.is_file())
            with_checks = [p for p in below if _has_checks(p)]
            if skipped is not None:
                skipped += [(p, skip_reason(p)) for p in below if p not in with_checks]
            if not with_checks:
                raise UsageError(f"{path}: no notebook with checks (nbgrader test cells) in "
                                 "this folder")
            found += with_checks
        elif not path.exists():
            raise UsageError(f"{path}: no such file or folder")
        elif path.suffix != ".ipynb":
            raise UsageError(f"{path}: not a notebook (expected a .ipynb file or a folder)")
        else:
            read_notebook(path)
            found.append(path)
    return list(dict.fromkeys(found))


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """``path`` read as a version-4 notebook.

    Raises:
        UsageError: when the file cannot be read as a Jupyter notebook.
    """
    try:
        return nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001  (JSON, schema and encoding errors alike)
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"{path}: not a readable Jupyter notebook ({why[:200]})") from None


def skip_reason(path: Path) -> str:
    """Why the notebook at ``path`` has no checks to run, in one sentence."""
    try:
        nb = read_notebook(path)
    except UsageError as exc:
        return str(exc).removeprefix(f"{path}: ")
    sources = [c.source for c in nb.cells if c.cell_type == "code"]
    if any("answer-id:" in s or "with feedback(" in s for s in sources):
        return ("an exercise whose cells lost their nbgrader metadata (a copy saved by Colab "
                "or another editor can drop it), so its checks cannot be found: open the "
                "released notebook again and paste the answers in (grading still finds them)")
    return "no checks (nbgrader test cells): not an exercise"


def _has_checks(path: Path) -> bool:
    try:
        return any(is_test(c) for c in read_notebook(path).cells)
    except UsageError:
        return False


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = CELL_TIMEOUT
            ) -> dict[int, dict[str, Any]]:
    """Execute ``nb`` in place with the ``python3`` kernel, continuing after errors.

    Every code cell's old outputs are cleared first, so a notebook saved with outputs is
    judged only by this run. A cell that runs longer than ``timeout`` seconds is interrupted
    and the next cell runs. When the kernel dies, the cells after it are left unrun.

    Returns:
        The execute reply's content (``status``, ``ename``, ``evalue``) of each cell that ran,
        by cell index.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    replies: dict[int, dict[str, Any]] = {}

    def keep(cell: Any, cell_index: int, execute_reply: dict[str, Any]) -> None:
        replies[cell_index] = dict(execute_reply.get("content", {}))

    client = NotebookClient(
        nb, kernel_name="python3", timeout=timeout, allow_errors=True,
        interrupt_on_timeout=True, on_cell_executed=keep,
        error_on_timeout={"ename": _TIMEOUT_NAME,
                          "evalue": f"the cell ran longer than {timeout} s and was stopped",
                          "traceback": []},
        resources={"metadata": {"path": str(cwd)}})
    try:
        client.execute()
    except DeadKernelError:
        pass  # the cells not reached have no reply: they are reported as not run
    return replies


def _first_line(text: str) -> str:
    lines = [line.strip() for line in _ANSI.sub("", text or "").splitlines() if line.strip()]
    return lines[0] if lines else ""


def _error(cell: Any, reply: dict[str, Any] | None) -> tuple[str, str] | None:
    """(ename, first line of evalue) of the cell's error, or None when it ran cleanly.

    The execute reply says it (for a timeout, only the reply does: the kernel's own error is
    the ``KeyboardInterrupt`` of the interrupt); the cell's error output is the fallback.
    """
    if reply and reply.get("status") == "error":
        return str(reply.get("ename", "Error")), _first_line(str(reply.get("evalue", "")))
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return str(out.get("ename", "Error")), _first_line(str(out.get("evalue", "")))
    return None


def _said(ename: str, evalue: str) -> str:
    return f"{ename}: {evalue}" if evalue else ename


def checks(nb: nbformat.NotebookNode, replies: dict[int, dict[str, Any]]) -> list[Check]:
    """The visible checks of an executed notebook, one per test cell, in order.

    Args:
        nb: the notebook after :func:`execute`.
        replies: what :func:`execute` returned.
    """
    found: list[Check] = []
    answer: tuple[str, int] | None = None  # the pending answer cell: (grade_id, index)
    for index, cell in enumerate(nb.cells):
        if is_answer(cell):
            answer = (str(nbgrader_meta(cell).get("grade_id", "")), index)
            continue
        if not is_test(cell):
            continue
        meta = nbgrader_meta(cell)
        name = answer[0] if answer and answer[0] else str(meta.get("grade_id", f"cell {index}"))
        check = Check(name, float(meta.get("points", 0) or 0), PASSED)
        answer_error = _error(nb.cells[answer[1]], replies.get(answer[1])) if answer else None
        error = _error(cell, replies.get(index))
        raised = {e[0] for e in (answer_error, error) if e}
        if index not in replies:
            check.status = NOT_RUN
            check.message = ("the kernel stopped before this check finished (it crashed, exited "
                             "or ran out of memory); fix the cell that stopped it")
        elif error is None:
            pass
        elif "NotImplementedError" in raised:
            check.status = NOT_ATTEMPTED
            check.message = "replace `raise NotImplementedError()` with your answer"
        elif answer_error:
            check.status = TIMED_OUT if answer_error[0] == _TIMEOUT_NAME else ANSWER_ERROR
            check.message = "the answer cell: " + _said(*answer_error)
        elif error and error[0] == _TIMEOUT_NAME:
            check.status, check.message = TIMED_OUT, error[1]
        elif error:
            check.status, check.message = NOT_YET, _said(*error)
        found.append(check)
        answer = None
    return found


def check_notebook(path: Path, timeout: int = CELL_TIMEOUT) -> list[Check]:
    """Run the notebook at ``path`` (in its own folder) and return its visible checks.

    Raises:
        UsageError: when the file is not a readable notebook.
    """
    nb = read_notebook(path)
    replies = execute(nb, path.resolve().parent, timeout)
    return checks(nb, replies)


def _cell(text: str) -> str:
    """``text`` made safe for one Markdown table cell."""
    text = " ".join(text.split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("|", "\\|")
    return text if len(text) <= 240 else text[:239] + "…"


def summary(results: dict[str, list[Check]],
            skipped: list[tuple[str, str]] | None = None) -> str:
    """The Markdown report: a table per notebook, the notebooks skipped and why, and a
    reminder that this is not a grade.

    Args:
        results: the checks of each notebook, by the name to show for it.
        skipped: (name, reason) of each notebook found but not checked.
    """
    lines = ["# Visible checks", ""]
    if skipped:
        lines += ["## Not checked", ""]
        lines += [f"- {_cell(name)}: {_cell(why)}" for name, why in skipped]
        lines.append("")
    for name, found in results.items():
        passed = sum(c.status == PASSED for c in found)
        lines += [f"## {_cell(name)}", "",
                  f"{passed} of {len(found)} question(s) pass their visible checks.", "",
                  "| question | points | visible checks | first line of the error |",
                  "|---|---|---|---|"]
        lines += [f"| {_cell(c.question)} | {c.points:g} | {c.status} | {_cell(c.message)} |"
                  for c in found]
        lines.append("")
    lines.append("These are the checks you see in the notebook. They are not your grade: "
                 "grading also runs hidden tests.")
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``check`` command's options."""
    parser.add_argument("paths", nargs="+", type=Path, metavar="NOTEBOOK_OR_FOLDER",
                        help="released notebooks (.ipynb), or folders holding them")
    parser.add_argument("--summary", type=Path, metavar="FILE",
                        help="also append the Markdown report to FILE (such as "
                             "$GITHUB_STEP_SUMMARY)")
    parser.add_argument("--timeout", type=int, default=CELL_TIMEOUT,
                        help="seconds one cell may run (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    """Check the notebooks ``args`` names; exit status 0 (whatever the checks say) or 2."""
    if args.timeout < 1:
        print("error: --timeout must be at least 1 second", file=sys.stderr)
        return 2
    skipped: list[tuple[Path, str]] = []
    try:
        notebooks = find_notebooks(args.paths, skipped)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    results: dict[str, list[Check]] = {}
    for path in notebooks:
        shown = str(path)
        print(f"Running {shown} ...", file=sys.stderr, flush=True)
        results[shown] = check_notebook(path, args.timeout)
    for path, why in skipped:
        print(f"Skipped {path}: {why}", file=sys.stderr)
    report = summary(results, [(str(p), why) for p, why in skipped])
    print(report)
    if args.summary:
        with open(args.summary, "a", encoding="utf-8") as fh:
            fh.write(report)
    return 0
