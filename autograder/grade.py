"""Grade submitted notebooks with nbgrader: ``python -m autograder grade PATH... --out DIR``.

For each submission: read and validate it, rebuild the notebook to grade from the course's
source (:mod:`autograder.rebuild`), place it in a scratch nbgrader course directory, run
``nbgrader autograde`` and ``nbgrader generate_feedback``, and read the grades back from the
gradebook. Writes ``DIR/<student>/<assignment>/result.json`` and ``feedback.html`` per
submission, and ``DIR/grades.csv`` and ``DIR/summary.md`` for the run.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.nbgrader_worker import Worker
from autograder.notebook import is_answer, is_test, nbgrader_meta, questions
from autograder.proof import add_proofs, proved, with_proof
from autograder.release import SOLUTIONS, student_version

MAX_BYTES = 20 * 1024 * 1024
MAX_EXTRA_CELLS = 2_000  # cells a submission may have beyond the released notebook's
FEEDBACK_TIMEOUT = 120  # seconds for one feedback page
COURSE_ID = "learn-jax"
_TIMING_RE = re.compile(r"Timing: .* ran ([0-9.]+)x faster.*required at least ([0-9.]+)x")


@dataclass
class Submission:
    """One notebook to grade (``problem`` set: invalid before grading, with that message)."""

    path: Path
    student: str
    assignment: str
    problem: str = ""


@dataclass
class QuestionResult:
    """The outcome of one question."""

    id: str
    score: float
    max_score: float
    status: str  # passed | failed | error | timeout | missing
    message: str = ""


@dataclass
class Result:
    """What ``result.json`` holds for one submission."""

    student: str
    assignment: str
    submission: str
    score: float = 0.0
    max_score: float = 0.0
    status: str = "graded"  # graded | invalid | error
    message: str = ""
    questions: list[QuestionResult] = field(default_factory=list)
    timings: dict[str, dict[str, float]] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    isolation: str = "none"  # bubblewrap | none (see autograder/SECURITY.md)


# ---------------------------------------------------------------- finding submissions

def assignments(course: Path = SOLUTIONS) -> list[str]:
    """The assignment names (source notebook stems) the course defines."""
    return sorted(p.stem for p in course.glob("*.ipynb"))


def _safe(name: str) -> str:
    """A student name usable as a folder name; a name that had to change gets a short hash of
    the original, so two folders (``eve`` and ``eve.``) never become one student."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "student"
    if cleaned == name:
        return cleaned
    return f"{cleaned}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def _assignment_of(stem: str, known: list[str]) -> str:
    """The assignment a file's stem names: itself, else the longest known name inside it
    (Colab saves copies as ``Copy of 05_jit`` or ``05_jit (1)``), else the stem."""
    if stem in known:
        return stem
    return next((a for a in sorted(known, key=len, reverse=True) if a in stem), stem)


def _walk(root: Path) -> list[tuple[Path, bool]]:
    """Notebooks below ``root`` without following links: (path, is a link). Links to folders
    are listed too (as links); hidden folders (``.git``, checkpoints) are skipped."""
    found: list[tuple[Path, bool]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for name in sorted(dirnames):
            if (here / name).is_symlink():
                found.append((here / name, True))
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and not (here / d).is_symlink())
        for name in sorted(filenames):
            if name.endswith(".ipynb"):
                found.append((here / name, (here / name).is_symlink()))
    return found


def discover(paths: list[Path], known: list[str], assignment: str | None = None
             ) -> list[Submission]:
    """Expand files and folders into submissions; who submitted comes from folders only.

    ``PATH/<student>/<assignment>.ipynb``: the student is the folder right below a ``PATH``
    given (for a file given, or a file directly in ``PATH``, the folder that holds it), never
    a file name. The assignment is the file's stem (or the known assignment the stem contains),
    or ``assignment`` for every file. Symbolic links are never followed: a linked file or
    folder is a submission with a ``problem``, as is every file when two map to the same
    (student, assignment).
    """
    found: list[Submission] = []
    for root in paths:
        if root.is_symlink() or root.is_file():
            entries, base = [(root, root.is_symlink())], root.absolute().parent
        else:
            entries, base = _walk(root), root.absolute()
        for path, linked in entries:
            rel = path.absolute().relative_to(base)
            folder_link = linked and path.suffix != ".ipynb"
            folder = rel.parts[0] if len(rel.parts) > 1 or folder_link else base.name
            name = "linked-folder" if folder_link else (
                assignment or _assignment_of(path.stem, known))
            problem = ""
            if linked:
                problem = (f"{rel} is a symbolic link; links are not followed: submit the "
                           "notebook file itself")
            found.append(Submission(path, folder, name, problem))
    return _mark_clashes(found)


def _mark_clashes(found: list[Submission]) -> list[Submission]:
    """Make student names folder-safe, and give every file that shares its (student,
    assignment) with another a ``problem``: none of them is graded, none overwrites another."""
    by_key: dict[tuple[str, str], list[Submission]] = {}
    for sub in found:
        sub.student = _safe(sub.student)
        by_key.setdefault((sub.student, sub.assignment), []).append(sub)
    for (student, name), subs in by_key.items():
        if len(subs) > 1:
            files = ", ".join(sorted(str(s.path.name) for s in subs))
            for sub in subs:
                sub.problem = sub.problem or (
                    f"{len(subs)} files are assignment {name} of student {student} ({files}): "
                    "nothing was graded; submit one")
    return found


# ---------------------------------------------------------------- reading one submission

class InvalidSubmission(Exception):
    """A submission that cannot be graded; its message is shown to the student."""


def read_submission(path: Path) -> nbformat.NotebookNode:
    """Read a submitted notebook, converting older formats to v4.

    Raises:
        InvalidSubmission: empty, too large, not JSON, or not a notebook.
    """
    try:  # O_NOFOLLOW: a link swapped in after discovery is still not followed
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InvalidSubmission(f"the file cannot be opened ({exc.strerror}); links are not "
                                "followed") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InvalidSubmission("not a regular file")
        size = info.st_size
        if size == 0:
            raise InvalidSubmission("the file is empty")
        if size > MAX_BYTES:
            raise InvalidSubmission(f"the file is {size / 2**20:.0f} MB; notebooks over "
                                    f"{MAX_BYTES // 2**20} MB are not graded (clear outputs "
                                    "first)")
        raw = fh.read(MAX_BYTES + 1)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidSubmission(f"not a notebook: the file is not valid JSON ({exc})") from None
    if not isinstance(data, dict) or "nbformat" not in data:
        raise InvalidSubmission("not a notebook: the JSON has no 'nbformat' field")
    _check_version(data)
    try:
        with warnings.catch_warnings():  # old notebooks lack cell ids; nbformat adds them
            warnings.simplefilter("ignore")
            nb = nbformat.reads(json.dumps(data), as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds
        raise InvalidSubmission(f"not a readable notebook: {exc}") from None
    if not isinstance(nb.get("cells"), list):
        raise InvalidSubmission("not a notebook: it has no list of cells")
    return nb


def _check_version(data: dict) -> None:
    major = data.get("nbformat")
    if not isinstance(major, int) or major not in (3, 4):
        raise InvalidSubmission(f"notebook format version {major!r} is not supported (only "
                                "versions 3 and 4 are); open and save it in Jupyter or Colab")


def screen_answers(nb: nbformat.NotebookNode) -> dict[str, str]:
    """Replace answer cells (and the student's own cells) that fail the screen.

    A screened cell is not run: its source becomes a ``raise`` with the reason, so that
    question fails and the others are graded as usual. Returns answer id -> message.
    """
    from autograder.rebuild import EXTRA_KEY
    from autograder.screen import message, screen

    flagged: dict[str, str] = {}
    for cell in nb.cells:
        gid = (nbgrader_meta(cell)["grade_id"] if is_answer(cell)
               else cell.get("metadata", {}).get(EXTRA_KEY))
        if not gid or cell.get("cell_type") != "code":
            continue
        found = screen(cell.source)
        if found:
            flagged[gid] = message(found)
            cell.source = f"raise RuntimeError({flagged[gid]!r})"
    return flagged


# ---------------------------------------------------------------- nbgrader course directory

_CONFIG = """\
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbconvert.preprocessors.sanitize import SanitizeHTML
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, GetGrades,
                                    IgnorePattern, LimitOutput, SaveAutoGrades)

from autograder.preprocessors import HideTestSource
from autograder.preprocessors.execute_with_limits import ExecuteWithLimits

c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course!r}
c.CourseDirectory.db_url = {db!r}
c.Execute.timeout = {timeout}
c.Execute.kernel_name = {kernel!r}
c.ExecuteWithLimits.notebook_timeout = {notebook_timeout}
c.ExecuteWithLimits.max_output_bytes = {max_output}
c.KernelManager.transport = {transport!r}
# nbgrader's list, with Execute replaced by one with a notebook deadline and output budget.
c.Autograde.autograde_preprocessors = [
    ExecuteWithLimits, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
    AssignLatePenalties, CheckCellMetadata]
c.LimitOutput.max_lines = 300
c.LimitOutput.max_traceback = 60
# Classes, not names: nbgrader reads each entry's traits. Feedback must not show hidden tests,
# nor run what a submission printed: HTML is cleaned (nbconvert's SanitizeHTML, bleach), and
# every other rich output but text and images is dropped.
c.GenerateFeedback.preprocessors = [GetGrades, HideTestSource, SanitizeHTML,
                                    CSSHTMLHeaderPreprocessor]
c.SanitizeHTML.enabled = True  # nbconvert's preprocessors are off unless enabled
c.SanitizeHTML.safe_output_keys = ["metadata", "text/plain", "image/png", "image/jpeg"]
c.SanitizeHTML.sanitized_output_types = ["text/html", "text/markdown"]
"""


_WORKERS: dict[Path, Worker] = {}


def _nbgrader_env(course: Path) -> dict[str, str]:
    """The environment nbgrader and its kernels run in (kernelspecs and sockets in course)."""
    # nbgrader runs `alembic` and the kernel from PATH: put this environment's bin/ first.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    share = str(course.resolve() / "share" / "jupyter")
    jupyter_path = os.pathsep.join(p for p in [share, os.environ.get("JUPYTER_PATH")] if p)
    return dict(os.environ, PATH=path, XLA_PYTHON_CLIENT_PREALLOCATE="false",
                PYTHONUNBUFFERED="1", JUPYTER_PATH=jupyter_path,
                JUPYTER_RUNTIME_DIR=str(course.resolve() / "runtime"))


def _nbgrader(course: Path, step: str, assignment: str, student: str | None = None,
              timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run one nbgrader step in ``course``'s long-lived nbgrader process."""
    return _worker(course).run(step, assignment, student, timeout)


def _worker(course: Path) -> Worker:
    """``course``'s nbgrader worker in this process (created on first use, not yet started)."""
    key = course.resolve()
    if key not in _WORKERS:
        _WORKERS[key] = Worker(key, _nbgrader_env(key))
    return _WORKERS[key]


def close_workers() -> None:
    """Stop this process's nbgrader workers (each course directory has one)."""
    for worker in _WORKERS.values():
        worker.close()
    _WORKERS.clear()


@dataclass
class Limits:
    """Per-submission limits: seconds per cell and per notebook, output bytes per cell."""

    cell_timeout: int = 180
    notebook_timeout: int = 900
    max_output_bytes: int = 100_000

    @property
    def step_timeout(self) -> int:
        """Seconds one autograde step may take: the notebook's limit plus start-up margin."""
        return self.notebook_timeout + 300


def isolation() -> str:
    """How kernels run here: ``"bubblewrap"`` (sandboxed) or ``"none"``."""
    from autograder import sandbox

    if os.environ.get("LEARN_JAX_NO_SANDBOX") == "1":
        return "none"
    return "bubblewrap" if sandbox.available() else "none"


def _write_config(course: Path, db: str, limits: Limits | None = None) -> None:
    """Write nbgrader_config.py; where the sandbox works, its kernelspec and runtime dir."""
    from autograder import sandbox

    limits = limits or Limits()
    kernel, transport = "python3", "tcp"
    if isolation() == "bubblewrap":
        kernel = sandbox.install_kernelspec(course / "share" / "jupyter")
        transport = "ipc"  # the sandbox has no network, not even loopback to the grader
        (course / "runtime").mkdir(exist_ok=True)  # kernels get fresh directories inside
    (course / "nbgrader_config.py").write_text(
        _CONFIG.format(root=str(course.resolve()), course=COURSE_ID, db=db,
                       timeout=limits.cell_timeout, notebook_timeout=limits.notebook_timeout,
                       max_output=limits.max_output_bytes, kernel=kernel,
                       transport=transport))


def _gradebook_url(course: Path) -> str:
    """The SQLite gradebook inside ``course``."""
    return f"sqlite:///{course.resolve() / 'gradebook.db'}"


def make_course(course: Path, names: list[str], db_url: str | None = None,
                limits: Limits | None = None, source: Path = SOLUTIONS) -> str:
    """Create an nbgrader course directory with ``names`` generated from ``solutions/``.

    Returns the gradebook URL.
    """
    course.mkdir(parents=True, exist_ok=True)
    db = db_url or _gradebook_url(course)
    _write_config(course, db, limits)
    for name in names:
        src = course / "source" / name
        src.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / f"{name}.ipynb", src / f"{name}.ipynb")
        proc = _nbgrader(course, "generate_assignment", name)
        if proc.returncode != 0:
            raise RuntimeError(f"nbgrader generate_assignment {name} failed:\n{proc.stderr}")
    return db


def clone_course(template: Path, course: Path, limits: Limits | None = None) -> str:
    """Copy a generated course (SQLite gradebook, no submissions) to ``course``.

    Generating an assignment costs seconds; parallel jobs each start from a copy of one
    generated course instead. Returns the copy's gradebook URL.
    """
    shutil.copytree(template, course, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("submitted", "autograded", "feedback",
                                                  "nbgrader_config.py"))
    db = _gradebook_url(course)
    _write_config(course, db, limits)
    return db


def _error_of(cell: Any) -> tuple[str, str]:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return out.get("ename", "Error"), out.get("evalue", "")
    return "", ""


def _printed(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream")


def _set_test_sources(db_url: str, assignment: str, nb: nbformat.NotebookNode,
                      tokens: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Make the gradebook's test cells those of ``nb`` (with this run's proofs).

    nbgrader's autograde replaces every locked cell by the gradebook's copy; the proof lines
    must be in that copy, after the hidden tests. Returns the original (source, checksum)
    per test cell id.
    """
    from nbgrader.api import Gradebook
    from nbgrader.utils import compute_checksum

    originals: dict[str, tuple[str, str]] = {}
    with Gradebook(db_url, COURSE_ID) as gb:
        for cell in nb.cells:
            if is_test(cell):
                gid = nbgrader_meta(cell)["grade_id"]
                stored = gb.find_source_cell(gid, assignment, assignment)
                originals[gid] = (stored.source, stored.checksum)
                # The stored source holds the hidden tests (the released one does not).
                cell.source = with_proof(stored.source, gid, tokens[gid])
                stored.source, stored.checksum = cell.source, compute_checksum(cell)
                cell.metadata["nbgrader"]["checksum"] = stored.checksum
        gb.db.commit()
    return originals


def _restore_test_sources(db_url: str, assignment: str,
                          originals: dict[str, tuple[str, str]]) -> None:
    """Undo :func:`_set_test_sources`: this run's proofs leave the gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url, COURSE_ID) as gb:
        for gid, (source, checksum) in originals.items():
            stored = gb.find_source_cell(gid, assignment, assignment)
            stored.source, stored.checksum = source, checksum
        gb.db.commit()


def grade_one(sub: Submission, course: Path, db_url: str, out: Path,
              source_dir: Path = SOLUTIONS, limits: Limits | None = None) -> Result:
    """Grade one submission in an existing course directory; write its result files."""
    from nbgrader.api import Gradebook

    result = Result(sub.student, sub.assignment, str(sub.path))
    dest = out / sub.student / sub.assignment
    dest.mkdir(parents=True, exist_ok=True)
    try:
        source = nbformat.read(source_dir / f"{sub.assignment}.ipynb", as_version=4)
        qs = questions(source)
        result.max_score = sum(q.points for q in qs)
        nb = read_submission(sub.path)
        released = student_version(source)
        if len(nb.cells) > len(released.cells) + MAX_EXTRA_CELLS:
            raise InvalidSubmission(f"the notebook has {len(nb.cells)} cells; at most "
                                    f"{MAX_EXTRA_CELLS} more than the exercise's "
                                    f"{len(released.cells)} are graded")
        from autograder.rebuild import rebuild

        rebuilt = rebuild(released, nb)
        screened = screen_answers(rebuilt.notebook)
        tokens = add_proofs(rebuilt.notebook)
        target = course / "submitted" / sub.student / sub.assignment
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        nbformat.write(rebuilt.notebook, target / f"{sub.assignment}.ipynb")
        originals = _set_test_sources(db_url, sub.assignment, rebuilt.notebook, tokens)
        try:
            proc = _nbgrader(course, "autograde", sub.assignment, sub.student,
                             timeout=(limits or Limits()).step_timeout)
        finally:
            _restore_test_sources(db_url, sub.assignment, originals)
        if proc.returncode != 0:
            raise RuntimeError(f"nbgrader autograde failed:\n{proc.stderr[-2000:]}")
        graded = nbformat.read(
            course / "autograded" / sub.student / sub.assignment / f"{sub.assignment}.ipynb",
            as_version=4)
        cells = {nbgrader_meta(c)["grade_id"]: c for c in graded.cells if is_test(c)}
        with Gradebook(db_url, COURSE_ID) as gb:
            for q in qs:
                grade = gb.find_grade(q.tests_id, sub.assignment, sub.assignment, sub.student)
                cell = cells.get(q.tests_id, {})
                ok = proved(cell, q.tests_id, tokens[q.tests_id])
                # The proof is the verdict: the test cell ran to its end with no error. (nbgrader
                # also zeroes a cell that wrote to stderr, so a JAX warning failed honest work.)
                score = q.points if ok else 0.0
                grade.auto_score, grade.manual_score = score, None
                ename, evalue = _error_of(cell)
                if q.answer_id in rebuilt.missing:
                    status, msg = "missing", "no answer cell for this question was found"
                elif ok and score >= q.points:  # (a screened extra cell did not matter)
                    status, msg = "passed", ""
                elif q.answer_id in screened:
                    status, msg = "failed", screened[q.answer_id]
                elif "Timeout" in ename or "timed out" in evalue.lower():
                    status, msg = "timeout", "the tests ran out of time"
                elif ename == "NotImplementedError":
                    status, msg = "failed", "not attempted"
                elif ename == "AssertionError":
                    status, msg = "failed", evalue
                elif ename:
                    status, msg = "error", f"{ename}: {evalue}".strip(": ")
                else:
                    status, msg = "error", ("the tests did not report that they ran to the "
                                            "end (output or the kernel was tampered with?)")
                result.questions.append(QuestionResult(q.answer_id, score, q.points, status,
                                                       msg[:500]))
                timing = _TIMING_RE.search(_printed(cells.get(q.tests_id, {})))
                if timing:
                    result.timings[q.answer_id] = {"speedup": float(timing.group(1)),
                                                   "required": float(timing.group(2))}
            gb.db.commit()
        result.score = sum(q.score for q in result.questions)
        # Screened cells whose question passed anyway (a student's own cell) are noted here.
        notes = list(rebuilt.notes) + [f"{q.id}: {screened[q.id]}." for q in result.questions
                                       if q.id in screened and q.status == "passed"]
        result.message = " ".join(notes)
        proc = _nbgrader(course, "generate_feedback", sub.assignment, sub.student,
                         timeout=FEEDBACK_TIMEOUT)
        for html in (course / "feedback" / sub.student / sub.assignment).glob("*.html"):
            shutil.copy(html, dest / "feedback.html")
    except InvalidSubmission as exc:
        result.status, result.message = "invalid", f"{sub.path.name}: {exc}"
    except Exception as exc:  # noqa: BLE001 - one broken submission must not stop the batch
        result.status, result.message = "error", f"{type(exc).__name__}: {exc}"[:2000]
    (dest / "result.json").write_text(json.dumps(asdict(result), indent=2) + "\n")
    return result


# ---------------------------------------------------------------- the command

def environment() -> dict[str, Any]:
    """JAX version, backend and devices that grading runs on."""
    try:
        import jax

        return {"jax": jax.__version__, "backend": jax.default_backend(),
                "devices": [str(d) for d in jax.devices()]}
    except Exception as exc:  # noqa: BLE001
        return {"error": str(exc)}


def write_reports(results: list[Result], out: Path) -> None:
    """Write ``grades.csv`` and ``summary.md`` for a run."""
    with open(out / "grades.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student", "assignment", "score", "max_score", "status", "message"])
        for r in results:
            writer.writerow([r.student, r.assignment, r.score, r.max_score, r.status, r.message])
    lines = ["# Grades", "", "| student | assignment | score | status | notes |",
             "|---|---|---|---|---|"]
    for r in results:
        failed = [q.id for q in r.questions if q.status != "passed"]
        note = (r.message or (("not passed: " + ", ".join(failed)) if failed else "")).replace(
            "|", "\\|").replace("\n", " ")[:200]
        lines.append(f"| {r.student} | {r.assignment} | {r.score:g} / {r.max_score:g} | "
                     f"{r.status} | {note} |")
    graded = [r for r in results if r.status == "graded"]
    lines += ["", f"{len(results)} submission(s): {len(graded)} graded, "
              f"{sum(r.status == 'invalid' for r in results)} invalid, "
              f"{sum(r.status == 'error' for r in results)} error(s)."]
    if any(r.isolation == "none" for r in results if r.status != "invalid"):
        lines += ["", "**Submissions ran unisolated**: no sandbox (bubblewrap) was available, "
                  "so their code could read and write what the grader can and reach the "
                  "network. See autograder/SECURITY.md."]
    (out / "summary.md").write_text("\n".join(lines) + "\n")


def _job_course(scratch: Path) -> Path:
    """This pool process's own course directory."""
    return (scratch / f"job-{os.getpid()}").resolve()


def _job_started(scratch: Path) -> None:
    """Pool initializer: start this job's nbgrader worker, and stop it when the job ends.

    The worker loads nbgrader while the main process is still generating the template
    course; it reads the course's config at its first step, after :func:`clone_course`.
    """
    from multiprocessing import util

    util.Finalize(None, close_workers, exitpriority=10)
    course = _job_course(scratch)
    course.mkdir(parents=True, exist_ok=True)
    _worker(course).start()


def _grade_in_job(sub: Submission, template: Path, out: Path, scratch: Path,
                  source: Path, limits: Limits) -> Result:
    """Grade one submission in a pool process, in that process's own copy of the course."""
    course = _job_course(scratch)
    if not (course / "nbgrader_config.py").exists():
        clone_course(template, course, limits)
    return grade_one(sub, course, _gradebook_url(course), out, source, limits)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``grade`` command's options."""
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                        help="submitted .ipynb files or folders of them")
    parser.add_argument("--out", type=Path, required=True, help="folder for results")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded in parallel")
    parser.add_argument("--assignment", help="assignment name for every PATH (default: stem)")
    parser.add_argument("--course", type=Path, help="keep the nbgrader course directory here")
    parser.add_argument("--db", help="gradebook SQLAlchemy URL (default: SQLite in --course)")
    parser.add_argument("--cell-timeout", type=int, default=Limits.cell_timeout,
                        help="seconds one cell may run (default: %(default)s)")
    parser.add_argument("--notebook-timeout", type=int, default=Limits.notebook_timeout,
                        help="seconds one notebook may run (default: %(default)s)")
    parser.add_argument("--source", type=Path, default=SOLUTIONS,
                        help="folder of nbgrader source notebooks (default: solutions/)")


def run(args: argparse.Namespace) -> int:
    """Grade everything ``args`` names; exit status 0, 1 (grader failure) or 2 (usage)."""
    known = assignments(args.source)
    missing = [p for p in args.paths if not p.exists()]
    if missing:
        print(f"error: no such file or folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    if args.assignment and args.assignment not in known:
        print(f"error: unknown assignment {args.assignment!r}; known: {', '.join(known)}",
              file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return 2
    subs = discover(args.paths, known, args.assignment)
    if not subs:
        print("error: no .ipynb files found", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    env = environment()
    limits = Limits(args.cell_timeout, args.notebook_timeout)
    isolated = isolation()
    if isolated == "none":
        print("warning: no sandbox (bubblewrap) works here: submissions run UNISOLATED, with "
              "the grader's access to files and network", file=sys.stderr)
    results: list[Result] = []
    unknown = [s for s in subs if s.problem or s.assignment not in known]
    for sub in unknown:
        message = sub.problem or (f"unknown assignment {sub.assignment!r} (file "
                                  f"{sub.path.name}); known: {', '.join(known)}")
        r = Result(sub.student, sub.assignment, str(sub.path), status="invalid",
                   message=message)
        dest = args.out / sub.student / sub.assignment
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "result.json").write_text(json.dumps(asdict(r), indent=2) + "\n")
        results.append(r)
    todo = [s for s in subs if s not in unknown]
    names = sorted({s.assignment for s in todo})
    from autograder.progress import Progress

    progress = Progress(len(subs), "grading")
    progress.advance(len(unknown))
    try:
        with tempfile.TemporaryDirectory(prefix="learn-jax-grade-") as tmp:
            course_root = args.course or Path(tmp) / "course"
            if args.jobs == 1:
                db = make_course(course_root, names, args.db, limits, args.source)
                for sub in todo:
                    results.append(grade_one(sub, course_root, db, args.out, args.source,
                                             limits))
                    progress.advance()
            else:
                template = Path(tmp) / "template"
                # The jobs start first (forked before this process has a worker of its own)
                # and load nbgrader while the template course is generated here.
                with concurrent.futures.ProcessPoolExecutor(
                        args.jobs, initializer=_job_started, initargs=(Path(tmp),)) as pool:
                    pool.submit(os.getpid)  # starts every job process now
                    make_course(template, names, limits=limits, source=args.source)
                    close_workers()  # the template's; each job copies it and has its own
                    futures = [pool.submit(_grade_in_job, sub, template, args.out, Path(tmp),
                                           args.source, limits) for sub in todo]
                    for fut in concurrent.futures.as_completed(futures):
                        results.append(fut.result())
                        progress.advance()
                if args.course or args.db:
                    db = make_course(course_root, names, args.db, limits, args.source)
                else:
                    db = clone_course(template, course_root, limits)
                merge_into_gradebook(results, db, args.source)
    except Exception as exc:  # noqa: BLE001
        print(f"error: grading failed: {exc}", file=sys.stderr)
        return 1
    finally:
        close_workers()
    progress.done()
    for r in results:
        r.environment = env
        r.isolation = isolated
        path = args.out / r.student / r.assignment / "result.json"
        path.write_text(json.dumps(asdict(r), indent=2) + "\n")
    results.sort(key=lambda r: (r.student, r.assignment))
    write_reports(results, args.out)
    print((args.out / "summary.md").read_text())
    return 0


def merge_into_gradebook(results: list[Result], db_url: str, source: Path = SOLUTIONS) -> None:
    """Record scores graded in separate scratch course directories into one gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url, COURSE_ID) as gb:
        for r in results:
            if r.status != "graded":
                continue
            gb.update_or_create_student(r.student)
            gb.update_or_create_submission(r.assignment, r.student)
            nb = nbformat.read(source / f"{r.assignment}.ipynb", as_version=4)
            by_id = {q.answer_id: q.tests_id for q in questions(nb)}
            for q in r.questions:
                grade = gb.find_grade(by_id[q.id], r.assignment, r.assignment, r.student)
                grade.auto_score = q.score
            gb.db.commit()
