"""`make bench`: run the benchmarks and write bench/results/<name>.json and .png.

    python -m bench.run                   # everything, full sizes
    python -m bench.run --only fidelity   # one benchmark (or several, comma-separated)
    python -m bench.run --tiny --out DIR  # a quick check that they run (make test uses it)
    python -m bench.run --runtimes tools  # fidelity and throughput on the grader's runtime only

Benchmarks: throughput (grading), fidelity (timing tests), build (the book), speedups (the
chapters' timing charts, and a large matrix product), term (a week of a 1,000-learner term:
fetch, shards, merge, gradebook, reports, LMS files, feedback return). When build and
speedups run together, the charts are those the clean book build drew; ``--only speedups``
executes the chapters.

Fidelity and throughput are measured on each runtime ``grade --runtime`` grades on
(``--runtimes``, default every one installed: :mod:`autograder.grader.runtime_choice`): the
timing tests replayed in that runtime's JAX (idle; the grader's own also busy and pinned), and
``grade --jobs N --runtime NAME`` beside plain nbgrader, which runs on the grader's own.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from bench import build, common, fidelity, report, speedups, term, throughput

NAMES = ("throughput", "fidelity", "build", "speedups", "term")


def _throughput(tiny: bool, out: Path, _timings: Path, runtimes: list[str]) -> None:
    data = (throughput.run(size=2, chapters=["03_pure_functions"], unpinned=False,
                           machine=(0.3, 1), runtimes=runtimes) if tiny
            else throughput.run(runtimes=runtimes))
    throughput.plot(data, out / "grading_throughput.png")
    t = data["targets"]
    print(f"  (b)/(a) time {data['throughput_b_over_a_time']} (target <= "
          f"{t['b_over_a_time_at_most']}), (c) is {data['throughput_c_speedup_over_a']}x (a) "
          f"(target >= {t['c_speedup_over_a_at_least']}), (b) over bare execution "
          f"{data['overhead_over_bare']} (target <= {t['overhead_over_bare_at_most']}), scores "
          f"agree: {data['scores_agree']} -> {common.save('grading_throughput', data, out)}")
    if "pinned_over_unpinned" in data:
        ratio = data["pinned_over_unpinned"]
        print(f"  (c) pinned over --no-pin-cpus: time {ratio['seconds']}, CPU seconds "
              f"{ratio['cpu_seconds']}")
    for name, rt in data["runtimes"].items():
        print(f"  (c) on {name} (JAX {rt['jax']}): {rt['c_speedup_over_a']}x (a), scores agree "
              f"with (a): {rt['scores_agree']}")


def _fidelity(tiny: bool, out: Path, _timings: Path, runtimes: list[str]) -> None:
    cases = dict(list(fidelity.CASES.items())[:1]) if tiny else None
    data = fidelity.run(runs=2 if tiny else 100, cases=cases, runtimes=runtimes)
    path = common.save("timing_fidelity", data, out)
    fidelity.plot(data, out / "timing_fidelity.png")
    for rt in data["runtimes"].values():
        for condition, c in rt["conditions"].items():
            for name, q in c["questions"].items():
                print(f"  {rt['name']:6s} {condition:6s} {name}: false_fail "
                      f"{q['false_fail']}/{data['runs']}, false_pass "
                      f"{q['false_pass']}/{data['runs']}")
    print(f"  -> {path}")


def _build(tiny: bool, out: Path, timings: Path, _runtimes: list[str]) -> None:
    if tiny:
        print("  (skipped at tiny size: it is the book build make test already runs)")
        return
    data = build.run(timings)
    build.plot(data, out / "book_build.png")
    print(f"  clean {data['clean_build_seconds']} s, rebuild {data['rebuild_seconds']} s"
          f" -> {common.save('book_build', data, out)}")


def _speedups(tiny: bool, out: Path, timings: Path, _runtimes: list[str]) -> None:
    if tiny:
        data = speedups.run(chapters=["02_key_concepts"])  # two charts
    else:  # the clean book build of this run recorded every chart; else run the chapters
        data = speedups.run(record=timings if timings.exists() else None)
    speedups.plot(data, out / "course_speedups.png")
    m = data["matmul"]
    print(f"  charts of {len(data['chapters'])} chapters (from {data['charts_from']}); matmul "
          f"{m['n']}x{m['n']} {m['dtype']}: {m['tflops']} TFLOP/s on {m['device_kind']} -> "
          f"{common.save('course_speedups', data, out)}")


def _term(tiny: bool, out: Path, _timings: Path, _runtimes: list[str]) -> None:
    data = term.run(learners=6, shards=2, jobs=2, page_kb=1) if tiny else term.run()
    term.plot(data, out / "term_at_scale.png")
    stages = ", ".join(f"{name} {sec:g}" for name, sec in data["seconds"].items())
    print(f"  {data['learners']} learners, seconds per stage: {stages} -> "
          f"{common.save('term_at_scale', data, out)}")


def _runtimes(asked: str | None) -> list[str] | None:
    """The runtimes ``--runtimes`` names (every one installed when not given), each checked to
    be installed; None, after saying why on stderr, when one is unknown or missing."""
    from autograder.grader.runtime_choice import NAMES, how_to_add, installed

    found = installed()
    if asked is None:
        return list(found)
    chosen = [name.strip() for name in asked.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in NAMES]
    if unknown or not chosen:
        print(f"unknown runtime(s): {', '.join(unknown) or '(none given)'}; known: "
              f"{', '.join(NAMES)}", file=sys.stderr)
        return None
    missing = [name for name in chosen if name not in found]
    for name in missing:
        print(f"--runtimes: {how_to_add(name)}", file=sys.stderr)
    return None if missing else chosen


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks; exit 0 when each ran, 2 on a usage error."""
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("--only", default=",".join(NAMES),
                        help=f"comma-separated, from: {', '.join(NAMES)} (default: all)")
    parser.add_argument("--tiny", action="store_true", help="tiny sizes, to check they run")
    parser.add_argument("--out", type=Path, default=common.RESULTS)
    parser.add_argument("--runtimes", default=None,
                        help="comma-separated runtimes for fidelity and throughput, from: "
                             "colab, newest, tools (default: every one installed; throughput "
                             "always measures plain nbgrader and grade on tools)")
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = set(chosen) - set(NAMES)
    if unknown:
        print(f"unknown benchmark(s): {', '.join(sorted(unknown))}; "
              f"known: {', '.join(NAMES)}", file=sys.stderr)
        return 2
    runtimes = _runtimes(args.runtimes)
    if runtimes is None:
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    runners = {"throughput": _throughput, "fidelity": _fidelity, "build": _build,
               "speedups": _speedups, "term": _term}
    start = time.perf_counter()
    seconds = {}
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        timings = Path(tmp) / "chart_timings.jsonl"  # the book build's charts, for speedups
        for name in NAMES:
            if name in chosen:
                print(f"{name} ...", flush=True)
                began = time.perf_counter()
                runners[name](args.tiny, args.out, timings, runtimes)
                seconds[name] = round(time.perf_counter() - began, 1)
                print(f"  {name}: {seconds[name]:.0f} s", flush=True)
    total = time.perf_counter() - start
    print(f"benchmarks done in {total / 60:.1f} min")
    if set(chosen) == set(NAMES) and not args.tiny:
        common.save("bench_run", {"seconds": seconds, "total_minutes": round(total / 60, 1),
                                  "target_minutes": 30}, args.out)
    if not args.tiny and args.out.resolve() == common.RESULTS.resolve():
        report.main([])  # the book's Performance page shows what was just measured
    return 0


if __name__ == "__main__":
    sys.exit(main())
