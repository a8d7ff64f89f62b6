"""ProveTestCells: nbgrader's OverwriteCells, with this run's proof line on every test cell.

nbgrader's autograde first puts every locked cell back as the gradebook holds it (its
``OverwriteCells``: a locked cell whose checksum differs from the stored one gets the stored
source, so an edited test runs as written by the course). The grader also needs each test cell
to end with a line that publishes a fresh token (:mod:`autograder.grader.judging.proof`), and
the tokens differ for every submission. They travel with the run, never through the shared
course directory: the grader hands them to the nbgrader worker with the autograde request
(:meth:`autograder.grader.nbgrader_worker.Worker.run`), the worker holds them in memory for
that one step (:func:`proving`), and this preprocessor builds each test cell from the
gradebook's stored source (hidden tests included) and its token. The gradebook is only read:
two jobs grading different learners in one course directory cannot see each other's tokens,
and a crash at any moment leaves nothing to put back.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from nbgrader.api import MissingEntry
from nbgrader.preprocessors import OverwriteCells

from autograder.grader.judging.proof import with_proof

# The proof tokens of the notebook being autograded in this process (test id -> token), or
# None outside an autograde step; set by proving(), for one step at a time.
_TOKENS: list[dict[str, str] | None] = [None]


@contextlib.contextmanager
def proving(tokens: Mapping[str, str] | None) -> Iterator[None]:
    """Within the block, the test cells that autograde overwrites get these proofs
    (test id -> token); afterwards none. ``None`` or empty: no proof line (every test cell
    then fails its question, for want of a proof)."""
    _TOKENS[0] = dict(tokens or {})
    try:
        yield
    finally:
        _TOKENS[0] = None


class ProveTestCells(OverwriteCells):
    """Overwrite locked cells from the gradebook (nbgrader's checks, unchanged), then give
    each test cell the gradebook's source followed by this run's proof line.

    A token for a cell the gradebook does not hold as a locked graded cell is refused
    (``RuntimeError``: the grader and the course disagree, nothing is graded); a test cell
    without a token runs the stored source with no proof, so its question fails.
    """

    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        """Overwrite the cells of ``nb``; every token must have found its test cell."""
        tokens = _TOKENS[0] or {}
        self._proved: set[str] = set()
        nb, resources = super().preprocess(nb, resources)
        unused = sorted(set(tokens) - self._proved)
        if unused:
            raise RuntimeError(f"proof tokens for cells that are not test cells of this "
                               f"notebook: {', '.join(unused)}")
        return nb, resources

    def preprocess_cell(self, cell: Any, resources: dict, cell_index: int
                        ) -> tuple[Any, dict]:
        """nbgrader's overwrite of ``cell``; a test cell with a token then runs the stored
        source and its proof line."""
        cell, resources = super().preprocess_cell(cell, resources, cell_index)
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        token = (_TOKENS[0] or {}).get(gid) if gid else None
        if token is None:
            return cell, resources
        try:
            stored = self.gradebook.find_source_cell(gid, self.notebook_id, self.assignment_id)
            self.gradebook.find_graded_cell(gid, self.notebook_id, self.assignment_id)
        except MissingEntry:
            raise RuntimeError(f"cell {gid!r} has a proof token but is not a graded cell of "
                               "the gradebook") from None
        if not stored.locked or stored.cell_type != "code":
            raise RuntimeError(f"cell {gid!r} has a proof token but is not a locked test cell")
        if gid in self._proved:
            raise RuntimeError(f"test cell {gid!r} appears twice in the notebook")
        cell.source = with_proof(stored.source, gid, token)
        self._proved.add(gid)
        return cell, resources
