"""Timing-test fidelity: how often the exercises' timing tests misjudge an answer.

For each timing question, the question's timing test runs ``runs`` times with the reference
answer (a failure is a *false fail*) and ``runs`` times with a slow but correct answer (a
pass is a *false pass*), under three conditions: on an idle machine; with every core kept
busy by other processes; and *pinned*, the way ``grade --jobs N`` runs each job's
kernels (in a fresh process confined to its share of the CPUs, one core of two here, JAX
started there so that XLA sizes its threads to that share) with every core kept busy (the
other jobs' kernels, the grader). The test cell runs once per answer, recording the
``check_speedup`` calls it makes; each run repeats those calls through the real check (same
functions, inputs, threshold, rounds, and second measurement after a near miss). For the
slow answer the non-timing checks (jitted? retraced? vectorised?) are switched off, so a pass
means the timing check itself was fooled.

Each runtime ``grade --runtime`` grades on is measured apart
(:mod:`autograder.grader.runtime_choice`: Colab's JAX, the newest, the grader's own), since a
timing test's margin is that JAX's: the grader's own runtime in this process (pinned: in a
fresh one); a built runtime in its own Python, through the command that enters its system
root (as its trusted runs are made), one fresh process per condition (:func:`in_runtime`),
with this very checkout's ``bench`` and ``autograder`` on its path. The grader's runtime gets
every condition; a built one, by default, the idle one alone (:data:`ELSEWHERE`: the three
conditions take about 11 minutes a runtime, the idle one about 3).
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nbformat

from autograder.core.notebook import code_of, is_answer, nbgrader_meta, questions

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "autograder" / "tests" / "wrong_answers"
# question -> the wrong answer that is numerically right but slow (the case a timing test
# alone must catch)
CASES = {
    ("06_jit", "q5_fast_smooth"): "not_jitted",
    ("10_vmap", "q5_fast_mlp"): "python_loop",
    ("13_capstone", "q5_build_train_step"): "not_jitted",
}
_RATIO = re.compile(r"ran ([0-9.]+)x faster")
_NON_TIMING = ("check_jitted", "check_no_retrace", "check_vectorised", "cache_size")
CONDITIONS = ("idle", "busy", "pinned")
ELSEWHERE = ("idle",)  # the conditions a built runtime gets by default
_MEASURED = "fidelity: one answer measured"  # a worker's progress line


def _burn() -> None:  # keeps one core busy until terminated
    while True:
        pass


@contextlib.contextmanager
def busy(processes: int):
    """Keep ``processes`` cores busy with spinning processes for the duration."""
    ctx = multiprocessing.get_context("spawn")
    burners = [ctx.Process(target=_burn, daemon=True) for _ in range(processes)]
    for p in burners:
        p.start()
    try:
        yield
    finally:
        for p in burners:
            p.terminate()
            p.join()


def _namespace_before_tests(chapter: str, answer_id: str) -> tuple[dict, str, str]:
    """Run the source notebook up to the question's answer; return (namespace, answer, tests)."""
    nb = nbformat.read(ROOT / "solutions" / f"{chapter}.ipynb", as_version=4)
    tests_id = next(q.tests_id for q in questions(nb) if q.answer_id == answer_id)
    ns: dict = {"__name__": "__main__"}
    answer = tests = ""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        gid = nbgrader_meta(cell).get("grade_id")
        if gid == tests_id:
            tests = code_of(cell)
            break
        if is_answer(cell) and gid == answer_id:
            answer = code_of(cell)
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code_of(cell), f"{chapter} cell", "exec"), ns)
    return ns, answer, tests


def _record_timing_calls(ns: dict, tests: str, neutralise: bool) -> tuple[list, str]:
    """Run the test cell once with ``check_speedup`` recording its calls instead of timing.

    Returns the recorded ``(args, kwargs)`` of each call and the cell's error, if any. With
    ``neutralise`` the non-timing checks pass whatever they are given, so the slow answer's
    cell reaches its timing calls.
    """
    import autograder.kernel.jax_checks as checks
    import autograder.kernel.timing as timing

    calls: list[tuple[tuple, dict]] = []
    patched = {(timing, "check_speedup"): lambda *a, **k: calls.append((a, k))}
    if neutralise:
        patched.update({(checks, name): (lambda *a, **k: 0) for name in _NON_TIMING})
    originals = {key: getattr(*key) for key in patched}
    error = ""
    try:
        for (module, name), fn in patched.items():
            setattr(module, name, fn)
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(tests, "tests", "exec"), dict(ns))
    except Exception as exc:  # noqa: BLE001
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        for (module, name), fn in originals.items():
            setattr(module, name, fn)
    return calls, error


def _replay(calls: list) -> tuple[bool, list[float]]:
    """One run of the question's timing test: every recorded call, through the real check,
    at the matmul precision a test block (``feedback``) sets, as the test cell runs it (on a
    GPU the default is TF32, whose products differ from float32's by about 1e-3)."""
    import jax

    from autograder.kernel.timing import check_speedup

    passed, ratios = True, []
    for args, kwargs in calls:
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), jax.default_matmul_precision("float32"):
                check_speedup(*args, **kwargs)
        except AssertionError:
            passed = False
        ratios += [float(r) for r in _RATIO.findall(out.getvalue())]
    return passed, ratios


def prepare(chapter: str, answer_id: str, slow_case: str) -> dict[str, tuple[list, str]]:
    """Record the question's timing calls for the reference and the slow answer.

    The question's test cell runs once per answer, recording its ``check_speedup`` calls
    (functions, inputs, options); :func:`measure` then repeats exactly those calls through
    the real ``check_speedup``, with its threshold, rounds and near-miss second attempt.
    """
    ns, reference, tests = _namespace_before_tests(chapter, answer_id)
    slow_source = (FIXTURES / chapter / f"{answer_id}__{slow_case}.py").read_text()
    prepared = {}
    for label, source, neutralise in (("reference", reference, False),
                                      ("slow", slow_source, True)):
        answer_ns = dict(ns)
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, label, "exec"), answer_ns)
        calls, error = _record_timing_calls(answer_ns, tests, neutralise)
        if not calls:
            raise RuntimeError(f"{chapter} {answer_id} ({label} answer): the test cell made "
                               f"no timing call ({error or 'no error'})")
        prepared[label] = (calls, error)
    return prepared


def measure(prepared: dict[str, tuple[list, str]], runs: int,
            advance: Any = None) -> dict[str, Any]:
    """False fails of the reference and false passes of the slow answer over ``runs`` each."""
    result: dict[str, Any] = {}
    for label, (calls, error) in prepared.items():
        outcomes, speedups, start = [], [], time.perf_counter()
        for _ in range(runs):
            passed, ratios = _replay(calls)
            outcomes.append(passed)
            speedups += ratios
        result[label] = {"runs": runs, "passed": sum(outcomes),
                         "timing_calls_per_run": len(calls), "speedups": speedups,
                         "cell_error": error, "seconds": round(time.perf_counter() - start, 1)}
        if advance:
            advance()
    result["false_fail"] = runs - result["reference"]["passed"]
    result["false_pass"] = result["slow"]["passed"]
    return result


def _pin(cpus: list[int]) -> None:
    """Pool initializer: confine this fresh process, which has not imported JAX yet, to
    ``cpus`` (as the sandbox's launcher confines a job's kernel before it starts)."""
    import os

    os.sched_setaffinity(0, cpus)


def _measure_case(chapter: str, answer_id: str, slow_case: str, runs: int) -> dict[str, Any]:
    """:func:`prepare` and :func:`measure` one question, in this (pinned) process."""
    return measure(prepare(chapter, answer_id, slow_case), runs)


def pinned_share() -> list[int] | None:
    """The CPUs the first of ``grade --jobs N`` jobs gives its kernels on this machine (N
    the CPU count, at least 2; ``--pin-cpus``, the default); None where this machine cannot
    pin (one CPU, or no ``sched_setaffinity``)."""
    import os

    from autograder.grader.sandbox import job_cpus

    if not hasattr(os, "sched_getaffinity"):
        return None
    return job_cpus(0, max(2, len(os.sched_getaffinity(0))))


def _conditions(wanted: tuple[str, ...], share: list[int] | None) -> list[str]:
    """``wanted`` in the order of :data:`CONDITIONS`, pinned left out where nothing can pin."""
    return [c for c in CONDITIONS if c in wanted and (c != "pinned" or share)]


def _here(condition: str, cases: dict[tuple[str, str], str], runs: int,
          share: list[int] | None, advance: Any) -> dict[str, Any]:
    """One condition on the grader's own runtime: each question in a fresh process (pinned to
    ``share`` for the pinned condition), as a grading kernel starts fresh for each notebook: a
    chapter whose set-up cell asks for simulated devices (13) gets them before JAX starts."""
    import concurrent.futures

    context = multiprocessing.get_context("spawn")  # a fresh process, JAX not started yet
    init, initargs = (_pin, (share,)) if condition == "pinned" else (None, ())
    per_question = {}
    for (chapter, answer_id), slow in cases.items():
        with concurrent.futures.ProcessPoolExecutor(
                1, mp_context=context, initializer=init, initargs=initargs) as pool:
            per_question[f"{chapter}/{answer_id}"] = pool.submit(
                _measure_case, chapter, answer_id, slow, runs).result()
        advance(2)
    return per_question


def in_runtime(runtime: Any, cases: dict[tuple[str, str], str], runs: int,
               pin: list[int] | None = None, advance: Any = None) -> dict[str, Any]:
    """:func:`prepare` and :func:`measure` every case, each in a fresh process of ``runtime``'s own
    Python (a :class:`~autograder.grader.runtime_choice.Runtime`; a built one's command enters
    its system root), confined to the CPUs ``pin`` before JAX starts when given.

    Returns ``{"questions": {question: measured}, "jax": ..., "python": ...}`` as that process
    saw them. ``advance`` is called once per answer measured.

    Raises:
        RuntimeError: the process failed (the message ends with what it printed on stderr).
    """
    got: dict[str, Any] = {"questions": {}}
    for (chapter, answer_id), slow in cases.items():  # a fresh process per question
        one = _in_runtime_once(runtime, [[chapter, answer_id, slow]], runs, pin, advance)
        got["questions"].update(one["questions"])
        got.update(jax=one["jax"], python=one["python"])
    return got


def _in_runtime_once(runtime: Any, listed: list[list[str]], runs: int,
                     pin: list[int] | None, advance: Any) -> dict[str, Any]:
    """The cases ``listed`` measured in one fresh process of ``runtime``'s Python."""
    with tempfile.TemporaryDirectory(prefix="bench-fidelity-") as tmp:
        out, log = Path(tmp) / "measured.json", Path(tmp) / "stderr.txt"
        command = [runtime.python, "-m", "bench.fidelity", json.dumps(listed), str(runs),
                   str(out), *([",".join(map(str, pin))] if pin else [])]
        env = dict(os.environ, PYTHONPATH=str(ROOT))  # this checkout's bench and autograder
        with open(log, "w") as err, subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=err, text=True, cwd=ROOT,
                env=env) as proc:
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.strip() == _MEASURED and advance:
                    advance()
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"the fidelity run on the {runtime.name} runtime failed "
                               f"(exit {proc.returncode}):\n{log.read_text()[-3000:]}")
        return json.loads(out.read_text())


def _worker(argv: list[str]) -> int:
    """``python -m bench.fidelity CASES RUNS OUT [CPUS]``: :func:`in_runtime`'s side, in the
    runtime's Python: pin to ``CPUS`` (comma-separated) before JAX starts, measure every case
    of ``CASES`` (JSON ``[[chapter, answer id, slow case], ...]``) ``RUNS`` times, write the
    results to ``OUT``."""
    import platform

    listed, runs, out, *pin = argv
    if pin:
        _pin([int(cpu) for cpu in pin[0].split(",")])
    import jax

    def measured() -> None:
        print(_MEASURED, flush=True)

    questions = {f"{chapter}/{answer_id}": measure(prepare(chapter, answer_id, slow),
                                                    int(runs), measured)
                 for chapter, answer_id, slow in json.loads(listed)}
    Path(out).write_text(json.dumps({"questions": questions, "jax": jax.__version__,
                                     "python": platform.python_version()}))
    return 0


def run(runs: int = 100, busy_cores: int | None = None,
        cases: dict[tuple[str, str], str] | None = None, runtimes: list[str] | None = None,
        elsewhere: tuple[str, ...] = ELSEWHERE) -> dict[str, Any]:
    """Each timing question (default: all) on each runtime (default: every one installed,
    :func:`autograder.grader.runtime_choice.installed`): on the grader's own every condition
    (idle, busy, then pinned where this machine can pin), on a built one those of
    ``elsewhere``; results by runtime, condition, question.

    Raises:
        RuntimeMissing: a runtime named is not installed (the message says how to add it).
    """
    from autograder.grader.progress import Progress
    from autograder.grader.runtime_choice import TOOLS, installed, resolve
    from autograder.kernel.timing import required_speedup

    cases = cases or CASES
    cores = busy_cores or os.cpu_count() or 2
    share = pinned_share()
    found = installed()
    chosen = [resolve(name, found) for name in (runtimes or list(found))]
    plan = {rt.name: _conditions(CONDITIONS if rt.name == TOOLS else elsewhere, share)
            for rt in chosen}
    results: dict[str, Any] = {
        "runs": runs, "busy_cores": cores, "required": required_speedup(),
        "method": "each run repeats the question's check_speedup calls as its test cell makes "
                  "them (functions, inputs, threshold, rounds, second measurement after a "
                  "near miss)",
        "pinned_cpus": share, "runtimes": {}}
    steps = sum(2 * len(conditions) * len(cases) for conditions in plan.values())
    bar = Progress(steps, f"x {runs} timing-test runs ("
                   + "; ".join(f"{name}: {', '.join(c)}" for name, c in plan.items()) + ")")
    for rt in chosen:
        measured: dict[str, Any] = {**rt.describe(), "conditions": {}}
        for condition in plan[rt.name]:
            start = time.perf_counter()
            with busy(cores) if condition != "idle" else contextlib.nullcontext():
                if rt.name == TOOLS:
                    per_question = _here(condition, cases, runs, share, bar.advance)
                else:
                    got = in_runtime(rt, cases, runs, share if condition == "pinned" else None,
                                     bar.advance)
                    per_question = got["questions"]
                    measured.update(jax=got["jax"], python=got["python"])
            measured["conditions"][condition] = {
                "seconds": round(time.perf_counter() - start, 1), "questions": per_question}
        results["runtimes"][rt.name] = measured
    bar.done()
    return results


def runtimes_of(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Runtime name -> its measurements (``name``, ``jax``, ``python``, ``title``,
    ``conditions``); a result from before runtimes were measured apart is the grader's own
    runtime's alone."""
    if "runtimes" in results:
        return results["runtimes"]
    from autograder.grader.runtime_choice import TOOLS, title

    env = results["environment"]
    jax = env["packages"]["jax"]
    return {TOOLS: {"name": TOOLS, "jax": jax, "python": env["python"],
                    "title": title(TOOLS, jax), "conditions": results["conditions"]}}


def plot(results: dict[str, Any], path: Path) -> None:
    """Measured speedups of reference and slow answers against the required threshold, one
    panel per runtime and condition."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(rt, condition, data) for rt in runtimes_of(results).values()
              for condition, data in rt["conditions"].items()]
    names = list(panels[0][2]["questions"])
    fig, axes = plt.subplots(1, len(panels), figsize=(max(11, 3.4 * len(panels)), 4),
                             sharey=True, squeeze=False)
    for ax, (rt, condition, data) in zip(axes[0], panels, strict=True):
        for i, name in enumerate(names):
            q = data["questions"][name]
            for offset, label, color in ((-0.15, "reference", "tab:blue"),
                                         (0.15, "slow", "tab:red")):
                values = q[label]["speedups"]
                ax.scatter([i + offset] * len(values), values, s=8, alpha=0.4, color=color,
                           label=f"{label} answer" if i == 0 else None)
        ax.axhline(results["required"], color="black", linestyle="--",
                   label=f"required {results['required']}x")
        ax.set_yscale("log")
        ax.set_xticks(range(len(names)), [n.split("/")[0] for n in names])
        ax.set_title(f"{condition} machine" if len(panels) <= 3 and rt["name"] == "tools"
                     else f"JAX {rt['jax']}, {condition}", fontsize=10)
    axes[0][0].set_ylabel("measured speedup over the reference (log)")
    axes[0][0].legend(loc="upper left", fontsize=8)
    fig.suptitle(f"Timing tests: {results['runs']} runs per answer and condition")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1:]))
