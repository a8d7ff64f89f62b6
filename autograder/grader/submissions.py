"""Finding submissions and reading them: who submitted what, from the folder layout only.

``PATH/<student>/<assignment>.ipynb``: :func:`discover` turns the files and folders an
instructor names into :class:`Submission` records (never following a link), and
:func:`read_submission` reads one file as a notebook or says, in one sentence, why it cannot.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.grader.release import SOLUTIONS

MAX_BYTES = 20 * 1024 * 1024


@dataclass
class Submission:
    """One notebook to grade (``problem`` set: invalid before grading, with that message)."""

    path: Path
    student: str
    assignment: str
    problem: str = ""



def assignments(course: Path = SOLUTIONS) -> list[str]:
    """The assignment names (source notebook stems) the course defines."""
    return sorted(p.stem for p in course.glob("*.ipynb"))


NAME_CHARS = 100  # the longest student or assignment name used in files and reports
# The names the grader writes into file names, reports and exports: letters, digits, ``_``,
# ``.`` and ``-``, starting and ending with a letter or digit (no ``..``, no hidden file,
# no leading ``-``
# or ``=`` that a shell or a spreadsheet would read as an option or a formula).
SAFE_NAME = re.compile(rf"[A-Za-z0-9](?:[A-Za-z0-9_.-]{{0,{NAME_CHARS - 2}}}[A-Za-z0-9])?")


def is_safe_name(name: str) -> bool:
    """Whether ``name`` is a student or assignment name as the grader writes them
    (:data:`SAFE_NAME`): what :func:`safe_name` keeps as it is."""
    return isinstance(name, str) and SAFE_NAME.fullmatch(name) is not None


def safe_name(name: str) -> str:
    """``name`` within :data:`SAFE_NAME`, usable as a folder name and in any report; a name
    that had to change gets a short hash of the original, so two folders (``eve`` and
    ``eve.``, ``=bob`` and ``bob``) never become one student."""
    if is_safe_name(name):
        return name
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._-")[:NAME_CHARS - 9]
    return f"{cleaned.rstrip('._-') or 'student'}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def _assignment_of(stem: str, known: list[str]) -> str:
    """The assignment a file's stem names: itself, else the longest known name inside it
    (Colab saves copies as ``Copy of 05_jit`` or ``05_jit (1)``), else the stem."""
    if stem in known:
        return stem
    return next((a for a in sorted(known, key=len, reverse=True) if a in stem), stem)


def _walk(root: Path) -> list[tuple[Path, bool]]:
    """Notebooks below ``root`` without following links: (path, is a link). Links to folders
    are listed too (as links); hidden folders (``.git``, checkpoints) are skipped."""
    found: list[tuple[Path, bool]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for name in sorted(dirnames):
            if (here / name).is_symlink():
                found.append((here / name, True))
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and not (here / d).is_symlink())
        for name in sorted(filenames):
            if name.endswith(".ipynb"):
                found.append((here / name, (here / name).is_symlink()))
    return found


def discover(paths: list[Path], known: list[str], assignment: str | None = None
             ) -> list[Submission]:
    """Expand files and folders into submissions; who submitted comes from folders only.

    ``PATH/<student>/<assignment>.ipynb``: the student is the folder right below a ``PATH``
    given (for a file given, or a file directly in ``PATH``, the folder that holds it), never
    a file name. The assignment is the file's stem (or the known assignment the stem contains),
    or ``assignment`` for every file. Symbolic links are never followed: a linked file or
    folder is a submission with a ``problem``, as is every file when two map to the same
    (student, assignment).
    """
    found: list[Submission] = []
    for root in paths:
        if root.is_symlink() or root.is_file():
            entries, base = [(root, root.is_symlink())], root.absolute().parent
        else:
            entries, base = _walk(root), root.absolute()
        for path, linked in entries:
            rel = path.absolute().relative_to(base)
            folder_link = linked and path.suffix != ".ipynb"
            folder = rel.parts[0] if len(rel.parts) > 1 or folder_link else base.name
            name = "linked-folder" if folder_link else safe_name(
                assignment or _assignment_of(path.stem, known))
            problem = ""
            if linked:
                problem = (f"{rel} is a symbolic link; links are not followed: submit the "
                           "notebook file itself")
            found.append(Submission(path, folder, name, problem))
    return _mark_clashes(found)


def _mark_clashes(found: list[Submission]) -> list[Submission]:
    """Make student names folder-safe, and give every file that shares its (student,
    assignment) with another a ``problem``: none of them is graded, none overwrites another."""
    by_key: dict[tuple[str, str], list[Submission]] = {}
    for sub in found:
        sub.student = safe_name(sub.student)
        by_key.setdefault((sub.student, sub.assignment), []).append(sub)
    for (student, name), subs in by_key.items():
        if len(subs) > 1:
            files = ", ".join(sorted(str(s.path.name) for s in subs))
            for sub in subs:
                sub.problem = sub.problem or (
                    f"{len(subs)} files are assignment {name} of student {student} ({files}): "
                    "nothing was graded; submit one")
    return found


# ---------------------------------------------------------------- reading one submission

class InvalidSubmission(Exception):
    """A submission that cannot be graded; its message is shown to the student."""


def read_submission(path: Path) -> nbformat.NotebookNode:
    """Read a submitted notebook, converting older formats to v4.

    Raises:
        InvalidSubmission: empty, too large, not JSON, or not a notebook.
    """
    try:  # O_NOFOLLOW: a link swapped in after discovery is still not followed
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InvalidSubmission(f"the file cannot be opened ({exc.strerror}); links are not "
                                "followed") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InvalidSubmission("not a regular file")
        size = info.st_size
        if size == 0:
            raise InvalidSubmission("the file is empty")
        if size > MAX_BYTES:
            raise InvalidSubmission(f"the file is {size / 2**20:.0f} MB; notebooks over "
                                    f"{MAX_BYTES // 2**20} MB are not graded (clear outputs "
                                    "first)")
        raw = fh.read(MAX_BYTES + 1)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidSubmission(f"not a notebook: the file is not valid JSON ({exc})") from None
    if not isinstance(data, dict) or "nbformat" not in data:
        raise InvalidSubmission("not a notebook: the JSON has no 'nbformat' field")
    _check_version(data)
    try:
        with warnings.catch_warnings():  # old notebooks lack cell ids; nbformat adds them
            warnings.simplefilter("ignore")
            nb = nbformat.reads(json.dumps(data), as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds
        raise InvalidSubmission(f"not a readable notebook: {exc}") from None
    if not isinstance(nb.get("cells"), list):
        raise InvalidSubmission("not a notebook: it has no list of cells")
    return nb


def _check_version(data: dict) -> None:
    major = data.get("nbformat")
    if not isinstance(major, int) or major not in (3, 4):
        raise InvalidSubmission(f"notebook format version {major!r} is not supported (only "
                                "versions 3 and 4 are); open and save it in Jupyter or Colab")


