"""No reference answer recompiles per call (issue 37), found by behaviour.

The exercise harness records every program JAX compiles while a source notebook's reference
answers run with their test cells (:mod:`autograder.tests.compile_audit`); a program compiled
twice (same text, inputs, shardings and settings) is code that threw away its compilation,
typically a ``jax.jit`` (or ``shard_map``, ``pmap``, ``vmap`` then jit) of a fresh function
inside a function called per step. The harness's report is the one test_exercises.py reads
(one run per source and session), so this costs no run of its own under ``make test``.

The audit itself is tested on planted answers (``fixtures/recompiles/``), on every runtime
``LEARN_JAX_RUNTIMES`` lists: each ``attack_*`` case recompiles per call in one of the ways
the chapters warn about and must be found; each ``honest_*`` twin compiles the same work once
(or once per shape, static value or setting) and must not be.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from autograder.tests.compile_audit import Program, repeats
from autograder.tests.conftest import KernelRuntime
from autograder.tests.harness_runs import harness_report, source_param

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "solutions").glob("*.ipynb"))
CASES = sorted((Path(__file__).parent / "fixtures" / "recompiles").glob("*.py"))

# (source stem, program name) -> why a test compiles that program twice on purpose. Empty: no
# test cell of the course does.
ALLOWED: dict[tuple[str, str], str] = {}

# Source stem -> a finding another change fixes (strict: the test fails once it is fixed, so
# the entry is removed then).
KNOWN: dict[str, str] = {}


def _source_param(path: Path) -> object:
    """The harness's parameter for ``path`` (its group, shared with test_exercises.py), marked
    as an expected failure when :data:`KNOWN` names it."""
    param = source_param(path)
    if path.stem in KNOWN:
        param = pytest.param(*param.values, id=param.id, marks=[
            *param.marks, pytest.mark.xfail(strict=True, reason=KNOWN[path.stem])])
    return param


@pytest.mark.parametrize("source", [_source_param(p) for p in SOURCES])
def test_reference_answers_compile_each_program_once(source: Path) -> None:
    """While the reference answers run with their test cells (hidden tests included), does
    JAX compile every program at most once, but for the cases ALLOWED names with a reason?"""
    report = harness_report(source)
    assert report["errors"] == []
    programs = [Program.from_json(p) for p in report["compiles"]]
    assert programs, "the harness recorded no compilation: the audit saw nothing"
    found = [f"{name} compiled {len(labels)} times, by {labels}"
             for name, labels in repeats(programs) if (source.stem, name) not in ALLOWED]
    assert found == []


@pytest.fixture(scope="module")
def audited_cases(any_runtime: KernelRuntime) -> dict[str, list]:
    """The audit's findings on every planted case, run in one fresh process of the runtime
    (each JAX the course supports: the audit reads what that JAX writes and logs) with eight
    simulated devices (shard_map and pmap need them)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p))
    proc = subprocess.run([any_runtime.python, "-m", "autograder.tests.compile_audit",
                           *map(str, CASES)], capture_output=True, text=True, timeout=300,
                          env=env, cwd=ROOT)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("AUDIT-JSON ")]
    assert lines, f"the audit printed no report:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1][len("AUDIT-JSON "):])


@pytest.mark.parametrize("case", [c for c in CASES if c.stem.startswith("attack_")],
                         ids=lambda c: c.stem)
def test_audit_finds_a_program_compiled_on_every_call(audited_cases: dict, case: Path) -> None:
    """Does the audit name the program an answer compiles again on every call (a fresh
    closure, partial, shard_map, pmap or vmap jitted inside the step, or a fresh jit
    differentiated eagerly), once per call?"""
    found = audited_cases[case.stem]
    assert found
    assert all(name.startswith(("jit_", "pmap_")) and labels == [case.stem] * len(labels)
               and len(labels) >= 2 for name, labels in found)


@pytest.mark.parametrize("case", [c for c in CASES if c.stem.startswith("honest_")],
                         ids=lambda c: c.stem)
def test_audit_passes_a_program_compiled_once(audited_cases: dict, case: Path) -> None:
    """Does the audit pass code that compiles each program once: jitted once and called
    again, another builder's constant, new static values, shapes, weak types or settings, or
    no jit at all (an eager grad, whose library operations JAX caches its own way)?"""
    assert audited_cases[case.stem] == []


def test_every_case_is_an_attack_or_an_honest_twin() -> None:
    """Is every planted case named for what the audit must say of it, with both kinds
    present?"""
    kinds = {c.stem.split("_", 1)[0] for c in CASES}
    assert kinds == {"attack", "honest"}
