"""The book's Performance page, written from the committed results in ``bench/results/``.

``python -m bench.report`` rewrites ``book/performance.md``; ``--check`` exits 1 when the page
differs from what the results say (``make test`` runs it, so the page cannot drift from the
numbers). Every figure on the page comes from a JSON file a benchmark run wrote.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench.common import RESULTS

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "performance.md"


def _today(name: str) -> str:
    """A chapter stem, or ``stem/question``, that a run recorded, under the name the course
    gives it today (chapters were renumbered after some results were measured:
    :mod:`autograder.core.renames`), the question too where it moved to another exercise."""
    from autograder.core.renames import MOVED_QUESTIONS, current_name

    stem, _, rest = name.partition("/")
    question = rest.split("_", 1)[0]
    if (stem, question) in MOVED_QUESTIONS:
        new_stem, new_q = MOVED_QUESTIONS[stem, question]
        return f"{new_stem}/{new_q}{rest[len(question):]}"
    known = {path.stem for path in (ROOT / "solutions").glob("*.ipynb")}
    today = current_name(stem, known)
    return f"{today}/{rest}" if rest else today


def _load(name: str, results: Path) -> dict[str, Any] | None:
    path = results / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _machine(env: dict[str, Any]) -> str:
    pk = env["packages"]
    return (f"{env['machine']}, {env['cpu_count']} CPUs, backend `{env['backend']}` "
            f"({', '.join(env['devices'])}); JAX {pk['jax']}, jaxlib {pk['jaxlib']}, "
            f"nbgrader {pk['nbgrader']}, Python {env['python']}; run {env['date'][:10]}")


def _image(name: str) -> list[str]:
    return [f"![{name}](../bench/results/{name}.png)", ""]


def _command(how: str) -> str:
    """A way that is a command line, as code (so ``--jobs`` stays two hyphens); for nbgrader's
    way, its two commands as code."""
    if how.startswith("python "):
        return f"`{how}`"
    return how.replace("nbgrader generate_assignment", "`nbgrader generate_assignment`").replace(
        "then autograde", "then `nbgrader autograde`")


_STEPS = {
    "prepare": "read, rebuild and screen the submission",
    "kernel_start": "start the sandboxed kernel (or wait for the one started ahead)",
    "execute": "execute the notebook (answers and tests)",
    "kernel_stop": "stop the kernel",
    "nbgrader": "nbgrader's own bookkeeping (gradebook, files)",
    "judge": "wait for the trusted records, decide every check",
    "feedback": "write the feedback page",
}


def _stages(d: dict[str, Any]) -> list[str]:
    """(b)'s time per step, and how much of bare execution is compiling."""
    stages = d.get("stages_b")
    if not stages:
        return []
    total = sum(s["total_seconds"] for s in stages.values())
    beside = d.get("stages_c") or {}
    jobs = d.get("jobs", "N")
    lines = ["| step | mean seconds per submission | share of (b)'s steps |"
             + (f" (c), `--jobs {jobs}`: mean seconds |" if beside else ""),
             "|---|---:|---:|" + ("---:|" if beside else "")]
    lines += [f"| `{name}`: {_STEPS.get(name, name)} | {s['mean_seconds']:.2f} | "
              f"{s['total_seconds'] / total:.0%} |"
              + (f" {beside[name]['mean_seconds']:.2f} |" if name in beside else
                 (" |" if beside else "")) for name, s in stages.items()]
    cpu = d.get("kernel_cpu") or {}
    kernels = []
    if cpu:
        pinned = ", each job's kernels on its share of the CPUs," if d.get("c_pinned") else ","
        parts = [f"{label} {cpu[key]['mean_seconds']:.2f} s" for key, label in
                 (("b", "(b)"), ("c", f"(c), `--jobs {jobs}`{pinned}"),
                  ("c_unpinned", "(c) with `--no-pin-cpus`, every kernel on every CPU,"))
                 if key in cpu]
        kernels = ["CPU seconds (user and system) of each submission's kernel, from its start "
                   "(JAX imported ahead) to its last cell, mean: " + "; ".join(parts) + ".", ""]
    bare = d["ways"]["bare_execution"]
    if d.get("bare_compile_seconds") is None:  # a result whose count is known to be wrong
        compiling = (f"How much of the bare execution's {bare['seconds']:g} s was JAX "
                     f"compiling: not measured in this run ({d.get('bare_compile_note', '')}).")
    else:
        summed = d.get("bare_compile_from", "JAX's compile log")  # older results: the log
        compiling = (f"Of the bare execution's {bare['seconds']:g} s, "
                     f"{d['bare_compile_seconds']:g} s ({d['bare_compile_share']:.0%}) were JAX "
                     f"tracing, lowering and compiling (summed from {summed}): the most a "
                     "compilation cache could save if every program hit it.")
    return ["Where (b)'s time goes, per submission (from each `result.json`'s `stages`; the "
            "rest of (b)'s time is starting up, copying the generated course and writing the "
            "reports):", "", *lines, "", *kernels, compiling, ""]


def _pinning(d: dict[str, Any]) -> list[str]:
    """What giving each job's kernels their share of the CPUs did to (c), where measured."""
    ratio = d.get("pinned_over_unpinned")
    if not ratio:
        return []
    return [f"- Each job's kernels on their share of the CPUs (the default): (c) took "
            f"{ratio['seconds']:.0%} of the time and {ratio['cpu_seconds']:.0%} of the CPU "
            "seconds of the same run with `--no-pin-cpus` (every kernel free to use every "
            "CPU, so XLA gives each a thread pool the size of the machine)."]


def _kept_course(d: dict[str, Any]) -> list[str]:
    """What the page says of the generated course (b) and (c) found in the reference cache
    (nothing for results from before it was kept)."""
    trusted = d["trusted_runs"]
    if "course_seconds" not in trusted:
        return []
    return [f"The first grading run also keeps the course it generates (nbgrader's "
            f"`generate_assignment` for every assignment, {trusted['course_seconds']:g} s here) "
            "beside them, and (b) and (c) copy it; (a) generates its course within its time, "
            f"as nbgrader's documented commands do ({d.get('a_generate_seconds', 0):g} s of "
            "it)."]


def _c_floor(d: dict[str, Any], a: dict[str, Any], b: dict[str, Any], c: dict[str, Any],
             cores: int) -> list[str]:
    """(c)'s floor: the grading's CPU work (the less of what (b) and (c) measured: the same
    work, one job and two) on every core, none idle, each as slow as this machine runs two
    copies of one workload side by side (``bench/machine.py``); nothing for results from
    before that was measured."""
    two = {k: v.get("slowdown") for k, v in d.get("two_at_once", {}).items()}
    if not two or None in two.values():
        return []
    work = min(b["cpu_seconds"], c["cpu_seconds"])
    worst = max(1.0, max(two.values()))
    ideal, floor = work / cores, work * worst / cores
    measured = " and ".join(f"{k} {v:g}" for k, v in two.items())
    repeats = next(iter(d["two_at_once"].values()))["repeats"]
    return [f"  Floor: the grading's CPU work (the less of (b)'s and (c)'s, {work:g} CPU "
            f"seconds) spread over all {cores} cores with none idle takes {ideal:.0f} s "
            f"({a['seconds'] / ideal:.2f} times (a)). Measured apart (`bench/machine.py`, "
            f"median of {repeats} runs), one copy of a fixed workload on each core took "
            f"{measured} times as long as one alone, which puts the floor at up to "
            f"{floor:.0f} s ({a['seconds'] / floor:.2f} times (a))."]


def _why_c_short(a: dict[str, Any], c: dict[str, Any], target: float, cores: int) -> str:
    """Why (c) missed its bar: too much work for the cores, or cores left idle."""
    budget = cores * a["seconds"] / target
    if c["cpu_seconds"] > a["cpu_seconds"]:
        return (" Beyond what (a) does, it rebuilds each submission from the source, starts "
                "each kernel in a sandbox and writes feedback pages (the steps below).")
    if c["cpu_seconds"] > budget:
        return (f" That is already less work than (a)'s {a['cpu_seconds']:g} CPU seconds, "
                f"but (a) runs one notebook at a time, at {a['cores_busy']:g} cores busy: on "
                f"{cores} cores the bar needs each submission to cost a further "
                f"{1 - budget / c['cpu_seconds']:.0%} less CPU.")
    idle = cores * c["seconds"] - c["cpu_seconds"]
    return (f" The work fits: the bar needs {c['cpu_seconds'] / (a['seconds'] / target):.2f} "
            f"cores busy on average, and the cores stood idle for {idle:.0f} CPU seconds of "
            f"(c)'s {cores} x {c['seconds']:g}.")


def _per_runtime(d: dict[str, Any]) -> list[str]:
    """(c) on each runtime graded, a table each beside the same (a), with the bar checked on
    each (nothing for results from before runtimes were measured apart)."""
    runtimes = d.get("runtimes")
    if not runtimes:
        return []
    a = d["ways"]["a_plain_nbgrader"]
    target = d["targets"]["c_speedup_over_a_at_least"]
    out = ["(c) on each runtime `grade --runtime` grades on, against the same (a) (plain "
           "nbgrader runs on the grader's own runtime), each runtime's trusted runs made "
           "first and timed apart:", ""]
    for rt in runtimes.values():
        c = rt["way"]
        met = rt["c_speedup_over_a"] >= target
        out += [f"On {rt['title']}, Python {rt['python']} (trusted runs "
                f"{rt['trusted_seconds']:g} s):", "",
                "| how | seconds | submissions per minute | CPU seconds | cores busy |",
                "|---|---:|---:|---:|---:|",
                *(f"| {_command(w['how'])} | {w['seconds']:g} | {w['throughput_per_minute']:g} "
                  f"| {w['cpu_seconds']:g} | {w['cores_busy']:g} |" for w in (a, c)), "",
                f"- (c) is {rt['c_speedup_over_a']:g} times as fast as (a); target at least "
                f"{target:g}: **{'met' if met else 'not met'}**. Scores: "
                + ("the same as (a)'s for every submission." if rt["scores_agree"] else
                   "DIFFERENT from (a)'s for " + ", ".join(rt["scores_differ"]) + "."), ""]
    return out


def _throughput(d: dict[str, Any]) -> list[str]:
    ways = d["ways"]
    lines = ["| how | seconds | submissions per minute | CPU seconds | cores busy |",
             "|---|---:|---:|---:|---:|"]
    lines += [f"| {_command(w['how'])} | {w['seconds']:g} | {w['throughput_per_minute']:g} | "
              f"{w['cpu_seconds']:g} | {w['cores_busy']:g} |" for w in ways.values()]
    t = d["targets"]
    b_ok = d["throughput_b_over_a_time"] <= t["b_over_a_time_at_most"]
    a, b, c = (ways[k] for k in ("a_plain_nbgrader", "b_grade_jobs_1", "c_grade_jobs_n"))
    c_ok = a["seconds"] / c["seconds"] >= t["c_speedup_over_a_at_least"]
    cores = d["environment"]["cpu_count"]
    why_c = []
    if not c_ok:
        target = t["c_speedup_over_a_at_least"]
        ceiling = a["seconds"] / (c["cpu_seconds"] / cores)
        why_c = [f"  Why: {target:g} times (a) means finishing in "
                 f"{a['seconds'] / target:.0f} s, so with all {cores} cores busy all the time "
                 f"at most {cores * a['seconds'] / target:.0f} CPU seconds of work; (c)'s took "
                 f"{c['cpu_seconds']:g} (at best {ceiling:.2f} times (a)), and it kept "
                 f"{c['cores_busy']:g} of {cores} cores busy on average."
                 + _why_c_short(a, c, target, cores), *_c_floor(d, a, b, c, cores)]
    overhead = []
    if "overhead_over_bare" in d:
        o_ok = d["overhead_over_bare"] <= t["overhead_over_bare_at_most"]
        overhead = [f"- (b) takes {d['overhead_over_bare']:g} times as long as executing the "
                    f"same notebooks bare; target at most {t['overhead_over_bare_at_most']:g}: "
                    f"**{'met' if o_ok else 'not met'}**."]
        stages = d.get("stages_b", {})
        if not o_ok and stages:
            total = {name: st["total_seconds"] for name, st in stages.items()}
            kernels = sum(total.get(n, 0.0) for n in ("kernel_start", "execute", "kernel_stop"))
            extra = sum(total.get(n, 0.0) for n in ("prepare", "nbgrader", "judge", "feedback"))
            bare = ways["bare_execution"]["seconds"]
            overhead += [f"  Why: (b)'s kernels (start, execution, stop) took {kernels:.0f} s, "
                         f"{bare - kernels:.0f} s less than the bare execution's {bare:g} s (the "
                         "shared compilation cache, kernels started ahead and stopped at once); "
                         "its other "
                         f"steps took {extra:.0f} s, {total.get('feedback', 0.0):.0f} s of them "
                         "the feedback pages, which `--no-feedback` skips and neither (a) nor "
                         "the bare execution writes. The cache holds only programs of the "
                         "released notebook's own code: the reference answers' and hidden "
                         "tests' are kept out of it (a kernel could read them back), and each "
                         "submission's own answers compile afresh.",
                         f"  Floor: with every other step free, (b)'s kernels alone take "
                         f"{kernels / bare:.2f} of the bare execution, so the bar needs the "
                         "submissions' own execution to get faster, not the grader around it."]
    kinds = ", ".join(f"{n} {k}" for k, n in d["kinds"].items())
    trusted = d.get("trusted_runs")
    before = [f"Before the three ways, the trusted runs of the {trusted['chapters']} "
              f"assignments' reference answers ({trusted['at_a_time']} at a time) took "
              f"{trusted['seconds']:g} s. A course's first grading run pays that once; later "
              "runs, and every way here, reuse them (`grade --reference-cache DIR`).",
              *_kept_course(d), ""] if trusted else []
    assignments = (trusted or {}).get("chapters") or max(d["kinds"].values())  # older results
    return [f"{d['submissions']} submissions across {assignments} assignments ({kinds}).", "",
            *before, *lines, "",
            f"- (b) takes {d['throughput_b_over_a_time']:g} times as long as (a); target at "
            f"most {t['b_over_a_time_at_most']:g}: **{'met' if b_ok else 'not met'}**.",
            f"- (c) is {a['seconds'] / c['seconds']:.3f} times as fast as (a); target at "
            f"least {t['c_speedup_over_a_at_least']:g}: **{'met' if c_ok else 'not met'}**.",
            *why_c, *overhead,
            *_pinning(d),
            f"- The {'four' if 'c_grade_jobs_n_unpinned' in ways else 'three'} ways gave "
            f"{'the same' if d['scores_agree'] else 'DIFFERENT'} scores for every submission.",
            "", *_per_runtime(d), *_stages(d), *_image("grading_throughput"),
            f"Measured on {_machine(d['environment'])}.", ""]


def _fidelity_table(rt: dict[str, Any], runs: int) -> list[str]:
    """One runtime's table: false fails and passes per question and condition."""
    lines = ["| question | condition | false fails | false passes | reference speedup "
             "(min / median) | slow answer (max) |", "|---|---|---:|---:|---:|---:|"]
    for condition, c in rt["conditions"].items():
        for name, q in c["questions"].items():
            ref = sorted(q["reference"]["speedups"])
            slow = q["slow"]["speedups"]
            lines.append(f"| {_today(name)} | {condition} | {q['false_fail']} / {runs} | "
                         f"{q['false_pass']} / {runs} | {ref[0]:.1f}x / "
                         f"{ref[len(ref) // 2]:.1f}x | {max(slow):.2f}x |")
    return lines


def _fidelity(d: dict[str, Any]) -> list[str]:
    from bench.fidelity import runtimes_of

    runtimes = runtimes_of(d)
    pinned = d.get("pinned_cpus")
    where = (f"on an idle machine, with {d['busy_cores']} processes spinning on the CPUs, and "
             f"pinned: in a fresh process confined to CPU(s) {', '.join(map(str, pinned))} "
             "(the share `grade --jobs N` gives one job's kernels, JAX started there so XLA "
             "sizes its threads to it) with the same processes spinning"
             if pinned and any("pinned" in rt["conditions"] for rt in runtimes.values()) else
             f"on an idle machine and with {d['busy_cores']} processes spinning on the CPUs")
    only_tools = list(runtimes) == ["tools"]
    if not only_tools:
        where += (" (on each runtime the conditions its table shows: a built runtime's run in "
                  "its own Python, in a fresh process per condition)")
    out = [f"Each timing test ran {d['runs']} times with the reference answer and "
           f"{d['runs']} times with a correct but slow answer (not jitted, or a Python loop), "
           f"{where}. "
           f"The tests require {d['required']:g}x. Method: {d['method']}.", ""]
    for rt in runtimes.values():
        if not only_tools:
            out += [f"On {rt['title']}, Python {rt['python']}:", ""]
        out += [*_fidelity_table(rt, d["runs"]), ""]
    return [*out, *_image("timing_fidelity"), f"Measured on {_machine(d['environment'])}.", ""]


def _build(d: dict[str, Any]) -> list[str]:
    return [f"`make book` from nothing (every chapter executed): "
            f"**{d['clean_build_seconds']:g} s**; again with nothing changed: "
            f"**{d['rebuild_seconds']:g} s**.", "",
            *_image("book_build"), f"Measured on {_machine(d['environment'])}.", ""]


def _speedups(d: dict[str, Any], image: str = "course_speedups") -> list[str]:
    lines = ["| chapter | chart | bars (median per call, speedup over the slowest) |",
             "|---|---|---|"]
    for chapter, charts in d["chapters"].items():
        for chart in charts:
            bars = "; ".join(f"{name} {_seconds(sec)} ({chart['speedup_over_slowest'][name]:g}x)"
                             for name, sec in chart["seconds"].items())
            lines.append(f"| {_today(chapter)} | {chart['title']} | {bars} |".replace("\n", " "))
    m = d["matmul"]
    peak = (f", {m['fraction_of_peak']:.0%} of the datasheet's {m['peak_tflops']:g}"
            if m["fraction_of_peak"] is not None else
            " (no datasheet peak for this device, so no fraction is given)")
    source = d.get("charts_from", "the chapters, executed for this benchmark")
    return [f"The charts' numbers come from {source}.", "", *lines, "",
            *_image(image),
            f"A {m['n']}x{m['n']} {m['dtype']} matrix product ran at {m['tflops']:g} TFLOP/s "
            f"on `{m['device_kind']}`{peak}.", "",
            f"Measured on {_machine(d['environment'])}.", ""]


_TERM_STAGES = {
    "fetch": "`fetch --deadline --roster --jobs N`: list, clone, take each repository at "
             "its last push by the deadline, copy the notebooks",
    "shards": "the shards' results written (synthetic, see above: no grading)",
    "merge": "`merge`: verify each shard's manifest, copy the results",
    "gradebook": "every grade recorded in the nbgrader gradebook (SQLite), the assignment "
                 "generated into it first",
    "reports": "`grades.csv`, `summary.md`, `scores.png`",
    "Canvas export": "the Canvas gradebook import from Canvas's export of every learner",
    "Moodle export": "the Moodle grade import, keyed by the roster",
    "return feedback": "`return-feedback --jobs N`: one commit per learner, pushed",
}


def _term(d: dict[str, Any]) -> list[str]:
    """The term's wall time per stage, and what each stage produced."""
    total = sum(d["seconds"].values())
    rows = ["| stage | what runs | seconds | share |", "|---|---|---:|---:|"]
    rows += [f"| {name} | {_TERM_STAGES.get(name, '')} | {sec:.1f} | {sec / total:.0%} |"
             for name, sec in d["seconds"].items()]
    f, e, load = d["fetch"], d["exports"], d["load_average"]
    return [f"{d['learners']:,} learners, assignment {', '.join(d['assignments'])}, "
            f"{d['shards']} shards, `--jobs {d['jobs']}`: **{total:.0f} s** from fetch to the "
            f"last feedback pushed ({total / 60:.1f} minutes; making the {d['learners']:,} "
            f"repositories beforehand took {d['setup_seconds']:g} s more).", "", *rows, "",
            f"- fetch took {f['taken']} repositories ({f['failed']} failed, {f['not_taken']} "
            f"not taken); {f['late']} learners pushed after the deadline, {f['backdated']} of "
            "them with commits dated before it (reported as backdated).",
            f"- {d['results']} results merged; the Canvas file has {e['canvas']['rows']} rows "
            f"and the Moodle file {e['moodle']['rows']} (headers and Canvas's points row "
            f"included; unmatched: {e['canvas']['unmatched']} and {e['moodle']['unmatched']}); "
            f"`summary.md` is {d['summary_bytes'] / 1024:.0f} KiB.",
            f"- Feedback pushed to {d['returned']['pushed']} repositories "
            f"({d['returned']['failed']} failed).",
            f"- Each feedback page stood in at {d['page_kb']} KiB (a size chosen, not measured).",
            f"- The load average was {load['before']:g} when the run began and "
            f"{load['after']:g} when it ended, on {d['environment']['cpu_count']} CPUs"
            + (": the machine was shared, so every stage here is slower than it would be on "
               "the machine alone." if max(load.values()) > d["environment"]["cpu_count"]
               else "."), "",
            *_image("term_at_scale"), f"Measured on {_machine(d['environment'])}.", ""]


def _seconds(value: float) -> str:
    from autograder.kernel.timing import format_seconds

    return format_seconds(value)


SECTIONS = (
    ("Grading throughput", "grading_throughput", _throughput,
     "One batch graded three ways in one run: (a) plain nbgrader as documented "
     "(`nbgrader generate_assignment`, then `nbgrader autograde <assignment>`, which grades "
     "the assignment's submissions in turn; one command of each per assignment), its sources "
     "given every check's expected value so that its kernels decide the same checks; (b) "
     "`python -m autograder grade --jobs 1`, which takes the expected values from the trusted "
     "runs of the reference answers, rebuilds each submission from the source, runs it in a "
     "sandbox, decides the checks outside the kernel and writes feedback pages; (c) the same "
     "with `--jobs` set to the CPU count. Beside them, the notebooks (b) executed (rebuilt, "
     "tests and all) are executed again with nbclient alone, one fresh kernel each, cold: "
     "what grading costs over merely running the work. (c) runs again on each built runtime "
     "`grade --runtime` grades on (Colab's JAX, the newest), beside the same (a)."),
    ("A week of a 1,000-learner term", "term_at_scale", _term,
     "One assignment's weekly cycle for a class of 1,000 (`bench/term.py`), every stage as "
     "the instructor's commands run it, except grading: grading 1,000 notebooks takes hours "
     "on this machine (the section above measures grading itself), so the shards' results "
     "are synthesised as `grade` writes them (each `result.json` with the assignment's real "
     "questions and points, a stand-in feedback page, the shard's manifest). The "
     "learners' repositories are local (`file://`), listed and dated by a stand-in for "
     "GitHub's REST API on the same machine, so no network time is in these figures."),
    ("Timing-test fidelity", "timing_fidelity", _fidelity,
     "How often the exercises' timing tests fail a correct answer (false fail) or pass a slow "
     "one (false pass), on each runtime `grade --runtime` grades on (its own JAX). Target: 0 "
     "of 100 for each."),
    ("Book build", "book_build", _build, ""),
    ("The course's own speedups", "course_speedups", _speedups,
     "Every timing chart the chapters draw, at their default sizes, as the chapters "
     "measured them while they ran. GPU and TPU figures appear only once they have been "
     "measured on one."),
)
# Measured on an accelerator only when one was at hand: shown where measured, else left out.
ACCELERATOR_SECTIONS = (
    ("The course's own speedups on a GPU", "gpu/course_speedups",
     lambda d: _speedups(d, "gpu/course_speedups"),
     "The same charts with the chapters run on one GPU, at the sizes the chapters pick for a "
     "GPU (`python -m bench.run --only speedups` there). Chapters 11 and 13 ask for eight "
     "simulated CPU devices when fewer than two accelerators exist, so their charts ran on "
     "the CPU; the table says which device each chart ran on only through its title."),
)


def render(results: Path = RESULTS) -> str:
    """The Performance page's Markdown for the results in ``results``."""
    out = ["# Performance", "",
           "What the course promises, measured by `make bench` (see `bench/` in the "
           "repository). The numbers below are read from the JSON files that run wrote to "
           "`bench/results/`; each section names the machine and versions. Chapters and "
           "questions are named as the course names them today, also where a result was "
           "recorded under an earlier name (book/instructors.md, \"Renamed assignments\").",
           ""]
    run = _load("bench_run", results)
    if run:
        out += [f"The last full `make bench` took {run['total_minutes']:g} minutes "
                f"(target: at most {run['target_minutes']}).", ""]
        if run["total_minutes"] > run["target_minutes"]:
            parts = ", ".join(f"{name} {sec / 60:.1f}" for name, sec in run["seconds"].items())
            out += [f"Over the target; minutes per benchmark: {parts}.", ""]
    for title, name, section, intro in SECTIONS:
        out += [f"## {title}", ""] + ([intro, ""] if intro else [])
        data = _load(name, results)
        out += section(data) if data else ["Not measured yet: run `make bench`.", ""]
    for title, name, section, intro in ACCELERATOR_SECTIONS:
        data = _load(name, results)
        if data:
            out += [f"## {title}", "", intro, "", *section(data)]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page, or with ``--check`` report whether it is up to date."""
    args = sys.argv[1:] if argv is None else argv
    page = render()
    if "--check" in args:
        if not PAGE.exists() or PAGE.read_text() != page:
            print("book/performance.md is out of date: run `python -m bench.report`",
                  file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page)
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
