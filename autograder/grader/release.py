"""Generate the student notebooks in ``exercises/`` from the sources in ``solutions/``.

First the set-up cell (:mod:`autograder.kernel.colab`, with the repository URL and branch of
``_config.yml``) is written into every chapter and source notebook, so all agree.

The transforms are nbgrader's own preprocessors, in the order its ``generate_assignment``
uses, without the steps that need a gradebook (``SaveCells``) or a header file, plus the
course's :class:`~autograder.grader.preprocessors.MarkAnswerCells` and
:class:`~autograder.grader.preprocessors.WriteExpectedValues`.

The visible checks' expected values go into one values file per exercise,
``autograder/kernel/released/<exercise>.json`` (:data:`VALUES`, package data: Colab's set-up
cell installs them with the package), and each released test cell names its values in one short
line (:mod:`autograder.core.released`). A values file keeps the values of earlier releases, so a
notebook saved before a re-release keeps deciding with the values it was released with; to drop
them, delete the file and release again.

Releases do not churn. The values come from running the reference answers (the trusted run,
:mod:`autograder.grader.judging.reference_run`), and another machine or build of JAX computes
float32 values a few units in the last place apart. So a release compares each test cell's freshly
recorded values with the ones its committed exercise names, using each check's own tolerances
(:func:`autograder.core.released.value_change`), and keeps the committed values, and so their
digest and the notebook, whenever they agree: releasing again changes nothing unless a source
changed or a value moved beyond its tolerance (reported, cell by cell, with the largest
difference). ``--check`` records the values the same way and fails where ``release`` would
write anything, so it passes on a machine whose JAX differs by float noise.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from autograder.core.evidence import Entry
from autograder.core.released import (
    ValueSets,
    merged,
    read_values,
    render_values,
    value_change,
)

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
NOTEBOOKS = ROOT / "notebooks"
# The values files (package data of autograder.kernel, read by autograder.kernel.reporter).
VALUES = ROOT / "autograder" / "kernel" / "released"
# Makes the trusted records of a source notebook (test cell id -> its checks' records).
Recorder = Callable[[Path], dict[str, list[Entry]]]


def _pipeline(records: dict[str, list[Entry]] | None = None, exercise: str = "") -> list:
    from nbgrader.preprocessors import (
        CheckCellMetadata,
        ClearHiddenTests,
        ClearMarkScheme,
        ClearOutput,
        ClearSolutions,
        ComputeChecksums,
        LockCells,
    )

    from autograder.grader.preprocessors import MarkAnswerCells, WriteExpectedValues

    return [
        CheckCellMetadata(),  # refuse malformed nbgrader metadata before anything else
        LockCells(),
        ClearSolutions(),  # answers -> "raise NotImplementedError()" stubs
        ClearOutput(),
        ClearHiddenTests(),  # after the solutions are gone; hidden tests only run at grading
        ClearMarkScheme(),
        MarkAnswerCells(),  # after ClearSolutions, so the marker sits above the stub
        # The visible checks' values, named (exercise) or inline.
        WriteExpectedValues(records=records or {}, exercise=exercise),
        ComputeChecksums(),  # last: checksums must describe the cells as released
    ]


def visible_records(records: dict[str, list[Entry]]) -> dict[str, list[Entry]]:
    """Test cell id -> the records of its visible checks (cells with none left out)."""
    visible = {gid: [e for e in entries if not e.hidden] for gid, entries in records.items()}
    return {gid: entries for gid, entries in visible.items() if entries}


def student_version(source: NotebookNode, records: dict[str, list[Entry]] | None = None,
                    exercise: str = "") -> NotebookNode:
    """The released (student) notebook for an nbgrader source notebook.

    Args:
        source: the nbgrader source notebook.
        records: test cell id -> the trusted records of its checks; the released test cell
            loads the visible ones (:class:`WriteExpectedValues`). Without them (the
            grader's use) the notebook's structure is the same, its test cells bare.
        exercise: the name of the values file the visible values are written to (the
            notebook's stem); the test cells then only name them. Empty: they are written
            into the test cells.
    """
    nb = nbformat.from_dict(source)
    resources: dict = {}
    for step in _pipeline(visible_records(records or {}), exercise):
        nb, resources = step.preprocess(nb, resources)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nb


def render(nb: NotebookNode) -> str:
    """Serialise a notebook the way it is committed (stable, ends in a newline)."""
    return nbformat.writes(nb) + "\n"


def stamp_setup_cell(nb: NotebookNode, source: str) -> bool:
    """Make ``nb``'s first code cell the set-up cell ``source``; True when it changed.

    A notebook without code cells gets the set-up cell inserted first.
    """
    first = next((c for c in nb.cells if c.cell_type == "code"), None)
    if first is None:
        nb.cells.insert(0, nbformat.v4.new_code_cell(source))
        return True
    if first.source == source:
        return False
    first.source = source
    return True


def stamp_notebooks(folders: list[Path], check: bool = False) -> list[str]:
    """Write the set-up cell of ``_config.yml``'s repository into every notebook of ``folders``.

    Args:
        folders: folders of notebooks (chapters, sources).
        check: report the notebooks whose set-up cell differs instead of writing.

    Returns:
        One line per notebook that differs (``check``) or was written.
    """
    from autograder.kernel.colab import setup_cell

    source = setup_cell()
    report: list[str] = []
    for folder in folders:
        for path in sorted(folder.glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            if not stamp_setup_cell(nb, source):
                continue
            name = f"{folder.name}/{path.name}"
            if check:
                report.append(f"{name}: its set-up cell is not the one _config.yml gives")
            else:
                path.write_text(render(nb))
                report.append(f"wrote the set-up cell of {name}")
    return report


def values_in(values: Path, exercise: str) -> ValueSets:
    """The value sets of ``values/<exercise>.json`` (empty when there is no such file).

    Raises:
        ValueError: when the file is not a well-formed values file of ``exercise``.
    """
    path = values / f"{exercise}.json"
    return read_values(path.read_text(), exercise) if path.exists() else {}


def written_records(text: str, values: Path = VALUES,
                    missing: list[str] | None = None) -> dict[str, list[Entry]]:
    """Test cell id -> the expected values a released notebook's test cells load.

    Args:
        text: the released notebook.
        values: the folder of values files its test cells name.
        missing: when given, one line is added for each test cell whose named values the
            folder lacks (those cells are left out of the result).
    """
    from autograder.core.evidence import written_values
    from autograder.core.notebook import is_test, nbgrader_meta
    from autograder.core.released import written_reference

    if not text:
        return {}
    found: dict[str, list[Entry]] = {}
    files: dict[str, ValueSets] = {}
    for cell in nbformat.reads(text, as_version=4).cells:
        if not is_test(cell):
            continue
        test_id = nbgrader_meta(cell)["grade_id"]
        ref = written_reference(cell.source)
        if ref is None:
            entries = written_values(cell.source)
        else:
            if ref.exercise not in files:
                try:
                    files[ref.exercise] = values_in(values, ref.exercise)
                except ValueError:
                    files[ref.exercise] = {}
            entries = files[ref.exercise].get(ref.test_id, {}).get(ref.digest)
            if entries is None and missing is not None:
                missing.append(f"{test_id} names the values {ref.digest} of {ref.exercise} "
                               f"{ref.test_id}, which {values.name}/{ref.exercise}.json lacks")
        if entries:
            found[test_id] = entries
    return found


# The folders whose set-up cells ``python -m autograder release`` writes.
COURSE_FOLDERS = (NOTEBOOKS, SOLUTIONS)


def _compare(report: list[str], check: bool, target: Path, current: str, text: str,
             source: str, base: Path) -> None:
    """Write ``text`` to ``target`` (or, with ``check``, report that it differs)."""
    if current == text:
        return
    if check:
        diff = list(difflib.unified_diff(current.splitlines(), text.splitlines(), str(target),
                                         "generated", lineterm="", n=1))
        report.append(f"{target.name} differs from what {source} generates "
                      f"({len(diff)} diff lines)")
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        report.append(f"wrote {_shown(target, base)}")


def _shown(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it is inside it."""
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def settled(committed: dict[str, list[Entry]], fresh: dict[str, list[Entry]],
            earlier: ValueSets | None = None) -> tuple[dict[str, list[Entry]], dict[str, str]]:
    """The values to release for each test cell of ``fresh``, and why some changed.

    Args:
        committed: test cell id -> the values the committed exercise's test cell names.
        fresh: test cell id -> the visible checks' records of a fresh trusted run.
        earlier: the values file's sets (test cell id -> digest -> values), tried after the
            committed values of a cell: values released before come back under their old
            digest when the fresh ones agree with them.

    Returns:
        For each cell, the first of its committed and earlier values that the fresh ones
        agree with within each check's tolerances (so its digest stays), else the fresh
        values; and, for each cell that had committed values and gets others, why
        (:func:`~autograder.core.released.value_change`).
    """
    kept: dict[str, list[Entry]] = {}
    changes: dict[str, str] = {}
    for test_id, entries in fresh.items():
        before = committed.get(test_id)
        why = value_change(before, entries) if before is not None else None
        if before is not None and why is None:
            kept[test_id] = before
            continue
        older = (earlier or {}).get(test_id, {})
        kept[test_id] = next((older[key] for key in sorted(older)
                              if value_change(older[key], entries) is None), entries)
        if why:
            changes[test_id] = why
    return kept, changes


def release(check: bool = False, solutions: Path = SOLUTIONS,
            exercises: Path = EXERCISES, setup_cells_in: tuple[Path, ...] = (),
            values: Path | None = None, record: Recorder | None = None,
            progress: Callable[[str], None] | None = None) -> list[str]:
    """Write (or, with ``check``, compare) every ``exercises/NN_name.ipynb`` and its values
    file ``values/NN_name.json``.

    Args:
        check: compare with what is committed instead of writing.
        solutions: folder of nbgrader source notebooks.
        exercises: folder of student notebooks.
        setup_cells_in: folders whose notebooks get ``_config.yml``'s set-up cell first (the
            command passes :data:`COURSE_FOLDERS`).
        values: folder of the values files the released test cells name; default: the
            package's folder in the repository that holds ``exercises``
            (``autograder/kernel/released``, :data:`VALUES` for the course itself). Kernels
            find another folder through ``$LEARN_JAX_RELEASED``
            (:func:`autograder.kernel.reporter.released_folders`).
        record: makes a source's trusted records; default: a trusted run of it
            (:func:`autograder.grader.judging.reference_run.trusted_records`). Its visible checks'
            values replace the committed ones only where they differ beyond a check's
            tolerance (:func:`settled`).
        progress: called with a line before each source is recorded.

    Returns:
        One line per notebook or values file that differs (``check``) or was written, and one
        per test cell whose values changed beyond tolerance (with the largest difference).

    Raises:
        ValueError: when writing over a values file that cannot be read (fix or delete it).
        RuntimeError: when writing and a source's reference answers do not run or pass.
    """
    if record is None:
        from autograder.grader.judging.reference_run import trusted_records as record

    report: list[str] = []
    sources = sorted(solutions.glob("*.ipynb"))
    report += stamp_notebooks(list(setup_cells_in), check)
    if not sources:
        raise FileNotFoundError(f"no source notebooks in {solutions}")
    if not check:
        exercises.mkdir(exist_ok=True)
    base = exercises.parent
    values = base / VALUES.relative_to(ROOT) if values is None else values
    for n, src in enumerate(sources, 1):
        target, store = exercises / src.name, values / f"{src.stem}.json"
        current = target.read_text() if target.exists() else ""
        stored = store.read_text() if store.exists() else ""
        try:
            earlier = values_in(values, src.stem)
        except ValueError as exc:
            if not check:
                raise ValueError(f"{_shown(store, base)} cannot be read ({exc}): fix or "
                                 "delete it, then release again") from None
            report.append(f"{store.name} cannot be read: {exc}")
            earlier = {}
        missing: list[str] = []
        committed = written_records(current, values, missing)
        if check:
            report += [f"{target.name}: {line}" for line in missing]
        if progress:
            progress(f"recording the reference answers of {src.name} ({n}/{len(sources)})")
        try:
            fresh = visible_records(record(src))
        except RuntimeError as exc:
            if not check:
                raise
            report.append(f"{src.name}: {exc}")
            continue
        records, changes = settled(committed, fresh, earlier)
        verb = "changed beyond tolerance" if check else "released anew"
        report += [f"{src.stem} {test_id}: the values {verb}: {why}"
                   for test_id, why in changes.items()]
        text = render(student_version(nbformat.read(src, as_version=4), records, src.stem))
        _compare(report, check, target, current, text, src.name, base)
        _compare(report, check, store, stored,
                 render_values(src.stem, merged(earlier, records)), src.name, base)
    if check:
        stale = sorted({p.name for p in exercises.glob("*.ipynb")} - {s.name for s in sources})
        report += [f"{name} has no source in {solutions.name}/" for name in stale]
        stale = sorted({p.stem for p in values.glob("*.json")} - {s.stem for s in sources})
        report += [f"{name}.json has no source in {solutions.name}/" for name in stale]
    return report
