"""Generate the student notebooks in ``exercises/`` from the sources in ``solutions/``.

First the set-up cell (:mod:`autograder.kernel.colab`, with the repository URL and branch of
``_config.yml``) is written into every chapter and source notebook, so all agree.

The transforms are nbgrader's own preprocessors, in the order its ``generate_assignment``
uses, without the steps that need a gradebook (``SaveCells``) or a header file, plus the
course's :class:`~autograder.grader.preprocessors.MarkAnswerCells`.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from autograder.core.evidence import Entry

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
NOTEBOOKS = ROOT / "notebooks"


def _pipeline(records: dict[str, list[Entry]] | None = None) -> list:
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
        WriteExpectedValues(records=records or {}),  # the visible checks' values, as data
        ComputeChecksums(),  # last: checksums must describe the cells as released
    ]


def student_version(source: NotebookNode,
                    records: dict[str, list[Entry]] | None = None) -> NotebookNode:
    """The released (student) notebook for an nbgrader source notebook.

    Args:
        source: the nbgrader source notebook.
        records: test cell id -> the trusted records of its checks; the visible ones are
            written into the released test cell (:class:`WriteExpectedValues`). Without
            them (the grader's use) the notebook's structure is the same, its test cells bare.
    """
    visible = {gid: [e for e in entries if not e.hidden]
               for gid, entries in (records or {}).items()}
    nb = nbformat.from_dict(source)
    resources: dict = {}
    for step in _pipeline(visible):
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


def written_records(text: str) -> dict[str, list[Entry]]:
    """Test cell id -> the expected values a released notebook's test cells load."""
    from autograder.core.evidence import written_values
    from autograder.core.notebook import is_test, nbgrader_meta

    if not text:
        return {}
    found: dict[str, list[Entry]] = {}
    for cell in nbformat.reads(text, as_version=4).cells:
        entries = written_values(cell.source) if is_test(cell) else None
        if entries:
            found[nbgrader_meta(cell)["grade_id"]] = entries
    return found


# The folders whose set-up cells ``python -m autograder release`` writes.
COURSE_FOLDERS = (NOTEBOOKS, SOLUTIONS)


def release(check: bool = False, solutions: Path = SOLUTIONS,
            exercises: Path = EXERCISES, setup_cells_in: tuple[Path, ...] = ()) -> list[str]:
    """Write (or, with ``check``, compare) every ``exercises/NN_name.ipynb``.

    Args:
        check: compare with what is committed instead of writing.
        solutions: folder of nbgrader source notebooks.
        exercises: folder of student notebooks.
        setup_cells_in: folders whose notebooks get ``_config.yml``'s set-up cell first (the
            command passes :data:`COURSE_FOLDERS`).

    Returns:
        One line per notebook that differs (``check``) or was written.
    """
    from autograder.grader.reference_run import trusted_records

    report: list[str] = []
    sources = sorted(solutions.glob("*.ipynb"))
    report += stamp_notebooks(list(setup_cells_in), check)
    if not sources:
        raise FileNotFoundError(f"no source notebooks in {solutions}")
    exercises.mkdir(exist_ok=True)
    for src in sources:
        target = exercises / src.name
        current = target.read_text() if target.exists() else ""
        # Writing runs the reference answers (the trusted run) for the visible checks' values;
        # checking compares everything but those values, which make test checks against a
        # fresh run (test_exercises.py), within each check's tolerance.
        records = written_records(current) if check else trusted_records(src)
        text = render(student_version(nbformat.read(src, as_version=4), records))
        if check:
            if current != text:
                diff = list(difflib.unified_diff(current.splitlines(), text.splitlines(),
                                                 str(target), "generated", lineterm="", n=1))
                report.append(f"{target.name} differs from what {src.name} generates "
                              f"({len(diff)} diff lines)")
        elif current != text:
            target.write_text(text)
            report.append(f"wrote {target.relative_to(exercises.parent)}")
    if check:
        stale = sorted({p.name for p in exercises.glob("*.ipynb")} - {s.name for s in sources})
        report += [f"{name} has no source in {solutions.name}/" for name in stale]
    return report
