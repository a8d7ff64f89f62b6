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

from autograder.core.renames import RENAMED, current_name, submission_note
from autograder.grader.release import SOLUTIONS

MAX_BYTES = 20 * 1024 * 1024


@dataclass
class Submission:
    """One notebook to grade (``problem`` set: invalid before grading, with that message)."""

    path: Path
    student: str
    assignment: str
    problem: str = ""
    note: str = ""  # a warning for the instructor (a notebook saved under an old name)



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


# Assignments renamed after learners could save copies: the table and the lookup live in
# :mod:`autograder.core.renames`. A notebook saved under an old name (``08_pmap.ipynb``,
# Colab's ``Copy of 06_jit.ipynb``) is graded as the current assignment, its answer cells
# matched to the current questions by their cell ids, like any submission's, with a note.


def _assignment_of(stem: str, known: list[str]) -> str:
    """The assignment a file's stem names: itself, else the longest known or renamed name
    inside it (Colab saves copies as ``Copy of 06_jit`` or ``06_jit (1)``), else the stem; a
    renamed assignment's old name gives its current one (:data:`RENAMED`)."""
    if stem in known:
        return stem
    return current_name(_named_in(stem, known), known)


def _named_in(stem: str, known: list[str]) -> str:
    """The known or renamed assignment name a file's stem holds (the longest), else the
    stem."""
    if stem in known:
        return stem
    names = [*known, *(old for old in RENAMED if current_name(old, known) != old)]
    return next((a for a in sorted(names, key=len, reverse=True) if a in stem), stem)


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


FETCHED = "fetched.csv"  # fetch's record, at the root of the folder it fills
COURSE_FOLDER = "exercises"  # the folder of notebooks in a learner's copy of the course


def physical(path: Path) -> Path:
    """``path`` absolute, its folders as they are on disk (``..`` taken as the file system
    does, links among the folders resolved), its last part left as named (a link stays a
    link, to be refused)."""
    path = Path(os.path.abspath(path))
    return Path(os.path.realpath(path.parent)) / path.name if path.name else path


def fetch_root(path: Path) -> Path | None:
    """The outermost folder holding ``path`` (``path`` itself included) with fetch's record
    (:data:`FETCHED`, a regular file), or None. Fetch copies only notebooks into a learner's
    folder, so a record a learner's repository carries is never there; a copy of one placed
    deeper by hand is outranked by the real one above it."""
    found = None
    for folder in [path, *path.parents]:
        record = folder / FETCHED
        if folder.is_dir() and record.is_file() and not record.is_symlink():
            found = folder
    return found


def student_folder(root: Path, student: str) -> Path:
    """The folder of ``student`` in the submissions folder ``root``: a real folder right below
    it, named by a name grading writes (:func:`is_safe_name`).

    Raises:
        ValueError: a name that is a path (``mallory/exercises/../alice``), unsafe, a link,
            or not there; the message says which.
    """
    if not is_safe_name(student):
        raise ValueError(f"student {student!r} is not a student name grading writes (a "
                         "folder name right below the submissions folder, no '/' or '..')")
    folder = Path(os.path.realpath(root)) / student
    if folder.is_symlink() or not folder.is_dir():
        raise ValueError(f"no folder {student} in {root} (links are not followed)")
    return folder


def discover(paths: list[Path], known: list[str], assignment: str | None = None,
             source: Path | None = None, root: Path | None = None) -> list[Submission]:
    """Expand files and folders into submissions; who submitted comes from the layout only.

    ``ROOT/<student>/.../<assignment>.ipynb``: the student is the folder right below the
    submissions folder ``ROOT``, however deep the notebook lies inside it (fetch's
    ``<user>/exercises/NN_name.ipynb``, a repository's own folders), and never a folder name
    inside a student's folder: a folder ``alice/`` in mallory's repository holds mallory's
    work. ``ROOT`` is, in this order: ``root`` when given (every path must lie inside it);
    else the outermost folder above a path with fetch's record (:func:`fetch_root`); else
    each ``PATH`` given. Paths are taken as on disk (:func:`physical`), so ``..`` or a linked
    folder on the way cannot make one student's file another's. For a file given with no
    fetch record above it, the student is the folder that holds it, or the one above when
    that is the course's notebook folder (:data:`COURSE_FOLDER`, as in a learner's copy of
    the course); a file directly in ``ROOT`` belongs to ``ROOT``'s own name. The assignment
    is the file's stem (or the known assignment the stem contains, as in Colab's ``Copy of
    06_jit``); an old name in :data:`RENAMED` becomes the current one.

    ``assignment``: grade that one assignment only, from any layout (``fetch``'s
    ``<user>/exercises/*.ipynb`` included). A file given by name is taken as it; in a folder,
    a file whose stem names that assignment is, one whose stem names another known assignment
    is left out, and one whose stem names none (``submission.ipynb``) is taken as it only
    where the student has no file that names it.

    Symbolic links are never followed: a linked file or folder is a submission with a
    ``problem``. Where two files map to one (student, assignment) (a Colab ``Copy of ...``
    beside the original), the one that holds work is graded when the others are the released
    notebook unchanged (``source``: the folder of source notebooks the released ones come
    from); otherwise that (student, assignment) is one submission with a ``problem`` that
    names every file, and none is graded.

    Raises:
        ValueError: with ``root``, a path that is not inside it.
    """
    if assignment:
        assignment = current_name(assignment, known)
    top = Path(os.path.realpath(root)) if root is not None else None
    found: list[Submission] = []
    guessed: set[int] = set()  # ids of submissions whose file names no known assignment
    for given_path in paths:
        path_given = physical(given_path)
        given = path_given.is_symlink() or path_given.is_file()
        entries = [(path_given, path_given.is_symlink())] if given else _walk(path_given)
        base = top or fetch_root(path_given if not given else path_given.parent)
        if base is None:
            base = path_given.parent if given else path_given
            if given and base.name == COURSE_FOLDER and base.parent != base:
                base = base.parent.parent  # <student>/exercises/<file>: the student's
        if path_given != base and base not in path_given.parents:
            raise ValueError(f"{given_path} is not inside the submissions folder {base}")
        for path, linked in entries:
            rel = path.relative_to(base)
            folder_link = linked and path.suffix != ".ipynb"
            folder = rel.parts[0] if len(rel.parts) > 1 or folder_link else base.name
            named = _assignment_of(path.stem, known)
            if assignment and not given and not folder_link and named != assignment:
                if named in known:
                    continue  # another assignment's notebook
            name = "linked-folder" if folder_link else safe_name(assignment or named)
            problem = ""
            if linked:
                problem = (f"{rel} is a symbolic link; links are not followed: submit the "
                           "notebook file itself")
            sub = Submission(path, folder, name, problem)
            old = _named_in(path.stem, known)
            if not problem and old != named and old not in known and named in known:
                sub.note = submission_note(path.stem, old, named)
            if assignment and not given and named != assignment:
                guessed.add(id(sub))
            found.append(sub)
    if guessed:
        sure = {s.student for s in found if id(s) not in guessed}
        found = [s for s in found if id(s) not in guessed or s.student not in sure]
    return _mark_clashes(found, source)


def _code(path: Path) -> list[str] | None:
    """The code cells' sources of the notebook at ``path`` (stripped, empty ones left out),
    or None when it cannot be read."""
    try:
        nb = read_submission(path)
    except InvalidSubmission:
        return None
    return [c.source.strip() for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def _released_answers(source: Path, name: str) -> set[str] | None:
    """The answer cells (stubs) of assignment ``name`` as released (from
    ``source/<name>.ipynb``), or None when there is no such source."""
    path = source / f"{name}.ipynb"
    if not path.is_file():
        return None
    from autograder.core.notebook import nbgrader_meta
    from autograder.grader.release import student_version

    released = student_version(nbformat.read(path, as_version=4))
    return {c.source.strip() for c in released.cells
            if c.cell_type == "code" and nbgrader_meta(c).get("solution")}


def _holds_work(sub: Submission, stubs: set[str] | None) -> bool:
    """Does ``sub`` hold work: is any answer stub of the release gone (edited)? A file that
    cannot be read, or with nothing to compare with, counts as holding work: it is not known
    to be untouched."""
    code = None if not stubs or sub.problem else _code(sub.path)
    return code is None or not stubs <= set(code)


def _mark_clashes(found: list[Submission], source: Path | None = None) -> list[Submission]:
    """Make student names folder-safe, and settle every (student, assignment) that more than
    one file maps to (see :func:`discover`): nothing is overwritten, nothing guessed."""
    by_key: dict[tuple[str, str], list[Submission]] = {}
    for sub in found:
        sub.student = safe_name(sub.student)
        by_key.setdefault((sub.student, sub.assignment), []).append(sub)
    released: dict[str, set[str] | None] = {}
    kept: list[Submission] = []
    for (student, name), subs in by_key.items():
        if len(subs) == 1:
            kept += subs
            continue
        if name not in released:
            released[name] = _released_answers(source, name) if source else None
        working = [s for s in subs if _holds_work(s, released[name])]
        if len(working) == 1:
            kept += working  # the copy with the work; the others are the release untouched
            continue
        if not working:  # all untouched: grade the one with the assignment's own name
            kept.append(min(subs, key=lambda s: (s.path.stem != name, s.path.name)))
            continue
        files = ", ".join(sorted(str(s.path.name) for s in working))
        first = min(working, key=lambda s: s.path.name)
        first.problem = first.problem or (
            f"needs attention: {len(working)} files hold work for assignment {name} of "
            f"student {student} ({files}): nothing was graded; keep one of them")
        kept.append(first)
    return kept


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


