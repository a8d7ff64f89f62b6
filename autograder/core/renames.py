"""Assignments renamed after learners and instructors wrote their names down: the one table.

A chapter's stem is its assignment's name everywhere: the learner's notebook file, the term
file's ``[assignment.NAME]``, the overrides file, the LMS's column titles, the results folder
``<student>/<assignment>/``. When chapters are renamed (``08_pmap`` became ``08_sharding``;
in 2026-11 every chapter got the number of its place in the book), the old names live on in
those files. :data:`RENAMES` lists each rename once; everything the grader and the classroom
side do with an old name comes from it:

- a notebook saved under an old name (``05_jit.ipynb``, ``Copy of 05_jit.ipynb``) or
  ``--assignment 05_jit`` is graded as the new assignment, with a warning
  (:func:`current_name`, :func:`rename_note`): its answer cells are matched by cell id, as
  any submission's are, so nothing is misplaced; a question that moved to another chapter's
  exercise (:data:`MOVED_QUESTIONS`) is named, since its answer in that file is not graded;
- a name the instructor wrote (term file, overrides, ``--assignments``, the Canvas column
  map, ``--moodle-maximum``, results merged from an earlier run) is refused with the new name
  (:func:`refuse_old_name`): going on would put a schedule, a hand-set score or a grade under
  a name the course no longer grades;
- an LMS gradebook column titled with the old name gets a note naming the new one;
- a notebook saved before a rename still finds its released expected values: its test cells
  name the old exercise, and :func:`rename_chain` leads the learner's kernel to the values file
  under the new name (:func:`autograder.kernel.reporter.released_values`);
- the table in book/instructors.md ("Renamed assignments") is :func:`markdown_table`, and a
  test checks it.

It lives in ``core`` (plain data, no imports) so that the grader, the classroom side and the
learner's kernel read the same table.

A chain (``08_pmap`` -> ``08_sharding`` -> ``11_sharding``) is followed to the name the course
defines now, so a table entry never needs rewriting when a later rename comes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rename:
    """One assignment renamed: its old and new stem, since when, and why."""

    old: str
    new: str
    since: str  # the course release (date) whose notebooks carry the new name
    why: str


READING_ORDER = "2026-11-29"
_ORDER_WHY = "chapters numbered in the order the book reads them"

#: Every rename, oldest first. Add a line when a chapter is renamed; keep it while files with
#: the old name exist (saved notebooks, term files, LMS columns, results folders).
RENAMES: tuple[Rename, ...] = (
    Rename("08_pmap", "08_sharding", "2026-11-25", "chapter 08 teaches meshes and shardings first"),
    Rename("10_key_concepts", "02_key_concepts", READING_ORDER, _ORDER_WHY),
    Rename("02_pure_functions", "03_pure_functions", READING_ORDER, _ORDER_WHY),
    Rename("03_prng", "04_prng", READING_ORDER, _ORDER_WHY),
    Rename("04_grad", "05_grad", READING_ORDER, _ORDER_WHY),
    Rename("05_jit", "06_jit", READING_ORDER, _ORDER_WHY),
    Rename("11_performance", "08_performance", READING_ORDER, _ORDER_WHY),
    Rename("06_control_flow", "09_control_flow", READING_ORDER, _ORDER_WHY),
    Rename("07_vmap", "10_vmap", READING_ORDER, _ORDER_WHY),
    Rename("08_sharding", "11_sharding", READING_ORDER, _ORDER_WHY),
    Rename("09_capstone", "13_capstone", READING_ORDER, _ORDER_WHY),
)

#: Questions that moved to another assignment when a chapter was split, by their old
#: (assignment, question) -> new (assignment, question). The old assignment keeps its other
#: questions under their numbers.
MOVED_QUESTIONS: dict[tuple[str, str], tuple[str, str]] = {
    ("05_jit", "q6"): ("07_debugging", "q1"),
    ("08_sharding", "q5"): ("12_shard_map", "q1"),
    ("08_sharding", "q6"): ("12_shard_map", "q2"),
    ("08_sharding", "q7"): ("12_shard_map", "q3"),
    ("08_sharding", "q8"): ("12_shard_map", "q4"),
}

#: old stem -> the stem it was renamed to (one step; :func:`current_name` follows chains).
RENAMED: dict[str, str] = {r.old: r.new for r in RENAMES}
_BY_OLD: dict[str, Rename] = {r.old: r for r in RENAMES}


def _chain(name: str) -> list[str]:
    """``name`` and every name it was renamed to after it, in order (a loop stops it)."""
    chain = [name]
    while chain[-1] in RENAMED and RENAMED[chain[-1]] not in chain:
        chain.append(RENAMED[chain[-1]])
    return chain


def rename_chain(name: str) -> list[str]:
    """``name`` and every later name of it, oldest first: where a learner-side lookup by an
    old name (a saved notebook's ``expected_values("05_jit", ...)``) looks in turn."""
    return _chain(name)


def current_name(name: str, known: Iterable[str]) -> str:
    """The assignment ``name`` means today: ``name`` itself when the course defines it, else
    the first later name in its chain of renames (:data:`RENAMES`) the course defines, else
    ``name`` unchanged.

    Args:
        name: an assignment name or file stem, e.g. ``"05_jit"``.
        known: the assignment names the course defines.
    """
    known = set(known)
    if name in known:
        return name
    return next((n for n in _chain(name)[1:] if n in known), name)


def renamed_to(name: str, known: Iterable[str]) -> str | None:
    """The assignment the old name ``name`` became, when ``name`` is not one the course
    defines and a rename leads from it to one it does; else None."""
    new = current_name(name, known)
    return new if new != name else None


def old_names(name: str) -> list[str]:
    """Every earlier name of assignment ``name`` (the names whose chain of renames reaches
    it), sorted."""
    return sorted(old for old in RENAMED if name in _chain(old)[1:])


def final_names(course: Iterable[str] = ()) -> list[str]:
    """The names of :data:`RENAMES` and :data:`MOVED_QUESTIONS` that no later rename changes,
    plus ``course``'s own names: the course's assignments after every rename (a fixture for
    tests that must hold before and after a rename lands), sorted."""
    names = {r.new for r in RENAMES} | {new for new, _ in MOVED_QUESTIONS.values()}
    return sorted(n for n in names | set(course) if n not in RENAMED)


def moved_from(name: str) -> list[tuple[str, str, str]]:
    """The questions of assignment ``name`` (that very name) that moved elsewhere:
    (old question, new assignment, new question), by old question."""
    return sorted((q, new_a, new_q) for (a, q), (new_a, new_q) in MOVED_QUESTIONS.items()
                  if a == name)


def rename_note(old: str, new: str) -> str:
    """One sentence: ``old`` is now ``new``, since when and why, and where its questions
    that moved went."""
    steps = _chain(old)
    last = next((_BY_OLD[n] for n in reversed(steps[:steps.index(new)]) if n in _BY_OLD),
                None) if new in steps else None
    since = f" (since the course of {last.since}: {last.why})" if last else ""
    moved = [f"{q} is now {a} {nq}" for q, a, nq in moved_from(old)]
    return f"{old} is now {new}{since}" + (
        f"; its {', '.join(moved)}" if moved else "")


def submission_note(stem: str, old: str, new: str) -> str:
    """The warning for a notebook file ``stem`` saved under the old name ``old``, graded as
    ``new``: safe, with the questions that moved named (their answers in it are not
    graded)."""
    moved = [(q, a, nq) for q, a, nq in moved_from(old) if a != new]
    note = f"{stem}.ipynb is graded as {new}: {rename_note(old, new)}"
    if moved:
        note += (f" (an answer to {', '.join(q for q, _, _ in moved)} in this file is not "
                 f"graded: those questions belong to {', '.join(sorted({a for _, a, _ in moved}))}"
                 " now)")
    return note


def refuse_old_name(name: str, known: Iterable[str] | None, where: str, fix: str) -> None:
    """Refuse an instructor's file or option that names an old assignment name.

    Args:
        name: the assignment name as written.
        known: the course's assignments (None: nothing to check against).
        where: the file and line, or the option, for the message.
        fix: what to change, with ``{old}`` and ``{new}`` in it, e.g.
            ``"rename [assignment.{old}] to [assignment.{new}] in the term file"``.

    Raises:
        ValueError: ``name`` is an old name of an assignment the course defines.
    """
    if known is None:
        return
    new = renamed_to(name, known)
    if new is not None:
        raise ValueError(f"{where}: {rename_note(name, new)}; {fix.format(old=name, new=new)}")


def lms_title_note(assignment: str, titles: Iterable[str], names) -> str:
    """For a course assignment no LMS column names: the note that a column names one of its
    old names (``names(title, old)``: does the title name it), or ``""``."""
    for old in old_names(assignment):
        hits = [t for t in titles if names(t, old)]
        if hits:
            return (f"the column {hits[0]!r} names its old name: {rename_note(old, assignment)};"
                    f" rename that LMS assignment to {assignment} (or map it, for Canvas "
                    "--canvas-columns)")
    return ""


def markdown_table() -> str:
    """The table of renames for book/instructors.md: one row per old name, the newest
    release first (by old name within one), with the questions that moved."""
    rows = ["| old name | new name | since | questions that moved |",
            "|---|---|---|---|"]
    by_old = sorted(RENAMES, key=lambda r: r.old)
    for r in sorted(by_old, key=lambda r: r.since, reverse=True):
        final = _chain(r.old)[-1]
        new = f"`{r.new}`" if final == r.new else f"`{r.new}`, now `{final}`"
        moved = "; ".join(f"{q} → {a} {nq}" for (a0, q), (a, nq) in MOVED_QUESTIONS.items()
                          if a0 == r.old)
        rows.append(f"| `{r.old}` | {new} | {r.since} | {moved or '—'} |")
    return "\n".join(rows) + "\n"
