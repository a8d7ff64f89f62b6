"""Publish the released course into a checkout of its public repository: ``python -m autograder
publish DEST``.

Learners read the public repository: Colab's set-up cell installs the course package from it
(with the released exercises' expected values, ``autograder/kernel/released/``), and they open
its exercises and chapters. The course repository the instructor grades from also holds what
no learner may read: ``solutions/`` (answers and hidden tests), the package's tests (wrong
answers, fixtures), grading folders, the trusted records of a ``--reference-cache``.

So publishing copies an allow-list, never the course minus a deny-list:

- ``exercises/``, ``notebooks/`` (the chapters), ``book/`` and the images its pages show, the
  book's ``_config.yml`` and ``_toc.yml``;
- the package: ``autograder/`` without ``autograder/tests/``, ``pyproject.toml``,
  ``README.md`` (the package's readme) and the ``requirements*.txt`` runtimes.

In a git checkout only the files git tracks are published. Hidden files and folders, caches and
links are never copied (a link is refused: it could point anywhere). Before anything is
written, every file to publish, and every file already in ``DEST`` that publishing keeps, is
searched for what must stay private (:func:`leaks`): nbgrader's solution and hidden-test
markers in a notebook, the body of any answer or hidden test of ``solutions/``, a released
value of a hidden check. Any finding refuses the whole publication and names the file. In
``DEST``, publishing writes what changed and removes, inside the folders it publishes, what
the course no longer has; everything else there (``.git``, the repository's own workflows)
stays.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import nbformat

from autograder.grader.release import EXERCISES, ROOT, SOLUTIONS, VALUES, written_records

PUBLIC_FOLDERS = ("exercises", "notebooks", "book", "autograder")
PUBLIC_FILES = ("README.md", "pyproject.toml", "_config.yml", "_toc.yml", "requirements.txt",
                "requirements-colab.txt", "requirements-newest.txt")
VALUES_FOLDER = VALUES.relative_to(ROOT)  # the values files, inside a course
PRIVATE = ("solutions", "autograder/tests")  # never published, whatever links to them
_SKIPPED_NAMES = ("__pycache__",)
_SKIPPED_SUFFIXES = (".pyc", ".pyo")
_IMAGE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg", ".gif")
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS",
           "### END HIDDEN TESTS")


@dataclass(frozen=True)
class Secret:
    """A private piece of the course: what it is, and its lines as :func:`normalised` gives."""

    label: str
    body: str
    answer: bool  # an answer (else a hidden test)


def normalised(text: str) -> str:
    """``text``'s lines stripped, blank lines and nbgrader's markers left out."""
    return "\n".join(line.strip() for line in text.splitlines()
                     if line.strip() and line.strip() not in MARKERS)


def _between(source: str, begin: str, end: str) -> list[str]:
    """The texts between each ``begin`` line and the next ``end`` line (or the end)."""
    found: list[str] = []
    lines, inside, part = source.splitlines(), False, []
    for line in lines:
        if line.strip() == begin and not inside:
            inside, part = True, []
        elif line.strip() == end and inside:
            inside = False
            found.append("\n".join(part))
        elif inside:
            part.append(line)
    if inside:
        found.append("\n".join(part))
    return found


def secrets(solutions: Path) -> list[Secret]:
    """Every answer and every hidden test of the sources in ``solutions``.

    An answer is what an answer cell holds between nbgrader's solution markers (the whole cell
    when it has none); a hidden test is what a test cell holds between the hidden-test markers.
    """
    from autograder.core.notebook import nbgrader_meta

    found: list[Secret] = []
    for path in sorted(solutions.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = nbgrader_meta(cell)
            gid = meta.get("grade_id", "?")
            parts: list[tuple[str, str, bool]] = []
            if meta.get("solution"):
                bodies = _between(cell.source, MARKERS[0], MARKERS[1]) or [cell.source]
                parts += [(f"the answer {gid}", body, True) for body in bodies]
            parts += [(f"the hidden tests of {gid}", body, False)
                      for body in _between(cell.source, MARKERS[2], MARKERS[3])]
            found += [Secret(f"{path.stem}: {label}", normalised(body), answer)
                      for label, body, answer in parts if normalised(body)]
    return found


def _readable(name: str, data: bytes) -> tuple[str, list[str]] | None:
    """A file's text to search (a notebook's cell sources and text outputs), and the lines of
    any notebook cell that are nbgrader markers; None for a file that is not text."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not name.endswith(".ipynb"):
        return text, []
    try:
        nb = json.loads(text)
        cells = nb.get("cells", []) if isinstance(nb, dict) else []
    except ValueError:
        return text, []
    pieces: list[str] = []
    markers: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        pieces.append(source)
        markers += [line.strip() for line in source.splitlines() if line.strip() in MARKERS]
        for output in cell.get("outputs", []) or []:
            if isinstance(output, dict):
                shown = output.get("text") or (output.get("data") or {}).get("text/plain", "")
                pieces.append("".join(shown) if isinstance(shown, list) else str(shown))
    return "\n".join(pieces), markers


def _hidden_values(name: str, data: bytes) -> bool:
    """True when ``name`` is a values file holding a hidden check's value."""
    if not (name.startswith(f"{VALUES_FOLDER.as_posix()}/") and name.endswith(".json")):
        return False
    try:
        cells = json.loads(data).get("cells", {})
        return any(isinstance(item, dict) and item.get("hidden")
                   for sets in cells.values() for items in sets.values() for item in items)
    except (ValueError, AttributeError, TypeError):
        return False


def leaks(files: dict[str, bytes], private: list[Secret]) -> tuple[list[str], list[str]]:
    """What in ``files`` (relative path -> bytes) is private: one line per finding, as
    (refused, noted).

    Refused: nbgrader's solution or hidden-test markers in a notebook, a hidden test's body or
    an answer's (``private``, matched line for line, whitespace aside), a hidden check's value.
    Noted only: an answer a chapter (``notebooks/``) shows verbatim, as the chapter teaching an
    idiom may; the chapters are published as they are, and the note tells the instructor.
    """
    refused: list[str] = []
    noted: list[str] = []
    for name in sorted(files):
        readable = _readable(name, files[name])
        if readable is None:
            continue
        text, markers = readable
        if markers:
            refused.append(f"{name} holds nbgrader's markers ({markers[0]})")
        haystack = f"\n{normalised(text)}\n"
        for secret in private:
            if f"\n{secret.body}\n" not in haystack:
                continue
            if secret.answer and name.startswith("notebooks/"):
                noted.append(f"note: the chapter {name} shows {secret.label} verbatim")
            else:
                refused.append(f"{name} holds {secret.label}")
        if _hidden_values(name, files[name]):
            refused.append(f"{name} holds the value of a hidden check")
    return refused, noted


def _tracked(root: Path) -> set[str] | None:
    """The files git tracks in ``root`` (relative POSIX paths); None when it is no checkout."""
    try:
        proc = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return {name for name in proc.stdout.decode("utf-8", "replace").split("\0") if name}


def _skipped(relative: PurePosixPath) -> bool:
    """True for what is never published: hidden names, caches, the private folders."""
    text = relative.as_posix()
    return (any(part.startswith(".") or part in _SKIPPED_NAMES for part in relative.parts)
            or relative.suffix in _SKIPPED_SUFFIXES or relative.name.endswith(".egg-info")
            or any(text == p or text.startswith(p + "/") for p in PRIVATE))


def _book_images(root: Path) -> list[str]:
    """The course's images that the book's pages show (``](../bench/results/x.png)``)."""
    import os
    import re

    found: set[str] = set()
    for page in sorted((root / "book").glob("*.md")):
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            path = Path(os.path.normpath(page.parent / target))  # a link stays a link
            if path.suffix.lower() in _IMAGE_SUFFIXES and (path.is_file() or path.is_symlink()):
                try:
                    found.add(path.relative_to(root).as_posix())
                except ValueError:
                    continue
    return sorted(found)


def public_files(root: Path = ROOT) -> tuple[dict[str, Path], list[str]]:
    """What publishing ``root`` copies (relative path -> file), and why anything was left out.

    Raises:
        ValueError: when a path to publish is a link (it could point at anything private).
    """
    tracked = _tracked(root)
    chosen: dict[str, Path] = {}
    notes: list[str] = []
    candidates: list[Path] = []
    for name in PUBLIC_FOLDERS:
        folder = root / name
        if folder.is_symlink():
            raise ValueError(f"{name}/ is a link: publish copies no links")
        if folder.is_dir():
            candidates += sorted(p for p in folder.rglob("*") if not p.is_dir() or p.is_symlink())
    candidates += [root / name for name in PUBLIC_FILES if (root / name).exists()
                   or (root / name).is_symlink()]
    candidates += [root / name for name in _book_images(root)]
    for path in candidates:
        relative = PurePosixPath(path.relative_to(root).as_posix())
        if _skipped(relative) or relative.as_posix() in chosen:
            continue
        if path.is_symlink():
            raise ValueError(f"{relative} is a link: publish copies no links")
        if not path.is_file():
            continue
        if tracked is not None and relative.as_posix() not in tracked:
            notes.append(f"left out {relative}: git does not track it")
            continue
        chosen[relative.as_posix()] = path
    return chosen, notes


def unreleased(root: Path = ROOT) -> list[str]:
    """Why ``root``'s exercises are not a release of its sources (empty when they are): an
    exercise missing or without a source, a test cell naming values the package lacks."""
    solutions, exercises = root / SOLUTIONS.name, root / EXERCISES.name
    values = root / VALUES_FOLDER
    sources = {p.name for p in solutions.glob("*.ipynb")}
    released = {p.name for p in exercises.glob("*.ipynb")}
    problems = [f"exercises/{name} is missing" for name in sorted(sources - released)]
    problems += [f"exercises/{name} has no source" for name in sorted(released - sources)]
    for name in sorted(sources & released):
        missing: list[str] = []
        written_records((exercises / name).read_text(), values, missing)
        problems += [f"exercises/{name}: {line}" for line in missing]
    return problems


def _existing(dest: Path) -> dict[str, Path]:
    """Every file in ``dest`` (relative path -> file), ``.git`` left out; links included."""
    found: dict[str, Path] = {}
    for path in sorted(dest.rglob("*")):
        relative = path.relative_to(dest)
        if relative.parts[0] == ".git" or (path.is_dir() and not path.is_symlink()):
            continue
        found[relative.as_posix()] = path
    return found


def _owned(name: str) -> bool:
    """True for a path of ``DEST`` that publishing manages (removes when the course lacks it)."""
    return name in PUBLIC_FILES or name.split("/", 1)[0] in PUBLIC_FOLDERS


def publish(dest: Path, root: Path = ROOT) -> list[str]:
    """Copy the released course ``root`` into ``dest`` (a checkout of its public repository).

    Returns:
        One line per file written or removed, and per file left out.

    Raises:
        ValueError: when ``dest`` overlaps the course, the exercises are not a release of
            the sources, a path to publish is a link, or anything private would be published
            or stay in ``dest`` (nothing is written then).
    """
    dest, root = dest.resolve(), root.resolve()
    if dest == root or root in dest.parents or dest in root.parents:
        raise ValueError(f"{dest} overlaps the course folder {root}: publish into a separate "
                         "checkout of the public repository")
    if dest.exists() and not dest.is_dir():
        raise ValueError(f"{dest} is not a folder")
    problems = unreleased(root)
    if problems:
        raise ValueError("the exercises are not a release of solutions/ ("
                         + "; ".join(problems[:5]) + "): run `python -m autograder release`")
    chosen, notes = public_files(root)
    content = {name: path.read_bytes() for name, path in chosen.items()}
    existing = _existing(dest) if dest.exists() else {}
    kept = {name: path for name, path in existing.items()
            if name not in content and not _owned(name)}
    links = [name for name, path in kept.items() if path.is_symlink()]
    private = secrets(root / SOLUTIONS.name)
    found, noted = leaks(content, private)
    found += leaks({name: path.read_bytes() for name, path in kept.items()
                    if name not in links}, private)[0]
    notes += noted
    if found:
        raise ValueError("nothing was published: private material would be public:\n  "
                         + "\n  ".join(found))
    linked = sorted({str(folder.relative_to(dest)) for name in content
                     for folder in (dest / name).parents
                     if dest in folder.parents and folder.is_symlink()})
    if linked:
        raise ValueError(f"nothing was published: {', '.join(linked)} in {dest} is a link "
                         "(publish writes only inside DEST)")
    report: list[str] = []
    for name in sorted(existing):
        if _owned(name) and name not in content:
            existing[name].unlink()
            report.append(f"removed {name}")
    for name, data in content.items():
        target = dest / name
        if target.is_symlink():
            target.unlink()
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        report.append(f"wrote {name}")
    _remove_empty_folders(dest)
    return report + notes


def _remove_empty_folders(dest: Path) -> None:
    """Remove folders left empty inside the published folders of ``dest``."""
    for name in PUBLIC_FOLDERS:
        folder = dest / name
        if not folder.is_dir() or folder.is_symlink():
            continue
        for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
            if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
                path.rmdir()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``publish`` command's options."""
    parser.add_argument("dest", type=Path, metavar="DEST",
                        help="a checkout of the course's public repository (created if missing)")


def run(args: argparse.Namespace) -> int:
    """Publish into ``args.dest``; exit status 0, or 1 when nothing could be published."""
    try:
        report = publish(args.dest, ROOT)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for line in report:
        print(line)
    written = sum(line.startswith(("wrote", "removed")) for line in report)
    print(f"{args.dest}: {written} files written or removed"
          if written else f"{args.dest} already holds this release.")
    print(f"Review and commit there (git -C {args.dest} add -A && git -C {args.dest} commit), "
          "then push.")
    return 0
