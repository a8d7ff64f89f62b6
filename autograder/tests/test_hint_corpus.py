"""The wrong-answer corpus on every runtime: each failure names a fix, and each hint fits.

Every fixture in ``wrong_answers/NN_name/`` is a realistic mistake. Run by the exercise harness
(:mod:`autograder.tests.exercise_harness`) on each kernel runtime (the tools' JAX, Colab's and
the newest; ``LEARN_JAX_RUNTIMES`` says which, :func:`autograder.tests.conftest.kernel_runtime`),
with this checkout on the path, these tests ask of what the learner reads:

- no failure is empty or bare: an error JAX or Python raised is explained by a hint or the
  test's advice, and a check's own message says something (issue 36: ``KeyError: 'i'`` in
  Colab, an empty ``AssertionError:`` on the grader's page);
- every generic hint that fires is asserted to fit its question by the fixture: its
  ``# expect:`` line quotes the hint, or a ``# hint:`` line (the second line) names what the
  hint must suggest for that question;
- no hint names an API the fixture's chapter has not taught without saying where it is taught
  (:mod:`autograder.kernel.hints.syllabus`);
- every hint of the table fires on a wrong answer named in :data:`FIRED_BY` (so each hint
  has a fixture asserting it fits its question), the not-attempted hint on every stub;
- a failure shows each line once: the message ``feedback`` printed is not repeated by the
  error display below it, which closes with "raised here" only when it shows the learner's
  code (issue 36, item 4).

The harness's reports are shared with test_exercises.py and test_runtimes.py (one run per
source and runtime in a test session).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.kernel import tracebacks
from autograder.kernel.hints import table
from autograder.kernel.hints.syllabus import later_apis
from autograder.tests.conftest import KernelRuntime
from autograder.tests.exercise_harness import FIXTURES, expectation
from autograder.tests.harness_runs import harness_report, source_param
from autograder.tests.test_runtimes import stopped_by_its_own_error

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "solutions").glob("*.ipynb"))
HINT_PREFIX = "# hint:"

pytestmark = pytest.mark.runtimes


def hint_expectation(fixture: Path) -> str | None:
    """The text after ``# hint:`` on the fixture's second line (what the hint that fires for
    this mistake must suggest), or None without one."""
    lines = fixture.read_text().splitlines()
    if len(lines) > 1 and lines[1].startswith(HINT_PREFIX):
        return lines[1][len(HINT_PREFIX):].strip() or None
    return None


# Words in a row: a sentence, which a bare value (``'i'``, ``(0, P('data',))``) never holds.
_SENTENCE = re.compile(r"[A-Za-z]{2,}\W{1,3}[A-Za-z]{2,}")


def bare(message: str) -> bool:
    """Whether ``message`` (what the learner reads about a failure: its lines) names nothing to
    act on: empty, or only error lines each holding a class name and at most a bare value
    (a key, a number, a repr), with no hint line."""
    said = [line for line in message.splitlines() if line.strip()
            and not line.startswith("Case: ")]
    if any(line.startswith("Hint: ") for line in said):
        return False
    return all(not _SENTENCE.search(line.partition(":")[2]) for line in said)


def test_bare_recognises_empty_and_bare_messages() -> None:
    """Does ``bare`` flag an empty message, a class name alone and ``KeyError: 'i'``, and pass a
    sentence or anything with a hint line?"""
    for message in ("", "AssertionError:", "KeyError: 'i'", "Case: one row.\nIndexError: 3",
                    "AssertionError: (0, P('data',))"):
        assert bare(message), message
    for message in ("KeyError: 'i'\nHint: `psum` names the axis 'i'",
                    "AssertionError: f(x) has the wrong shape: expected (3,), got (4,)"):
        assert not bare(message), message


@pytest.fixture(scope="module", params=[source_param(p) for p in SOURCES])
def source(request: pytest.FixtureRequest) -> Path:
    """Each exercise source in turn (a source that times answers is marked ``timing``)."""
    return request.param


def _cases(report: dict) -> list[tuple[str, str, dict]]:
    """(question, case, that case's fields) of every wrong answer the report ran."""
    return [(q, case, {field: entry.get(field, {}).get(case) for field in
                       ("wrong", "error", "seen", "expect", "hint", "own")})
            for q, entry in report["questions"].items() for case in entry.get("wrong", {})]


def test_every_wrong_answer_names_a_fix(any_runtime: KernelRuntime, source: Path) -> None:
    """On each runtime, is no wrong answer's message empty or bare, and is every error that
    JAX or Python raised (not a check's own message) explained by a hint or the test's
    advice?"""
    report = harness_report(source, any_runtime.python)
    assert report["errors"] == []
    problems = {}
    for _, case, said in _cases(report):
        if said["wrong"] in (None, "PASSED (should fail)"):
            continue  # test_exercises / test_runtimes report a wrong answer that passes
        explained = "Hint: " in said["wrong"]
        if bare(said["wrong"]) or not (said["own"] or explained):
            problems[case] = said["wrong"]
    assert problems == {}, any_runtime


def test_every_hint_that_fires_fits_its_question(any_runtime: KernelRuntime, source: Path
                                                 ) -> None:
    """On each runtime, does every wrong answer for which a generic hint fires assert what the
    hint must say for its question (its ``# expect:`` line quotes the hint, or its ``# hint:``
    line names what the hint suggests), and does the learner see it (the ``# expect:`` text
    test_exercises.py and test_runtimes.py check)?"""
    report = harness_report(source, any_runtime.python)
    unasserted, unfit = {}, {}
    for _, case, said in _cases(report):
        if not said["hint"]:
            continue
        fixture = FIXTURES / source.stem / f"{case}.py"
        wanted = hint_expectation(fixture)
        expect = expectation(fixture) or ""
        hint_lines = "\n".join(line for line in (said["seen"] or "").splitlines()
                               if line.startswith("Hint: "))
        quoted = bool(expect) and (expect.startswith("Hint: ") or expect in hint_lines)
        if wanted is None and not quoted:
            unasserted[case] = {"hint": said["hint"], "says": hint_lines}
        elif wanted is not None and wanted not in hint_lines:
            unfit[case] = {"hint": said["hint"], "must say": wanted, "says": hint_lines}
    assert unasserted == {} and unfit == {}, any_runtime


def test_no_hint_names_a_later_chapter_unannounced(any_runtime: KernelRuntime, source: Path
                                                   ) -> None:
    """On each runtime, does every hint line a wrong answer shows name only APIs the source's
    chapter has taught, or say which chapter teaches the others?"""
    report = harness_report(source, any_runtime.python)
    found = {}
    for _, case, said in _cases(report):
        for line in (said["seen"] or "").splitlines():
            if not line.startswith("Hint: "):
                continue
            missing = [api for api, taught in later_apis(line, source.stem)
                       if f"chapter {taught}" not in line]
            if missing:
                found[case] = (missing, line)
    assert found == {}, any_runtime


# Each hint of the table -> the wrong answer ("<source stem>/<fixture stem>") it fires on, on
# every runtime. With test_every_hint_that_fires_fits_its_question, every hint has a fixture
# that asserts what it must suggest for that question.
FIRED_BY: dict[str, str] = {
    "in-place-update": "01_arrays/q1_apply_updates__inplace_assignment",
    "numpy-on-tracer": "01_arrays/q1_apply_updates__numpy_roundtrip",
    "python-max-on-tracer": "01_arrays/q1_apply_updates__python_max",
    "bincount-length": "01_arrays/q2_count_labels__bincount_without_length",
    "boolean-mask": "01_arrays/q3_safe_lookup__boolean_mask_update",
    "key-reuse": "04_prng/q1_population__parent_key_after_split",
    "concrete-value": "04_prng/q4_random_walk__float_in_python_loop",
    "grad-non-scalar": "05_grad/q1_loss_and_grad__forgot_has_aux",
    "grad-int-input": "05_grad/q2_grads_xz__all_three_argnums",
    "argnums-one-based": "05_grad/q2_grads_xz__one_based_argnums",
    "grad-static-argnums": "05_grad/q2_grads_xz__static_argnums",
    "pytree-arithmetic": "05_grad/q3_sgd_step__top_level_only",
    "traced-index": "09_control_flow/q2_power_iteration__python_range",
    "unhashable-static": "09_control_flow/q2_power_iteration__static_unrolled",
    "python-number": "09_control_flow/q3_newton_sqrt__float_method",
    "python-while-on-tracer": "09_control_flow/q3_newton_sqrt__python_while",
    "switch-index": "09_control_flow/q4_piecewise_switch__bool_index",
    "python-if-on-tracer": "09_control_flow/q4_piecewise_switch__python_if",
    "nan-gradient-where": "09_control_flow/q4_piecewise_switch__where_half_safe",
    "grad-while-loop": "09_control_flow/q5_rnn_scan_grad__while_loop",
    "scalar-split": "11_sharding/q1_place_for_training__params_with_rows",
    "sharding-type-error": "11_sharding/q4_mlp_2d__no_out_sharding",
    "out-specs-replication": "12_shard_map/q2_center_columns__out_specs_replicated",
    "unbound-axis": "12_shard_map/q2_center_columns__pmap_axis_name_kept",
    "vmap-sizes": "13_capstone/q2_predict__params_mapped_too",
    "string-traced": "06_jit/q2_static_mode__mode_not_static",
    "vmap-scalar-mapped": "10_vmap/q4_per_example_grads__batched_params",
    "contracting-dims": "10_vmap/q1_predict_batch__wrong_axis",
    "ref-as-array": "03_pure_functions/q6_accumulate__arithmetic_on_refs",
    "bare-spec-without-mesh": "12_shard_map/q1_fsdp_sgd_step__bare_spec_place",
    "in-specs-too-long": "12_shard_map/q1_fsdp_sgd_step__lr_through_in_specs",
    "pmap-shared-mapped": "12_shard_map/q1_fsdp_sgd_step__pmap_maps_lr",
    "escaped-tracer": "03_pure_functions/q4_iterate__keeps_jitted_step",
    "incompatible-shapes": "10_vmap/q6_clipped_mean_gradient__scale_not_broadcast",
    "pmap-sizes": "12_shard_map/q1_fsdp_sgd_step__pmap_whole_w",
    "checkify-not-assert": "07_debugging/q1_safe_log__assert",
    "transformation-on-value": "06_jit/q4_sgd_step__grad_of_value",
    "export-not-jitted": "08_performance/q1_export_batched__plain_f_exported",
    "in-shardings-length": "12_shard_map/q1_fsdp_sgd_step__in_shardings_short",
    "renamed-collective": "12_shard_map/q3_smooth_sequences__other_version_collective",
}
# Hints that fire on no wrong answer, with where they fire instead.
FIRED_ELSEWHERE = {
    "not-attempted": "every released stub (test_every_stub_gets_the_not_attempted_hint)",
}
# Hints no wrong answer was seen to fire yet (on the tools' runtime): each needs a fixture and a
# FIRED_BY entry. The list may only shrink: a new hint needs its fixture from the start.
# shard-map-mesh-context (a jitted result on explicit mesh axes from unplaced inputs) is raised
# by no question yet: each jitted program on such a mesh gets placed inputs or runs under
# jax.set_mesh; test_hints checks its message and fixes.
NO_FIXTURE_YET = {"shard-map-mesh-context"}


def test_every_hint_has_a_wrong_answer_that_fires_it() -> None:
    """Is every hint of the table (and nothing else) named in FIRED_BY, with a wrong-answer
    fixture that exists, or in FIRED_ELSEWHERE with where it fires (or, for the hints listed
    before this test existed, in NO_FIXTURE_YET)?"""
    names = [hint.name for hint in table.HINTS]
    named = [*FIRED_BY, *FIRED_ELSEWHERE, *NO_FIXTURE_YET]
    assert len(named) == len(set(named)), "a hint named twice"
    assert sorted(named) == sorted(names), "hints without a fixture"
    missing = [where for where in FIRED_BY.values() if not (FIXTURES / f"{where}.py").is_file()]
    assert missing == []


def test_each_hint_fires_on_its_wrong_answer(any_runtime: KernelRuntime, source: Path) -> None:
    """On each runtime, does every FIRED_BY wrong answer of this source fail with the hint that
    names it (the hint the harness reports as shown)?"""
    report = harness_report(source, any_runtime.python)
    fired = {case: said["hint"] for _, case, said in _cases(report)}
    wrong = {hint: fired.get(where.split("/", 1)[1]) for hint, where in FIRED_BY.items()
             if where.split("/", 1)[0] == source.stem}
    assert {hint: got for hint, got in wrong.items() if got != hint} == {}, any_runtime


def test_every_stub_gets_the_not_attempted_hint(any_runtime: KernelRuntime, source: Path
                                                ) -> None:
    """On each runtime, does every untouched stub fail with the not-attempted hint?"""
    report = harness_report(source, any_runtime.python)
    assert {q: e.get("stub_hint") for q, e in report["questions"].items()
            if e.get("stub_hint") != "not-attempted"} == {}, any_runtime


def repeated_lines(shown: str) -> list[str]:
    """What a failure as a notebook shows it (``shown``: printed lines, then the error display)
    says more than once: a line that appears twice (blank lines aside), or the error that
    ``feedback`` printed after "not yet." appearing again, inside another line too."""
    lines = [line.strip() for line in shown.splitlines() if line.strip()]
    said = [line.split(": not yet. ", 1)[1] for line in lines if ": not yet. " in line]
    return sorted({line for line in lines if lines.count(line) > 1}
                  | {error for error in said if error and shown.count(error) > 1})


def test_repeated_lines_finds_a_message_printed_twice() -> None:
    """Does ``repeated_lines`` find a message shown by feedback and again by the error display,
    and nothing in a failure shown once?"""
    once = ("Question 1: not yet. AssertionError: f(x) differs\nHint: use jnp.where\n"
            f"In your code:\n  Cell In[3], line 2, in f\n    return x\n{tracebacks.RAISED_HERE}")
    assert repeated_lines(once) == []
    twice = once + "\nAssertionError: f(x) differs\nHint: use jnp.where"
    assert repeated_lines(twice) == ["AssertionError: f(x) differs", "Hint: use jnp.where"]


def test_no_failure_is_read_twice(any_runtime: KernelRuntime, source: Path) -> None:
    """On each runtime, does what the learner reads of every wrong answer (``seen``: the
    test cell's printed lines, then the error line where the notebook shows it) say each line
    once: no "not yet" message repeated by the error line after it?"""
    report = harness_report(source, any_runtime.python)
    twice = {f"{q}/{case}": repeated_lines(seen) for q, entry in report["questions"].items()
             for case, seen in entry.get("seen", {}).items() if seen and repeated_lines(seen)}
    assert twice == {}, any_runtime


def test_no_failure_shows_a_line_twice(any_runtime: KernelRuntime, source: Path) -> None:
    """On each runtime, does every wrong answer's failure, as a notebook shows it, show no line
    twice (the message printed by the test block is not repeated by the error display), close
    with "raised here" only when it shows the learner's code (and with the plain pointer to
    %tb otherwise), and never say that only the learner's code is shown?"""
    report = harness_report(source, any_runtime.python)
    problems = {}
    for q, entry in report["questions"].items():
        for case, shown in entry.get("shown", {}).items():
            if not shown:
                continue
            last = shown.strip().splitlines()[-1]
            closing = tracebacks.RAISED_HERE if "In your code:" in shown else tracebacks.NO_FRAMES
            twice = repeated_lines(shown)
            if twice or last != closing or "Only your own code" in shown:
                problems[f"{q}/{case}"] = {"twice": twice, "last line": last}
    assert problems == {}, any_runtime


# Wrong values diagnosed (issue 45, items 3 and 6). A check that fails on values says what
# differs ("N of M entries are off", or a hidden check's error band); a known mistake's advice,
# which the course wrote beside the question's checks, says why. A wrong-answer fixture whose
# failure is a wrong value declares, on a ``# diagnosis:`` line of its header, the advice it
# must get (or ``none``, with why, where the course knows no mistake that produces the value).
DIAGNOSIS_PREFIX = "# diagnosis:"
UNDIAGNOSED = "none"
DIAGNOSED_AT_LEAST = 0.8  # the share of value failures that must be diagnosed (issue 45)

# The comparison's own sentences about a wrong value (autograder.core.compare), after the name
# of the checked value: what differs, never why.
_VALUE_SENTENCES = (
    r" has the right shape \([^)]*\) but wrong values: largest difference .*? entries are off\."
    r"( Every entry is \S+ times the expected value\.)?",
    r" has the right shape \([^)]*\) but wrong values: the largest error is .*? of the values'"
    r" size\.",
    r" has the right shape \([^)]*\) but wrong values: (NaN|infinity)[^;]*?(; \d+ of \d+ "
    r"entries are NaN)?\.(?=\s|$)",
    r" has the right shape \([^)]*\) but some entries differ from the expected value\.",
    r" differs from the expected value in \d+ of \d+ entries; first at index \([^)]*\): "
    r"expected .*?, got .*?\.",
)
_VALUE_FAILURE = re.compile("|".join(_VALUE_SENTENCES))
_DTYPE_NOTE = re.compile(r" Its dtype is \S+; expected \S+\.")
_CASE = re.compile(r" ?Case: .*$")


def value_failure(message: str) -> bool:
    """Whether a failure's message (its first line) is the comparison's about wrong values."""
    return bool(message) and bool(_VALUE_FAILURE.search(message.splitlines()[0]))


def diagnosis_of(message: str) -> str:
    """What a wrong-value failure's message says beyond the comparison's sentences (which
    value, what differs, a dtype, the hidden test's case): the known mistake's advice and any
    hint naming the cause, or ``""`` when the message only says that the values differ."""
    line = message.splitlines()[0] if message else ""
    checked, _, rest = line.removeprefix("AssertionError: ").partition(" has the right shape")
    if not rest:
        checked, _, rest = line.removeprefix("AssertionError: ").partition(
            " differs from the expected value")
        rest = " differs from the expected value" + rest
    else:
        rest = " has the right shape" + rest
    rest = _CASE.sub("", _DTYPE_NOTE.sub("", _VALUE_FAILURE.sub("", rest, count=1)))
    hints = [line for line in message.splitlines()[1:] if line.startswith("Hint: ")]
    said = [part for part in (_advice_in_name(checked), rest.strip(), *hints) if part]
    return " ".join(said)


def _advice_in_name(checked: str) -> str:
    """Advice a check wrote into the checked value's name (``f(x), which is ..., has``)."""
    _, comma, after = checked.partition(", which ")
    return f"which {after}".rstrip(",") if comma else ""


def declared_diagnosis(fixture: Path) -> str | None:
    """The text after ``# diagnosis:`` in the fixture's header (its leading comment lines), or
    None without one."""
    for line in fixture.read_text().splitlines():
        if not line.startswith("#"):
            break
        if line.startswith(DIAGNOSIS_PREFIX):
            return line[len(DIAGNOSIS_PREFIX):].strip()
    return None


def test_diagnosis_of_keeps_only_the_advice() -> None:
    """Does ``diagnosis_of`` find no diagnosis in the comparison's own sentences (visible and
    hidden, a factor, NaN, a dtype, a case), and keep a known mistake's advice and advice the
    check wrote into the name?"""
    plain = ("AssertionError: f(x) has the right shape (3,) but wrong values: largest difference "
             "2 at index (1,) (expected 1, got 3); 3 of 3 entries are off. Every entry is 3 "
             "times the expected value. Its dtype is int32; expected float32.")
    hidden = ("AssertionError: f(y) has the right shape (4,) but wrong values: the largest error "
              "is under 1% of the values' size. Case: a longer input.")
    nan = ("AssertionError: f(x) has the right shape (2,) but wrong values: NaN at index (0,) "
           "where 0.5 was expected; 1 of 2 entries are NaN.")
    entries = ("AssertionError: mask differs from the expected value in 1 of 3 entries; first at "
               "index (0,): expected True, got False.")
    for message in (plain, hidden, nan, entries):
        assert value_failure(message) and diagnosis_of(message) == "", message
    advised = f"{plain} It matches the sum: divide by n."
    assert diagnosis_of(advised) == "It matches the sum: divide by n."
    named = plain.replace("f(x) has", "f(x), which is close but not exact (use grad), has")
    assert diagnosis_of(named) == "which is close but not exact (use grad)"
    hinted = f"{nan}\nHint: the gradient of jnp.where is NaN: make both branches safe"
    assert diagnosis_of(hinted) == "Hint: the gradient of jnp.where is NaN: make both branches safe"
    assert not value_failure("AssertionError: f(x) has the wrong shape: expected shape (3,)")


def test_every_wrong_value_declares_its_diagnosis(any_runtime: KernelRuntime, source: Path
                                                  ) -> None:
    """On each runtime, does every wrong answer that fails on values declare the diagnosis it
    must get (a ``# diagnosis:`` line), does its message say it beyond "the entries are off"
    (or, declared ``none``, say nothing more), and does every fixture that declares one fail
    on values?"""
    report = harness_report(source, any_runtime.python)
    problems = {}
    for _, case, said in _cases(report):
        declared = declared_diagnosis(FIXTURES / source.stem / f"{case}.py")
        message = said["wrong"] or ""
        if not value_failure(message):
            if declared is not None and not stopped_by_its_own_error(any_runtime, source.stem,
                                                                     case):
                problems[case] = {"declares": declared, "but fails with": message[:300]}
            continue
        got = diagnosis_of(message)
        if declared is None:
            problems[case] = {"declares nothing; gets": got or "no diagnosis"}
        elif declared.startswith(UNDIAGNOSED) and got:
            problems[case] = {"declares": "none", "but gets": got}
        elif not declared.startswith(UNDIAGNOSED) and declared not in got:
            problems[case] = {"declares": declared, "gets": got or "no diagnosis"}
    assert problems == {}, any_runtime


def test_most_wrong_values_are_diagnosed() -> None:
    """Do at least 80% of the wrong answers that fail on values (those that declare a
    diagnosis, which test_every_wrong_value_declares_its_diagnosis holds to their failure on
    every runtime) get one, not only "entries are off"?"""
    declared = {path.relative_to(FIXTURES).as_posix(): declared_diagnosis(path)
                for path in sorted(FIXTURES.glob("*/*.py"))}
    values = {case: said for case, said in declared.items() if said is not None}
    undiagnosed = sorted(case for case, said in values.items() if said.startswith(UNDIAGNOSED))
    share = 1 - len(undiagnosed) / len(values)
    print(f"wrong values diagnosed: {len(values) - len(undiagnosed)} of {len(values)} "
          f"({share:.0%}); not yet: {undiagnosed}")
    assert len(values) >= 20 and share >= DIAGNOSED_AT_LEAST, (share, undiagnosed)
