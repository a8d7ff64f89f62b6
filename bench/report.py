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
    """A way that is a command line, as code (so ``--jobs`` stays two hyphens), else as is."""
    return f"`{how}`" if how.startswith("python ") else how


def _throughput(d: dict[str, Any]) -> list[str]:
    ways = d["ways"]
    lines = ["| how | seconds | submissions per minute | CPU seconds | cores busy |",
             "|---|---:|---:|---:|---:|"]
    lines += [f"| {_command(w['how'])} | {w['seconds']:g} | {w['throughput_per_minute']:g} | "
              f"{w['cpu_seconds']:g} | {w['cores_busy']:g} |" for w in ways.values()]
    t = d["targets"]
    b_ok = d["throughput_b_over_a_time"] <= t["b_over_a_time_at_most"]
    c_ok = d["throughput_c_speedup_over_a"] >= t["c_speedup_over_a_at_least"]
    a, b, c = (ways[k] for k in ("a_plain_nbgrader", "b_grade_jobs_1", "c_grade_jobs_n"))
    cores = d["environment"]["cpu_count"]
    why_c = []
    if not c_ok:
        ceiling = a["seconds"] / (c["cpu_seconds"] / cores)
        why_c = [f"  Why: (c) kept {c['cores_busy']:g} of {cores} cores busy on average, and "
                 f"its work took {c['cpu_seconds']:g} CPU seconds where (a) took "
                 f"{a['cpu_seconds']:g}. Of that difference, (b) shows what one job adds: "
                 f"{b['cpu_seconds']:g} CPU seconds, for the trusted run of each assignment's "
                 "reference answers (which records what every check expects; (a) is given "
                 "those values, recorded before its timing starts), rebuilding each "
                 "submission from the source, proof tokens and feedback pages. The rest "
                 f"({c['cpu_seconds'] / b['cpu_seconds'] - 1:.0%} more than (b)) is what the "
                 "same work costs when two jobs run it side by side on the two cores. Even "
                 f"with every core busy all the time, that work would make (c) at most "
                 f"{ceiling:.2f} times (a)."]
    kinds = ", ".join(f"{n} {k}" for k, n in d["kinds"].items())
    return [f"{d['submissions']} submissions across the nine assignments ({kinds}).", "",
            *lines, "",
            f"- (b) takes {d['throughput_b_over_a_time']:g} times as long as (a); target at "
            f"most {t['b_over_a_time_at_most']:g}: **{'met' if b_ok else 'not met'}**.",
            f"- (c) is {d['throughput_c_speedup_over_a']:g} times as fast as (a); target at "
            f"least {t['c_speedup_over_a_at_least']:g}: **{'met' if c_ok else 'not met'}**.",
            *why_c,
            f"- The three ways gave {'the same' if d['scores_agree'] else 'DIFFERENT'} scores "
            "for every submission.", "", *_image("grading_throughput"),
            f"Measured on {_machine(d['environment'])}.", ""]


def _fidelity(d: dict[str, Any]) -> list[str]:
    lines = ["| question | condition | false fails | false passes | reference speedup "
             "(min / median) | slow answer (max) |", "|---|---|---:|---:|---:|---:|"]
    for condition, c in d["conditions"].items():
        for name, q in c["questions"].items():
            ref = sorted(q["reference"]["speedups"])
            slow = q["slow"]["speedups"]
            lines.append(f"| {name} | {condition} | {q['false_fail']} / {d['runs']} | "
                         f"{q['false_pass']} / {d['runs']} | {ref[0]:.1f}x / "
                         f"{ref[len(ref) // 2]:.1f}x | {max(slow):.2f}x |")
    return [f"Each timing test ran {d['runs']} times with the reference answer and "
            f"{d['runs']} times with a correct but slow answer (not jitted, or a Python loop), "
            f"on an idle machine and with {d['busy_cores']} processes spinning on the CPUs. "
            f"The tests require {d['required']:g}x. Method: {d['method']}.", "", *lines, "",
            *_image("timing_fidelity"), f"Measured on {_machine(d['environment'])}.", ""]


def _build(d: dict[str, Any]) -> list[str]:
    return [f"`make book` from nothing (every chapter executed): "
            f"**{d['clean_build_seconds']:g} s**; again with nothing changed: "
            f"**{d['rebuild_seconds']:g} s**.", "",
            *_image("book_build"), f"Measured on {_machine(d['environment'])}.", ""]


def _speedups(d: dict[str, Any]) -> list[str]:
    lines = ["| chapter | chart | bars (median per call, speedup over the slowest) |",
             "|---|---|---|"]
    for chapter, charts in d["chapters"].items():
        for chart in charts:
            bars = "; ".join(f"{name} {_seconds(sec)} ({chart['speedup_over_slowest'][name]:g}x)"
                             for name, sec in chart["seconds"].items())
            lines.append(f"| {chapter} | {chart['title']} | {bars} |".replace("\n", " "))
    m = d["matmul"]
    peak = (f", {m['fraction_of_peak']:.0%} of the datasheet's {m['peak_tflops']:g}"
            if m["fraction_of_peak"] is not None else
            " (no datasheet peak for this device, so no fraction is given)")
    source = d.get("charts_from", "the chapters, executed for this benchmark")
    return [f"The charts' numbers come from {source}.", "", *lines, "",
            *_image("course_speedups"),
            f"A {m['n']}x{m['n']} {m['dtype']} matrix product ran at {m['tflops']:g} TFLOP/s "
            f"on `{m['device_kind']}`{peak}.", "",
            f"Measured on {_machine(d['environment'])}.", ""]


def _seconds(value: float) -> str:
    from autograder.timing import format_seconds

    return format_seconds(value)


SECTIONS = (
    ("Grading throughput", "grading_throughput", _throughput,
     "One batch graded three ways in one run: (a) plain nbgrader as documented "
     "(`nbgrader generate_assignment`, then `nbgrader autograde <assignment>`, which grades "
     "the assignment's submissions in turn; one command of each per assignment), its sources "
     "given every check's expected value so that its kernels decide the same checks; (b) "
     "`python -m autograder grade --jobs 1`, which also runs each assignment's reference "
     "answers once (the trusted run), rebuilds each submission from the source, decides the "
     "checks outside the kernel and writes feedback pages; (c) the same with `--jobs` set to "
     "the CPU count."),
    ("Timing-test fidelity", "timing_fidelity", _fidelity,
     "How often the exercises' timing tests fail a correct answer (false fail) or pass a slow "
     "one (false pass). Target: 0 of 100 for each."),
    ("Book build", "book_build", _build, ""),
    ("The course's own speedups", "course_speedups", _speedups,
     "Every timing chart the chapters draw, at their default sizes, as the chapters "
     "measured them while they ran. GPU and TPU figures appear only once they have been "
     "measured on one."),
)


def render(results: Path = RESULTS) -> str:
    """The Performance page's Markdown for the results in ``results``."""
    out = ["# Performance", "",
           "What the course promises, measured by `make bench` (see `bench/` in the "
           "repository). The numbers below are read from the JSON files that run wrote to "
           "`bench/results/`; each section names the machine and versions.", ""]
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
