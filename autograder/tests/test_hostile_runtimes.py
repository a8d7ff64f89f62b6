"""The hostile corpus on the built runtimes (issue 36): attacks graded with ``grade --runtime
colab`` and ``grade --runtime newest`` score what the corpus asserts on the grader's own.

The corpus (``test_hostile.py``, ``test_hostile_leaks.py``, ``test_hostile_rebinding.py``)
runs on the grader's own runtime. A built runtime changes what runs in the kernel (Python
3.13, another JAX, another IPython and ipykernel: Colab's 7.34 and 6.17) and how it starts
(its Debian root inside the sandbox), so each class of attack runs here on each built runtime
too, one attack of the class with its honest twin (:data:`CHOSEN`). Every case of the corpus
belongs to one class (:data:`CLASSES`); :func:`test_every_case_of_the_corpus_has_one_class`
fails when a case is added to the corpus without one, or a class has no attack chosen.

The expected results are those the corpus asserts on the grader's own runtime: the score and
status its dicts give each case (and, for the attacks past the screen, no more than the twin,
which keeps its own score). A selection, not the whole corpus: the corpus is about 85
submissions, two batches of them real exercises; the selection is 38 submissions (22 of the
tiny course with two jobs, 5 graded with the screen off, 11 of 03_pure_functions, 06_jit,
10_vmap and 08_performance), which took 357 s on Colab's runtime and 257 s on the newest
(the runtime's trusted runs included; the real-exercise batch 212 s and 155 s) on a shared
2-core machine, 2026-11-29, with issue 47's donation, call-time Python and baseline classes
(35 submissions: 264 s and 236 s, 2026-11-28; 29 submissions, before issue 47's first three
classes: 329 s and 346 s, 2026-11-27).
"""

from __future__ import annotations

import importlib
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from autograder.__main__ import main
from autograder.tests import test_hostile as corpus
from autograder.tests import test_hostile_leaks as leaks
from autograder.tests import test_hostile_rebinding as rebinding

# class -> every case of the corpus in it (each case in exactly one class)
CLASSES: dict[str, tuple[str, ...]] = {
    "IPython's machinery": ("input-transformer", "custom-exception-handler",
                            "silenced-tracebacks", "xmode-magic"),
    "patching what the checks use": ("patch-time", "patch-jit", "patch-builtins",
                                     "patch-check-helper", "patch-helper-by-setattr"),
    "ending the kernel or the grader": ("sys-exit", "os-exit", "kill-own-kernel",
                                        "kill-parent"),
    "claiming a result": ("fake-result-file", "spoofed-proof"),
    "reaching outside the kernel": ("network", "fork-bomb"),
    "exhausting time": ("infinite-loop",),
    "output past its budget": ("huge-output", "proof-flood", "huge-evalue", "huge-metadata",
                               "huge-update"),
    "check results past their budget": ("chatty-during-tests", "evidence-flood"),
    "changing JAX's behaviour": ("disable-jit", "jax-warning"),
    "markup in what the grader shows": ("markup-in-message", "markup-in-hint",
                                        "script-in-output"),
    "reading the hidden tests": ("print-history", "hidden-values-probe", "hidden-shape-probe"),
    "files outside the kernel": ("read-solutions-absolute", "read-solutions-relative",
                                 "write-outside-scratch", "fill-runtime-dir"),
    "memory": ("memory-hog",),
    "unreadable files": ("huge-file", "format-v2", "unknown-assignment"),
    "the folder's structure": ("linked-solution", "linked-folder", "two-files",
                               "too-many-cells"),
    "forging the verdict past the screen": ("republished-proof", "forged-results",
                                            "patched-judge", "frames-for-expected"),
    "poisoning the compilation cache": ("poison-compile-cache",),
    "rebinding what a test calls": ("jit-stand-in", "sys-through-warnings", "pure-stand-in"),
    "Python that runs after a jitted call returns": ("own-output-class",),
    "behaviour that switches under tracing": ("switches-under-tracing",),
    "checks that read program text": ("precision-by-convolution",),
    "Python that runs at call time from the program": ("python-at-call-time",),
    "donation claimed by deleting arrays": ("deletes-instead-of-donating",),
    "a baseline the answer can move": ("config-after-reset", "setting-left-open"),
}
# class -> (the attack run on each built runtime, its honest twin). Where the screen stops a
# class before it runs, the attack chosen is any (the kernel never sees it); elsewhere it is
# the one that leans most on the runtime (ipykernel's display updates, JAX's configuration,
# the runtime's own compilation cache).
CHOSEN: dict[str, tuple[str, str]] = {
    "IPython's machinery": ("input-transformer", "correct"),
    "patching what the checks use": ("patch-jit", "partial"),
    "ending the kernel or the grader": ("kill-parent", "partial"),
    "claiming a result": ("spoofed-proof", "partial"),
    "reaching outside the kernel": ("network", "correct"),
    "exhausting time": ("infinite-loop", "correct"),
    "output past its budget": ("huge-update", leaks.HONEST_PRINT[0]),
    "check results past their budget": ("evidence-flood", "chatty-during-tests"),
    "changing JAX's behaviour": ("disable-jit", "jax-warning"),
    "markup in what the grader shows": ("markup-in-hint", "correct"),
    "reading the hidden tests": ("hidden-values-probe", leaks.VISIBLE_TWIN[0]),
    "files outside the kernel": ("read-solutions-absolute", "correct"),
    "memory": ("memory-hog", "correct"),
    "unreadable files": ("format-v2", "correct"),
    "the folder's structure": ("two-files", "correct"),
    "forging the verdict past the screen": ("forged-results", "twin-forged-results"),
    "poisoning the compilation cache": ("poison-compile-cache", "reads-compile-cache"),
    "rebinding what a test calls": ("pure-stand-in", "pure-honest"),
    "Python that runs after a jitted call returns": ("own-output-class", "jit-honest"),
    "behaviour that switches under tracing": ("switches-under-tracing", "vmap-honest"),
    "checks that read program text": ("precision-by-convolution", "gram-honest"),
    "Python that runs at call time from the program": ("python-at-call-time", "jit-honest"),
    "donation claimed by deleting arrays": ("deletes-instead-of-donating", "gram-honest"),
    "a baseline the answer can move": ("setting-left-open", "jit-honest"),
}
# Module-level dicts of the corpus that hold no attacks: honest kinds, honest twins, messages.
NOT_ATTACKS = {"test_hostile.HONEST", "test_hostile_rebinding.TWINS",
               "test_hostile_rebinding.NAMED", "test_hostile_rebinding.REFUSED"}
# The screened batch's honest folders, as the corpus names them (honest-<i>-<kind>).
_HONEST = {kind: f"honest-{i:02d}-{kind}" for i, kind in enumerate(corpus.HONEST)}


def _corpus_dicts() -> dict[str, dict[str, Any]]:
    """``module.NAME`` -> each module-level dict with text keys, in capitals, of every
    ``test_hostile*`` module but this one."""
    found = {}
    for path in sorted(Path(__file__).parent.glob("test_hostile*.py")):
        if path.stem == Path(__file__).stem:
            continue
        module = importlib.import_module(f"autograder.tests.{path.stem}")
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, dict) and value and all(
                    isinstance(key, str) for key in value):
                found[f"{path.stem}.{name}"] = value
    return found


def test_every_case_of_the_corpus_has_one_class() -> None:
    """Is every case of every dict of attacks in the hostile corpus in exactly one class (no
    class naming a case the corpus lacks), and does each class have one attack chosen from
    it, with an honest twin?"""
    dicts = _corpus_dicts()
    assert NOT_ATTACKS <= set(dicts), sorted(dicts)
    cases = [case for name, d in dicts.items() if name not in NOT_ATTACKS for case in d]
    classified = [case for members in CLASSES.values() for case in members]
    assert len(classified) == len(set(classified)), "a case is in two classes"
    assert sorted(set(cases)) == sorted(classified), (
        f"without a class: {sorted(set(cases) - set(classified))}; not in the corpus: "
        f"{sorted(set(classified) - set(cases))}")
    assert set(CHOSEN) == set(CLASSES)
    for name, (attack, twin) in CHOSEN.items():
        assert attack in CLASSES[name], (name, attack)
        assert _expected(twin) is not None, twin  # a twin whose result the corpus gives


def _expected(case: str) -> tuple[str, float | None] | None:
    """The status and score the corpus asserts for ``case`` on the grader's own runtime
    (None for the score where it asserts a relation instead); None for no case it knows."""
    if case in corpus.ANSWERS or case in corpus.SANDBOXED:
        return "graded", {**corpus.ANSWERS, **corpus.SANDBOXED}[case][1]
    if case in corpus.BAD_FILES or case in corpus.STRUCTURE:
        return "invalid", None
    if case in corpus.HONEST:
        return ("not_submitted" if case == "empty-stub" else "graded"), corpus.HONEST[case]
    if case in leaks.HIDDEN_PROBES or case == leaks.VISIBLE_TWIN[0]:
        return "graded", 3
    if case in leaks.OUTPUT_ATTACKS or case == leaks.HONEST_PRINT[0]:
        return "graded", 5
    if case in corpus.UNSCREENED:
        return "graded", None  # no more than its twin
    if case.startswith("twin-") and case[5:] in corpus.UNSCREENED:
        return "graded", 3
    if case == "reads-compile-cache":
        return "graded", 5
    if case in rebinding.ATTACKS or case in rebinding.PROGRAM_ATTACKS or \
            case in rebinding.TWINS:
        return "graded", None  # its questions, below
    return None


def _build(root: Path) -> dict[str, Path]:
    """Write the chosen attacks and twins, each by the corpus's own code, into three batches:
    ``screened`` (the tiny course), ``unscreened`` (graded with the screen off) and
    ``rebinding`` (real exercises: 03_pure_functions, and 06_jit, 10_vmap and
    08_performance for the answers judged by their program); return batch -> its folder."""
    canary = root / "canary.txt"
    canary.write_text("untouched")
    everything = root / "corpus"
    corpus._corpus(everything, canary)  # the whole tiny-course corpus, then the chosen moved
    batches = {name: root / name for name in ("screened", "unscreened", "rebinding")}
    for folder in batches.values():
        folder.mkdir()
    picked = {case for pair in CHOSEN.values() for case in pair}
    picked |= set(corpus.HONEST)
    for case in sorted(picked):
        if case in corpus.HONEST:
            shutil.move(everything / _HONEST[case], batches["screened"] / _HONEST[case])
        elif (everything / case).is_dir() and not (everything / case).is_symlink():
            shutil.move(everything / case, batches["screened"] / case)
        elif case in leaks.HIDDEN_PROBES or case in leaks.OUTPUT_ATTACKS:
            source = leaks.HIDDEN_PROBES[case][0] if case in leaks.HIDDEN_PROBES else \
                leaks.OUTPUT_ATTACKS[case]
            corpus._write(batches["screened"] / case, leaks._with_q1(source))
        elif case in (leaks.VISIBLE_TWIN[0], leaks.HONEST_PRINT[0]):
            source = dict([leaks.VISIBLE_TWIN, leaks.HONEST_PRINT])[case]
            corpus._write(batches["screened"] / case, leaks._with_q1(source))
        elif case in corpus.UNSCREENED:
            attack, twin = corpus.UNSCREENED[case]
            corpus._write(batches["unscreened"] / case, corpus._with_q1(attack))
            corpus._write(batches["unscreened"] / f"twin-{case}", corpus._with_q1(twin))
        elif case == "reads-compile-cache":
            corpus._write(batches["unscreened"] / case, corpus._with_q1(corpus.READS_CACHE))
        elif case in rebinding.ATTACKS or case in rebinding.PROGRAM_ATTACKS or \
                case in rebinding.TWINS:
            rebinding._write(batches["rebinding"], {case: {
                **rebinding.ATTACKS, **rebinding.PROGRAM_ATTACKS, **rebinding.TWINS}[case]})
        elif not case.startswith("twin-"):
            raise AssertionError(f"no way to build {case}")
    shutil.rmtree(everything)
    return batches


@pytest.fixture(scope="module")
def graded(runtime, tmp_path_factory) -> dict[str, Any]:
    """Grade the chosen attacks and twins on ``runtime`` (colab or newest) as the corpus
    grades them on the grader's own: the tiny-course batch with two jobs, the attacks on the
    verdict with the screen off (one job, in this process), the rebinding attack and its twin
    on 03_pure_functions and the answers judged by their program with their twins on 05, 07
    and 11; the trusted runs are that runtime's, kept in the run's reference cache
    (``$LEARN_JAX_REFERENCE_CACHE``) with every other test's.
    Returns case -> result, and ``seconds`` -> how long each batch took."""
    from autograder.grader import grading

    root = tmp_path_factory.mktemp(f"hostile-{runtime.name}")
    batches = _build(root)
    on = ["--runtime", runtime.name]  # the run's reference cache: trusted runs made once
    seconds = {}
    start = time.perf_counter()
    corpus._grade([batches["screened"]], root / "out", "--jobs", "2", *on)
    seconds["screened"] = time.perf_counter() - start
    start = time.perf_counter()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grading, "screen_answers", lambda nb, source=None: {})
        corpus._grade([batches["unscreened"]], root / "bare", *on)
    seconds["unscreened"] = time.perf_counter() - start
    start = time.perf_counter()
    assert main(["grade", str(batches["rebinding"]), "--out", str(root / "rebinding-out"),
                 "--jobs", "2", "--no-feedback", *on]) == 0
    seconds["rebinding"] = time.perf_counter() - start
    results = {}
    for out in ("out", "bare", "rebinding-out"):
        results.update({p.parent.parent.name: json.loads(p.read_text())
                        for p in (root / out).glob("*/*/result.json")})
    print(f"hostile corpus on {runtime.name}: " + ", ".join(
        f"{batch} {sec:.0f} s" for batch, sec in seconds.items()))
    return {"results": results, "seconds": seconds}


def _q(result: dict, qid: str) -> dict:
    return next(q for q in result["questions"] if q["id"] == qid)


def _check(case: str, results: dict[str, dict]) -> None:
    """Assert ``case``'s result on this runtime is what the corpus asserts on the grader's
    own."""
    folder = _HONEST.get(case, case)
    r = results[folder]
    status, score = _expected(case)
    assert r["status"] == status, (case, r["message"])
    sandboxed = case in corpus.SANDBOXED or case == "reads-compile-cache"
    if sandboxed and r["isolation"] != "bubblewrap":
        pytest.skip("bubblewrap does not work here (set LEARN_JAX_REQUIRE_SANDBOX=1)")
    if case in corpus.BAD_FILES:
        assert corpus.BAD_FILES[case][1] in r["message"], r["message"]
    elif case in corpus.STRUCTURE:
        assert corpus.STRUCTURE[case] in r["message"], r["message"]
    elif case in corpus.UNSCREENED:
        twin = results[f"twin-{case}"]
        assert r["score"] <= twin["score"], r["questions"]
        q1 = _q(r, "q1_double")
        assert q1["status"] in ("failed", "error") and q1["message"], q1
    elif case in rebinding.ATTACKS:
        (qid,) = rebinding.ATTACKS[case][1]
        q = _q(r, qid)
        assert (q["status"], q["score"]) == ("failed", 0), q
        assert "this answer was not run" in q["message"] and rebinding.NAMED[case] in \
            q["message"], q
    elif case in rebinding.PROGRAM_ATTACKS:
        (qid,) = rebinding.PROGRAM_ATTACKS[case][1]
        q = _q(r, qid)
        assert (q["status"], q["score"]) == ("failed", 0), q
        assert rebinding.REFUSED[case] in q["message"], q
    elif case in rebinding.TWINS:
        for qid in rebinding.TWINS[case][1]:
            q = _q(r, qid)
            assert (q["status"], q["score"]) == ("passed", q["max_score"]), q
    else:
        assert r["score"] == score, r["questions"]
        if case in corpus.ANSWERS:  # question 1's status, as the corpus asserts it there
            q1 = _q(r, "q1_double")
            want = corpus.ANSWERS[case][2]
            assert q1["status"] == want and (want == "passed" or q1["message"]), q1
        if case in leaks.HIDDEN_PROBES:
            assert leaks.HIDDEN_PROBES[case][1] in _q(r, "q1_double")["message"]


@pytest.mark.runtimes
@pytest.mark.slow
@pytest.mark.parametrize("cls", CHOSEN)
def test_each_class_of_attack_scores_on_a_built_runtime_as_on_the_graders(
        graded: dict, cls: str) -> None:
    """On each built runtime, does the class's chosen attack score what the corpus asserts on
    the grader's own runtime (its score and status, its message; past the screen, no more
    than its twin), and its honest twin keep its own score?"""
    attack, twin = CHOSEN[cls]
    _check(attack, graded["results"])
    _check(twin, graded["results"])


@pytest.mark.runtimes
@pytest.mark.slow
def test_the_honest_kinds_keep_their_scores_on_a_built_runtime(graded: dict) -> None:
    """Among the attacks on a built runtime, do the honest correct, partial and untouched
    submissions score 5, 3 and 0 (not submitted), as on the grader's own, and was each
    submission graded on that runtime?"""
    for kind in corpus.HONEST:
        _check(kind, graded["results"])
    graded_on = {r["runtime"]["name"] for r in graded["results"].values()
                 if r["status"] == "graded"}
    assert len(graded_on) == 1 and graded_on != {"tools"}, graded_on
