"""One long-lived nbgrader process per course directory.

Importing nbgrader takes about four seconds, and ``nbgrader autograde`` followed by
``nbgrader generate_feedback`` pays it twice per submission when each step is its own command.
A :class:`Worker` starts ``python -m autograder.grader.nbgrader_worker`` once in the course
directory and sends it one step at a time; the worker calls nbgrader's own :class:`NbGraderAPI` (the
same code the command line runs) and answers with its log.

The protocol is one JSON object per line: the client writes
``{"step": "autograde", "assignment": "06_jit", "student": "ada"}`` on the worker's stdin and
reads ``{"success": true, "log": "...", "error": ""}`` from a private pipe (anything a step
prints goes to stderr, so it cannot corrupt the answer). An autograde request also carries the
submission's proof tokens (``"proofs": {test id: token}``): the worker holds them in memory for
that step only (:func:`autograder.grader.preprocessors.prove_test_cells.proving`), so nothing
per submission is written into the course directory's gradebook. A worker that dies (a kernel that
took its parent down, say) is started again for the next step; the step that was running
fails with a clear message.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

STEPS = ("generate_assignment", "autograde", "generate_feedback")


class Worker:
    """Client side: runs nbgrader steps in one persistent process in ``course``."""

    def __init__(self, course: Path, env: dict[str, str] | None = None) -> None:
        self.course = Path(course)
        self.env = env
        self._proc: subprocess.Popen | None = None
        self._answers: Any = None

    def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "autograder.grader.nbgrader_worker", str(write_fd)],
            cwd=self.course, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, pass_fds=(write_fd,), text=True)
        os.close(write_fd)
        self._answers = os.fdopen(read_fd, "r")

    def start(self) -> None:
        """Start the worker process now, if it is not running.

        Importing nbgrader takes a few seconds; the course's config is read at the first
        step, so a worker may start before its course directory is filled in.
        """
        if self._proc is None or self._proc.poll() is not None:
            self._start()

    def run(self, step: str, assignment: str, student: str | None = None,
            timeout: float | None = None, spare: bool = True,
            proofs: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
        """Run one nbgrader step; the result looks like a finished ``nbgrader`` command.

        Args:
            step: ``generate_assignment``, ``autograde`` or ``generate_feedback``.
            assignment: the assignment name.
            student: the student id (autograde and generate_feedback).
            timeout: seconds to wait for the step; on expiry the worker is stopped.
            spare: for ``autograde``, whether a kernel is started ahead for the next
                notebook once this one's has stopped (where the course starts kernels
                ahead); False for the last submission a worker grades.
            proofs: for ``autograde``, the proof token of each test cell (test id -> token),
                put after the gradebook's source of that cell for this step only
                (:class:`~autograder.grader.preprocessors.prove_test_cells.ProveTestCells`).

        Returns:
            A :class:`subprocess.CompletedProcess` with ``returncode`` 0 on success and
            nbgrader's log (and traceback, on failure) in ``stderr``.
        """
        if step not in STEPS:
            raise ValueError(f"unknown nbgrader step {step!r}; known: {', '.join(STEPS)}")
        self.start()
        assert self._proc is not None and self._proc.stdin is not None
        request = {"step": step, "assignment": assignment, "student": student,
                   "spare": spare, "proofs": dict(proofs or {})}
        args = [step, assignment] + ([student] if student else [])
        try:
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            line = self._read_line(timeout)
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            self.close()
            why = "ran out of time" if timeout is not None and line is None else "stopped"
            return subprocess.CompletedProcess(
                args, 1, "", f"the nbgrader worker {why} during {step} {assignment}")
        answer = json.loads(line)
        text = (answer.get("log") or "") + (answer.get("error") or "")
        return subprocess.CompletedProcess(args, 0 if answer.get("success") else 1, "", text)

    def _read_line(self, timeout: float | None) -> str | None:
        with selectors.DefaultSelector() as sel:
            sel.register(self._answers, selectors.EVENT_READ)
            if not sel.select(timeout):
                return None
        return self._answers.readline()

    def close(self) -> None:
        """Stop the worker process (it is started again by the next :meth:`run`)."""
        if self._proc is not None:
            if self._proc.poll() is None:
                try:
                    self._proc.stdin.close()  # type: ignore[union-attr]
                    self._proc.wait(timeout=10)
                except (OSError, subprocess.TimeoutExpired):
                    self._proc.kill()
                    self._proc.wait()
            self._answers.close()
        self._proc = None

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _serve(answer_fd: int) -> None:
    """Worker side: answer step requests from stdin until it closes."""
    answers = os.fdopen(answer_fd, "w")
    os.dup2(2, 1)  # whatever a step prints goes to stderr, never into the answers
    from nbgrader.apps import NbGraderAPI
    from traitlets.config.loader import PyFileConfigLoader

    api = None
    for line in sys.stdin:
        request = json.loads(line)
        step, assignment = request["step"], request["assignment"]
        try:
            if api is None:  # read now: a worker may be started before its course is ready
                api = NbGraderAPI(config=PyFileConfigLoader(
                    "nbgrader_config.py", path=os.getcwd()).load_config())
            if step == "generate_assignment":
                answer = api.generate_assignment(assignment, force=True, create=True)
            elif step == "autograde":
                from autograder.grader.preprocessors.execute_with_limits import want_spare
                from autograder.grader.preprocessors.prove_test_cells import proving

                want_spare(bool(request.get("spare", True)))
                with proving(request.get("proofs")):
                    answer = api.autograde(assignment, request["student"], force=True,
                                           create=True)
            elif step == "generate_feedback":
                answer = api.generate_feedback(assignment, request["student"], force=True)
            else:
                answer = {"success": False, "error": f"unknown step {step!r}"}
        except Exception as exc:  # noqa: BLE001 - report, and keep serving
            answer = {"success": False, "error": f"{type(exc).__name__}: {exc}"}
        answers.write(json.dumps({"success": bool(answer.get("success")),
                                  "log": answer.get("log", ""),
                                  "error": answer.get("error", "")}) + "\n")
        answers.flush()


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
