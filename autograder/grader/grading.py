"""Grading one submission: rebuild, screen, autograde with nbgrader, judge, feedback.

:func:`grade_one` turns one :class:`~autograder.grader.submissions.Submission` into a
:class:`Result` (written as ``result.json``) and a feedback page, in an existing course
directory (:mod:`autograder.grader.course`). It runs the steps; what they decide is decided
on the judging side (:mod:`autograder.grader.judging`: the screen, the proofs, the trusted
records, each question's outcome).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat

from autograder.core.notebook import is_answer, is_test, nbgrader_meta, questions
from autograder.grader.course import COURSE_ID, Limits, kernel_for, nbgrader, stage_log
from autograder.grader.judging.proof import new_tokens
from autograder.grader.judging.question import decide_question
from autograder.grader.preprocessors.execute_with_limits import EVIDENCE_CUT, KERNEL_KEY
from autograder.grader.preprocessors.summarize_questions import VERDICTS_KEY
from autograder.grader.release import SOLUTIONS, student_version
from autograder.grader.result import QuestionResult, Result
from autograder.grader.runtime_choice import PAGE_KEY, RuntimeMissing, choose_runtime
from autograder.grader.submissions import InvalidSubmission, Submission, read_submission

# Grading's steps for one submission, as ``Result.stages`` names them (seconds each): reading,
# rebuilding and screening it; the kernel's start (import of nothing yet), the notebook's
# execution and the kernel's shutdown; the rest of nbgrader's autograde (its database, the
# notebook's files); the judge (waiting for the trusted records, deciding each check); the
# feedback page.
STAGES = ("prepare", "kernel_start", "execute", "kernel_stop", "nbgrader", "judge", "feedback")
MAX_EXTRA_CELLS = 2_000  # cells a submission may have beyond the released notebook's
FEEDBACK_TIMEOUT = 120  # seconds for one feedback page
PREPARE_TIMEOUT = 60  # seconds to read, rebuild and screen one submission (normally < 1 s)


def screen_answers(nb: nbformat.NotebookNode,
                   source: nbformat.NotebookNode | None = None) -> dict[str, str]:
    """Replace answer cells (and the student's own cells) that fail the screen.

    A screened cell is not run: its source becomes a ``raise`` with the reason, so that
    question fails and the others are graded as usual. The names the cells may bind come from
    ``source``, the course's notebook: each answer (and a student's cell after it) may bind
    its question's names, and none a test cell reads (hidden tests included). Returns answer
    id -> message.
    """
    from autograder.grader.judging.screen import Judged, judged_names, message, own_names, screen
    from autograder.grader.rebuild import EXTRA_KEY

    judged, own = Judged(), {}
    if source is not None:
        judged = judged_names(c.source for c in source.cells if is_test(c))
        own = {nbgrader_meta(c)["grade_id"]: own_names(c.source) for c in source.cells
               if is_answer(c)}
    flagged: dict[str, str] = {}
    for cell in nb.cells:
        gid = (nbgrader_meta(cell)["grade_id"] if is_answer(cell)
               else cell.get("metadata", {}).get(EXTRA_KEY))
        if not gid or cell.get("cell_type") != "code":
            continue
        found = screen(cell.source, own.get(gid, set()), judged)
        if found:
            flagged[gid] = message(found)
            cell.source = f"raise RuntimeError({flagged[gid]!r})"
    return flagged


def left_as_released(released: nbformat.NotebookNode, rebuilt: nbformat.NotebookNode) -> bool:
    """Is every answer cell of ``rebuilt`` the released stub, with no code of the learner's
    own added: a notebook nobody worked on, not submitted (never a 0)? Decided from the
    notebooks alone, before any kernel."""
    from autograder.grader.rebuild import EXTRA_KEY

    stubs = {nbgrader_meta(c)["grade_id"]: c.source.strip() for c in released.cells
             if is_answer(c)}
    answers = {nbgrader_meta(c)["grade_id"]: c.source.strip() for c in rebuilt.cells
               if is_answer(c)}
    extra = any(c.get("metadata", {}).get(EXTRA_KEY) and c.source.strip()
                for c in rebuilt.cells if c.get("cell_type") == "code")
    return bool(stubs) and answers == stubs and not extra


@contextlib.contextmanager
def time_limit(seconds: float, what: str) -> Iterator[None]:
    """Raise :class:`InvalidSubmission` when the block runs longer than ``seconds``.

    The grader's own steps on a submission (reading, rebuilding, screening) run in this
    process, not in the kernel: a notebook built to make them slow must not stall the batch.
    Uses a real-time timer, so it applies in the main thread (where the grader runs each
    submission, one by one or in a pool process); elsewhere the block runs unlimited.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(
            signal, "setitimer"):
        yield
        return

    def expired(_signum: int, _frame: Any) -> None:
        raise InvalidSubmission(f"{what} took longer than {seconds:g} s; the notebook was not "
                                "graded")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _verdict_output(status: str, score: float, points: float, raised: bool) -> dict:
    """The grader's line under a test cell in the feedback page. Its message is not repeated
    here: the page's table of what to fix shows it, once."""
    said = "your answer raised" if raised else status.replace("timeout", "timed out")
    text = f"Grader: {said} ({score:g} of {points:g} points)."
    if status != "passed":
        text += " What to fix is in the table at the top."
    return nbformat.v4.new_output("stream", name="stdout", text=text + "\n")


def _reason(log: str) -> str:
    """The exception line of a failed nbgrader step's log (else its last line), shortened."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"[\w.]*(Error|Exception)\b", line)]
    return ((errors or lines or ["no reason given"])[-1])[:300]


def _kernel_stages(course: Path, student: str, assignment: str
                   ) -> tuple[dict[str, float], float | None]:
    """The kernel's stage timings that autograde's run just wrote (read once, then removed),
    and the CPU seconds the kernel used (None when not measured)."""
    path = stage_log(course) / student / f"{assignment}.json"
    try:
        found = json.loads(path.read_text())
        path.unlink()
    except (OSError, ValueError):
        return {}, None
    cpu = found.get("kernel_cpu")
    return ({k: float(v) for k, v in found.items() if k in STAGES},
            float(cpu) if isinstance(cpu, int | float) else None)


def grade_one(sub: Submission, course: Path, db_url: str, out: Path,
              source_dir: Path = SOLUTIONS, limits: Limits | None = None,
              records_cache: Path | None = None, feedback: bool = True,
              spare: bool = True) -> Result:
    """Grade one submission in an existing course directory; write its result files.

    Each question is decided on the judging side
    (:func:`~autograder.grader.judging.question.decide_question`), from the student's evidence
    and the trusted records of the reference answers
    (:func:`~autograder.grader.judging.reference_run.trusted_records`, cached in
    ``records_cache``, by default the course's ``records/``). The feedback page is written
    unless ``feedback`` is False; ``Result.stages`` says how long each step took. ``spare``
    False: no kernel is started ahead for a next submission (this is the last).
    """
    from nbgrader.api import Gradebook

    from autograder.grader.judging.reference_run import recorded_environment, trusted_records

    result = Result(sub.student, sub.assignment, str(sub.path))
    dest = out / sub.student / sub.assignment
    dest.mkdir(parents=True, exist_ok=True)
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        result.stages[stage] = round(now - clock, 4)
        clock = now

    try:
        source = nbformat.read(source_dir / f"{sub.assignment}.ipynb", as_version=4)
        qs = questions(source)
        result.max_score = sum(q.points for q in qs)
        from autograder.grader.rebuild import rebuild

        with time_limit(PREPARE_TIMEOUT, "reading, rebuilding and screening the notebook"):
            nb = read_submission(sub.path)
            released = student_version(source)
            if len(nb.cells) > len(released.cells) + MAX_EXTRA_CELLS:
                raise InvalidSubmission(f"the notebook has {len(nb.cells)} cells; at most "
                                        f"{MAX_EXTRA_CELLS} more than the exercise's "
                                        f"{len(released.cells)} are graded")
            rebuilt = rebuild(released, nb)
            if left_as_released(released, rebuilt.notebook):
                result.status = "not_submitted"
                result.message = "left as released: no answer was changed, nothing to grade"
                result.write(out)
                return result
            screened = screen_answers(rebuilt.notebook, source)
            runtime = choose_runtime(nb, (limits or Limits()).runtime)
            rebuilt.notebook.metadata[KERNEL_KEY] = kernel_for(runtime.runtime.name)
        result.runtime = runtime.page
        # This run's proofs travel with its autograde request: nbgrader builds each test cell
        # from the gradebook's source and its token, and nothing shared is changed.
        tokens = new_tokens(rebuilt.notebook)
        target = course / "submitted" / sub.student / sub.assignment
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        nbformat.write(rebuilt.notebook, target / f"{sub.assignment}.ipynb")
        lap("prepare")
        proc = nbgrader(course, "autograde", sub.assignment, sub.student,
                        timeout=(limits or Limits()).step_timeout, spare=spare, proofs=tokens)
        lap("nbgrader")
        kernel, kernel_cpu = _kernel_stages(course, sub.student, sub.assignment)
        if kernel_cpu is not None:
            result.cpu["kernel"] = round(kernel_cpu, 3)
        result.stages["nbgrader"] = round(max(0.0, result.stages["nbgrader"]
                                              - sum(kernel.values())), 4)
        result.stages.update(kernel)
        if proc.returncode != 0:
            raise RuntimeError(f"nbgrader autograde failed:\n{proc.stderr[-2000:]}")
        graded_path = (course / "autograded" / sub.student / sub.assignment
                       / f"{sub.assignment}.ipynb")
        graded = nbformat.read(graded_path, as_version=4)
        cells = {nbgrader_meta(c)["grade_id"]: c for c in graded.cells if is_test(c)}
        verdicts: dict[str, dict[str, Any]] = {}  # the feedback page's table reads these
        # Asked for only now: the grader may still be recording it while the kernel ran.
        records = trusted_records(source_dir / f"{sub.assignment}.ipynb",
                                  records_cache or course / "records", runtime=runtime.runtime)
        result.environment = recorded_environment(
            source_dir / f"{sub.assignment}.ipynb", records_cache or course / "records",
            runtime.runtime) or {}
        with Gradebook(db_url, COURSE_ID) as gb:
            for q in qs:
                grade = gb.find_grade(q.tests_id, sub.assignment, sub.assignment, sub.student)
                cell = cells.get(q.tests_id, {})
                dropped = cell.get("metadata", {}).get(EVIDENCE_CUT) if cell else 0
                decided = decide_question(q, cell, records.get(q.tests_id, []),
                                          tokens[q.tests_id],
                                          missing=q.answer_id in rebuilt.missing,
                                          screened=screened.get(q.answer_id),
                                          dropped=dropped if isinstance(dropped, int) else 0)
                grade.auto_score, grade.manual_score = decided.score, None
                result.questions.append(QuestionResult(q.answer_id, decided.score, q.points,
                                                       decided.status, decided.message))
                if decided.timings:
                    result.timings[q.answer_id] = decided.timings
                if cell:
                    cell.setdefault("outputs", []).append(
                        _verdict_output(decided.status, decided.score, q.points, decided.raised))
                verdicts[q.tests_id] = {"question": q.answer_id, "status": decided.status,
                                        "score": decided.score, "points": q.points,
                                        "message": decided.message, "raised": decided.raised}
            gb.db.commit()
        graded.metadata[VERDICTS_KEY] = verdicts  # replaces whatever a submission put there
        graded.metadata[PAGE_KEY] = runtime.page  # the page names the runtime (as above)
        nbformat.write(graded, graded_path)  # the feedback page shows the grader's verdicts
        result.score = sum(q.score for q in result.questions)
        # Screened cells whose question passed anyway (a student's own cell) are noted here.
        notes = list(rebuilt.notes) + [f"{q.id}: {screened[q.id]}." for q in result.questions
                                       if q.id in screened and q.status == "passed"]
        result.message = " ".join(notes)
        lap("judge")
        if feedback:
            made = nbgrader(course, "generate_feedback", sub.assignment, sub.student,
                            timeout=FEEDBACK_TIMEOUT)
            if made.returncode != 0:  # the score stands; the missing page is said, not silent
                result.message = "; ".join(filter(None, [
                    result.message, f"the feedback page could not be made: "
                                    f"{_reason(made.stderr)}"]))
            for html in (course / "feedback" / sub.student / sub.assignment).glob("*.html"):
                shutil.copy(html, dest / "feedback.html")
            lap("feedback")
    except InvalidSubmission as exc:
        result.status, result.message = "invalid", f"{sub.path.name}: {exc}"
    except RuntimeMissing as exc:  # never graded on another runtime instead
        result.status, result.message = "error", str(exc)
        result.runtime = {"name": exc.name, "installed": "no"}
    except Exception as exc:  # noqa: BLE001 - one broken submission must not stop the batch
        result.status, result.message = "error", f"{type(exc).__name__}: {exc}"[:2000]
    result.write(out)
    return result
