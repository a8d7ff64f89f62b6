"""Tests of bench/: the benchmarks run at tiny sizes, write JSON and plots, and feed the page."""

import json
import platform
from pathlib import Path

import jax
import pytest

from autograder.grader import runtime_choice
from autograder.tests.conftest import RUNTIME_NAMES, asked_runtimes, kernel_runtime
from bench import report
from bench.run import main
from bench.throughput import submission


def _tiny(tmp_path_factory, *names: str, runtimes: str = "tools") -> Path:
    """The benchmarks ``names`` at their tiny size, into a folder of their own (fidelity and
    throughput on ``runtimes``)."""
    out = tmp_path_factory.mktemp("bench")
    assert main(["--tiny", "--only", ",".join(names), "--out", str(out),
                 "--runtimes", runtimes]) == 0
    return out


def _asked_built() -> list[str]:
    """The built runtimes (colab, newest) ``LEARN_JAX_RUNTIMES`` asks for, each installed
    (:func:`kernel_runtime` fails, saying how to build it, when one is not)."""
    names = [name for name in RUNTIME_NAMES if name in asked_runtimes()]
    for name in names:
        kernel_runtime(name)
    return names


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """Grading throughput, the course's speedups and the term at their tiny sizes (no timing
    test runs: 03_pure_functions has none), into one folder; throughput's (c) on the grader's
    runtime and on each built runtime asked for, in the same run (one (a) and (b) for all)."""
    return _tiny(tmp_path_factory, "throughput", "speedups", "term",
                 runtimes=",".join(_asked_built()) or "tools")


@pytest.fixture(scope="module")
def tiny_fidelity(tmp_path_factory) -> Path:
    """The timing-test fidelity run at its tiny size on the grader's runtime (its tests are
    marked ``timing``)."""
    return _tiny(tmp_path_factory, "fidelity")


@pytest.fixture(scope="module")
def built() -> list[str]:
    """The built runtimes (colab, newest) ``LEARN_JAX_RUNTIMES`` asks for, each installed; the
    test is skipped when it asks for none."""
    names = _asked_built()
    if not names:
        pytest.skip("no built runtime is asked for: set LEARN_JAX_RUNTIMES (make test does)")
    return names


@pytest.fixture(scope="module")
def tiny_fidelity_built(tmp_path_factory, built: list[str]) -> Path:
    """The timing-test fidelity run at its tiny size on each built runtime asked for."""
    return _tiny(tmp_path_factory, "fidelity", runtimes=",".join(built))


def _saved(folder: Path, name: str) -> dict:
    data = json.loads((folder / f"{name}.json").read_text())
    env = data["environment"]
    assert env["packages"]["jax"] and env["cpu_count"] and env["devices"] and env["date"]
    assert (folder / f"{name}.png").stat().st_size > 5_000
    return data


@pytest.mark.timing  # runs the timing tests, loading every core: one at a time under xdist
def test_fidelity_records_false_fails_and_passes(tiny_fidelity: Path) -> None:
    """Does the fidelity run report false_fail/false_pass per question and condition, the
    pinned condition too (its process confined to one job's share of the CPUs)?"""
    from bench.fidelity import pinned_share

    data = _saved(tiny_fidelity, "timing_fidelity")
    share = pinned_share()
    assert data["pinned_cpus"] == share
    assert list(data["runtimes"]) == ["tools"]  # --runtimes tools: no built runtime ran
    tools = data["runtimes"]["tools"]
    assert (tools["jax"], tools["python"]) == (jax.__version__, platform.python_version())
    for condition in ("idle", "busy") + (("pinned",) if share else ()):
        for q in tools["conditions"][condition]["questions"].values():
            assert {"false_fail", "false_pass"} <= set(q)
            assert q["reference"]["runs"] == 2 and q["reference"]["speedups"]
            assert q["reference"]["timing_calls_per_run"] >= 1


def test_throughput_ways_agree_on_scores(tiny: Path) -> None:
    """Do the three ways of grading a tiny batch agree on scores, with a rate for each, and
    does the result say (c) pinned its kernels, as ``grade`` does by default?"""
    data = _saved(tiny, "grading_throughput")
    assert data["scores_agree"], data["scores_differ"]
    assert data["c_pinned"] is True
    assert data["total_score"] > 0  # the correct submission earned points
    assert {k: v["slowdown"] > 0 for k, v in data["two_at_once"].items()} == {
        "python": True, "jax": True}  # the machine's two-at-once workloads both ran
    assert all(w["throughput_per_minute"] > 0 for w in data["ways"].values())
    assert list(data["runtimes"]) == ["tools", *_asked_built()]  # the built ones: below
    tools = data["runtimes"]["tools"]
    assert tools["name"] == "tools" and tools["way"] == data["ways"]["c_grade_jobs_n"]
    assert tools["c_speedup_over_a"] == data["throughput_c_speedup_over_a"]


def test_speedups_collect_every_chart_of_a_chapter(tiny: Path) -> None:
    """Does executing a chapter collect each of its timing charts, with speedups (10 draws two:
    NumPy vs jnp vs jit, and the eager vs jitted training step)?"""
    data = _saved(tiny, "course_speedups")
    charts = data["chapters"]["02_key_concepts"]
    assert len(charts) == 2
    assert all(max(c["speedup_over_slowest"].values()) > 1 for c in charts)
    assert data["matmul"]["tflops"] > 0


def test_page_shows_what_each_result_says(tiny: Path) -> None:
    """Does the Performance page quote the results' numbers (the generated course kept for
    (b) and (c), and (a)'s own generating, too), and say what is unmeasured?"""
    page = report.render(tiny)
    data = json.loads((tiny / "grading_throughput.json").read_text())
    rate = data["ways"]
    assert f"{rate['b_grade_jobs_1']['throughput_per_minute']:g}" in page
    assert f"`generate_assignment` for every assignment, " \
           f"{data['trusted_runs']['course_seconds']:g} s here" in page
    assert f"({data['a_generate_seconds']:g} s of it)" in page
    assert "../bench/results/course_speedups.png" in page
    assert "## Timing-test fidelity\n\n" in page and "## Book build\n\nNot measured yet" in page
    assert page.count("Not measured yet") == 2  # fidelity (not run here) and the book build


def test_term_runs_every_stage_and_the_page_shows_them(tiny: Path) -> None:
    """Does the tiny term (6 learners) time every stage, fetch all six repositories (the sixth
    pushed after the deadline a commit dated before it: late and backdated), merge, export
    and return all six, and does the page give each stage's seconds?"""
    data = _saved(tiny, "term_at_scale")
    assert list(data["seconds"]) == ["fetch", "shards", "merge", "gradebook", "reports",
                                     "Canvas export", "Moodle export", "return feedback"]
    assert all(sec >= 0 for sec in data["seconds"].values())
    assert data["fetch"] == {"taken": 6, "failed": 0, "not_taken": 0, "late": 1,
                             "backdated": 1}
    assert data["results"] == 6 and data["returned"] == {"pushed": 6, "failed": 0}
    assert data["exports"]["canvas"] == {"rows": 8, "unmatched": 0}  # header, points, 6
    assert data["exports"]["moodle"] == {"rows": 7, "unmatched": 0}
    page = report.render(tiny)
    for name, sec in data["seconds"].items():
        assert f"| {name} | " in page and f" | {sec:.1f} | " in page
    assert "../bench/results/term_at_scale.png" in page and "synthesised" in page


@pytest.mark.timing
def test_page_shows_the_fidelity_conditions(tiny_fidelity: Path) -> None:
    """Does the page show each fidelity condition's false fails, the pinned one saying which
    CPUs its process ran on?"""
    data = json.loads((tiny_fidelity / "timing_fidelity.json").read_text())
    page = report.render(tiny_fidelity)
    assert "../bench/results/timing_fidelity.png" in page
    for condition in data["runtimes"]["tools"]["conditions"]:
        assert f"| {condition} | 0 / 2 |" in page or f"| {condition} | 1 / 2 |" in page \
            or f"| {condition} | 2 / 2 |" in page
    if data["pinned_cpus"]:
        assert f"confined to CPU(s) {', '.join(map(str, data['pinned_cpus']))}" in page


def test_committed_page_matches_committed_results() -> None:
    """Is book/performance.md what bench/results/ says (python -m bench.report --check)?"""
    assert report.main(["--check"]) == 0


@pytest.mark.parametrize("kind", ["correct", "partial", "wrong", "stub"])
def test_batch_submissions_fill_answers_as_named(kind: str) -> None:
    """Are a batch submission's answer cells the source's answers, stubs or wrong fixtures?"""
    nb = submission("06_jit", kind)
    answers = [c.source for c in nb.cells if "nbgrader" in c.metadata
               and c.metadata["nbgrader"].get("solution")]
    stubs = sum("NotImplementedError" in a for a in answers)
    assert all("### BEGIN SOLUTION" not in a for a in answers)
    expected = {"correct": 0, "partial": len(answers) - len(answers) // 2, "wrong": 0,
                "stub": len(answers)}[kind]
    assert stubs == expected


def test_unknown_benchmark_is_a_usage_error(tmp_path: Path) -> None:
    """Is an unknown benchmark name refused with exit status 2?"""
    assert main(["--only", "nope", "--out", str(tmp_path)]) == 2


def test_a_chart_from_no_chapter_is_refused(tmp_path: Path) -> None:
    """Is a recorded chart whose cell is in no chapter refused, naming its line?"""
    from bench.speedups import collect

    record = tmp_path / "timings.jsonl"
    record.write_text(json.dumps({"title": "stray", "seconds": {"a": 1.0}, "cell": "0" * 16})
                      + "\n")
    with pytest.raises(ValueError, match=r"timings.jsonl:1: chart 'stray'"):
        collect(record)


@pytest.mark.parametrize(("c_cpu", "says"), [
    (330.0, "Beyond what (a) does"),       # more work than plain nbgrader
    (300.0, "a further 18% less CPU"),     # less than (a), more than two cores can finish
    (236.5, "The work fits: the bar needs 1.91 cores busy"),  # idle cores, not work
])
def test_a_missed_speedup_bar_says_why(c_cpu: float, says: str) -> None:
    """Does a missed (c) bar name its cause (too much CPU work, or idle cores), never a
    negative saving?"""
    a = {"seconds": 309.3, "cpu_seconds": 325.1, "cores_busy": 1.05}
    c = {"seconds": 128.7, "cpu_seconds": c_cpu, "cores_busy": round(c_cpu / 128.7, 2)}
    why = report._why_c_short(a, c, 2.5, 2)
    assert says in why and "-" not in why.replace("--", "")


def test_the_floor_of_c_follows_the_machines_two_at_once_slowdown() -> None:
    """Does the page put (c)'s floor at the grading's CPU work (the less of (b)'s and (c)'s)
    over the cores, times the worse of the machine's measured side-by-side slowdowns (never
    below 1), and say nothing without them?"""
    a, b, c = {"seconds": 274.1}, {"cpu_seconds": 203.4}, {"cpu_seconds": 224.8}
    two = {"python": {"slowdown": 0.985, "repeats": 5}, "jax": {"slowdown": 1.059, "repeats": 5}}
    (line,) = report._c_floor({"two_at_once": two}, a, b, c, 2)
    assert "(the less of (b)'s and (c)'s, 203.4 CPU seconds)" in line
    assert "with none idle takes 102 s (2.70 times (a))" in line
    assert "python 0.985 and jax 1.059 times as long" in line
    assert "floor at up to 108 s (2.55 times (a))" in line
    less = report._c_floor({"two_at_once": two}, a, b, {"cpu_seconds": 180.0}, 2)[0]
    assert "180 CPU seconds" in less
    faster = {k: {**v, "slowdown": 0.9} for k, v in two.items()}  # noise: never below 1
    assert "floor at up to 102 s" in report._c_floor({"two_at_once": faster}, a, b, c, 2)[0]
    assert report._c_floor({}, a, b, c, 2) == []


# ------------------------------------------------------------ on each runtime graded (issue 36)


@pytest.mark.runtimes
@pytest.mark.timing
def test_fidelity_runs_in_each_built_runtimes_own_jax(tiny_fidelity_built: Path,
                                                      built: list[str]) -> None:
    """On each built runtime asked for, is the fidelity run made in that runtime's own Python
    and JAX (the versions its process reported, those the runtime registered), idle, with the
    reference answer's speedups measured, and does the page give that runtime a table of its
    own, named as grading names it?"""
    from bench.fidelity import ELSEWHERE

    data = _saved(tiny_fidelity_built, "timing_fidelity")
    assert list(data["runtimes"]) == built
    page = report.render(tiny_fidelity_built)
    for name in built:
        runtime = runtime_choice.resolve(name)
        measured = data["runtimes"][name]
        assert measured["jax"] == runtime.jax and measured["python"].startswith("3.13.")
        assert tuple(measured["conditions"]) == ELSEWHERE
        for q in measured["conditions"]["idle"]["questions"].values():
            assert q["reference"]["runs"] == 2 and q["reference"]["speedups"], q
            assert {"false_fail", "false_pass"} <= set(q)
        assert f"On {runtime_choice.title(name, runtime.jax)}, Python {measured['python']}:" \
            in page


@pytest.mark.runtimes
def test_throughput_grades_on_each_built_runtime_against_plain_nbgrader(
        tiny: Path, built: list[str]) -> None:
    """Does (c) run on each built runtime asked for (``grade --runtime NAME``), after its
    trusted runs, with its scores the same as plain nbgrader's (a) on the grader's own, and
    does the page give each runtime a table with (a) and that (c), checking the bar there?"""
    data = _saved(tiny, "grading_throughput")
    assert list(data["runtimes"]) == ["tools", *built]
    page = report.render(tiny)
    a = data["ways"]["a_plain_nbgrader"]["seconds"]
    for name in built:
        runtime = runtime_choice.resolve(name)
        rt = data["runtimes"][name]
        assert (rt["jax"], rt["title"]) == (runtime.jax, runtime_choice.title(name, runtime.jax))
        assert rt["scores_agree"], rt["scores_differ"]
        assert rt["trusted_seconds"] > 0 and f"--runtime {name}" in rt["way"]["how"]
        assert rt["c_speedup_over_a"] == round(a / rt["way"]["seconds"], 2)
        block = page[page.index(f"On {rt['title']}, Python {rt['python']} (trusted runs"):]
        block = block.split("\n\nOn ", 1)[0]  # this runtime's table, to the next one's
        assert "| `nbgrader generate_assignment`" in block and f"--runtime {name}" in block
        assert f"(c) is {rt['c_speedup_over_a']:g} times as fast as (a); target at least " \
               "2.5: **" in block


def test_the_bar_is_checked_on_each_runtime() -> None:
    """Is (c)'s bar (at least 2.5 times (a)) met or not met runtime by runtime, each beside
    the same (a), with scores that differ from (a)'s named?"""
    a = {"how": "nbgrader generate_assignment, then autograde, per assignment",
         "seconds": 300.0, "throughput_per_minute": 7.2, "cpu_seconds": 310.0, "cores_busy": 1.0}

    def on(name: str, seconds: float, differ: list[str]) -> dict:
        return {"name": name, "jax": "0.7.2", "python": "3.13.5",
                "title": runtime_choice.title(name, "0.7.2"), "trusted_seconds": 60.0,
                "way": {"how": f"python -m autograder grade --jobs 2 --runtime {name}",
                        "seconds": seconds, "throughput_per_minute": 1.0, "cpu_seconds": 1.0,
                        "cores_busy": 1.0},
                "c_speedup_over_a": round(300.0 / seconds, 2), "scores_agree": not differ,
                "scores_differ": differ}

    lines = report._per_runtime({"ways": {"a_plain_nbgrader": a},
                                 "targets": {"c_speedup_over_a_at_least": 2.5},
                                 "runtimes": {"colab": on("colab", 100.0, []),
                                              "newest": on("newest", 150.0, ["s02/06_jit"])}})
    text = "\n".join(lines)
    colab, newest = text.split("On the newest JAX")
    assert "(c) is 3 times as fast as (a); target at least 2.5: **met**" in colab
    assert "the same as (a)'s for every submission" in colab
    assert "(c) is 2 times as fast as (a); target at least 2.5: **not met**" in newest
    assert "DIFFERENT from (a)'s for s02/06_jit" in newest
    assert text.count("`nbgrader generate_assignment`") == 2  # (a) in each runtime's table
    assert report._per_runtime({"ways": {}, "targets": {}}) == []  # results from before


def test_runtimes_named_must_be_known_and_installed(tmp_path: Path, monkeypatch,
                                                    capsys) -> None:
    """Is ``--runtimes`` naming an unknown runtime, or one not installed, a usage error (exit
    2) that says which runtimes exist or how to add the missing one, before anything runs?"""
    assert main(["--only", "fidelity", "--runtimes", "tools,jupiter",
                 "--out", str(tmp_path)]) == 2
    assert "unknown runtime(s): jupiter; known: colab, newest, tools" in capsys.readouterr().err
    monkeypatch.setattr(runtime_choice, "installed", lambda: {"tools": runtime_choice.tools()})
    assert main(["--only", "fidelity", "--runtimes", "colab", "--out", str(tmp_path)]) == 2
    assert "make setup-colab" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing measured, nothing written


def test_results_recorded_under_old_names_are_shown_under_todays() -> None:
    """Does the Performance page name a chapter, or a chapter's question, that an earlier run
    recorded under the chapter's old name by today's name (the question too where it moved to
    another exercise), and leave today's names and unknown ones as they are?"""
    assert report._today("05_jit") == "06_jit"
    assert report._today("05_jit/q5_fast_smooth") == "06_jit/q5_fast_smooth"
    assert report._today("08_sharding/q5_fsdp_sgd_step") == "12_shard_map/q1_fsdp_sgd_step"
    assert report._today("08_pmap") == "11_sharding"
    assert report._today("06_jit/q5_fast_smooth") == "06_jit/q5_fast_smooth"
    assert report._today("00_tiny") == "00_tiny"


def test_page_says_when_the_compile_share_was_not_measured(tmp_path: Path) -> None:
    """Does the Performance page give the bare execution's compile seconds, and where they were
    summed from, when the throughput result has them, and say "not measured in this run", with
    the result's reason, when it has none (a count known to be wrong is not shown)?"""
    import shutil

    from bench.common import RESULTS

    for path in RESULTS.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    data = json.loads((tmp_path / "grading_throughput.json").read_text())
    data.update(bare_compile_seconds=120.5, bare_compile_share=0.4,
                bare_compile_from="JAX's compile-duration events")
    (tmp_path / "grading_throughput.json").write_text(json.dumps(data))
    page = report.render(tmp_path)
    assert "120.5 s (40%) were JAX tracing, lowering and compiling (summed from JAX's " \
           "compile-duration events)" in page
    data.update(bare_compile_seconds=None, bare_compile_share=None,
                bare_compile_note="the log was off")
    (tmp_path / "grading_throughput.json").write_text(json.dumps(data))
    page = report.render(tmp_path)
    assert "was JAX compiling: not measured in this run (the log was off)." in page
    assert "120.5 s" not in page
