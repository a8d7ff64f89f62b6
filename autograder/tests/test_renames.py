"""The table of renamed assignments (:mod:`autograder.core.renames`) and every place the
grader meets an old name: a learner's notebook (graded as the new one, with a warning), the
instructor's files (refused, naming the new name), an LMS column (a note), merged results
(refused), and the instructor guide's table.

The fixtures name the course's assignments as the table leaves them (:func:`final_names`),
never the repository's notebooks, so these tests hold before and after a rename lands.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from autograder.core.renames import (
    MOVED_QUESTIONS,
    RENAMED,
    RENAMES,
    current_name,
    final_names,
    markdown_table,
    old_names,
    renamed_to,
)
from autograder.grader.classroom.classlist import Override, read_canvas_gradebook
from autograder.grader.classroom.decisions import Inputs, check_names, read_inputs
from autograder.grader.classroom.term import read_term
from autograder.grader.reports.exports import canvas_columns
from autograder.grader.submissions import assignments, discover
from autograder.tests.conftest import ROOT

KNOWN = final_names(["01_arrays"])  # the course after every rename in the table
JIT = current_name("05_jit", KNOWN)  # the jit chapter's name now
OLD = "05_jit"  # an old name: the course no longer defines it


def test_the_table_leads_every_old_name_to_one_name_the_course_defines() -> None:
    """Does every old name lead, through its chain of renames, to a name no rename changes;
    is no current name also an old one (which would make a name mean two assignments); does
    every moved question land in a current assignment; and is every assignment the course
    defines today either a current name or an old one the table knows (so the table covers
    the course before and after the rename lands)?"""
    assert len(RENAMED) == len(RENAMES)  # one line per old name
    for old in RENAMED:
        new = renamed_to(old, KNOWN)
        assert new in KNOWN and new not in RENAMED, old
        assert old in old_names(new)
    assert not set(KNOWN) & set(RENAMED)
    for (old, _), (new, _) in MOVED_QUESTIONS.items():
        assert old in RENAMED and new in KNOWN
    assert JIT == "06_jit" and current_name("08_pmap", KNOWN) == "11_sharding"
    assert current_name("08_pmap", ["08_sharding"]) == "08_sharding"  # before the renumbering
    assert current_name("99_nope", KNOWN) == "99_nope" and renamed_to(JIT, KNOWN) is None
    course = assignments()
    assert course and set(course) <= set(KNOWN) | set(RENAMED), course


def test_the_instructor_guide_shows_the_table() -> None:
    """Is the table in book/instructors.md exactly :func:`markdown_table` (one row per old
    name, with the questions that moved), between its markers?"""
    text = (ROOT / "book" / "instructors.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- renames table:.*?-->\n(.*?)<!-- end of renames table -->", text,
                      re.DOTALL)
    assert found, "book/instructors.md has no renames table between its markers"
    assert found.group(1) == markdown_table()
    for old in RENAMED:
        assert f"| `{old}` |" in found.group(1)
    assert "q6 → 07_debugging q1" in found.group(1)


def test_a_notebook_saved_under_an_old_name_is_graded_as_the_new_one(tmp_path: Path) -> None:
    """Is ``05_jit.ipynb`` (and Colab's ``Copy of 08_sharding.ipynb``) graded as its new
    assignment with a warning that names the rename and the questions that moved (their
    answers in that file are not graded); and is the honest twin, a notebook with the new
    name, graded with no note?"""
    for rel in ["alice/05_jit.ipynb", "bob/Copy of 08_sharding.ipynb", "carol/06_jit.ipynb",
                "dan/03_prng (1).ipynb"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    found = {s.student: s for s in discover([tmp_path], KNOWN)}
    assert {s: found[s].assignment for s in found} == {
        "alice": "06_jit", "bob": "11_sharding", "carol": "06_jit", "dan": "04_prng"}
    assert all(not s.problem for s in found.values())
    assert found["alice"].note.startswith("05_jit.ipynb is graded as 06_jit: 05_jit is now "
                                          "06_jit (since the course of 2026-11-29")
    assert "q6 is now 07_debugging q1" in found["alice"].note
    assert "an answer to q6 in this file is not graded" in found["alice"].note
    assert "q5 is now 12_shard_map q1" in found["bob"].note
    assert "08_sharding is now 11_sharding" in found["bob"].note
    assert found["dan"].note.startswith("03_prng (1).ipynb is graded as 04_prng")
    assert found["carol"].note == ""
    (only,) = discover([tmp_path / "alice"], KNOWN, OLD)  # --assignment 05_jit
    assert only.assignment == JIT


def _term(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "term.toml"
    path.write_text(f"[assignment.{name}]\ndue = 2026-09-14T23:59:00+02:00\n\n"
                    f"[[excused]]\nstudent = \"ada\"\nassignment = \"{name}\"\nreason = \"ill\"\n")
    return path


def test_a_term_file_with_an_old_name_is_refused_with_the_new_one(tmp_path: Path) -> None:
    """Is a term file's ``[assignment.05_jit]`` an error that names the line, the new name
    and what to rename (a schedule under a name nobody is graded under would silently never
    apply); and does the honest twin, ``[assignment.06_jit]``, read?"""
    with pytest.raises(ValueError) as err:
        read_term(_term(tmp_path, OLD), KNOWN)
    message = str(err.value)
    assert "line 1: 05_jit is now 06_jit (since the course of 2026-11-29" in message
    assert "rename [assignment.05_jit] to [assignment.06_jit] in the term file" in message
    assert "q6 is now 07_debugging q1" in message
    term = read_term(_term(tmp_path, JIT), KNOWN)
    assert list(term.assignments) == [JIT] and term.excused == {("ada", JIT): "ill"}
    with pytest.raises(ValueError, match="unknown assignment '99_nope'"):
        read_term(_term(tmp_path, "99_nope"), KNOWN)


def _args(tmp_path: Path, **given) -> argparse.Namespace:
    base = {"overrides": None, "roster": None, "canvas_gradebook": None, "canvas_columns": None}
    return argparse.Namespace(**{**base, **given})


def test_the_instructors_other_files_with_an_old_name_are_refused(tmp_path: Path) -> None:
    """Are an overrides row, a Canvas column-map row, ``--assignments`` and
    ``--moodle-maximum`` naming an old name each refused with the new name (a hand-set score
    under the old name would be lost); and do their honest twins with the new name pass?"""
    overrides = Inputs(overrides=[Override("ada", OLD, "", 3.0, "regraded by hand", 2)],
                       overrides_file=tmp_path / "overrides.csv")
    with pytest.raises(ValueError, match=r"line 2: 05_jit is now 06_jit .*write 06_jit for "
                                         r"05_jit in the overrides file"):
        check_names(overrides, {"ada"}, KNOWN)
    check_names(Inputs(overrides=[Override("ada", JIT, "", 3.0, "by hand", 2)]), {"ada"},
                KNOWN)
    columns = tmp_path / "columns.csv"
    for name, ok in ((OLD, False), (JIT, True)):
        columns.write_text(f"assignment,canvas_column\n{name},Lab 5: jit (881)\n")
        for args in (_args(tmp_path, canvas_columns=columns),
                     _args(tmp_path, assignments=[name]),
                     _args(tmp_path, moodle_maximum={name: 10.0})):
            if ok:
                read_inputs(args, tmp_path / "out", KNOWN)
            else:
                with pytest.raises(ValueError, match="05_jit is now 06_jit .*06_jit"):
                    read_inputs(args, tmp_path / "out", KNOWN)


def test_an_lms_column_with_an_old_name_gets_a_note_naming_the_new_one(
        tmp_path: Path) -> None:
    """Is a Canvas gradebook column titled with an old name (last term's ``05_jit``) left
    unwritten, with a note that names the column, the rename and how to map it; and is the
    honest twin, a column titled with the new name, matched?"""
    for title, found in (("05_jit (881)", False), ("06_jit (881)", True)):
        path = tmp_path / "canvas.csv"
        path.write_text("Student,ID,SIS User ID,SIS Login ID,Section,01 Arrays (880),"
                        f"{title},Current Score\n"
                        "    Points Possible,,,,,100.00,50.00,(read only)\n"
                        '"Lovelace, Ada",7301,20230001,alovelace,JAX 101,,,\n')
        book = read_canvas_gradebook(path)
        columns, notes = canvas_columns(book, ["01_arrays", JIT], {})
        assert set(columns) == ({"01_arrays", JIT} if found else {"01_arrays"})
        if found:
            assert notes == []
        else:
            (note,) = notes
            assert note.startswith("06_jit: no Canvas assignment's title names it; the "
                                   "column '05_jit' names its old name: 05_jit is now 06_jit")
            assert "rename that LMS assignment to 06_jit" in note
            assert note.endswith("its scores are not exported")


def test_results_graded_under_an_old_name_are_not_merged(tmp_path: Path) -> None:
    """Does ``merge`` refuse a results folder ``<student>/05_jit/`` (the grade would land in
    no gradebook or LMS column), naming the rename and the regrade; and does the honest twin,
    results under the new name, merge?"""
    from autograder.grader.merge import merge
    from autograder.grader.result import Result

    for name in (OLD, JIT):
        shard = tmp_path / name / "shard"
        Result("ada", name, f"ada/{name}.ipynb", score=3.0, max_score=5).write(shard)
        out = tmp_path / name / "out"
        if name == OLD:
            with pytest.raises(ValueError, match="05_jit is now 06_jit .*regrade the "
                                                 "submissions"):
                merge([shard], out, key=b"", known=KNOWN)
            assert not (out / "ada").exists()
        else:
            assert [r.assignment for r in merge([shard], out, key=b"", known=KNOWN)] == [JIT]


def test_a_notebook_saved_before_a_rename_finds_its_released_values(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """Does a saved notebook's test cell, ``expected_values("05_jit", test, digest)``, find
    the values released under that digest in the values file of the new name (06_jit.json,
    which a release keeps them in); does a digest no file has still stop with the one-line
    mismatch; and does a name with no rename find nothing in another exercise's file?"""
    from autograder.core.released import digest, render_values
    from autograder.kernel import reporter

    values = {"q1_tests": {digest([]): []}}
    (tmp_path / f"{JIT}.json").write_text(render_values(JIT, values))
    monkeypatch.setattr(reporter, "released_folders", lambda: [tmp_path])
    assert reporter.released_values(OLD, "q1_tests", digest([])) == []
    assert reporter.released_values(JIT, "q1_tests", digest([])) == []
    with pytest.raises(reporter.ReleaseMismatch, match="different releases"):
        reporter.released_values(OLD, "q1_tests", "0" * 12)
    with pytest.raises(reporter.ReleaseMismatch):
        reporter.released_values("07_vmap_x", "q1_tests", digest([]))


def test_grading_into_results_under_an_old_name_says_so(tmp_path: Path, monkeypatch,
                                                        capsys) -> None:
    """Does ``grade`` into a results folder that holds last term's ``bob/05_jit`` results stop
    before grading (as for any earlier results it would drop) and name the rename; and does
    the honest twin, earlier results under a current name, stop without that sentence?"""
    from autograder.__main__ import main
    from autograder.grader.result import Result

    source = tmp_path / "source"
    source.mkdir()
    for name in KNOWN:
        (source / f"{name}.ipynb").write_text("{}")
    (tmp_path / "subs" / "ada").mkdir(parents=True)
    (tmp_path / "subs" / "ada" / f"{JIT}.ipynb").write_text("{}")
    monkeypatch.setenv("LEARN_JAX_NO_SANDBOX", "1")  # so that nothing could be graded
    for name, said in ((OLD, True), ("04_prng", False)):
        out = tmp_path / f"out-{name}"
        Result("bob", name, f"bob/{name}.ipynb", score=3.0, max_score=5).write(out)
        status = main(["grade", str(tmp_path / "subs"), "--source", str(source),
                       "--require-sandbox", "--out", str(out)])
        err = capsys.readouterr().err
        assert status == 2 and "holds earlier results of 1 submission(s)" in err
        assert ("graded under an old name: 05_jit is now 06_jit" in err) is said, err
