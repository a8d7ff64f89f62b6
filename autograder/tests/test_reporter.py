"""Tests of autograder.kernel.reporter: what a check does in the kernel when it names no expected
value.

Grading publishes entries and decides nothing; a released exercise decides against the
values released with it (named by the test cell, read from the package's values files); a
source notebook run by hand decides only what a check can decide alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import nbformat
import numpy as np
import pytest

from autograder.core.decide import decide
from autograder.core.evidence import MIME, Entry, decode, encode, pack
from autograder.grader.judging.verdict import record_of, reference_failure
from autograder.kernel import reporter as judge
from autograder.kernel.checks import check_array, check_scalar, check_tree, check_value
from autograder.kernel.jax_checks import check_jitted


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts from (and leaves behind) the judge's state of a fresh kernel."""
    monkeypatch.setattr(judge, "_state", judge._State())
    yield


def _message(check: Callable[[], None]) -> str:
    """The AssertionError message of ``check()`` (which must fail)."""
    with pytest.raises(AssertionError) as info:
        check()
    return str(info.value)


def _recorded(run: Callable[[], None]) -> list[Entry]:
    """The entries ``run()`` publishes in the trusted run, as records."""
    seen: list[Entry] = []
    with judge.collecting(seen.append, recording=True):
        run()
    return [record_of(e) for e in seen]


def test_collecting_publishes_and_never_raises() -> None:
    """In collecting mode, does check_array publish an entry with the value, tolerances and
    mistakes, and raise nothing, even for a value no reference would give?"""
    seen: list[Entry] = []
    with judge.collecting(seen.append):
        assert judge.publishing() and not judge.recording()
        check_array(jnp.array([1.0, jnp.nan]), name="f(x)", rtol=1e-3,
                    mistakes={"Off by one.": np.array([2.0, 3.0])})
        check_array("not an array", name="g(x)")
    assert not judge.publishing()
    assert [(e.check, e.name) for e in seen] == [("array", "f(x)"), ("array", "g(x)")]
    np.testing.assert_array_equal(decode(seen[0].got), [1.0, np.nan])
    assert seen[0].options == {"rtol": 1e-3, "atol": 1e-6, "check_dtype": False}
    assert seen[0].mistakes[0][0] == "Off by one."
    np.testing.assert_array_equal(decode(seen[0].mistakes[0][1]), [2.0, 3.0])
    assert seen[0].hidden is False


def test_collecting_publishes_every_kind() -> None:
    """Do scalar, tree, value and rule checks each publish one entry of their kind?"""
    seen: list[Entry] = []

    def plain(x: Any) -> Any:
        return x

    with judge.collecting(seen.append, recording=True):
        assert judge.recording()
        check_scalar(jnp.float32(0.5), name="loss")
        check_tree({"w": jnp.ones(2)}, name="grads", atol=1e-3)
        check_value("float32", name="dtype")
        check_value("int32", "float32", name="explicit")  # wrong, yet no error here
        check_jitted(plain, name="plain")
    assert [(e.check, e.name) for e in seen] == [
        ("scalar", "loss"), ("tree", "grads"), ("value", "dtype"), ("value", "explicit"),
        ("value", "plain is jitted")]
    assert seen[1].options == {"atol": 1e-3}
    assert seen[3].options["rule"] == "float32"  # the explicit value travels as the rule
    assert seen[4].options["rule"] == "ok" and "not a jitted function" in seen[4].got
    assert "rule" not in seen[2].options


def test_collecting_restores_the_previous_mode() -> None:
    """After a collecting block (even one that raised) are checks back to deciding alone?"""
    with pytest.raises(RuntimeError), judge.collecting(lambda e: None):
        raise RuntimeError("boom")
    assert not judge.publishing() and not judge.recording()
    with pytest.raises(AssertionError):
        check_value(1, 2, name="n")


def test_start_test_cell_publishes_as_display_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Does a grading test cell publish each entry as a display output of the evidence MIME
    type, with nothing decided in the kernel?"""
    shown: list[tuple[Any, dict]] = []
    import IPython.display

    monkeypatch.setattr(IPython.display, "display",
                        lambda obj, **kw: shown.append((obj, kw)))
    judge.start_test_cell()
    assert judge.publishing()
    check_array(jnp.zeros(2), name="f(x)")
    check_value("int32", "float32", name="explicit")
    assert len(shown) == 2 and all(kw == {"raw": True} for _, kw in shown)
    assert [Entry.from_json(obj[MIME]).name for obj, _ in shown] == ["f(x)", "explicit"]


def test_expecting_decides_with_decides_message() -> None:
    """Against released records, does a right value pass and a wrong one raise decide's
    message (a known mistake's advice included)?"""
    def checks(x: Any) -> Callable[[], None]:
        return lambda: check_array(x, name="f(x)", mistakes={"Doubled.": 2 * np.arange(3.0)})

    records = _recorded(checks(np.arange(3.0)))
    with judge.expecting(records):
        checks(jnp.arange(3.0))()
    wrong = jnp.arange(3.0) * 2
    with judge.expecting(records):
        message = _message(checks(wrong))
    assert message == _message(lambda: decide(records[0], Entry("array", "f(x)",
                                                                encode(wrong))))
    assert message.endswith(" Doubled.") and "Every entry is 2 times" in message


def test_expecting_ignores_the_checks_own_tolerances() -> None:
    """Does a released check use the released tolerance, not one the cell's call passes?"""
    records = _recorded(lambda: check_array(np.ones(2), name="f(x)"))
    with judge.expecting(records):
        with pytest.raises(AssertionError):
            check_array(jnp.full(2, 1.5), name="f(x)", rtol=10.0)


def test_expecting_matches_repeated_names_in_order() -> None:
    """With two released values of one name, is each call judged against its own?"""
    def checks(a: Any, b: Any) -> Callable[[], None]:
        def run() -> None:
            check_array(a, name="f(x)")
            check_array(b, name="f(x)")
        return run

    records = _recorded(checks(np.zeros(2), np.ones(2)))
    with judge.expecting(records):
        checks(jnp.zeros(2), jnp.ones(2))()
    with judge.expecting(records):
        with pytest.raises(AssertionError):
            checks(jnp.ones(2), jnp.zeros(2))()


def test_released_values_missing_a_check() -> None:
    """With values loaded by expected_values, does a check the data lacks say none was
    released, while the released one is decided?"""
    records = _recorded(lambda: check_array(np.ones(2), name="f(x)"))
    judge.expected_values(pack(records))
    check_array(jnp.ones(2), name="f(x)")
    assert _message(lambda: check_array(jnp.ones(2), name="g(x)")) == (
        "No expected value was released for g(x): regenerate the exercise "
        "(python -m autograder release).")
    assert _message(lambda: check_array(jnp.ones(2), name="f(x)")).startswith(
        "No expected value was released for f(x)")  # a second call of a check made once
    judge.reset()
    check_array(jnp.ones(2), name="g(x)")  # a cell without released values: nothing to say


def test_expected_values_starts_a_fresh_count() -> None:
    """Does loading a new cell's values reset which released value the next call gets?"""
    records = _recorded(lambda: check_array(np.ones(2), name="f(x)"))
    judge.expected_values(pack(records))
    check_array(jnp.ones(2), name="f(x)")
    judge.expected_values(pack(records))
    check_array(jnp.ones(2), name="f(x)")


def test_outside_any_mode() -> None:
    """Run by hand, does a differential check pass silently whatever the value, while checks
    that can decide alone (an explicit value, a jit check) decide?"""
    check_array("anything", name="f(x)")
    check_tree({"w": None}, name="t")
    check_scalar(jnp.ones(3), name="s")
    check_value("int32", name="dtype")
    check_value("float32", "float32", name="dtype")
    template = "{name}: {got} is not {expected}."
    assert _message(lambda: check_value("int32", "float32", name="dtype",
                                        message=template)) == "dtype: int32 is not float32."
    check_jitted(jax.jit(lambda x: x), name="f")

    def plain(x: Any) -> Any:
        return x

    assert _message(lambda: check_jitted(plain, name="f")) == (
        "f is a plain function, not a jitted function. Wrap it: `f = jax.jit(f)` or decorate "
        "the def with `@jax.jit`.")


def test_observe() -> None:
    """Does observe pass on None and raise exactly the failure's text otherwise?"""
    judge.observe("f is pure", None)
    assert _message(lambda: judge.observe("f is pure", "f assigns the global `n`.")) == (
        "f assigns the global `n`.")


def test_observe_under_released_values() -> None:
    """In a released cell whose data lacks the rule check, does observe decide by its rule
    instead of complaining that nothing was released?"""
    judge.expected_values(pack([]))
    judge.observe("f is pure", None)
    assert _message(lambda: judge.observe("f is pure", "impure")) == "impure"


def test_observe_entry_as_a_record() -> None:
    """Does an observe entry record the rule "ok", so its reference passes when it passed
    and fails (saying why) when it did not?"""
    seen: list[Entry] = []
    with judge.collecting(seen.append, recording=True):
        judge.observe("f is pure", None)
        judge.observe("g is pure", "g prints from Python.")
    assert [e.options for e in seen] == [{"message": "{got}", "rule": "ok"}] * 2
    assert [record_of(e).got for e in seen] == ["ok", "ok"]
    assert record_of(seen[1]).options == {"message": "{got}"}
    assert reference_failure(seen[0]) is None
    assert reference_failure(seen[1]) == "g prints from Python."
    with pytest.raises(AssertionError, match="g prints from Python"):
        decide(record_of(seen[0]), seen[1])  # a student's failure against the record


def test_speedup_bar_is_this_machines() -> None:
    """In a released cell, is a timing test judged by the bar its call gives here, not the
    released one (timing bars belong to the backend)?"""
    released = [Entry("speedup", "jitted f", {}, {"required": 1.0})]
    alone = Entry("speedup", "jitted f", {}, {"required": 3.0})
    with judge.expecting(released):
        judge.submit(Entry("speedup", "jitted f", {"ratio": 4.0}), alone)
        with pytest.raises(AssertionError, match="at least 3.0x"):
            judge.submit(Entry("speedup", "jitted f", {"ratio": 2.0}), alone)


def _values_folder(tmp_path: Path, records: list[Entry], test_id: str = "q1_tests") -> str:
    """A values folder holding ``records`` for ``00_tiny``'s ``test_id``; their digest."""
    from autograder.core.released import digest, merged, render_values

    (tmp_path / "00_tiny.json").write_text(render_values("00_tiny", merged({}, {test_id: records})))
    return digest(records)


def test_expected_values_reads_the_named_values(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Does expected_values(exercise, test id, digest) load the values of a values file (found
    through $LEARN_JAX_RELEASED) and decide the cell's checks with them?"""
    records = _recorded(lambda: check_array(np.ones(2), name="f(x)"))
    key = _values_folder(tmp_path, records)
    monkeypatch.setenv(judge.RELEASED_ENV, str(tmp_path))
    assert judge.released_folders() == [tmp_path, judge.RELEASED]
    judge.expected_values("00_tiny", "q1_tests", key)
    assert judge._state.expected == records
    check_array(jnp.ones(2), name="f(x)")
    judge.expected_values("00_tiny", "q1_tests", key)
    assert _message(lambda: check_array(jnp.zeros(2), name="f(x)")) == _message(
        lambda: decide(records[0], _recorded(lambda: check_array(np.zeros(2), name="f(x)"))[0]))


def test_a_digest_of_another_release_says_what_to_do(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """When the installed package lacks the values a cell names (the notebook and the package
    come from different releases), is the error one line that says so and what to do, and is
    nothing decided with other values?"""
    records = _recorded(lambda: check_array(np.ones(2), name="f(x)"))
    _values_folder(tmp_path, records)
    monkeypatch.setenv(judge.RELEASED_ENV, str(tmp_path))
    for args in [("00_tiny", "q1_tests", "0123456789ab"), ("00_tiny", "q9_tests", "0123456789ab"),
                 ("99_none", "q1_tests", "0123456789ab"), ("../00_tiny", "q1_tests", "0")]:
        with pytest.raises(judge.ReleaseMismatch) as info:
            judge.expected_values(*args)
        text = str(info.value)
        assert "\n" not in text and "different releases" in text and "set-up cell" in text
        assert "download the current notebook" in text
        assert judge._state.expected is None


def test_a_released_notebook_finds_the_package_values() -> None:
    """Does every test cell of every committed exercise find, in the installed package, the
    values it names (the values files are shipped with the package)?"""
    from autograder.core.notebook import is_test
    from autograder.core.released import written_reference
    from autograder.grader.release import EXERCISES

    named = 0
    for path in sorted(EXERCISES.glob("*.ipynb")):
        for cell in filter(is_test, nbformat.read(path, as_version=4).cells):
            ref = written_reference(cell.source)
            if ref is not None:
                assert ref.exercise == path.stem
                assert judge.released_values(ref.exercise, ref.test_id, ref.digest)
                named += 1
    assert named >= 40


def test_the_inline_form_of_older_notebooks_still_loads() -> None:
    """Does a notebook saved before the values moved out (expected_values with the packed
    values as its one argument) still load them, and is a call with two arguments refused?"""
    records = _recorded(lambda: check_array(np.ones(2), name="f(x)"))
    judge.expected_values(pack(records))
    assert judge._state.expected == records
    with pytest.raises(TypeError):
        judge.expected_values("00_tiny", "q1_tests")
