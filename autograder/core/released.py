"""Released expected values: the files that hold them and the short line that names them.

A released test cell decides its visible checks with the reference answers' values
(:mod:`autograder.kernel.reporter`). They used to be written into the cell as one encoded
line, often thousands of characters long; now the release writes them into a *values file* per
exercise, ``autograder/kernel/released/<exercise>.json`` (package data, installed with the
course package), and the test cell names them in a line a learner can read::

    from autograder.kernel.reporter import expected_values  # the reference answers' values
    expected_values("05_jit", "q1_clip_by_norm_tests", "3f9a1c2e4b5d")

The last argument is the *digest* of the values (:func:`digest`). A values file keeps, for each
test cell, the values of every digest released so far, so a notebook saved before a re-release
still finds the values it was released with; a notebook newer than the installed package finds
no values under its digest, and the kernel says so in one line instead of deciding with other
values.

A values file is JSON: ``{"exercise": name, "cells": {test cell id: {digest: [entry, ...]}}}``,
each entry as :meth:`~autograder.core.evidence.Entry.to_json` writes it. Reading one checks that
every digest is that of its values (a hand-edited file is refused) and never runs code.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from autograder.core.evidence import EXPECTED_IMPORT, Entry

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
