"""The grader's verdict on a test cell, outside the student's kernel.

The trusted run of the reference answers gives each check a record; the sandboxed run of a
submission gives evidence. :func:`judge_cell` matches the two and decides every check with
:func:`autograder.core.decide.decide` (the comparator a released exercise uses too).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from autograder.core.decide import case_note, decide, measured_ratio
from autograder.core.evidence import Entry


@dataclass
class CellVerdict:
    """The grader's decision on one test cell."""

    passed: bool
    message: str = ""
    missing: bool = False  # a check left no evidence (the cell stopped before it)
    checks: int = 0  # how many checks were decided


def judge_cell(records: list[Entry], evidence: list[Entry]) -> CellVerdict:
    """Decide a test cell: every recorded check needs its own passing evidence.

    Records and evidence are matched by check kind, name and order of appearance. A check
    without evidence fails (the cell stopped before it); so does a cell that published more
    evidence for some check than the reference run did (no honest run does).
    """
    pools: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for item in evidence:
        pools[item.key].append(item)
    made = Counter(r.key for r in records)
    for key, items in pools.items():
        if len(items) > made.get(key, 0):
            return CellVerdict(False, f"the tests reported {len(items)} results for "
                               f"{key[1][:80]!r} where they make {made.get(key, 0)}; "
                               "the output was tampered with")
    used: Counter = Counter()
    for n, record in enumerate(records):
        items = pools.get(record.key, [])
        index = used[record.key]
        used[record.key] += 1
        if index >= len(items):
            note = case_note(record)
            return CellVerdict(False, f"the check of {record.name} did not run"
                               + (f".{note}" if note else ""), True, n)
        try:
            decide(record, items[index])
        except AssertionError as exc:
            return CellVerdict(False, str(exc), False, n + 1)
        except Exception:  # noqa: BLE001 - evidence is the student's: it fails, never crashes
            return CellVerdict(False, f"the result of {record.name} could not be read", False,
                               n + 1)
    return CellVerdict(True, "", False, len(records))


def timings(records: list[Entry], evidence: list[Entry]) -> dict[str, float]:
    """The first timing test of a cell: measured speedup and the record's requirement."""
    required = {r.name: r.options.get("required") for r in records if r.check == "speedup"}
    for item in evidence:
        ratio = measured_ratio(item.got)
        if item.check == "speedup" and item.name in required and ratio is not None:
            return {"speedup": round(ratio, 2), "required": float(required[item.name])}
    return {}


def record_of(reference: Entry) -> Entry:
    """The trusted record a reference answer's entry makes.

    A differential check expects what the reference returned; a check with a rule of its own
    (a jit or purity check, a timing test) expects the rule's value, and the reference must
    meet it too (:func:`reference_failure`).
    """
    options = dict(reference.options)
    if "rule" not in options:
        return reference
    return Entry(reference.check, reference.name, options.pop("rule"), options,
                 reference.mistakes, reference.hidden)


def reference_failure(reference: Entry) -> str | None:
    """Why the reference answer fails its own rule check (None when it passes, or for a
    timing test, which the trusted run does not time)."""
    if reference.check == "speedup":
        return None
    try:
        decide(record_of(reference), reference)
    except (AssertionError, ValueError) as exc:
        return str(exc)
    return None
