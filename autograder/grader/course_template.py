"""Generated courses kept across grading runs, beside the trusted records (``--reference-cache``).

Every grading run starts from an nbgrader course with its assignments generated
(``generate_assignment``: a gradebook holding each notebook's cells, hidden tests included, and
the released notebooks), which costs about a second per assignment and an nbgrader start. With
a reference cache, the first run keeps that generated course in ``DIR/courses/<key>`` and later
runs copy it instead. The key covers everything generation reads: each source notebook's bytes,
nbgrader's and its libraries' versions, and the grader's own code (which writes the course's
configuration); any change generates a new course. Like the records, a kept course holds every
hidden test: it lives only where the records may (outside what sandboxed kernels can read).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import os
import shutil
import tempfile
from pathlib import Path

from autograder.grader.course import COURSE_ID, close_workers, make_course
from autograder.grader.judging.reference_run import grader_digest

#: What generation leaves that is the course itself; the rest (configuration, kernelspec,
#: kernel runtime folders) belongs to the run and is written again by every copy.
KEPT = ("gradebook.db", "source", "release")
#: Generated courses kept at most; the least recently used go first.
KEEP = 8
_LIBRARIES = ("nbgrader", "nbconvert", "nbformat", "sqlalchemy", "alembic")


def template_key(names: list[str], source: Path) -> str:
    """The key of the course generated from ``names`` in ``source``: a digest of their bytes,
    nbgrader's and its libraries' versions and the grader's code."""
    digest = hashlib.sha256(f"{COURSE_ID}\n{grader_digest()}\n".encode())
    for lib in _LIBRARIES:
        try:
            version = importlib.metadata.version(lib)
        except importlib.metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"{lib}={version}\n".encode())
    for name in sorted(set(names)):
        notebook = hashlib.sha256((source / f"{name}.ipynb").read_bytes()).hexdigest()
        digest.update(f"{name}={notebook}\n".encode())
    return digest.hexdigest()[:24]


def _complete(course: Path, names: list[str]) -> bool:
    """Whether ``course`` holds a gradebook and every assignment of ``names`` released."""
    return (course / "gradebook.db").is_file() and all(
        (course / "release" / name / f"{name}.ipynb").is_file() for name in names)


def _prune(courses: Path, keep: int = KEEP) -> None:
    """Remove all but the ``keep`` most recently used courses in ``courses``."""
    kept = sorted((p for p in courses.iterdir() if p.is_dir() and not p.name.startswith(".")),
                  key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[keep:]:
        shutil.rmtree(old, ignore_errors=True)
        (courses / f".{old.name}.lock").unlink(missing_ok=True)


def cached_course(cache: Path, names: list[str], source: Path) -> Path:
    """The generated course of ``names`` from ``source``, kept in ``cache``: generated (by
    :func:`~autograder.grader.course.make_course`) on the first call, found on later ones.

    Copy it (:func:`~autograder.grader.course.clone_course`), never grade in it. One process
    generates a course that is missing; any other asking meanwhile (another shard sharing the
    cache) waits for it. A course is put in place whole (renamed), so a run that dies while
    generating leaves nothing half made.
    """
    names = sorted(set(names))
    courses = cache / "courses"
    courses.mkdir(parents=True, exist_ok=True)
    key = template_key(names, source)
    target = courses / key
    with open(courses / f".{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not _complete(target, names):
            with tempfile.TemporaryDirectory(prefix=f".{key}-", dir=courses) as tmp:
                scratch = Path(tmp) / "course"
                try:
                    make_course(scratch, names, source=source)
                finally:
                    close_workers(scratch)
                built = Path(tmp) / "kept"
                built.mkdir()
                for part in KEPT:
                    os.rename(scratch / part, built / part)
                shutil.rmtree(target, ignore_errors=True)  # an incomplete one, if any
                os.rename(built, target)
            _prune(courses)
        os.utime(target)  # recently used: pruned last
    return target
