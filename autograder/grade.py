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
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.notebook import is_test, nbgrader_meta, questions
from autograder.release import SOLUTIONS, student_version

MAX_BYTES = 20 * 1024 * 1024
COURSE_ID = "learn-jax"
_TIMING_RE = re.compile(r"Timing: .* ran ([0-9.]+)x faster.*required at least ([0-9.]+)x")


@dataclass
class Submission:
    """One notebook to grade."""

    path: Path
    student: str
    assignment: str


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


# ---------------------------------------------------------------- finding submissions

def assignments(course: Path = SOLUTIONS) -> list[str]:
    """The assignment names (source notebook stems) the course defines."""
    return sorted(p.stem for p in course.glob("*.ipynb"))


def _safe(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")
    return cleaned or "student"


def discover(paths: list[Path], known: list[str], assignment: str | None = None
             ) -> list[Submission]:
    """Expand files and folders into submissions.

    ``PATH/<student>/<assignment>.ipynb`` gives the student from the folder; a flat file's
    stem names the assignment (or contains it, the rest naming the student), and the student
    is the folder's name when the stem is just the assignment.
    """
    found: list[Submission] = []
    for root in paths:
        files = [root] if root.is_file() else sorted(root.rglob("*.ipynb"))
        for path in files:
            if ".ipynb_checkpoints" in path.parts:
                continue
            stem = path.stem
            name = assignment or next((a for a in known if a == stem), None)
            student = path.parent.name
            if name is None:
                name = next((a for a in sorted(known, key=len, reverse=True) if a in stem), stem)
                rest = stem.replace(name, "").strip("-_ .") if name in stem else ""
                student = rest or student
            elif root.is_dir() and path.parent == root and stem != name:
                student = stem
            found.append(Submission(path, _safe(student), name))
    return found


# ---------------------------------------------------------------- reading one submission

class InvalidSubmission(Exception):
    """A submission that cannot be graded; its message is shown to the student."""


def read_submission(path: Path) -> nbformat.NotebookNode:
    """Read a submitted notebook, converting older formats to v4.

    Raises:
        InvalidSubmission: empty, too large, not JSON, or not a notebook.
    """
    size = path.stat().st_size
    if size == 0:
        raise InvalidSubmission("the file is empty")
    if size > MAX_BYTES:
        raise InvalidSubmission(f"the file is {size / 2**20:.0f} MB; notebooks over "
                                f"{MAX_BYTES // 2**20} MB are not graded (clear outputs first)")
    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidSubmission(f"not a notebook: the file is not valid JSON ({exc})") from None
    if not isinstance(data, dict) or "nbformat" not in data:
        raise InvalidSubmission("not a notebook: the JSON has no 'nbformat' field")
    try:
        with warnings.catch_warnings():  # old notebooks lack cell ids; nbformat adds them
            warnings.simplefilter("ignore")
            nb = nbformat.reads(json.dumps(data), as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds
        raise InvalidSubmission(f"not a readable notebook: {exc}") from None
    if not isinstance(nb.get("cells"), list):
        raise InvalidSubmission("not a notebook: it has no list of cells")
    return nb


# ---------------------------------------------------------------- nbgrader course directory

_CONFIG = """\
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import GetGrades

from autograder.preprocessors import HideTestSource

c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course!r}
c.CourseDirectory.db_url = {db!r}
c.Execute.timeout = {timeout}
c.Execute.kernel_name = "python3"
c.LimitOutput.max_lines = 300
c.LimitOutput.max_traceback = 60
# Classes, not names: nbgrader reads each entry's traits. Feedback must not show hidden tests.
c.GenerateFeedback.preprocessors = [GetGrades, HideTestSource, CSSHTMLHeaderPreprocessor]
"""


def _nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    # nbgrader runs `alembic` and the kernel from PATH: put this environment's bin/ first.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = dict(os.environ, PATH=path, XLA_PYTHON_CLIENT_PREALLOCATE="false",
               PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True)


def make_course(course: Path, names: list[str], db_url: str | None = None,
                timeout: int = 180, source: Path = SOLUTIONS) -> str:
    """Create an nbgrader course directory with ``names`` generated from ``solutions/``.

    Returns the gradebook URL.
    """
    course.mkdir(parents=True, exist_ok=True)
    db = db_url or f"sqlite:///{course.resolve() / 'gradebook.db'}"
    (course / "nbgrader_config.py").write_text(
        _CONFIG.format(root=str(course.resolve()), course=COURSE_ID, db=db, timeout=timeout))
    for name in names:
        src = course / "source" / name
        src.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / f"{name}.ipynb", src / f"{name}.ipynb")
        proc = _nbgrader(course, "generate_assignment", name, "--force", "--create")
        if proc.returncode != 0:
            raise RuntimeError(f"nbgrader generate_assignment {name} failed:\n{proc.stderr}")
    return db


def _error_of(cell: Any) -> tuple[str, str]:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return out.get("ename", "Error"), out.get("evalue", "")
    return "", ""


def _printed(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream")


def grade_one(sub: Submission, course: Path, db_url: str, out: Path,
              source_dir: Path = SOLUTIONS) -> Result:
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
        from autograder.rebuild import rebuild

        rebuilt = rebuild(student_version(source), nb)
        target = course / "submitted" / sub.student / sub.assignment
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        nbformat.write(rebuilt.notebook, target / f"{sub.assignment}.ipynb")
        proc = _nbgrader(course, "autograde", sub.assignment, "--student", sub.student,
                         "--create", "--force")
        if proc.returncode != 0:
            raise RuntimeError(f"nbgrader autograde failed:\n{proc.stderr[-2000:]}")
        graded = nbformat.read(
            course / "autograded" / sub.student / sub.assignment / f"{sub.assignment}.ipynb",
            as_version=4)
        cells = {nbgrader_meta(c)["grade_id"]: c for c in graded.cells if is_test(c)}
        with Gradebook(db_url, COURSE_ID) as gb:
            for q in qs:
                grade = gb.find_grade(q.tests_id, sub.assignment, sub.assignment, sub.student)
                score = float(grade.score or 0.0)
                ename, evalue = _error_of(cells.get(q.tests_id, {}))
                if q.answer_id in rebuilt.missing:
                    status, msg = "missing", "no answer cell for this question was found"
                elif score >= q.points:
                    status, msg = "passed", ""
                elif "Timeout" in ename or "timed out" in evalue.lower():
                    status, msg = "timeout", "the tests ran out of time"
                elif ename == "NotImplementedError":
                    status, msg = "failed", "not attempted"
                elif ename == "AssertionError":
                    status, msg = "failed", evalue
                else:
                    status, msg = "error", f"{ename}: {evalue}".strip(": ")
                result.questions.append(QuestionResult(q.answer_id, score, q.points, status,
                                                       msg[:500]))
                timing = _TIMING_RE.search(_printed(cells.get(q.tests_id, {})))
                if timing:
                    result.timings[q.answer_id] = {"speedup": float(timing.group(1)),
                                                   "required": float(timing.group(2))}
        result.score = sum(q.score for q in result.questions)
        result.message = " ".join(rebuilt.notes)
        proc = _nbgrader(course, "generate_feedback", sub.assignment, "--student", sub.student,
                         "--force")
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
    (out / "summary.md").write_text("\n".join(lines) + "\n")


def _grade_batch(batch: list[Submission], names: list[str], out: Path, scratch: Path,
                 source: Path) -> list[Result]:
    db = make_course(scratch, names, source=source)
    return [grade_one(sub, scratch, db, out, source) for sub in batch]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``grade`` command's options."""
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                        help="submitted .ipynb files or folders of them")
    parser.add_argument("--out", type=Path, required=True, help="folder for results")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded in parallel")
    parser.add_argument("--assignment", help="assignment name for every PATH (default: stem)")
    parser.add_argument("--course", type=Path, help="keep the nbgrader course directory here")
    parser.add_argument("--db", help="gradebook SQLAlchemy URL (default: SQLite in --course)")
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
    results: list[Result] = []
    unknown = [s for s in subs if s.assignment not in known]
    for sub in unknown:
        r = Result(sub.student, sub.assignment, str(sub.path), status="invalid",
                   message=f"unknown assignment {sub.assignment!r} (file {sub.path.name}); "
                           f"known: {', '.join(known)}")
        dest = args.out / sub.student / sub.assignment
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "result.json").write_text(json.dumps(asdict(r), indent=2) + "\n")
        results.append(r)
    todo = [s for s in subs if s.assignment in known]
    names = sorted({s.assignment for s in todo})
    from autograder.progress import Progress

    progress = Progress(len(subs), "grading")
    progress.advance(len(unknown))
    try:
        with tempfile.TemporaryDirectory(prefix="learn-jax-grade-") as tmp:
            course_root = args.course or Path(tmp) / "course"
            if args.jobs == 1:
                db = make_course(course_root, names, args.db, source=args.source)
                for sub in todo:
                    results.append(grade_one(sub, course_root, db, args.out, args.source))
                    progress.advance()
            else:
                batches = [todo[i::args.jobs] for i in range(args.jobs)]
                with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
                    futures = [pool.submit(_grade_batch, b, names, args.out,
                                           Path(tmp) / f"job{i}", args.source)
                               for i, b in enumerate(batches) if b]
                    for fut in concurrent.futures.as_completed(futures):
                        batch = fut.result()
                        results.extend(batch)
                        progress.advance(len(batch))
                db = make_course(course_root, names, args.db, source=args.source)
                merge_into_gradebook(results, db, args.source)
    except Exception as exc:  # noqa: BLE001
        print(f"error: grading failed: {exc}", file=sys.stderr)
        return 1
    progress.done()
    for r in results:
        r.environment = env
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
