"""The ``grade`` command: ``python -m autograder grade PATH... --out DIR``.

The flow, one module a step: :mod:`autograder.grader.submissions` finds who submitted
what (folders only, no links followed); :mod:`autograder.grader.course` builds the scratch
nbgrader course directory and its gradebook; :mod:`autograder.grader.grading` grades one
submission (rebuild, screen, autograde, verify, feedback); :mod:`autograder.grader.reports`
writes ``grades.csv``, ``summary.md``, the figure and exports. This module parses the
options, picks this shard's students, runs the submissions one by one or in a pool of jobs,
and records the grades in the gradebook of record (``--db``). :mod:`autograder.grader.merge`
combines the results of several shards. The instructor's own files and choices (roster, LMS
exports, overrides, the term file, ``--assignments`` to grade and export only some) are read
before anything is graded (:mod:`autograder.grader.classroom.decisions`).

Writes ``DIR/<student>/<assignment>/result.json`` and ``feedback.html`` per submission, and
for the run ``DIR/grades.csv``, ``DIR/summary.md`` (with item analysis, and the scores that
changed when ``DIR`` held an earlier run), ``DIR/scores.png`` and any ``--export`` files
(:mod:`autograder.grader.reports` lists them), and ``DIR/manifest.json``: the hash of every
result file this run wrote, signed when ``LEARN_JAX_RESULTS_KEY`` holds a key
(:mod:`autograder.grader.judging.manifest`; ``merge`` checks it).

``DIR`` may hold an earlier run: grading everyone again into it is a full regrade (its
reports list the scores that changed). A run that would leave out some of the earlier
results is refused before anything is graded, with a pointer to ``regrade``
(:mod:`autograder.grader.regrade`), rather than merged into them: every file ``grade`` writes
is a function of the submissions it was given, so a row graded weeks ago never silently
outlives a notebook since deleted, and folding part of a class into the term's results, with
its overrides, gradebook, exports and signed manifest, is one command's job, which checks
that folder's manifest first and says what it kept.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import multiprocessing
import multiprocessing.queues
import os
import queue
import shutil
import sys
import tempfile
from pathlib import Path

from autograder.core.renames import rename_note, renamed_to
from autograder.grader.classroom import decisions
from autograder.grader.course import (
    Limits,
    clone_course,
    close_workers,
    gradebook_url,
    isolation,
    record_grades,
    worker,
)
from autograder.grader.course_template import cached_course
from autograder.grader.judging.reference_run import (
    compiled_programs,
    recorded_environment,
    trusted_records,
)
from autograder.grader.release import SOLUTIONS
from autograder.grader.reports import EXPORTS, write_reports
from autograder.grader.result import Result
from autograder.grader.runtime_choice import (
    AUTO,
    CHOICES,
    RUNTIME_VARIABLE,
    TOOLS,
    RuntimeMissing,
    resolve,
)
from autograder.grader.submissions import Submission, assignments, current_name, discover


def shard_of(student: str, shards: int) -> int:
    """The shard (1 to ``shards``) that grades ``student``: the same on every machine, so one
    student's work stays together and every student is graded by exactly one shard."""
    return int.from_bytes(hashlib.sha256(student.encode()).digest()[:8], "big") % shards + 1


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` as ``(K, N)`` with ``1 <= K <= N``.

    Raises:
        argparse.ArgumentTypeError: with a message saying what is accepted.
    """
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K/N such as 2/4, got {text!r}") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"shard {text}: K must be between 1 and N")
    return k, n


def parse_exports(text: str) -> list[str]:
    """``"canvas,moodle"`` as a list of known export formats.

    Raises:
        argparse.ArgumentTypeError: naming an unknown format and the known ones.
    """
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in EXPORTS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown export {', '.join(unknown)}; known: "
                                         f"{', '.join(EXPORTS)}")
    return names


def _job_course(scratch: Path) -> Path:
    """This pool process's own course directory."""
    return (scratch / f"job-{os.getpid()}").resolve()


_CPUS: list[int] | None = None  # this pool process's CPUs for its kernels (job_cpus)


def _job_started(scratch: Path, numbers: multiprocessing.queues.Queue, jobs: int) -> None:
    """Pool initializer: take this job's number (its share of the CPUs for its kernels), start
    its nbgrader worker, and stop that when the job ends.

    The worker loads nbgrader while the main process is still generating the template
    course; it reads the course's config at its first step, after :func:`clone_course`.
    """
    global _CPUS
    from multiprocessing import util

    from autograder.grader.sandbox import job_cpus

    try:
        _CPUS = job_cpus(numbers.get(timeout=60), jobs)
    except queue.Empty:  # more processes than jobs (never expected): no share, no limit
        _CPUS = None
    util.Finalize(None, close_workers, exitpriority=10)
    course = _job_course(scratch)
    course.mkdir(parents=True, exist_ok=True)
    worker(course).start()
    from autograder.grader import grading  # noqa: F401 - nbgrader's API, loaded meanwhile too


def _grade_in_job(sub: Submission, template: Path, out: Path, scratch: Path,
                  source: Path, limits: Limits, records: Path, feedback: bool,
                  spare: bool = True) -> Result:
    """Grade one submission in a pool process, in that process's own copy of the course
    (``spare``: :func:`~autograder.grader.grading.grade_one`'s)."""
    from autograder.grader.grading import grade_one  # nbgrader: only where a job grades

    course = _job_course(scratch)
    if not (course / "nbgrader_config.py").exists():
        clone_course(template, course, limits, compiled_programs(records), _CPUS)
    return grade_one(sub, course, gradebook_url(course), out, source, limits, records,
                     feedback, spare)



def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options ``grade`` and ``merge`` share: the gradebook of record, exports, the source."""
    parser.add_argument("--db", help="gradebook of record, a SQLAlchemy URL such as "
                        "postgresql+psycopg://user@host/db (grades are written there at the end)")
    parser.add_argument("--export", type=parse_exports, default=[], metavar="FORMATS",
                        help=f"also write grades for an LMS import: {','.join(EXPORTS)}")
    parser.add_argument("--source", type=Path, default=SOLUTIONS,
                        help="folder of nbgrader source notebooks (default: solutions/)")
    decisions.add_arguments(parser)


def add_grading_arguments(parser: argparse.ArgumentParser) -> None:
    """How submissions are graded (jobs, limits, feedback, the reference cache, the sandbox):
    the options ``grade`` and ``regrade`` share."""
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded in parallel")
    parser.add_argument("--pin-cpus", action=argparse.BooleanOptionalAction, default=True,
                        help="with --jobs N above 1, run each job's sandboxed kernels on an "
                             "equal share of the CPUs, so that XLA sizes its threads to that "
                             "share and side-by-side kernels do not contend (the default; the "
                             "timing tests' fidelity under it is on the Performance page); "
                             "--no-pin-cpus lets every kernel use every CPU")
    parser.add_argument("--course", type=Path, help="keep the nbgrader course directory here")
    parser.add_argument("--cell-timeout", type=int, default=Limits.cell_timeout,
                        help="seconds one cell may run (default: %(default)s)")
    parser.add_argument("--notebook-timeout", type=int, default=Limits.notebook_timeout,
                        help="seconds one notebook may run (default: %(default)s)")
    parser.add_argument("--no-feedback", dest="feedback", action="store_false",
                        help="write no feedback pages (faster; scores and reports as usual)")
    parser.add_argument("--reference-cache", type=Path, metavar="DIR",
                        default=reference_cache_default(),
                        help="keep the trusted runs of the reference answers (their records, "
                             "and the compiled programs kernels share) in DIR, and reuse them "
                             "in later runs while the source, JAX and the grader are the same "
                             f"(default: ${REFERENCE_CACHE_VARIABLE} when set)")
    parser.add_argument("--runtime", choices=CHOICES,
                        default=os.environ.get(RUNTIME_VARIABLE, AUTO),
                        help="the JAX runtime that runs every submission and its reference "
                             "answers: colab, newest (built by .ci/runtimes.py), tools (the "
                             "grader's own), or auto: the one the learner ran, from the "
                             "notebook's recorded JAX version or Colab's metadata (the "
                             f"default; ${RUNTIME_VARIABLE} sets another)")
    parser.add_argument("--require-sandbox", action="store_true",
                        help="refuse to grade (exit 2, before any submission's code runs) "
                             "unless kernels run in the bubblewrap sandbox; CI uses this")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``grade`` command's options."""
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                        help="submitted .ipynb files or folders of them")
    parser.add_argument("--out", type=Path, required=True, help="folder for results")
    parser.add_argument("--shard", type=parse_shard, metavar="K/N",
                        help="grade only shard K of N (by student); merge the shards' --out "
                             "folders with `python -m autograder merge`")
    parser.add_argument("--assignment", help="assignment name for every PATH (default: stem)")
    add_grading_arguments(parser)
    add_common_arguments(parser)


def _usage_error(args: argparse.Namespace, known: list[str]) -> str:
    """What is wrong with the command line, or ``""``."""
    missing = [p for p in args.paths if not p.exists() and not p.is_symlink()]
    if missing:
        return f"no such file or folder: {', '.join(map(str, missing))}"
    if args.assignment and current_name(args.assignment, known) not in known:
        return f"unknown assignment {args.assignment!r}; known: {', '.join(known)}"
    return grading_problem(args)


#: The environment variable naming a default ``--reference-cache`` (for ``grade`` and
#: ``release``): ``make test`` shares one among every check of a run.
REFERENCE_CACHE_VARIABLE = "LEARN_JAX_REFERENCE_CACHE"


def reference_cache_default() -> Path | None:
    """The folder ``$LEARN_JAX_REFERENCE_CACHE`` names, None when it is unset or empty."""
    value = os.environ.get(REFERENCE_CACHE_VARIABLE, "").strip()
    return Path(value) if value else None


def grading_problem(args: argparse.Namespace) -> str:
    """What is wrong with the options of :func:`add_grading_arguments`, or ``""``."""
    if args.jobs < 1:
        return "--jobs must be at least 1"
    cache = args.reference_cache
    if cache and cache.exists() and not cache.is_dir():
        return f"--reference-cache {cache} is not a folder"
    from autograder.grader.sandbox import exposing_root

    root = exposing_root(cache) if cache else None
    if root is not None:  # its records hold every expected value
        return (f"--reference-cache {cache} is inside {root}, which sandboxed kernels can "
                "read: choose a folder outside it")
    return ""


def _invalid(sub: Submission, known: list[str]) -> Result:
    """The result of a submission that is not graded (a problem, or an unknown assignment)."""
    message = sub.problem or (f"unknown assignment {sub.assignment!r} (file {sub.path.name}); "
                              f"known: {', '.join(known)}")
    return Result(sub.student, sub.assignment, str(sub.path), status="invalid", message=message)


def _grade_all(todo: list[Submission], args: argparse.Namespace, limits: Limits,
               progress) -> tuple[list[Result], dict]:
    """Grade ``todo``, one by one or in ``args.jobs`` processes; the course directory, if
    asked for (``--course``), ends up holding every grade. Returns the results, and the
    environment (JAX's version, backend, devices) the trusted runs found, which is the
    kernels' (``{}`` when nothing was graded): JAX is never imported in this process."""
    names = sorted({s.assignment for s in todo})
    results: list[Result] = []
    if not todo:
        return results, {}
    first_seen = list(dict.fromkeys(s.assignment for s in todo))
    # One assignment after another, in the order the trusted runs go: each run is done (and
    # has filled the shared compilation cache) long before its assignment's later kernels.
    todo = sorted(todo, key=lambda s: first_seen.index(s.assignment))
    with tempfile.TemporaryDirectory(prefix="learn-jax-grade-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(1) as recorder:
        course_root = args.course or Path(tmp) / "course"
        # The trusted records and the generated course: kept across runs in the reference
        # cache, or for this run only.
        records = (args.reference_cache or Path(tmp) / "records").resolve()
        compiled = compiled_programs(records)  # filled by the trusted runs, read by kernels
        # The trusted runs of the reference answers go on beside the grading (a grading job
        # waits for an assignment's records only when it decides that assignment's checks).
        def record_all() -> list[concurrent.futures.Future]:
            # on the runtime asked for (with auto, the grader's own: each submission's
            # runtime's records are made when it needs them)
            ahead = resolve(limits.runtime if limits.runtime != AUTO else TOOLS)
            return [recorder.submit(trusted_records, args.source / f"{name}.ipynb", records,
                                    runtime=ahead) for name in first_seen]

        if args.jobs == 1:
            from autograder.grader.grading import grade_one

            recorded = record_all()
            db = clone_course(cached_course(records, names, args.source), course_root,
                              limits, compiled)
            for i, sub in enumerate(todo):  # no kernel started ahead after the last
                results.append(grade_one(sub, course_root, db, args.out, args.source, limits,
                                         records, args.feedback, spare=i < len(todo) - 1))
                progress.advance()
            for fut in recorded:
                fut.result()  # a reference that fails its own tests fails the run
            return results, _environment(first_seen, args.source, records)
        # The jobs start first and load nbgrader while the template course is generated here
        # (or found in the reference cache).
        # They are spawned, fresh interpreters, never forked: this process may hold JAX's
        # threads (a test, a notebook calling grade), and a fork of it can deadlock a job.
        context = multiprocessing.get_context("spawn")
        numbers = context.Queue()
        for number in range(args.jobs):
            numbers.put(number)
        with concurrent.futures.ProcessPoolExecutor(
                args.jobs, mp_context=context, initializer=_job_started,
                initargs=(Path(tmp), numbers, args.jobs if args.pin_cpus else 1)) as pool:
            for _ in range(args.jobs):  # a spawning pool starts a job per task waiting
                pool.submit(os.getpid)
            recorded = record_all()
            template = cached_course(records, names, args.source)  # each job copies it
            # The last `jobs` submissions start no kernel ahead: no job has another to come
            # (at worst a job that takes two of them starts the second's kernel itself).
            futures = [pool.submit(_grade_in_job, sub, template, args.out, Path(tmp),
                                   args.source, limits, records, args.feedback,
                                   i < len(todo) - args.jobs)
                       for i, sub in enumerate(todo)]
            for fut in concurrent.futures.as_completed(futures):
                results.append(fut.result())
                progress.advance()
            for fut in recorded:
                fut.result()
        if args.course:
            record_grades(results, clone_course(template, course_root, limits), args.source)
        return results, _environment(first_seen, args.source, records)


def _environment(names: list[str], source: Path, records: Path) -> dict:
    """The environment the first kept trusted run of ``names`` recorded (``{}`` if none)."""
    for name in names:
        found = recorded_environment(source / f"{name}.ipynb", records)
        if found:
            return found
    return {}


def _keep_fetch_record(paths: list[Path], out: Path) -> None:
    """Copy ``fetched.csv`` (which commit of each repository ``fetch`` took, and when) from
    the first folder graded that has one into the results."""
    for folder in paths:
        record = folder / "fetched.csv"
        if folder.is_dir() and record.is_file() and not record.is_symlink():
            if (out / "fetched.csv").resolve() != record.resolve():
                shutil.copyfile(record, out / "fetched.csv")
            return


def run(args: argparse.Namespace) -> int:
    """Grade everything ``args`` names; exit status 0, 1 (grader failure) or 2 (usage)."""
    from autograder.grader.judging.manifest import take_key, write_manifest

    key = take_key()  # out of the environment before any kernel or job process starts
    known = assignments(args.source)
    problem = _usage_error(args, known)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        inputs = decisions.read_inputs(args, args.out, known)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.assignment and renamed_to(args.assignment, known):
        print(f"warning: --assignment {args.assignment}: "
              f"{rename_note(args.assignment, current_name(args.assignment, known))}",
              file=sys.stderr)
    subs = discover(args.paths, known, args.assignment, args.source)
    for sub in subs:
        if sub.note:
            print(f"warning: {sub.student}: {sub.note}", file=sys.stderr)
    if inputs.assignments is not None:  # --assignments: only these are graded and exported
        subs = [s for s in subs if s.assignment in inputs.assignments]
    if not subs:
        print("error: no .ipynb files found" + (
            f" for {', '.join(inputs.assignments)}" if inputs.assignments else ""),
            file=sys.stderr)
        return 2
    try:  # the term and overrides files name only learners who exist
        decisions.check_names(inputs, {s.student for s in subs}, known)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.shard:
        k, n = args.shard
        subs = [s for s in subs if shard_of(s.student, n) == k]
        print(f"shard {k}/{n}: {len({s.student for s in subs})} student(s), {len(subs)} "
              "submission(s)", file=sys.stderr)
    earlier = earlier_results(args.out) - {(s.student, s.assignment) for s in subs}
    if earlier:
        student, assignment = min(earlier)
        old = sorted({a for _, a in earlier if renamed_to(a, known)})
        renamed = ""
        if old:
            renamed = (" Some were graded under an old name: "
                       f"{rename_note(old[0], current_name(old[0], known))}; grade the "
                       "submissions again into a new --out.")
        print(f"error: {args.out} holds earlier results of {len(earlier)} submission(s) this "
              f"run does not grade (first: {student} · {assignment}); grading into it would "
              "drop them from grades.csv and the exports. To regrade some students, "
              "assignments or questions into it, use `python -m autograder regrade "
              f"{args.out} --submissions DIR --student S` (see book/grading.md, "
              "\"Regrading\"); to grade these alone, give another --out." + renamed,
              file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        results = grade_submissions(subs, args, known, args.out)
    except SandboxRequired as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001
        print(f"error: grading failed: {exc}", file=sys.stderr)
        return 1
    try:
        # hand-set scores on top; with --db, the grades recorded there (its manual scores kept)
        shown, classroom = decisions.settle(results, inputs, args.out, args.db, args.source)
    except Exception as exc:  # noqa: BLE001
        print(f"error: grading failed: {exc}", file=sys.stderr)
        return 1
    finally:
        close_workers()
    # result.json holds what the grader found; the reports show the hand-set scores too
    _keep_fetch_record(args.paths, args.out)
    write_reports(shown, args.out, exports=args.export, classroom=classroom)
    # after the reports: they write the instructor's decisions into the feedback pages
    write_manifest(args.out, [(r.student, r.assignment) for r in results], key)
    print((args.out / "summary.md").read_text(encoding="utf-8"))
    return 0


def earlier_results(out: Path) -> set[tuple[str, str]]:
    """The (student, assignment) of every ``out/<student>/<assignment>/result.json`` an
    earlier run left (folders as grading writes them; links not followed)."""
    if not out.is_dir() or out.is_symlink():
        return set()
    return {(found.parent.parent.name, found.parent.name)
            for found in out.glob("*/*/result.json")
            if not found.parent.is_symlink() and not found.parent.parent.is_symlink()}


class SandboxRequired(Exception):
    """``--require-sandbox`` given where the bubblewrap sandbox does not work (and the base
    of every refusal to grade before any submission's code runs)."""


class RuntimeNotInstalled(SandboxRequired):
    """``--runtime NAME`` (or ``$LEARN_JAX_GRADE_RUNTIME``) names a runtime that is not
    installed here, or none the grader knows; the message says how to add it."""


def grade_submissions(subs: list[Submission], args: argparse.Namespace, known: list[str],
                      out: Path) -> list[Result]:
    """Grade ``subs`` (with the options of :func:`add_grading_arguments` in ``args``) into
    ``out``, showing progress; a submission with a problem, or of an assignment not in
    ``known``, gets an invalid result without running. Each result carries the kernels'
    environment and isolation; ``result.json`` files are written.

    Raises:
        SandboxRequired: ``args.require_sandbox`` where the sandbox does not work, or
            :class:`RuntimeNotInstalled` (before any submission's code runs).
        Exception: the grader itself failed.
    """
    runtime = getattr(args, "runtime", AUTO)
    if runtime not in CHOICES:  # from the environment variable: argparse checks only options
        raise RuntimeNotInstalled(f"${RUNTIME_VARIABLE}={runtime}: choose from "
                                  f"{', '.join(CHOICES)}")
    if runtime != AUTO:
        try:
            resolve(runtime)
        except RuntimeMissing as exc:  # before any kernel starts; never another runtime
            raise RuntimeNotInstalled(f"--runtime {runtime}: {exc}") from None
    limits = Limits(args.cell_timeout, args.notebook_timeout, runtime=runtime)
    isolated = isolation()
    if isolated != "bubblewrap" and getattr(args, "require_sandbox", False):
        from autograder.grader import sandbox

        why = sandbox.probe() if os.environ.get("LEARN_JAX_NO_SANDBOX") != "1" else (
            "LEARN_JAX_NO_SANDBOX=1 is set")
        raise SandboxRequired(
            "--require-sandbox: the bubblewrap sandbox does not work here, so no kernel was "
            "started and no submission's code ran (install bubblewrap and allow user "
            "namespaces, or run the grader as root; see autograder/SECURITY.md)"
            f"\n  the probe: {why}")
    if isolated == "none":
        print("warning: no sandbox (bubblewrap) works here: submissions run UNISOLATED, with "
              "the grader's access to files and network", file=sys.stderr)
    from autograder.grader.progress import Progress

    progress = Progress(len(subs), "grading")
    unknown = [s for s in subs if s.problem or s.assignment not in known]
    results = [_invalid(sub, known) for sub in unknown]
    progress.advance(len(unknown))
    todo = [s for s in subs if s not in unknown]
    try:
        graded, env = _grade_all(todo, argparse.Namespace(**{**vars(args), "out": out}),
                                 limits, progress)
        results += graded
    finally:
        close_workers()
    progress.done()
    for r in results:
        r.environment = r.environment or env  # the runtime's, where grading recorded it
        r.isolation = isolated
        r.write(out)
    return results
