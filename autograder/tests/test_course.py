"""Tests of autograder.grader.course: the gradebook of record, written by several graders at
once."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from autograder.grader.course import gradebook_lock, record_grades
from autograder.grader.result import QuestionResult, Result
from autograder.tests.conftest import FIXTURES, fresh_database

SOURCE = FIXTURES / "course"


def _results(students: range) -> list[Result]:
    """Graded results of the tiny course: student ``sNN`` scores NN % 3 on q1 and 3 on q2."""
    return [Result(f"s{i:02d}", "00_tiny", "x", score=i % 3 + 3.0, max_score=5.0,
                   questions=[QuestionResult("q1_double", float(i % 3), 2.0, "failed"),
                              QuestionResult("q2_set_first", 3.0, 3.0, "passed")])
            for i in students]


def _record(url: str, first: int) -> None:
    record_grades(_results(range(first, first + 10)), url, SOURCE)


def _scores(url: str) -> list[tuple[str, str, float]]:
    """(student, grade cell, score) for every grade row, sorted."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as conn:
            return sorted(conn.execute(sqlalchemy.text(
                "select s.student_id, g.cell_id, g.auto_score from grade g "
                "join submitted_notebook n on g.notebook_id = n.id "
                "join submitted_assignment s on n.assignment_id = s.id")).all())
    finally:
        engine.dispose()


def _want(students: range) -> int:
    return 2 * len(students)


@pytest.mark.slow
def test_four_writers_at_once_lose_nothing_in_postgres(postgres_url: str) -> None:
    """Do four processes recording 10 students each into one new PostgreSQL gradebook at the
    same moment (each finding the assignment missing) leave exactly 40 students' grades, each
    once with its score, and does recording them all again change nothing?"""
    url = fresh_database(postgres_url, "four_writers")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_record, args=(url, first)) for first in (0, 10, 20, 30)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    rows = _scores(url)
    assert len(rows) == 80 and len({r[0] for r in rows}) == 40
    totals = {}
    for student, _, score in rows:
        totals[student] = totals.get(student, 0.0) + score
    assert totals == {r.student: r.score for r in _results(range(40))}
    record_grades(_results(range(40)), url, SOURCE)
    assert _scores(url) == rows


def test_sqlite_lock_excludes_a_second_holder(tmp_path: Path) -> None:
    """Does the SQLite gradebook lock keep a second process out while the first holds it?"""
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    ctx = multiprocessing.get_context("spawn")
    with gradebook_lock(url):
        other = ctx.Process(target=_hold, args=(url,))
        other.start()
        other.join(3)
        assert other.is_alive(), "the second process got the lock while the first held it"
    other.join(30)
    assert other.exitcode == 0


def _hold(url: str) -> None:
    with gradebook_lock(url):
        pass


@pytest.mark.parametrize("isolated", ["bubblewrap", "none"])
def test_kernels_are_started_ahead_only_in_the_sandbox(tmp_path: Path, isolated: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Does the course start each next kernel ahead only where kernels are sandboxed (they
    start alike whatever the notebook; an unsandboxed kernel starts in its notebook's
    folder)?"""
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.grader import course

    monkeypatch.setattr(course, "isolation", lambda: isolated)
    course._write_config(tmp_path, "sqlite://")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert config.ExecuteWithLimits.prestart_kernel is (isolated == "bubblewrap")


def test_a_new_gradebook_is_stamped_as_nbgrader_stamps_it_without_a_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Does ``stamp_new_gradebook`` give an empty database the revision nbgrader's own
    ``alembic heads`` process reports, so that nbgrader opening it starts no such process and
    makes the same tables, and does it leave a database that holds tables as it is?"""
    import sqlite3

    from nbgrader import api

    from autograder.grader.course import _path_with_this_bin, stamp_new_gradebook

    monkeypatch.setenv("PATH", _path_with_this_bin())  # where nbgrader finds `alembic`
    with api.Gradebook(f"sqlite:///{tmp_path / 'nbgrader.db'}", "course"):
        pass  # nbgrader's own way: `alembic heads` in a new process
    stamp_new_gradebook(f"sqlite:///{tmp_path / 'stamped.db'}")
    monkeypatch.setattr(api, "get_alembic_version", lambda: pytest.fail("alembic was run"))
    with api.Gradebook(f"sqlite:///{tmp_path / 'stamped.db'}", "course"):
        pass

    def tables(name: str) -> tuple[list, list]:
        db = sqlite3.connect(tmp_path / name)
        try:
            return (sorted(db.execute("select name, sql from sqlite_master")),
                    db.execute("select version_num from alembic_version").fetchall())
        finally:
            db.close()

    assert tables("stamped.db") == tables("nbgrader.db")
    assert len(tables("stamped.db")[1]) == 1
    # the twin: a database that holds a table already is not stamped again
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("create table notes (x text)")
    other.commit()
    other.close()
    stamp_new_gradebook(f"sqlite:///{tmp_path / 'other.db'}")
    with sqlite3.connect(tmp_path / "other.db") as db:
        assert [r[0] for r in db.execute("select name from sqlite_master")] == ["notes"]
