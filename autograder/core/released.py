"""Released expected values: the files that hold them and the short line that names them.

A released test cell decides its visible checks with the reference answers' values
(:mod:`autograder.kernel.reporter`). They used to be written into the cell as one encoded
line, often thousands of characters long; now the release writes them into a *values file* per
exercise, ``autograder/kernel/released/<exercise>.json`` (package data, installed with the
course package), and the test cell names them in a line a learner can read::

    from autograder.kernel.reporter import expected_values  # the reference answers' values
    expected_values("06_jit", "q1_clip_by_norm_tests", "3f9a1c2e4b5d")

The last argument is the *digest* of the values (:func:`digest`). A values file keeps, for each
test cell, the values of every digest released so far, so a notebook saved before a re-release
still finds the values it was released with; a notebook newer than the installed package finds
no values under its digest, and the kernel says so in one line instead of deciding with other
values.

A values file is JSON: ``{"exercise": name, "cells": {test cell id: {digest: [entry, ...]}}}``,
each entry as :meth:`~autograder.core.evidence.Entry.to_json` writes it. Reading one checks that
every digest is that of its values (a hand-edited file is refused) and never runs code.

A digest names values, and values are kept across releases: a release that records the
reference answers again (on another machine, or another build of JAX) keeps the committed
values of a test cell whenever the fresh ones agree with them within each check's own
tolerances (:func:`value_change`), so float noise never makes a new digest. A digest changes
only with what decides a check: its kind and name, its options (tolerances, message), its known
mistakes, or a value that moved beyond its tolerance.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.core.compare import array_matches
from autograder.core.evidence import EXPECTED_IMPORT, Entry, decode, decode_tree

DIGEST_LENGTH = 12  # hex digits of SHA-256: plenty to tell a handful of releases apart
_NAME = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}"  # an exercise stem or a test cell id
NAME_RE = re.compile(_NAME + r"\Z")
_REFERENCE_RE = re.compile(
    re.escape(EXPECTED_IMPORT)
    + rf'expected_values\("({_NAME})", "({_NAME})", "([0-9a-f]{{{DIGEST_LENGTH}}})"\)\n')


@dataclass(frozen=True)
class Reference:
    """What a released test cell names: its exercise, its own id, and its values' digest."""

    exercise: str
    test_id: str
    digest: str


def digest(entries: list[Entry]) -> str:
    """The short digest of ``entries`` (canonical JSON, SHA-256, :data:`DIGEST_LENGTH` hex)."""
    text = json.dumps([e.to_json() for e in entries], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_LENGTH]


def reference_lines(exercise: str, test_id: str, entries: list[Entry]) -> str:
    """The two lines that load ``entries`` from the values file of ``exercise``.

    Raises:
        ValueError: when ``exercise`` or ``test_id`` is not a plain name.
    """
    for name in (exercise, test_id):
        if not NAME_RE.match(name):
            raise ValueError(f"{name!r} cannot name released values")
    return f'{EXPECTED_IMPORT}expected_values("{exercise}", "{test_id}", "{digest(entries)}")\n'


def written_reference(source: str) -> Reference | None:
    """What a released test cell's first lines name, or None when they name nothing."""
    match = _REFERENCE_RE.match(source)  # at the start of the cell only
    return Reference(*match.groups()) if match else None


ValueSets = dict[str, dict[str, list[Entry]]]  # test cell id -> digest -> entries


def read_values(text: str, exercise: str) -> ValueSets:
    """The value sets of a values file's ``text`` (see the module docstring).

    Raises:
        ValueError: when ``text`` is not a values file of ``exercise``, or a digest is not
            that of its values.
    """
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("exercise") != exercise \
            or not isinstance(data.get("cells"), dict):
        raise ValueError(f"not a values file of {exercise}")
    found: ValueSets = {}
    for test_id, sets in data["cells"].items():
        if not isinstance(sets, dict):
            raise ValueError(f"{test_id}: not a set of released values")
        found[test_id] = {}
        for key, items in sets.items():
            if not isinstance(items, list):
                raise ValueError(f"{test_id} {key}: not a list of entries")
            entries = [Entry.from_json(item) for item in items]
            if digest(entries) != key:
                raise ValueError(f"{test_id}: the values filed under {key} have digest "
                                 f"{digest(entries)}")
            found[test_id][key] = entries
    return found


def render_values(exercise: str, sets: ValueSets) -> str:
    """A values file for ``sets`` (stable: sorted, one entry a line, ends in a newline)."""
    cells = []
    for test_id in sorted(sets):
        digests = []
        for key in sorted(sets[test_id]):
            entries = ",\n".join("   " + json.dumps(e.to_json(), sort_keys=True)
                                 for e in sets[test_id][key])
            digests.append(f'  {json.dumps(key)}: [\n{entries}\n  ]' if entries
                           else f"  {json.dumps(key)}: []")
        cells.append(f" {json.dumps(test_id)}: {{\n" + ",\n".join(digests) + "\n }")
    body = ",\n".join(cells)
    return (f'{{"exercise": {json.dumps(exercise)}, "cells": {{\n{body}\n}}}}\n' if cells
            else f'{{"exercise": {json.dumps(exercise)}, "cells": {{}}}}\n')


def merged(old: ValueSets, new: dict[str, list[Entry]]) -> ValueSets:
    """``old`` with each test cell's values ``new`` added under their digest (nothing lost)."""
    sets = {test_id: dict(by_digest) for test_id, by_digest in old.items()}
    for test_id, entries in new.items():
        sets.setdefault(test_id, {})[digest(entries)] = list(entries)
    return sets


def _numeric_gap(was: np.ndarray, now: np.ndarray) -> tuple[float, tuple[int, ...]]:
    """The largest absolute difference between two arrays of one shape, and where."""
    if was.size == 0:
        return 0.0, ()
    if was.dtype.kind in "bc" or now.dtype.kind in "bc":
        gap = (was != now).astype(np.float64) if was.dtype.kind == "b" else np.abs(
            now.astype(np.complex128) - was.astype(np.complex128))
    else:
        a, b = was.astype(np.float64), now.astype(np.float64)
        with np.errstate(invalid="ignore"):
            gap = np.where(np.isnan(a) & np.isnan(b), 0.0, np.abs(b - a))
        gap = np.where(np.isnan(gap), np.inf, gap)
    where = np.unravel_index(int(np.argmax(gap)), gap.shape) if gap.ndim else ()
    return float(gap[where]), tuple(int(i) for i in where)


def _array_change(was: Any, now: Any, label: str, rtol: float, atol: float) -> str | None:
    """Why the array ``now`` is not ``was`` within the tolerances (None when it is)."""
    if not isinstance(was, np.ndarray) or not isinstance(now, np.ndarray):
        return None if type(was) is type(now) and was == now else f"{label} is not the same value"
    if was.dtype != now.dtype or was.shape != now.shape:
        return (f"{label} is now {now.dtype} of shape {now.shape}, was {was.dtype} of shape "
                f"{was.shape}")
    if array_matches(now, was, rtol, atol):
        return None
    gap, where = _numeric_gap(was, now)
    at = f" at index {where}" if where else ""
    return (f"{label}: largest difference {gap:.3g}{at} (was {was[where].item()!r}, now "
            f"{now[where].item()!r}; tolerance rtol {rtol:g}, atol {atol:g})")


def _got_change(kind: str, was: Any, now: Any, label: str, options: dict[str, Any]) -> str | None:
    """Why the recorded value ``now`` of a check of ``kind`` is not ``was`` within the check's
    tolerances; None when it is."""
    if kind not in ("array", "scalar", "tree"):
        return None if was == now else f"{label} is now {now!r:.120}, was {was!r:.120}"
    rtol, atol = float(options.get("rtol", 1e-5)), float(options.get("atol", 1e-6))
    try:
        if kind != "tree":
            return _array_change(decode(was), decode(now), label, rtol, atol)
        was_def, was_leaves = decode_tree(was)
        now_def, now_leaves = decode_tree(now)
    except ValueError as exc:
        return None if was == now else f"{label} cannot be compared ({exc})"
    if was_def != now_def or [p for p, _ in was_leaves] != [p for p, _ in now_leaves]:
        return f"{label} has another structure: now {now_def}, was {was_def}"
    for (path, a), (_, b) in zip(was_leaves, now_leaves, strict=True):
        why = _array_change(a, b, f"{label} at {path}", rtol, atol)
        if why:
            return why
    return None


def _mistakes(entry: Entry) -> list[tuple[Any, Any]]:
    """A record's known mistakes as (advice, encoded value) pairs."""
    return [(m[0], m[1]) if isinstance(m, list) and len(m) == 2 else (m, None)
            for m in entry.mistakes]


def value_change(was: list[Entry], now: list[Entry]) -> str | None:
    """Why the values ``now`` recorded for a test cell are not the committed ``was`` up to each
    check's own tolerances; None when they agree (then ``was`` is released again, digest and
    all).

    They agree when the cell makes the same checks in the same order, each with the same
    options, hidden flag and known mistakes' advice, and every array (a check's value and each
    known mistake's) has the same dtype and shape and matches within the record's ``rtol`` and
    ``atol``, as a learner's answer is judged (:func:`autograder.core.compare.array_matches`,
    with the committed value expected). Anything else (a plain value, a timing rule) must be
    equal. The sentence names the first check that differs (for an array, with its largest
    difference) and how many more do.
    """
    if [e.key for e in was] != [e.key for e in now]:
        return f"the checks are now {[e.name for e in now]}, were {[e.name for e in was]}"
    found: list[str] = []
    for old, new in zip(was, now, strict=True):
        name = repr(new.name)
        if old.options != new.options or old.hidden != new.hidden:
            found.append(f"the options of {name} are now {new.options}, were {old.options}")
            continue
        old_mistakes, new_mistakes = _mistakes(old), _mistakes(new)
        if [a for a, _ in old_mistakes] != [a for a, _ in new_mistakes]:
            found.append(f"the known mistakes of {name} changed")
            continue
        pairs = [(old.got, new.got, name)] + [
            (a, b, f"known mistake {n} of {name}")
            for n, ((_, a), (_, b)) in enumerate(zip(old_mistakes, new_mistakes, strict=True), 1)]
        why = next((w for a, b, label in pairs
                    if (w := _got_change(new.check, a, b, label, new.options))), None)
        if why:
            found.append(why)
    if not found:
        return None
    more = len(found) - 1
    return found[0] + (f"; {more} more check{'s' * (more > 1)} changed too" if more else "")
