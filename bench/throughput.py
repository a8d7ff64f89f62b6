"""Grading throughput: one batch graded by plain nbgrader and by ``python -m autograder grade``.

The batch is built from the committed exercises (the notebooks students get), with answer
cells filled in four ways: correct (the source's answer), partial (the first half of the
questions answered), wrong (each answer replaced by a wrong-answer fixture where one exists)
and untouched stubs. The same batch is then graded

- (a) the way nbgrader documents: ``nbgrader generate_assignment`` per assignment, then
  ``nbgrader autograde <assignment>``, which grades each collected submission of that
  assignment in turn (one command per assignment, so nbgrader starts once per assignment
  rather than once per submission: the faster of its two documented forms);
- (b) by ``python -m autograder grade --jobs 1`` (which also rebuilds every submission from
  the source and writes feedback pages, a CSV and a summary);
- (c) by the same command with ``--jobs`` set to the CPU count (at least 2).

The trusted runs of the reference answers come first, once, timed apart: (a)'s sources take
their expected values from them, and (b) and (c) read them (``--reference-cache``), as a
course's every grading run after its first does; so is the generated course that ``grade``
keeps beside them (its ``generate_assignment`` of every assignment), while (a) generates its
course within its time, as nbgrader's documented commands do (how long that took is kept
too). The default batch, 36, is each chapter with each kind of answer once.

Then (c) runs again on each built runtime ``grade --runtime`` grades on (Colab's JAX, the
newest: ``runtimes``, default every one installed), after that runtime's own trusted runs
(timed apart, as above), and is compared with the same (a), which stays on the grader's own
runtime (nbgrader's kernel is this Python's): the bar, (c) at least 2.5 times as fast as (a),
holds on each runtime graded, or the page says where it does not.

Scores of (a), (b) and (c) are compared: the benchmark also checks they agree (on each runtime,
(c)'s against (a)'s). Beside them,
``bare`` executes the very notebooks (b) ran (rebuilt, with their tests) with nbclient alone,
one fresh kernel each, in turn: ``overhead_over_bare`` is (b)'s time over that. (b)'s
results give each submission's time per step (``Result.stages``), (b)'s and (c)'s the CPU
seconds of each submission's kernel (``Result.cpu``: with ``--jobs`` above 1 each job's
kernels run on its share of the CPUs), and the bare run, from JAX's compile-duration events,
how much of execution is compiling.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import nbformat

from autograder.core.notebook import code_of, is_answer, nbgrader_meta, questions

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("correct", "partial", "wrong", "stub")
_MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$\n?", re.MULTILINE)


def _answers(chapter: str) -> dict[str, str]:
    """Answer id -> the source's answer with the solution markers taken out."""
    nb = nbformat.read(ROOT / "solutions" / f"{chapter}.ipynb", as_version=4)
    return {nbgrader_meta(c)["grade_id"]: _MARKERS.sub("", code_of(c))
            for c in nb.cells if is_answer(c)}


def _wrong(chapter: str, answer_id: str) -> str | None:
    found = sorted((ROOT / "autograder/tests/wrong_answers" / chapter).glob(f"{answer_id}__*.py"))
    return found[0].read_text() if found else None


def submission(chapter: str, kind: str) -> nbformat.NotebookNode:
    """The committed exercise with its answer cells filled in as ``kind`` says."""
    nb = nbformat.read(ROOT / "exercises" / f"{chapter}.ipynb", as_version=4)
    answers = _answers(chapter)
    order = [q.answer_id for q in questions(nbformat.read(
        ROOT / "solutions" / f"{chapter}.ipynb", as_version=4))]
    for cell in nb.cells:
        if not is_answer(cell):
            continue
        gid = nbgrader_meta(cell)["grade_id"]
        if kind == "correct" or (kind == "partial" and order.index(gid) < len(order) // 2):
            cell.source = answers[gid]
        elif kind == "wrong":
            cell.source = _wrong(chapter, gid) or answers[gid]
    return nb


def make_batch(folder: Path, size: int, chapters: list[str] | None = None) -> list[tuple]:
    """Write ``size`` submissions as ``folder/<student>/<chapter>.ipynb``.

    Submissions cycle through the chapters, and through the kinds of answer one submission
    after another, one kind further on each round of the chapters: every kind is in the batch
    once it has four submissions, and each chapter gets a different kind each round (36
    submissions of 13 chapters: 10 correct, 9 partial, 9 wrong, 8 stubs; the kinds cycled
    round by round before 2026-11-29, which left 13 chapters' 36 submissions with no stub).
    Returns ``(student, chapter, kind)`` for each.
    """
    chapters = chapters or sorted(p.stem for p in (ROOT / "solutions").glob("*.ipynb"))
    batch = []
    for i in range(size):
        chapter = chapters[i % len(chapters)]
        kind = KINDS[(i + i // len(chapters)) % len(KINDS)]
        student = f"s{i + 1:02d}-{kind}"
        (folder / student).mkdir(parents=True, exist_ok=True)
        nbformat.write(submission(chapter, kind), folder / student / f"{chapter}.ipynb")
        batch.append((student, chapter, kind))
    return batch


def _env() -> dict[str, str]:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return dict(os.environ, PATH=path, XLA_PYTHON_CLIENT_PREALLOCATE="false")


def source_deciding_alone(chapter: str, records: dict) -> nbformat.NotebookNode:
    """The nbgrader source of ``chapter`` with every check's expected value written into its
    test cell (hidden ones too), so that plain nbgrader's kernel can decide the checks by
    itself, as the course's grader decides them outside the kernel: same checks, same scores.
    """
    from autograder.grader.preprocessors import WriteExpectedValues

    nb = nbformat.read(ROOT / "solutions" / f"{chapter}.ipynb", as_version=4)
    nb, _ = WriteExpectedValues(records=records).preprocess(nb, {})
    return nb


def plain_nbgrader(batch: list[tuple], folder: Path, course: Path,
                   records: dict[str, dict], spent: dict[str, float] | None = None
                   ) -> dict[str, float]:
    """(a): nbgrader's documented commands; returns ``student/chapter`` -> score.

    ``records`` (chapter -> test cell id -> trusted records) give each source its expected
    values (:func:`source_deciding_alone`); they are recorded before the timing starts.
    ``spent["generate_seconds"]``, when given, gets the seconds ``generate_assignment`` took.
    """
    from nbgrader.api import Gradebook

    from autograder.grader.progress import Progress

    course.mkdir(parents=True)
    db = f"sqlite:///{course / 'gradebook.db'}"
    (course / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.course_id = 'bench'\nc.CourseDirectory.db_url = {db!r}\n"
        "c.Execute.timeout = 180\n")

    def nbgrader(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=_env(),
                       check=True, capture_output=True)

    chapters = sorted({chapter for _, chapter, _ in batch})
    for student, chapter, _ in batch:  # collected, as `nbgrader collect` would leave them
        target = course / "submitted" / student / chapter
        target.mkdir(parents=True)
        shutil.copy(folder / student / f"{chapter}.ipynb", target)
    bar = Progress(2 * len(chapters), "plain nbgrader (generate, then autograde, per assignment)")
    start = time.perf_counter()
    for chapter in chapters:
        (course / "source" / chapter).mkdir(parents=True)
        nbformat.write(source_deciding_alone(chapter, records[chapter]),
                       course / "source" / chapter / f"{chapter}.ipynb")
        nbgrader("generate_assignment", chapter, "--force")
        bar.advance()
    if spent is not None:
        spent["generate_seconds"] = time.perf_counter() - start
    for chapter in chapters:  # one command grades every submission of the assignment in turn
        nbgrader("autograde", chapter, "--force")
        bar.advance()
    bar.done()
    with warnings.catch_warnings(), Gradebook(db, "bench") as gb:
        warnings.simplefilter("ignore")  # nbgrader's own SQLAlchemy SAWarnings
        return {f"{s}/{c}": float(gb.find_submission(c, s).score) for s, c, _ in batch}


def trusted_runs(chapters: list[str], cache: Path, jobs: int, runtime: Any = None
                 ) -> dict[str, dict]:
    """The trusted run of each chapter's source, ``jobs`` at a time, kept in ``cache`` (as
    ``grade --reference-cache`` keeps them, with the compiled programs kernels share), on
    ``runtime`` (a :class:`~autograder.grader.runtime_choice.Runtime`; default the grader's
    own); returns chapter -> its records."""
    import concurrent.futures

    from autograder.grader.judging.reference_run import trusted_records
    from autograder.grader.progress import Progress

    on = f" on {runtime.name}" if runtime is not None else ""
    bar = Progress(len(chapters), f"trusted runs of the reference answers{on}")
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:  # each run is its own process
        futures = {c: pool.submit(trusted_records, ROOT / "solutions" / f"{c}.ipynb", cache,
                                  runtime=runtime) for c in chapters}
        for _ in concurrent.futures.as_completed(futures.values()):
            bar.advance()
    bar.done()
    return {c: fut.result() for c, fut in futures.items()}


def generated_course(chapters: list[str], cache: Path) -> Path:
    """The course ``grade --reference-cache`` generates from the chapters' sources and keeps
    in ``cache`` on its first run (found there by every later one)."""
    from autograder.grader.course_template import cached_course

    return cached_course(cache, chapters, ROOT / "solutions")


def course_grader(folder: Path, out: Path, jobs: int, reference: Path,
                  course: Path | None = None, *extra: str) -> dict[str, float]:
    """(b) and (c): ``python -m autograder grade`` with the trusted runs kept in ``reference``
    (keeping its course directory in ``course`` when given, with ``extra`` options); returns
    ``student/chapter`` -> score."""
    import csv

    keep = ["--course", str(course)] if course else []
    subprocess.run([sys.executable, "-m", "autograder", "grade", str(folder), "--out", str(out),
                    "--jobs", str(jobs), "--reference-cache", str(reference), *keep, *extra],
                   cwd=ROOT, env=_env(), check=True, stdout=subprocess.DEVNULL)
    with open(out / "grades.csv") as fh:
        return {f"{r['student']}/{r['assignment']}": float(r["score"]) for r in csv.DictReader(fh)}


# JAX reports how long each program took to trace, lower and compile as duration events,
# whatever its configuration: a test cell's reset turns the compile log (jax_log_compiles)
# off (issue 47: a setting an answer changes is put back), so since then the log missed nearly
# every compile of a graded notebook.
_COMPILE_EVENTS = ("/jax/core/compile/jaxpr_trace_duration",
                   "/jax/core/compile/jaxpr_to_mlir_module_duration",
                   "/jax/core/compile/backend_compile_duration")
_LISTEN = f"""\
import jax.monitoring as _bench_monitoring
_bench_compile = [0.0]
def _bench_listen(event, seconds, *args, **kwargs):
    if event in {_COMPILE_EVENTS!r}:
        _bench_compile[0] += seconds
_bench_monitoring.register_event_duration_secs_listener(_bench_listen)
"""
_REPORT = 'print(f"BENCH-COMPILE-SECONDS {_bench_compile[0]}")'
_COMPILED = re.compile(r"BENCH-COMPILE-SECONDS ([0-9.eE+-]+)")


def bare(course: Path) -> dict[str, float]:
    """Execute each notebook a grading run left in ``course/autograded`` (outputs cleared)
    with nbclient alone, in turn, each in a fresh plain kernel with no compilation cache.

    A cell put first registers a listener for JAX's compile-duration events
    (:data:`_COMPILE_EVENTS`) and a cell put last prints their sum. Returns ``student/chapter``
    -> the seconds the notebook's kernel spent tracing, lowering and compiling.
    """
    from nbclient import NotebookClient

    from autograder.grader.progress import Progress

    paths = sorted((course / "autograded").glob("*/*/*.ipynb"))
    compiled: dict[str, float] = {}
    from autograder.grader.compile_cache import without_cache_settings

    env = without_cache_settings(_env())  # cold: no cache
    bar = Progress(len(paths), "bare execution (nbclient alone)")
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nb.cells = [nbformat.v4.new_code_cell(_LISTEN), *nb.cells,
                    nbformat.v4.new_code_cell(_REPORT)]
        client = NotebookClient(nb, kernel_name="python3", timeout=600, allow_errors=True,
                                resources={"metadata": {"path": str(path.parent)}})
        client.execute(env=env)
        said = "".join(o.get("text", "") for o in nb.cells[-1].get("outputs", []))
        found = _COMPILED.findall(said)
        if not found:
            raise RuntimeError(f"{path}: the compile-duration listener reported nothing: {said!r}")
        compiled[f"{path.parent.parent.name}/{path.parent.name}"] = float(found[-1])
        bar.advance()
    bar.done()
    return compiled


def stages(out: Path) -> dict[str, dict[str, float]]:
    """Per step of grading (``Result.stages``): total and mean seconds over ``out``'s
    submissions."""
    from autograder.grader.grading import STAGES

    found = [json.loads(p.read_text()).get("stages", {}) for p in out.glob("*/*/result.json")]
    return {name: {"total_seconds": round(sum(f.get(name, 0.0) for f in found), 1),
                   "mean_seconds": round(sum(f.get(name, 0.0) for f in found)
                                         / max(1, len(found)), 3)} for name in STAGES}


def kernel_cpu(out: Path) -> dict[str, float] | None:
    """CPU seconds (user and system) of the kernels that ran ``out``'s submissions
    (``Result.cpu["kernel"]``: start, the import ahead, execution): total and mean, over the
    submissions where it was measured; None where none was."""
    found = [json.loads(p.read_text()).get("cpu", {}).get("kernel")
             for p in out.glob("*/*/result.json")]
    found = [float(x) for x in found if isinstance(x, int | float)]
    if not found:
        return None
    return {"submissions": len(found), "total_seconds": round(sum(found), 1),
            "mean_seconds": round(sum(found) / len(found), 3)}


def _machine_cpu() -> float:
    """CPU seconds the whole machine has spent on work (user, system, interrupts) since boot.

    Read from ``/proc/stat``, so it counts every process a way of grading starts (kernels in
    sandboxes and pool processes included); the benchmark expects an otherwise quiet machine.
    """
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def _timed(fn: Any, *args: Any) -> tuple[float, float, Any]:
    """Wall seconds, the machine's busy CPU seconds meanwhile, and ``fn``'s value."""
    start, cpu = time.perf_counter(), _machine_cpu()
    value = fn(*args)
    return time.perf_counter() - start, _machine_cpu() - cpu, value


def run(size: int = 36, jobs: int | None = None, chapters: list[str] | None = None,
        unpinned: bool = True, machine: tuple[float, int] = (2.0, 5),
        runtimes: list[str] | None = None) -> dict[str, Any]:
    """Grade one batch of ``size`` submissions three ways; submissions per minute for each.

    The trusted runs of the reference answers go first, once (timed on their own): every way
    uses their records, as a course's later grading runs reuse them (``--reference-cache``).
    With ``unpinned``, (c) runs a second time with ``--no-pin-cpus`` (every kernel on every
    CPU): what giving each job's kernels their share of the CPUs changes.
    ``machine``: how long each copy of the machine's two-at-once workloads runs, and how many
    times (:mod:`bench.machine`). ``runtimes``: the built runtimes (c) also runs on, after
    their own trusted runs (default every one installed; the grader's own always runs).

    Raises:
        RuntimeMissing: a runtime named is not installed (the message says how to add it).
    """
    from autograder.grader.runtime_choice import TOOLS, installed, resolve

    jobs = jobs or max(2, os.cpu_count() or 2)
    found = installed()
    others = [resolve(name, found) for name in (runtimes or list(found)) if name != TOOLS]
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        tmp_path = Path(tmp)
        batch = make_batch(tmp_path / "batch", size, chapters)
        reference = tmp_path / "reference"
        chapters = sorted({chapter for _, chapter, _ in batch})
        trusted_seconds, _, records = _timed(trusted_runs, chapters, reference, jobs)
        print(f"  trusted runs: {trusted_seconds:.0f} s, {jobs} at a time", flush=True)
        course_seconds, _, _ = _timed(generated_course, chapters, reference)
        print(f"  generated course kept: {course_seconds:.0f} s", flush=True)
        spent: dict[str, float] = {}
        ways: dict[str, dict[str, Any]] = {}
        scores: dict[str, dict[str, float]] = {}
        for key, label, fn, args in (
                ("a_plain_nbgrader", "nbgrader generate_assignment, then autograde, per assignment",
                 plain_nbgrader, (batch, tmp_path / "batch", tmp_path / "plain", records,
                                  spent)),
                ("b_grade_jobs_1", "python -m autograder grade --jobs 1 --reference-cache DIR",
                 course_grader, (tmp_path / "batch", tmp_path / "out1", 1, reference,
                                 tmp_path / "kept")),
                ("bare_execution", "nbclient alone: the notebooks (b) ran, one fresh kernel each",
                 bare, (tmp_path / "kept",)),
                ("c_grade_jobs_n",
                 f"python -m autograder grade --jobs {jobs} --reference-cache DIR",
                 course_grader, (tmp_path / "batch", tmp_path / f"out{jobs}", jobs,
                                 reference)),
                *([("c_grade_jobs_n_unpinned",
                    f"python -m autograder grade --jobs {jobs} --no-pin-cpus --reference-cache "
                    "DIR", course_grader, (tmp_path / "batch", tmp_path / f"out{jobs}-unpinned",
                                           jobs, reference, None, "--no-pin-cpus"))]
                  if unpinned else [])):
            seconds, cpu, scores[key] = _timed(fn, *args)
            ways[key] = {"how": label, "seconds": round(seconds, 1),
                         "throughput_per_minute": round(60 * size / seconds, 2),
                         "cpu_seconds": round(cpu, 1), "cores_busy": round(cpu / seconds, 2)}
            print(f"  {label}: {seconds:.0f} s, {60 * size / seconds:.2f} submissions/min, "
                  f"{cpu / seconds:.2f} cores busy on average", flush=True)
        elsewhere = {rt.name: _on_runtime(rt, tmp_path, jobs, chapters, reference)
                     for rt in others}
        from bench import machine as two_cpus

        print("  the machine, two at once:", flush=True)
        two_at_once = two_cpus.run(*machine)
        for name, m in two_at_once.items():
            print(f"    {name}: {m['slowdown']} times as long side by side", flush=True)
        breakdown = stages(tmp_path / "out1")
        breakdown_n = stages(tmp_path / f"out{jobs}")
        kernels = {"b": kernel_cpu(tmp_path / "out1"), "c": kernel_cpu(tmp_path / f"out{jobs}"),
                   "c_unpinned": kernel_cpu(tmp_path / f"out{jobs}-unpinned")}
    compiling = scores.pop("bare_execution")
    a, b, c = (ways[k]["seconds"] for k in ("a_plain_nbgrader", "b_grade_jobs_1",
                                             "c_grade_jobs_n"))
    bare_seconds = ways["bare_execution"]["seconds"]
    differ = sorted(k for k in scores["a_plain_nbgrader"]
                    if {scores[w].get(k) for w in scores} != {scores["a_plain_nbgrader"][k]})
    return {
        "submissions": size, "jobs": jobs,
        "trusted_runs": {"chapters": len(records), "at_a_time": jobs,
                         "seconds": round(trusted_seconds, 1),
                         "course_seconds": round(course_seconds, 1)},
        "a_generate_seconds": round(spent.get("generate_seconds", 0.0), 1),
        "kinds": {kind: sum(k == kind for *_, k in batch) for kind in KINDS},
        "ways": ways,
        "throughput_b_over_a_time": round(b / a, 3),
        "throughput_c_speedup_over_a": round(a / c, 2),
        "overhead_over_bare": round(b / bare_seconds, 3),
        "stages_b": breakdown,
        "stages_c": breakdown_n,
        "kernel_cpu": {k: v for k, v in kernels.items() if v},
        "bare_compile_seconds": round(sum(compiling.values()), 1),
        "bare_compile_share": round(sum(compiling.values()) / bare_seconds, 3),
        "bare_compile_from": "JAX's compile-duration events",
        "targets": {"b_over_a_time_at_most": 1.15, "c_speedup_over_a_at_least": 2.5,
                    "overhead_over_bare_at_most": 0.6},
        **_pinning(ways), "c_pinned": _grade_pins_by_default(),
        "runtimes": {TOOLS: {**found[TOOLS].describe(), "trusted_seconds": round(
            trusted_seconds, 1), "way": ways["c_grade_jobs_n"], "c_speedup_over_a": round(
            a / c, 2), "scores_agree": not differ, "scores_differ": differ,
            "kernel_cpu": kernels["c"]},
            **{name: _against_a(rt, a, scores["a_plain_nbgrader"], size)
               for name, rt in elsewhere.items()}},
        "two_at_once": two_at_once,
        "scores_agree": not differ, "scores_differ": differ,
        "total_score": sum(scores["a_plain_nbgrader"].values()),
    }


def _on_runtime(runtime: Any, tmp_path: Path, jobs: int, chapters: list[str], reference: Path
                ) -> dict[str, Any]:
    """(c) on the built ``runtime``: its trusted runs first (timed apart), then ``grade --jobs
    N --runtime NAME`` over the batch in ``tmp_path``; what it took and its scores."""
    trusted, _, _ = _timed(trusted_runs, chapters, reference, jobs, runtime)
    print(f"  trusted runs on {runtime.name}: {trusted:.0f} s", flush=True)
    out = tmp_path / f"out{jobs}-{runtime.name}"
    label = f"python -m autograder grade --jobs {jobs} --runtime {runtime.name} " \
            "--reference-cache DIR"
    seconds, cpu, scores = _timed(course_grader, tmp_path / "batch", out, jobs, reference,
                                  None, "--runtime", runtime.name)
    print(f"  {label}: {seconds:.0f} s, {cpu / seconds:.2f} cores busy on average", flush=True)
    return {"describe": runtime.describe(), "trusted_seconds": round(trusted, 1),
            "seconds": seconds, "cpu": cpu, "how": label, "scores": scores,
            "kernel_cpu": kernel_cpu(out)}


def _against_a(measured: dict[str, Any], a: float, a_scores: dict[str, float], size: int
               ) -> dict[str, Any]:
    """What the page says of (c) on one built runtime: its way, its speedup over (a) (``a``
    seconds), and whether its scores are (a)'s."""
    seconds, cpu = measured["seconds"], measured["cpu"]
    differ = sorted(k for k, v in a_scores.items() if measured["scores"].get(k) != v)
    return {**measured["describe"], "trusted_seconds": measured["trusted_seconds"],
            "way": {"how": measured["how"], "seconds": round(seconds, 1),
                    "throughput_per_minute": round(60 * size / seconds, 2),
                    "cpu_seconds": round(cpu, 1), "cores_busy": round(cpu / seconds, 2)},
            "c_speedup_over_a": round(a / round(seconds, 1), 2), "scores_agree": not differ,
            "scores_differ": differ, "kernel_cpu": measured["kernel_cpu"]}


def _grade_pins_by_default() -> bool:
    """Whether (c), run without ``--pin-cpus`` or ``--no-pin-cpus``, pinned its kernels:
    ``grade``'s own default for the option."""
    import argparse

    from autograder.grader.grade import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return bool(parser.get_default("pin_cpus"))


def _pinning(ways: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What pinning each job's kernels to its share of the CPUs did to (c): its time and its
    CPU seconds as fractions of the same run with ``--no-pin-cpus`` (empty when that way did
    not run)."""
    free = ways.get("c_grade_jobs_n_unpinned")
    if not free:
        return {}
    pinned = ways["c_grade_jobs_n"]
    return {"pinned_over_unpinned": {
        "seconds": round(pinned["seconds"] / free["seconds"], 3),
        "cpu_seconds": round(pinned["cpu_seconds"] / free["cpu_seconds"], 3)}}


def plot(results: dict[str, Any], path: Path) -> None:
    """Submissions per minute for each way, with the targets marked; below, (b)'s mean
    seconds per submission, step by step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ways = results["ways"]
    names = {"a_plain_nbgrader": "(a) plain nbgrader", "b_grade_jobs_1": "(b) grade --jobs 1",
             "c_grade_jobs_n": f"(c) grade --jobs {results['jobs']}",
             "c_grade_jobs_n_unpinned": "(c) --no-pin-cpus",
             "bare_execution": "bare execution"}
    labels = [label for key, label in names.items() if key in ways]
    values = [ways[key]["throughput_per_minute"] for key in names if key in ways]
    colors = {"a_plain_nbgrader": "tab:gray", "b_grade_jobs_1": "tab:blue",
              "c_grade_jobs_n": "tab:green", "c_grade_jobs_n_unpinned": "tab:cyan",
              "bare_execution": "tab:olive"}
    shades = [colors[key] for key in names if key in ways]
    built = {name: rt for name, rt in results.get("runtimes", {}).items() if name != "tools"}
    for i, (name, rt) in enumerate(built.items()):  # (c) on each built runtime
        labels.append(f"(c) on {name} (JAX {rt['jax']})")
        values.append(rt["way"]["throughput_per_minute"])
        shades.append(("tab:purple", "tab:pink", "tab:brown")[i % 3])
    a = values[0]
    stages = results.get("stages_b", {})
    tall = 0.4 * len(built)
    fig, axes = plt.subplots(2 if stages else 1, 1, figsize=(7, (4.6 if stages else 3) + tall),
                             gridspec_kw={"height_ratios": [3, 1]} if stages else None)
    ax = axes[0] if stages else axes
    bars = ax.barh(labels, values, color=shades)
    for bar, value in zip(bars, values, strict=True):
        ax.annotate(f" {value:.1f}/min ({value / a:.2f}x of (a))",
                    (bar.get_width(), bar.get_y() + bar.get_height() / 2), va="center")
    target_b = a / results["targets"]["b_over_a_time_at_most"]
    target_c = a * results["targets"]["c_speedup_over_a_at_least"]
    targets = [labels[1], labels[2], *labels[len(labels) - len(built):]]
    ax.scatter([target_b] + [target_c] * (len(targets) - 1), targets, marker="|", s=400,
               color="black", label="target (at least)")
    ax.set_xlim(0, max(values + [target_c]) * 1.5)
    ax.set_xlabel(f"submissions graded per minute ({results['submissions']} in the batch)")
    ax.invert_yaxis()
    ax.legend(loc="lower right", fontsize=8)
    if stages:
        left = 0.0
        for i, (name, figures) in enumerate(stages.items()):
            width = figures["mean_seconds"]
            axes[1].barh(["(b) per submission"], [width], left=left, color=f"C{i}", label=name)
            left += width
        axes[1].set_xlabel("mean seconds per submission, by step")
        axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.6), ncol=4, fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
