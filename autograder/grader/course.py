"""The nbgrader course directory and its gradebook.

A scratch course directory per grading process holds the generated assignments, an
``nbgrader_config.py`` (sandboxed kernel, limits, feedback sanitising) and a gradebook, and a
long-lived nbgrader worker that runs its steps. :func:`record_grades` writes verified scores
into any gradebook (SQLite or PostgreSQL), creating the assignment's structure there when it
is missing; concurrent writers take a lock, so shards never lose or double a grade.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from autograder.core.notebook import questions
from autograder.grader.nbgrader_worker import Worker
from autograder.grader.release import SOLUTIONS

if TYPE_CHECKING:
    from autograder.grader.result import Result

COURSE_ID = "learn-jax"

_CONFIG = """\
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearOutput,
                                    DeduplicateIds, GetGrades, IgnorePattern, LimitOutput,
                                    OverwriteKernelspec, SaveAutoGrades)

from autograder.grader.feedback_page import FeedbackExporter
from autograder.grader.preprocessors import HideTestSource, SanitizeOutputs, SummarizeQuestions
from autograder.grader.preprocessors.execute_with_limits import ExecuteWithLimits
from autograder.grader.preprocessors.prove_test_cells import ProveTestCells

c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course!r}
c.CourseDirectory.db_url = {db!r}
c.Execute.timeout = {timeout}
c.Execute.kernel_name = {kernel!r}
c.ExecuteWithLimits.notebook_timeout = {notebook_timeout}
c.ExecuteWithLimits.max_output_bytes = {max_output}
c.ExecuteWithLimits.stage_log = {stages!r}
c.ExecuteWithLimits.prestart_kernel = {prestart!r}
c.KernelManager.transport = {transport!r}
# nbgrader's list, with OverwriteCells replaced by one that also gives each test cell this run's
# proof line (the tokens come with the autograde request; the gradebook is only read).
c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec,
                                      ProveTestCells, CheckCellMetadata]
# nbgrader's list, with Execute replaced by one with a notebook deadline and output budget.
c.Autograde.autograde_preprocessors = [
    ExecuteWithLimits, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
    AssignLatePenalties, CheckCellMetadata]
c.LimitOutput.max_lines = 300
c.LimitOutput.max_traceback = 60
# Classes, not names: nbgrader reads each entry's traits. Feedback must not show hidden tests,
# nor run what a submission printed: HTML is cleaned (SanitizeOutputs: nbconvert's
# SanitizeHTML, bleach, on outputs only), and every other rich output but text and images is
# dropped. The page is the course's template: a table of what to fix first, test code folded,
# its own small CSS (no Bootstrap, no Pygments sheet, so no CSSHTMLHeaderPreprocessor), the
# question text rendered by the grader (math as MathML) and no script (no MathJax).
# SummarizeQuestions reads where an answer raised before HideTestSource shortens tracebacks.
c.GenerateFeedback.preprocessors = [GetGrades, SummarizeQuestions, HideTestSource,
                                    SanitizeOutputs]
c.GenerateFeedback.exporter_class = FeedbackExporter
# Its own section: nbgrader names the template "feedback" in HTMLExporter's.
c.FeedbackExporter.template_name = {template!r}
c.FeedbackExporter.extra_template_basedirs = [{templates!r}]
c.SanitizeOutputs.enabled = True  # nbconvert's preprocessors are off unless enabled
c.SanitizeOutputs.safe_output_keys = ["metadata", "text/plain", "image/png", "image/jpeg"]
c.SanitizeOutputs.sanitized_output_types = ["text/html", "text/markdown"]
"""


_WORKERS: dict[Path, Worker] = {}


def _path_with_this_bin() -> str:
    """PATH with this environment's ``bin/`` first: nbgrader runs the kernel from PATH (and
    ``alembic``, for a gradebook :func:`stamp_new_gradebook` did not stamp first)."""
    here = str(Path(sys.executable).parent)
    rest = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != here]
    return os.pathsep.join([here, *rest])


def _nbgrader_env(course: Path) -> dict[str, str]:
    """The environment nbgrader and its kernels run in (kernelspecs and sockets in course)."""
    share = str(course.resolve() / "share" / "jupyter")
    jupyter_path = os.pathsep.join(p for p in [share, os.environ.get("JUPYTER_PATH")] if p)
    return dict(os.environ, PATH=_path_with_this_bin(), XLA_PYTHON_CLIENT_PREALLOCATE="false",
                PYTHONUNBUFFERED="1", JUPYTER_PATH=jupyter_path,
                JUPYTER_RUNTIME_DIR=str(course.resolve() / "runtime"))


def nbgrader(course: Path, step: str, assignment: str, student: str | None = None,
             timeout: float | None = None, spare: bool = True,
             proofs: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run one nbgrader step in ``course``'s long-lived nbgrader process (``spare`` and
    ``proofs``, autograde's proof tokens: :meth:`~autograder.grader.nbgrader_worker.Worker.run`).
    """
    return worker(course).run(step, assignment, student, timeout, spare, proofs)


def worker(course: Path) -> Worker:
    """``course``'s nbgrader worker in this process (created on first use, not yet started)."""
    key = course.resolve()
    if key not in _WORKERS:
        _WORKERS[key] = Worker(key, _nbgrader_env(key))
    return _WORKERS[key]


def close_workers(course: Path | None = None) -> None:
    """Stop this process's nbgrader workers (each course directory has one), or ``course``'s."""
    for key in [k for k in _WORKERS if course is None or k == course.resolve()]:
        _WORKERS.pop(key).close()


@dataclass
class Limits:
    """Per-submission limits: seconds per cell and per notebook, output bytes per cell."""

    cell_timeout: int = 180
    notebook_timeout: int = 900
    max_output_bytes: int = 100_000
    # which runtime runs each submission (grade --runtime): a name of
    # runtime_choice.CHOICES; "auto" picks the learner's (runtime_choice.choose)
    runtime: str = "auto"

    @property
    def step_timeout(self) -> int:
        """Seconds one autograde step may take: the notebook's limit plus start-up margin."""
        return self.notebook_timeout + 300


def isolation() -> str:
    """How kernels run here: ``"bubblewrap"`` (sandboxed) or ``"none"``."""
    from autograder.grader import sandbox

    if os.environ.get("LEARN_JAX_NO_SANDBOX") == "1":
        return "none"
    return "bubblewrap" if sandbox.available() else "none"


def _write_config(course: Path, db: str, limits: Limits | None = None,
                  compiled: Path | None = None, cpus: list[int] | None = None) -> None:
    """Write nbgrader_config.py; where the sandbox works, its kernelspec and runtime dir.

    Sandboxed kernels read the shared compilation cache ``compiled`` (read-only) when given;
    unsandboxed ones never get it, since nothing there could keep them from writing it.
    Sandboxed kernels run on ``cpus`` only, when given (a job's share of the machine).
    Each built runtime installed here (:func:`autograder.grader.runtime_choice.installed`) gets
    a sandbox kernelspec of its own too, reading its own runtime's shared cache beside
    ``compiled``; :func:`kernel_for` names the one a submission runs.
    """
    from autograder.grader import feedback_page, runtime_choice, sandbox
    from autograder.grader.compile_cache import shared_dir

    limits = limits or Limits()
    kernel, transport = "python3", "tcp"
    sandboxed = isolation() == "bubblewrap"
    if sandboxed:
        kernel = sandbox.install_kernelspec(course / "share" / "jupyter", compiled, cpus)
        for runtime in runtime_choice.installed().values():
            if runtime.venv is not None:
                own = shared_dir(compiled.parent, runtime.versions) if compiled else None
                sandbox.install_kernelspec(course / "share" / "jupyter", own, cpus, runtime)
        transport = "ipc"  # the sandbox has no network, not even loopback to the grader
        (course / "runtime").mkdir(exist_ok=True)  # kernels get fresh directories inside
    (course / "nbgrader_config.py").write_text(
        _CONFIG.format(root=str(course.resolve()), course=COURSE_ID, db=db,
                       timeout=limits.cell_timeout, notebook_timeout=limits.notebook_timeout,
                       max_output=limits.max_output_bytes, kernel=kernel,
                       transport=transport, stages=str(stage_log(course)),
                       prestart=sandboxed, template=feedback_page.TEMPLATE,
                       templates=str(feedback_page.TEMPLATES)))


def kernel_for(runtime: str) -> str:
    """The kernel that runs a submission on runtime ``runtime`` (a name of
    :data:`autograder.grader.runtime_choice.NAMES`): its sandbox kernelspec, written by
    :func:`_write_config`, or without the sandbox the kernel ``.ci/runtimes.py`` registered
    (``python3`` for the grader's own runtime)."""
    from autograder.grader import runtime_choice, sandbox

    if runtime == runtime_choice.TOOLS:
        return sandbox.KERNEL_NAME if isolation() == "bubblewrap" else "python3"
    if isolation() == "bubblewrap":
        return sandbox.kernel_name(runtime)
    return runtime_choice.KERNELS[runtime]


def stage_log(course: Path) -> Path:
    """Where each autograde run in ``course`` writes its kernel's stage timings."""
    return course.resolve() / "stages"


def gradebook_url(course: Path) -> str:
    """The SQLite gradebook inside ``course``."""
    return f"sqlite:///{course.resolve() / 'gradebook.db'}"


def make_course(course: Path, names: list[str], db_url: str | None = None,
                limits: Limits | None = None, source: Path = SOLUTIONS,
                compiled: Path | None = None) -> str:
    """Create an nbgrader course directory with ``names`` generated from ``solutions/``
    (its kernels reading the shared compilation cache ``compiled``, when given).

    Returns the gradebook URL.
    """
    course.mkdir(parents=True, exist_ok=True)
    db = db_url or gradebook_url(course)
    _write_config(course, db, limits, compiled)
    stamp_new_gradebook(db)
    for name in names:
        src = course / "source" / name
        src.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / f"{name}.ipynb", src / f"{name}.ipynb")
        proc = nbgrader(course, "generate_assignment", name)
        if proc.returncode != 0:
            raise RuntimeError(f"nbgrader generate_assignment {name} failed:\n{proc.stderr}")
    return db


def clone_course(template: Path, course: Path, limits: Limits | None = None,
                 compiled: Path | None = None, cpus: list[int] | None = None) -> str:
    """Copy a generated course (SQLite gradebook, no submissions) to ``course`` (its kernels
    reading the shared compilation cache ``compiled``, and running on ``cpus`` only, when
    given).

    Generating an assignment costs seconds; parallel jobs each start from a copy of one
    generated course instead. Returns the copy's gradebook URL.
    """
    shutil.copytree(template, course, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("submitted", "autograded", "feedback",
                                                  "stages", "nbgrader_config.py"))
    db = gradebook_url(course)
    _write_config(course, db, limits, compiled, cpus)
    return db


# ---------------------------------------------------------------- the gradebook of record

@contextlib.contextmanager
def gradebook_lock(db_url: str) -> Iterator[None]:
    """Hold a lock that every writer of the gradebook at ``db_url`` takes.

    PostgreSQL: a session advisory lock on its own connection (the server releases it if this
    process dies). SQLite: an exclusive ``flock`` on a file beside the database. Other
    databases: no lock. Shards that write one gradebook at once therefore never create the
    same student, assignment or table twice.
    """
    if db_url.startswith("postgresql"):
        from sqlalchemy import create_engine, text

        engine = create_engine(db_url)
        key = zlib.crc32(f"learn-jax gradebook {COURSE_ID}".encode())
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
                try:
                    yield
                finally:
                    conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
        finally:
            engine.dispose()
    elif db_url.startswith("sqlite:///"):
        path = Path(db_url.removeprefix("sqlite:///") + ".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)
    else:
        yield


@functools.cache
def _newest_migration() -> str:
    """The revision nbgrader's own database migrations end at: what ``alembic heads`` prints
    for them, read here from the migration scripts."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    config = Config()
    config.set_main_option("script_location", ALEMBIC_DIR)
    head = ScriptDirectory.from_config(config).get_current_head()
    if not head:
        raise RuntimeError(f"nbgrader's migrations in {ALEMBIC_DIR} name no newest revision")
    return head


def stamp_new_gradebook(db_url: str) -> None:
    """Mark an empty database at ``db_url`` with nbgrader's newest migration, as nbgrader does
    when it creates a gradebook there, but in this process.

    nbgrader learns that revision by running ``alembic heads`` in a new process, which imports
    nbgrader again: 4.6-5.0 s of CPU for every gradebook made (0.03-0.3 s here). A database
    that holds any table is left as it is (nbgrader then stamps nothing either).
    """
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(db_url, future=True)
    try:
        with engine.begin() as conn:
            if inspect(conn).get_table_names():
                return
            conn.execute(text("CREATE TABLE alembic_version "
                              "(version_num VARCHAR(32) NOT NULL)"))
            conn.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"),
                         {"v": _newest_migration()})
    finally:
        engine.dispose()


def _missing_assignments(db_url: str, names: Iterable[str]) -> list[str]:
    """The assignments of ``names`` that the gradebook at ``db_url`` does not define yet."""
    from nbgrader.api import Gradebook, MissingEntry

    stamp_new_gradebook(db_url)  # so nbgrader runs no `alembic` process for it

    missing = []
    with Gradebook(db_url, COURSE_ID) as gb:
        for name in names:
            try:
                gb.find_assignment(name)
            except MissingEntry:
                missing.append(name)
    return missing


def _tests_of(source: Path, names: Iterable[str]) -> dict[str, dict[str, str]]:
    """assignment -> question (answer cell id) -> its test cell's id (nbgrader's grade)."""
    return {name: {q.answer_id: q.tests_id for q in
                   questions(nbformat.read(source / f"{name}.ipynb", as_version=4))}
            for name in names}


def record_grades(results: Iterable[Result], db_url: str, source: Path = SOLUTIONS,
                  manual: Mapping[tuple[str, str, str], float] | None = None) -> None:
    """Write the verified scores of ``results`` into the gradebook at ``db_url``.

    Assignments the gradebook lacks are generated into it first (nbgrader's own
    ``generate_assignment``). Everything happens under :func:`gradebook_lock`, and every write
    is an update-or-create: recording the same results twice changes nothing, and shards that
    record at the same time lose nothing.

    ``manual``: hand-set scores by (student, assignment, question), written as nbgrader's
    ``manual_score`` (which nbgrader counts instead of the automatic one). A manual score
    already in the gradebook (set in formgrader, or by an earlier run) is kept: only the
    automatic score is replaced.
    """
    from nbgrader.api import Gradebook

    manual = manual or {}
    graded = [r for r in results if r.status == "graded" and r.questions]
    with gradebook_lock(db_url):
        missing = _missing_assignments(db_url, sorted({r.assignment for r in graded}))
        if missing:
            with tempfile.TemporaryDirectory(prefix="learn-jax-gradebook-") as tmp:
                scratch = Path(tmp) / "course"
                try:
                    make_course(scratch, missing, db_url, source=source)
                finally:
                    close_workers(scratch)
        tests_of = _tests_of(source, {r.assignment for r in graded})
        with Gradebook(db_url, COURSE_ID) as gb, warnings.catch_warnings():
            # nbgrader 0.9 adds a new submission in a way SQLAlchemy 2 warns about (harmless)
            warnings.filterwarnings("ignore", "Object of type", module="nbgrader")
            for r in graded:
                gb.update_or_create_student(r.student)
                gb.update_or_create_submission(r.assignment, r.student)
                for q in r.questions:
                    grade = gb.find_grade(tests_of[r.assignment][q.id], r.assignment,
                                          r.assignment, r.student)
                    grade.auto_score = q.score
                    if (r.student, r.assignment, q.id) in manual:
                        grade.manual_score = manual[(r.student, r.assignment, q.id)]
                gb.db.commit()


def manual_scores(results: Iterable[Result], db_url: str,
                  source: Path = SOLUTIONS) -> dict[tuple[str, str, str], float]:
    """The ``manual_score`` of every question of ``results`` that has one in the gradebook at
    ``db_url``, by (student, assignment, question)."""
    from nbgrader.api import Gradebook, MissingEntry

    graded = [r for r in results if r.status == "graded" and r.questions]
    names = sorted({r.assignment for r in graded})
    if not names:
        return {}
    present = set(names) - set(_missing_assignments(db_url, names))
    tests_of = _tests_of(source, present)
    found: dict[tuple[str, str, str], float] = {}
    with gradebook_lock(db_url), Gradebook(db_url, COURSE_ID) as gb:
        for r in graded:
            if r.assignment not in present:
                continue
            for q in r.questions:
                try:
                    grade = gb.find_grade(tests_of[r.assignment][q.id], r.assignment,
                                          r.assignment, r.student)
                except MissingEntry:
                    continue
                if grade.manual_score is not None:
                    found[(r.student, r.assignment, q.id)] = float(grade.manual_score)
    return found
