"""Tests of autograder.grader.merge with `grade --shard`: shards graded in parallel processes into
one
real PostgreSQL gradebook, merged, match one unsharded run."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.grader.grade import shard_of
from autograder.tests.conftest import FIXTURES, ROOT, fresh_database

CASES = ["correct", "partial", "empty-stub", "colab-saved", "cells-deleted", "tests-edited",
         "extra-helper-cell", "invalid-json"]
STUDENTS = 40  # the partition's class
# The graded class: two students of each case, every shard of four getting some (5, 3, 3, 5
# of them), so sharding, merging and the gradebook see each case twice.
CLASS = 2 * len(CASES)
SHARDS = 4
SAME = ["grades.csv", "summary.md", "grades-canvas.csv", "grades-moodle.csv"]


def _class(folder: Path) -> dict[str, str]:
    """:data:`CLASS` students' submissions of the tiny course, cases in turn: student -> case."""
    cases = {}
    for i in range(CLASS):
        student, case = f"student{i:02d}", CASES[i % len(CASES)]
        (folder / student).mkdir(parents=True)
        shutil.copy(FIXTURES / "submissions" / f"{case}.ipynb", folder / student / "00_tiny.ipynb")
        cases[student] = case
    return cases


def _grade_args(subs: Path, out: Path, *extra: str) -> list[str]:
    return ["grade", str(subs), "--source", str(FIXTURES / "course"), "--out", str(out), *extra]


def _totals(url: str) -> dict[str, float]:
    """student -> total auto score in the gradebook at ``url``."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sqlalchemy.text(
                "select s.student_id, sum(g.auto_score), count(*) from grade g "
                "join submitted_notebook n on g.notebook_id = n.id "
                "join submitted_assignment s on n.assignment_id = s.id group by s.student_id"))
            return {student: (float(total), int(count)) for student, total, count in rows}
    finally:
        engine.dispose()


def test_shards_partition_the_students_deterministically() -> None:
    """Does every student fall in exactly one shard, the same one every time, and do four
    shards each get some of forty students?"""
    students = [f"student{i:02d}" for i in range(STUDENTS)]
    shards = [shard_of(s, SHARDS) for s in students]
    assert shards == [shard_of(s, SHARDS) for s in students]
    assert set(shards) == set(range(1, SHARDS + 1))
    assert all(shard_of(s, 1) == 1 for s in students)


def test_bad_shard_and_export_options_exit_2(tmp_path: Path, capsys) -> None:
    """Are `--shard 5/4`, `--shard x` and `--export excel` refused with a usage message?"""
    for bad in (["--shard", "5/4"], ["--shard", "x"], ["--export", "excel"]):
        with pytest.raises(SystemExit) as info:
            main(_grade_args(tmp_path, tmp_path / "out", *bad))
        assert info.value.code == 2
    err = capsys.readouterr().err
    assert "K must be between 1 and N" in err and "unknown export excel" in err


def test_merge_refuses_conflicting_results(tmp_path: Path, capsys) -> None:
    """Does merge refuse two folders that hold different results for one student and
    assignment, instead of keeping either silently?"""
    for folder, score in (("a", 1.0), ("b", 2.0)):
        dest = tmp_path / folder / "ann" / "00_tiny"
        dest.mkdir(parents=True)
        dest.joinpath("result.json").write_text(json.dumps(
            {"student": "ann", "assignment": "00_tiny", "submission": "x", "score": score}))
    status = main(["merge", str(tmp_path / "a"), str(tmp_path / "b"), "--out",
                   str(tmp_path / "out"), "--source", str(FIXTURES / "course")])
    assert status == 2 and "hold different results" in capsys.readouterr().err


@pytest.mark.slow
def test_four_shards_into_postgres_merge_to_one_run(tmp_path: Path, postgres_url: str,
                                                    monkeypatch) -> None:
    """Graded as 4 shards in parallel processes writing one PostgreSQL gradebook, then merged,
    do 16 submissions (two of each case, each shard some) get the same grades.csv,
    summary.md and Canvas/Moodle exports as one unsharded run, every grade exactly once in
    the gradebook, and a second merge change nothing? (Shards and merge hold the results
    key, as in CI.)"""
    import os

    monkeypatch.setenv("LEARN_JAX_RESULTS_KEY", KEY)
    subs = tmp_path / "subs"
    cases = _class(subs)
    shards_db = fresh_database(postgres_url, "shards")
    procs = [subprocess.Popen(
        [sys.executable, "-m", "autograder", *_grade_args(
            subs, tmp_path / f"shard{k}", "--shard", f"{k}/{SHARDS}", "--db", shards_db)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ)) for k in range(1, SHARDS + 1)]
    logs = [p.communicate(timeout=900)[0] for p in procs]
    failed = [f"shard {k}: exit {p.returncode}\n{log[-3000:]}"
              for k, (p, log) in enumerate(zip(procs, logs, strict=True), 1) if p.returncode]
    assert failed == []

    merged, merged_db = tmp_path / "merged", fresh_database(postgres_url, "merged")
    shard_dirs = [str(tmp_path / f"shard{k}") for k in range(1, SHARDS + 1)]
    assert main(["merge", *shard_dirs, "--out", str(merged), "--db", merged_db, "--export",
                 "canvas,moodle", "--source", str(FIXTURES / "course")]) == 0
    single = tmp_path / "single"
    assert main(_grade_args(subs, single, "--jobs", "2", "--export", "canvas,moodle")) == 0

    for name in SAME:
        assert (merged / name).read_text() == (single / name).read_text(), name
    assert (merged / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for student in cases:
        for name in ("result.json", "feedback.html"):
            assert (merged / student / "00_tiny" / name).exists() == (
                single / student / "00_tiny" / name).exists(), (student, name)

    rows = {r["student"]: r for r in csv.DictReader((single / "grades.csv").open())}
    want = {s: (float(rows[s]["score"]), 2) for s, case in cases.items()
            if rows[s]["status"] == "graded"}
    # the invalid-json ones are not graded, nor the empty-stub ones (left as released)
    assert len(want) == CLASS - 2 * (CLASS // len(CASES))
    assert {shard_of(s, SHARDS) for s in cases} == set(range(1, SHARDS + 1))
    assert _totals(shards_db) == want  # four writers at once: nothing lost, nothing twice
    assert _totals(merged_db) == want
    before = (merged / "grades.csv").read_text()
    assert main(["merge", *shard_dirs, "--out", str(merged), "--db", merged_db,
                 "--source", str(FIXTURES / "course")]) == 0
    assert _totals(merged_db) == want and (merged / "grades.csv").read_text() == before


# ---------------------------------------------------------------- merge verifies what it
# merges: identity from the folder layout, manifests signed with the results key

KEY = "course-results-key-for-tests"


def _shard(folder: Path, results: list[tuple[str, str, float]], key: str | None = KEY) -> None:
    """A shard as grading writes it: result folders and a manifest (signed with ``key``)."""
    from autograder.grader.judging.manifest import write_manifest
    from autograder.grader.result import Result

    for student, assignment, score in results:
        Result(student, assignment, f"{student}/{assignment}.ipynb", score=score,
               max_score=5).write(folder)
    write_manifest(folder, [(s, a) for s, a, _ in results], key.encode() if key else None)


def _merge(tmp_path: Path, *shards: str) -> int:
    return main(["merge", *(str(tmp_path / s) for s in shards), "--out", str(tmp_path / "out"),
                 "--source", str(FIXTURES / "course")])


def test_a_result_naming_another_student_is_refused(tmp_path: Path, capsys) -> None:
    """Does a result.json in mallory's folder that names ann (to give ann its score) stop the
    merge with a message naming the file, while ann's own honest shard, alone, merges?"""
    _shard(tmp_path / "honest", [("ann", "00_tiny", 2.0)], key=None)
    forged = tmp_path / "forged" / "mallory" / "00_tiny"
    forged.mkdir(parents=True)
    forged.joinpath("result.json").write_text(json.dumps(
        {"student": "ann", "assignment": "00_tiny", "submission": "x", "score": 5.0}))
    assert _merge(tmp_path, "honest", "forged") == 2
    err = capsys.readouterr().err
    assert str(forged / "result.json") in err and "names student 'ann'" in err
    assert not (tmp_path / "out" / "ann").exists()
    from autograder.grader.merge import merge

    merged = merge([tmp_path / "honest"], tmp_path / "out", key=b"")
    assert [(r.student, r.score) for r in merged] == [("ann", 2.0)]


def test_a_result_whose_student_leads_out_is_refused(tmp_path: Path, capsys) -> None:
    """Is a result naming student ``../../x`` (in its own folder, or in a folder so named)
    refused, with nothing written outside --out?"""
    inside = tmp_path / "shard" / "mallory" / "00_tiny"
    inside.mkdir(parents=True)
    inside.joinpath("result.json").write_text(json.dumps(
        {"student": "../../x", "assignment": "00_tiny", "submission": "x", "score": 5.0}))
    assert _merge(tmp_path, "shard") == 2
    assert "refused" in capsys.readouterr().err
    dotted = tmp_path / "dots" / "..x" / "00_tiny"
    dotted.mkdir(parents=True)
    dotted.joinpath("result.json").write_text(json.dumps(
        {"student": "..x", "assignment": "00_tiny", "submission": "x", "score": 5.0}))
    assert _merge(tmp_path, "dots") == 2
    assert "not a student and assignment name" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path.parent / "x").exists()


def test_with_a_key_only_shards_it_signed_are_merged(tmp_path: Path, monkeypatch,
                                                     capsys) -> None:
    """With LEARN_JAX_RESULTS_KEY set, is a shard refused when a score was edited after
    grading, when a result was added, when it has no manifest or one signed with another key
    (each named), while the honest signed shards merge and get a signed manifest of their
    own?"""
    from autograder.grader.judging.manifest import verify
    from autograder.grader.merge import merge

    monkeypatch.setenv("LEARN_JAX_RESULTS_KEY", KEY)
    _shard(tmp_path / "a", [("ann", "00_tiny", 2.0)])
    _shard(tmp_path / "b", [("bob", "00_tiny", 5.0)])
    merged = merge([tmp_path / "a", tmp_path / "b"], tmp_path / "out")
    assert sorted((r.student, r.score) for r in merged) == [("ann", 2.0), ("bob", 5.0)]
    assert verify(tmp_path / "out", KEY.encode()) is not None

    def refused(shard: str, why: str) -> None:
        assert _merge(tmp_path, shard) == 2, shard
        assert why in capsys.readouterr().err, shard

    _shard(tmp_path / "edited", [("eve", "00_tiny", 1.0)])
    path = tmp_path / "edited" / "eve" / "00_tiny" / "result.json"
    path.write_text(path.read_text().replace('"score": 1.0', '"score": 5.0'))
    refused("edited", "was changed after grading")
    _shard(tmp_path / "added", [("eve", "00_tiny", 1.0)])
    Path(tmp_path / "added" / "zed" / "00_tiny").mkdir(parents=True)
    (tmp_path / "added" / "zed" / "00_tiny" / "result.json").write_text(json.dumps(
        {"student": "zed", "assignment": "00_tiny", "submission": "x", "score": 5.0}))
    refused("added", "is not in")
    _shard(tmp_path / "unsigned", [("eve", "00_tiny", 1.0)], key=None)
    refused("unsigned", "does not verify")
    _shard(tmp_path / "other-key", [("eve", "00_tiny", 1.0)], key="another key")
    refused("other-key", "does not verify")
    _shard(tmp_path / "none", [("eve", "00_tiny", 1.0)])
    (tmp_path / "none" / "manifest.json").unlink()
    refused("none", "no manifest")


@pytest.mark.slow
def test_a_graded_shard_signed_with_the_key_merges(tmp_path: Path, monkeypatch) -> None:
    """Does a real grading run holding the key sign its manifest (and take the key out of its
    environment, so no kernel inherits it), and does that shard merge with the key?"""
    import os

    from autograder.grader.judging.manifest import verify

    (tmp_path / "subs" / "ann").mkdir(parents=True)
    shutil.copy(FIXTURES / "submissions" / "correct.ipynb",
                tmp_path / "subs" / "ann" / "00_tiny.ipynb")
    monkeypatch.setenv("LEARN_JAX_RESULTS_KEY", KEY)
    assert main(_grade_args(tmp_path / "subs", tmp_path / "shard", "--no-feedback")) == 0
    assert "LEARN_JAX_RESULTS_KEY" not in os.environ
    assert set(verify(tmp_path / "shard", KEY.encode())) == {"ann/00_tiny/result.json"}
    monkeypatch.setenv("LEARN_JAX_RESULTS_KEY", KEY)
    assert _merge(tmp_path, "shard") == 0
    merged = json.loads((tmp_path / "out" / "ann" / "00_tiny" / "result.json").read_text())
    assert (merged["student"], merged["score"]) == ("ann", 5)
