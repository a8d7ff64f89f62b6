"""Tests of autograder.grader.judging.reference_run: the trusted run that records the reference
answers' values, check by check."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest

from autograder.core.evidence import Entry, decode
from autograder.grader.judging import reference_run
from autograder.grader.judging.reference_run import (
    code_digest,
    fingerprint,
    grader_digest,
    record,
    records_in,
    run_code,
    split_hidden,
    trusted_records,
)

IMPORTS = ("import jax\nimport jax.numpy as jnp\nfrom autograder.kernel.checks import check_array\n"
           "from autograder.kernel.hints import feedback\nfrom autograder.kernel.jax_checks import "
           "check_jitted\n")
DOUBLE = "def double(x):\n    return 2 * x\n"
TESTS = ('with feedback("Question 1"):\n'
         '    check_array(double(jnp.arange(3.0)), name="double(arange(3.0))")\n'
         "### BEGIN HIDDEN TESTS\n"
         'with feedback("Question 1 (hidden tests)"):\n'
         '    check_array(double(jnp.ones((2, 2))), name="double(ones((2, 2)))")\n'
         "### END HIDDEN TESTS\n")


def _source(folder: Path, answer: str = DOUBLE, tests: str = TESTS,
            name: str = "00_small.ipynb", imports: str = IMPORTS) -> Path:
    """A one-question nbgrader source notebook: ``imports``, ``answer``, then its ``tests``."""
    meta = {"schema_version": 3, "locked": False, "task": False}
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A small source"),
        nbformat.v4.new_code_cell(imports),
        nbformat.v4.new_code_cell(answer, metadata={"nbgrader": {
            **meta, "grade": False, "solution": True, "grade_id": "q1_double"}}),
        nbformat.v4.new_code_cell(tests, metadata={"nbgrader": {
            **meta, "grade": True, "solution": False, "grade_id": "q1_double_tests",
            "points": 1}}),
    ])
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / name)
    return folder / name


def _entries(report: dict[str, Any], gid: str = "q1_double_tests") -> list[Entry]:
    return [Entry.from_json(e) for e in report["tests"][gid]]


def test_split_hidden() -> None:
    """Is a test cell cut into the code before the hidden tests, the hidden tests (to their end
    marker) and the code after, and one without hidden tests kept whole?"""
    visible = 'check_array(f(1), name="f(1)")\n'
    hidden = '### BEGIN HIDDEN TESTS\ncheck_array(f(2), name="f(2)")\n### END HIDDEN TESTS\n'
    after = 'check_array(f(3), name="f(3)")\n'
    assert split_hidden(visible + hidden) == [(visible, False), (hidden, True)]
    assert split_hidden(visible + hidden + after) == [(visible, False), (hidden, True),
                                                      (after, False)]
    assert split_hidden(visible) == [(visible, False)]
    assert split_hidden(hidden) == [(hidden, True)]


def test_run_code_reports_how_it_ended() -> None:
    """Does run_code return what the code printed and the exception it raised, if any?"""
    ns: dict = {}
    ok = run_code("x = 2\nprint(x + 1)", ns, "<t>")
    assert ok.exc is None and ok.printed == "3\n" and ns["x"] == 2
    bad = run_code("print('before')\nraise SystemExit(3)", ns, "<t2>")
    assert isinstance(bad.exc, SystemExit) and bad.printed == "before\n"


def test_run_code_is_seeded() -> None:
    """Does every run start NumPy's global generator from the same seed?"""
    ns: dict = {"np": np}
    run_code("a = np.random.rand()", ns, "<a>")
    first = ns["a"]
    run_code("a = np.random.rand()", ns, "<a>")
    assert ns["a"] == first


def test_record_marks_hidden_entries(tmp_path: Path) -> None:
    """Does the trusted run record the visible check, then the hidden one marked hidden,
    with the reference answer's values and no errors?"""
    report = record(_source(tmp_path))
    assert report["errors"] == []
    entries = _entries(report)
    assert [(e.check, e.name, e.hidden) for e in entries] == [
        ("array", "double(arange(3.0))", False), ("array", "double(ones((2, 2)))", True)]
    np.testing.assert_array_equal(decode(entries[0].got), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(decode(entries[1].got), np.full((2, 2), 2.0))
    assert json.loads(json.dumps(report)) == report  # plain JSON


def test_record_prints_no_pass_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    """Does the trusted run keep the notebook's printing out of the grader's output?"""
    record(_source(tmp_path))
    assert "passed" not in capsys.readouterr().out


def test_record_of_the_tiny_course(tiny_course: Path) -> None:
    """Does the fixture course record every test cell without errors, each hidden entry
    coming from a hidden check (whether its checks name expected values or not)?"""
    report = record(tiny_course / "00_tiny.ipynb")
    assert report["errors"] == []
    assert set(report["tests"]) == {"q1_double_tests", "q2_set_first_tests"}
    for gid in report["tests"]:
        for entry in _entries(report, gid):
            assert entry.hidden == (entry.name in ("double(ones((2, 2)))",
                                                   "set_first(ones(2), -1.0)"))


def test_record_reports_a_reference_failing_its_rule(tmp_path: Path) -> None:
    """Is a reference answer that fails its own rule check (not jitted) reported as an
    error, with the check still recorded?"""
    tests = 'with feedback("Q1"):\n    check_jitted(double, name="double")\n'
    report = record(_source(tmp_path, tests=tests))
    assert len(report["errors"]) == 1
    assert report["errors"][0].startswith(
        "test cell q1_double_tests: the reference answer fails double is jitted: double is a "
        "plain function")
    assert [e.name for e in _entries(report)] == ["double is jitted"]
    jitted = record(_source(tmp_path, answer="@jax.jit\n" + DOUBLE, tests=tests,
                            name="00_jitted.ipynb"))
    assert jitted["errors"] == []
    assert [(e.got, e.options["rule"]) for e in _entries(jitted)] == [("ok", "ok")]


def test_record_reports_exceptions(tmp_path: Path) -> None:
    """Are a test cell that raises on the reference answer and an answer cell that raises
    both reported, and the checks made before the exception kept?"""
    tests = ('check_array(double(1.0), name="double(1.0)")\n'
             'raise ValueError("the reference is broken")\n')
    report = record(_source(tmp_path, tests=tests))
    assert report["errors"] == ["test cell q1_double_tests failed on the reference answer: "
                                "ValueError: the reference is broken"]
    assert [e.name for e in _entries(report)] == ["double(1.0)"]
    broken = record(_source(tmp_path, answer=DOUBLE + "1 / 0\n", name="00_broken.ipynb"))
    assert len(broken["errors"]) == 1 and broken["errors"][0].startswith("cell 2 failed: ")
    assert "ZeroDivisionError" in broken["errors"][0]


def test_record_code_after_the_hidden_block_is_visible(tmp_path: Path) -> None:
    """Is a check after the hidden block (released by nbgrader) recorded as visible?"""
    tests = ('check_array(double(1.0), name="a")\n### BEGIN HIDDEN TESTS\n'
             'check_array(double(2.0), name="b")\n### END HIDDEN TESTS\n'
             'check_array(double(3.0), name="c")\n')
    report = record(_source(tmp_path, tests=tests))
    assert [(e.name, e.hidden) for e in _entries(report)] == [
        ("a", False), ("b", True), ("c", False)]


def test_records_in_turns_rules_into_records(tmp_path: Path) -> None:
    """Does records_in give each test cell's records, rule checks expecting their rule?"""
    tests = ('check_jitted(jax.jit(double), name="double")\n'
             'check_array(double(1.0), name="double(1.0)")\n')
    records = records_in(record(_source(tmp_path, tests=tests)))
    jit, value = records["q1_double_tests"]
    assert jit == Entry("value", "double is jitted", "ok", {"message": "{got}"})
    assert value.check == "array" and decode(value.got) == 2.0


def test_fingerprint_follows_the_bytes(tmp_path: Path) -> None:
    """Does the fingerprint stay the same for the same notebook and change with its bytes?"""
    path = _source(tmp_path)
    first = fingerprint(path)
    assert fingerprint(path) == first and len(first) == 24
    _source(tmp_path, answer="def double(x):\n    return x + x\n")
    assert fingerprint(path) != first


def test_fingerprint_follows_the_backend_and_the_graders_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept across grading runs, are records made again when the kernels' backend or the
    grader's own code changes (same notebook bytes)?"""
    path = _source(tmp_path)
    first = fingerprint(path)
    monkeypatch.setattr("autograder.grader.compile_cache.backend_label", lambda: "gpu")
    on_gpu = fingerprint(path)
    monkeypatch.setattr(reference_run, "grader_digest", lambda: "another grader")
    assert len({first, on_gpu, fingerprint(path)}) == 3


def test_code_digest_covers_the_package_but_not_its_tests(tmp_path: Path) -> None:
    """Does the code digest change with a module of the package, and not with a test?"""
    package = tmp_path / "autograder"
    (package / "tests").mkdir(parents=True)
    (package / "hints.py").write_text("X = 1\n")
    (package / "tests" / "test_hints.py").write_text("Y = 1\n")
    before = code_digest(package)
    (package / "tests" / "test_hints.py").write_text("Y = 2\n")
    assert code_digest(package) == before
    (package / "hints.py").write_text("X = 2\n")
    assert code_digest(package) != before
    assert len(grader_digest()) == 64


def _in_process(calls: list[list[str]]) -> Any:
    """A stand-in for subprocess.run that runs
    ``python -m autograder.grader.judging.reference_run SRC OUT`` in this process (and notes each
    call)."""
    def run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
        calls.append(argv)
        assert argv[1:3] == ["-m", "autograder.grader.judging.reference_run"]
        Path(argv[4]).write_text(json.dumps(record(Path(argv[3]))))
        return subprocess.CompletedProcess(argv, 0, "", "")
    return run


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the trusted run ran again instead of reading its cache")


def test_trusted_records_runs_once_for_concurrent_askers(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """When three graders ask for one source's records at once (grading jobs and the
    background recorder), does one run the reference while the others wait and read its
    file?"""
    import concurrent.futures

    path, cache = _source(tmp_path / "src"), tmp_path / "cache"
    calls: list[list[str]] = []
    monkeypatch.setattr(reference_run.subprocess, "run", _in_process(calls))
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        found = list(pool.map(lambda _: trusted_records(path, cache), range(3)))
    assert len(calls) == 1
    assert all([e.name for e in f["q1_double_tests"]] == [
        "double(arange(3.0))", "double(ones((2, 2)))"] for f in found)


def test_trusted_records_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Are the records written to the cache folder under the source's fingerprint and read
    from there on the next call, which runs nothing?"""
    path, cache = _source(tmp_path / "src"), tmp_path / "cache" / "records"
    calls: list[list[str]] = []
    monkeypatch.setattr(reference_run.subprocess, "run", _in_process(calls))
    first = trusted_records(path, cache)
    target = cache / f"00_small-{fingerprint(path)}.json"
    assert len(calls) == 1 and target.exists()
    # no partial file left (the lock file stays: it only serialises runs)
    assert [p.name for p in cache.iterdir() if p.is_file() and p.suffix != ".lock"] == [
        target.name]
    assert [e.name for e in first["q1_double_tests"]] == [
        "double(arange(3.0))", "double(ones((2, 2)))"]
    monkeypatch.setattr(reference_run.subprocess, "run", _refuse)
    assert trusted_records(path, cache) == first


def test_trusted_records_reruns_when_the_source_changes(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Is a changed source run again (a new cache file) rather than read from the old one?"""
    path, cache = _source(tmp_path / "src"), tmp_path / "cache"
    calls: list[list[str]] = []
    monkeypatch.setattr(reference_run.subprocess, "run", _in_process(calls))
    trusted_records(path, cache)
    _source(tmp_path / "src", answer="def double(x):\n    return x + x\n")
    trusted_records(path, cache)
    assert len(calls) == 2 and len(list(cache.glob("*.json"))) == 2


def test_trusted_records_without_cache_always_runs(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a cache folder, is nothing written and the run repeated?"""
    path = _source(tmp_path / "src")
    calls: list[list[str]] = []
    monkeypatch.setattr(reference_run.subprocess, "run", _in_process(calls))
    assert trusted_records(path) == trusted_records(path)
    assert len(calls) == 2 and sorted(p.name for p in (tmp_path / "src").iterdir()) == [
        "00_small.ipynb"]


def test_trusted_records_refuses_a_failing_reference(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Does a reference that fails its own rule raise RuntimeError, caching nothing (no
    records, no compiled programs)?"""
    tests = 'check_jitted(double, name="double")\n'
    path, cache = _source(tmp_path / "src", tests=tests), tmp_path / "cache"
    monkeypatch.setattr(reference_run.subprocess, "run", _in_process([]))
    with pytest.raises(RuntimeError, match="do not pass their tests: .*double is jitted"):
        trusted_records(path, cache)
    assert not list(cache.glob("*.json"))
    assert not list(reference_run.compiled_programs(cache).iterdir())


def test_trusted_records_refuses_a_crashed_run(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Does a trusted run that exits non-zero (or writes nothing) raise RuntimeError with
    its error output?"""
    path = _source(tmp_path / "src")

    def crash(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
        return subprocess.CompletedProcess(argv, 1, "", "Traceback: kaboom")

    monkeypatch.setattr(reference_run.subprocess, "run", crash)
    with pytest.raises(RuntimeError, match="kaboom"):
        trusted_records(path, tmp_path / "cache")


@pytest.mark.slow
def test_trusted_records_in_a_fresh_process(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Does the real trusted run (a fresh Python process) record the source, cache it, and
    serve the second call from the cache?"""
    path, cache = _source(tmp_path / "src"), tmp_path / "cache"
    first = trusted_records(path, cache)
    assert [(e.name, e.hidden) for e in first["q1_double_tests"]] == [
        ("double(arange(3.0))", False), ("double(ones((2, 2)))", True)]
    target = cache / f"00_small-{fingerprint(path)}.json"
    mtime = target.stat().st_mtime_ns
    monkeypatch.setattr(reference_run.subprocess, "run", _refuse)
    assert trusted_records(path, cache) == first
    assert target.stat().st_mtime_ns == mtime


@pytest.mark.slow
def test_trusted_records_in_a_fresh_process_refuses_a_failing_reference(tmp_path: Path) -> None:
    """Does the real trusted run raise RuntimeError for a reference that raises?"""
    tests = 'raise ValueError("the reference is broken")\n'
    with pytest.raises(RuntimeError, match="the reference is broken"):
        trusted_records(_source(tmp_path, tests=tests), tmp_path / "cache")


def _built(name: str, jax: str, venv: Path) -> Any:
    """A built runtime ``name`` with JAX ``jax`` (its files are not read by the key)."""
    from autograder.grader.runtime_choice import Runtime

    return Runtime(name, str(venv.parent / "python"), venv, None,
                   {"jax": jax, "jaxlib": jax, "numpy": "2.1.3", "python": "3.13.5"})


def test_each_runtime_has_its_own_records_and_compiled_programs(tmp_path: Path) -> None:
    """Kept across runs, are one assignment's trusted runs on Colab's JAX, on the newest and
    on the grader's own kept apart: each record file named for its runtime under a
    fingerprint of its own, and each runtime's compiled programs in a folder of its JAX?"""
    from autograder.grader.runtime_choice import tools

    path, cache = _source(tmp_path / "src"), tmp_path / "cache"
    colab = _built("colab", "0.7.2", tmp_path / "colab" / "venv")
    newest = _built("newest", "0.12.0.1", tmp_path / "newest" / "venv")
    files = {reference_run.record_file(path, cache, r) for r in (None, tools(), colab, newest)}
    assert len(files) == 3  # the grader's own is the same with or without being named
    assert reference_run.record_file(path, cache) == cache / f"00_small-{fingerprint(path)}.json"
    assert reference_run.record_file(path, cache, colab).name.startswith("00_small-colab-")
    assert len({fingerprint(path), fingerprint(path, colab), fingerprint(path, newest)}) == 3
    folders = {reference_run.compiled_programs(cache, r).name for r in (None, colab, newest)}
    assert {f.split("-jaxlib")[0] for f in folders} == {
        f"jax-{tools().jax}", "jax-0.7.2", "jax-0.12.0.1"}


@pytest.mark.runtimes
@pytest.mark.slow
@pytest.mark.parametrize("name", ["colab", "newest"])
def test_the_trusted_run_runs_on_the_runtime_asked_for(tmp_path: Path, name: str) -> None:
    """Is the trusted run on a built runtime made by that runtime's JAX (its environment
    says so), do its records match those of the grader's own runtime for the same source,
    and does it fill that runtime's compiled-programs folder, none of the grader's?"""
    from autograder.grader.runtime_choice import resolve
    from autograder.tests.conftest import kernel_runtime

    kernel_runtime(name)
    runtime = resolve(name)
    path, cache = _source(tmp_path / "src"), tmp_path / "cache"
    records = trusted_records(path, cache, runtime=runtime)
    assert reference_run.recorded_environment(path, cache, runtime)["jax"] == runtime.jax
    assert reference_run.recorded_environment(path, cache) is None  # not the grader's run
    assert [(e.name, decode(e.got).tolist()) for e in records["q1_double_tests"]] == [
        (e.name, decode(e.got).tolist()) for e in trusted_records(path)["q1_double_tests"]]
    assert list(reference_run.compiled_programs(cache, runtime).iterdir())
