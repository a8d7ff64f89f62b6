"""A week of a 1,000-learner term: one assignment's repositories fetched, its results merged,
the gradebook, the reports and the LMS files written, and the feedback returned, each stage
timed.

What runs as an instructor runs it each week, on this machine (one assignment, as
``grade-all.yml`` grades one at a time; the Canvas gradebook holds the term's three
assignments, the other two left as Canvas has them):

- **fetch**: ``fetch --deadline --roster --jobs N`` from one local bare repository per learner
  (``file://``, made by the bench from one template: the instructor's first commit and the
  learner's work), listed and dated by a stand-in for GitHub's REST API on 127.0.0.1
  (``/orgs/{org}/repos``, and each repository's ``/activity``, which says when each push
  arrived; one learner in twenty pushed after the deadline a commit dated before it).
- **shards**: grading is *not* run. Grading 1,000 notebooks takes hours on a two-core
  machine (the throughput benchmark measures grading itself); instead each shard folder gets
  what ``grade --shard K/N`` writes for its learners, synthesised: a ``result.json`` per learner
  and assignment with the source's real questions and points (scores drawn from a fixed
  seed), a feedback page of :data:`PAGE_KB` KiB (a stand-in for nbgrader's page; its size is
  not a measured one) and the shard's manifest. The stage's time is writing those files.
- **merge**, **gradebook**, **reports**, **Canvas export**, **Moodle export**: the functions
  ``merge`` runs, as they are: :func:`autograder.grader.merge.merge`,
  :func:`autograder.grader.classroom.decisions.settle` (every grade recorded in an nbgrader
  gradebook in SQLite, the assignments generated into it first),
  :func:`autograder.grader.reports.write_reports` (``grades.csv``, ``summary.md``, the
  figure), then each LMS file from a Canvas gradebook export of every learner and the roster.
- **return feedback**: ``return-feedback --jobs N`` to every learner's repository.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ("01_arrays", "03_pure_functions", "04_prng")
CANVAS_TITLES = {"01_arrays": "Lab 1: Arrays", "03_pure_functions": "Lab 3: Pure functions",
                 "04_prng": "Lab 4: PRNG"}
PAGE_KB = 40
ORG, PREFIX, TOKEN = "course-org", "jax-hw1", "bench-token"
DEADLINE = "2026-03-01T23:59:00+00:00"
ON_TIME, LATE = "2026-03-01T20:00:00Z", "2026-03-02T01:00:00Z"


def _login(i: int) -> str:
    return f"learner-{i:04d}"


def _git(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", "-c", "user.name=Bench", "-c", "user.email=b@example.com",
                           "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True,
                          capture_output=True, text=True, env=env).stdout.strip()


def make_repositories(root: Path, learners: int) -> tuple[list[dict], dict[str, list[dict]]]:
    """``learners`` bare repositories ``root/<PREFIX>-<login>.git``, copies of one with two
    commits (the template's, then the learner's work, dated before the deadline); the
    repository list and each one's push activity (every twentieth learner's work, from the sixth,
    pushed after the deadline)."""
    work = root / "template-work"
    work.mkdir(parents=True)
    _git("init", "--quiet", cwd=work)
    book = json.loads((ROOT / "exercises" / f"{ASSIGNMENTS[0]}.ipynb").read_text())
    (work / "exercises").mkdir()
    (work / "exercises" / f"{ASSIGNMENTS[0]}.ipynb").write_text(json.dumps(book))
    commits = []
    for when, text in (("2026-02-20T09:00:00+00:00", "template"),
                       ("2026-03-01T19:30:00+00:00", "my work")):
        (work / "README.md").write_text(text + "\n")
        _git("add", "-A", cwd=work)
        _git("commit", "--quiet", "-m", text, cwd=work,
             env={**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})
        commits.append(_git("rev-parse", "HEAD", cwd=work))
    template = root / "template.git"
    _git("init", "--quiet", "--bare", "--template=", str(template))
    _git("push", "--quiet", str(template), "HEAD:refs/heads/main", cwd=work)
    _git("--git-dir", str(template), "symbolic-ref", "HEAD", "refs/heads/main")
    repos, activity = [], {}
    for i in range(learners):
        name = f"{PREFIX}-{_login(i)}"
        shutil.copytree(template, root / f"{name}.git", symlinks=True)
        repos.append({"name": name, "full_name": f"{ORG}/{name}", "default_branch": "main",
                      "clone_url": (root / f"{name}.git").as_uri()})
        activity[name] = [
            {"after": commits[0], "timestamp": "2026-02-20T09:01:00Z", "activity_type": "push",
             "ref": "refs/heads/main"},
            {"after": commits[1], "timestamp": LATE if i % 20 == 5 else ON_TIME,
             "activity_type": "push", "ref": "refs/heads/main"}]
    return repos, activity


class StandIn:
    """GitHub's REST API as fetch uses it, on 127.0.0.1: the organisation's repositories, 100
    a page, and each repository's push activity and collaborators."""

    def __init__(self, repos: list[dict], activity: dict[str, list[dict]]) -> None:
        served = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                url = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(url.query)
                parts = url.path.strip("/").split("/")
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    body, status = {"message": "Bad credentials"}, 401
                elif url.path == f"/orgs/{ORG}/repos":
                    page, size = int(query["page"][0]), int(query["per_page"][0])
                    body, status = repos[(page - 1) * size:page * size], 200
                elif len(parts) == 4 and parts[3] == "activity" and parts[2] in activity:
                    body, status = activity[parts[2]], 200
                elif len(parts) == 4 and parts[3] == "collaborators" and parts[2] in activity:
                    # whose repository it is: its learner, as GitHub Classroom makes them
                    body, status = [{"login": parts[2].removeprefix(f"{PREFIX}-")}], 200
                else:
                    body, status = {"message": "Not Found"}, 404
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        served.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def write_class_files(folder: Path, learners: int) -> tuple[Path, Path]:
    """The roster (the course's own columns) and a Canvas gradebook export of every learner
    (Canvas's columns, its points row, an earlier score in one column); their paths."""
    roster, canvas = folder / "roster.csv", folder / "canvas-export.csv"
    with open(roster, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["identifier", "github_username", "github_id", "name"])
        writer.writerows([f"{_login(i).replace('-', '')}@uni.example", _login(i), str(1000 + i),
                          f"Learner {i}"] for i in range(learners))
    columns = [f"{CANVAS_TITLES[a]} ({5101 + n})" for n, a in enumerate(ASSIGNMENTS)]
    with open(canvas, "w", newline="", encoding="utf-8-sig") as fh:
        writer = csv.writer(fh)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *columns,
                         "Current Score", "Final Score"])
        writer.writerow(["Points Possible", "", "", "", "", *(["10"] * len(columns)),
                         "(read only)", "(read only)"])
        writer.writerows([f"Learner {i}", str(70000 + i), f"S{i:05d}",
                          f"{_login(i).replace('-', '')}@uni.example", "Section A",
                          *(["7"] + [""] * (len(columns) - 1)), "", ""]
                         for i in range(learners))
    return roster, canvas


def write_shards(folder: Path, logins: list[str], assignments: tuple[str, ...],
                 shards: int, page_kb: int = PAGE_KB, seed: int = 0) -> list[Path]:
    """What ``grade --shard K/N`` writes for ``logins`` and ``assignments``, synthesised (see
    the module docstring): a folder per shard; their paths."""
    import nbformat

    from autograder.core.notebook import questions
    from autograder.grader.judging.manifest import write_manifest
    from autograder.grader.release import SOLUTIONS
    from autograder.grader.result import QuestionResult, Result

    asked = {a: questions(nbformat.read(SOLUTIONS / f"{a}.ipynb", as_version=4))
             for a in assignments}
    rng = random.Random(seed)
    filler = "<p>" + "x" * 1000 + "</p>\n"
    out = []
    for k in range(shards):
        shard = folder / f"shard-{k + 1}"
        mine = logins[k::shards]
        done = []
        for login in mine:
            for a in assignments:
                marks = [QuestionResult(q.answer_id, q.points if passed else 0.0, q.points,
                                        "passed" if passed else "failed",
                                        "" if passed else "AssertionError: not equal")
                         for q in asked[a] for passed in [rng.random() < 0.8]]
                r = Result(login, a, f"{login}/exercises/{a}.ipynb",
                           score=sum(m.score for m in marks),
                           max_score=sum(m.max_score for m in marks), questions=marks)
                where = r.write(shard).parent
                (where / "feedback.html").write_text(
                    f"<html><body><h1>{a}: {r.score:g} / {r.max_score:g}</h1>\n"
                    + filler * page_kb + "</body></html>\n")
                done.append((login, a))
        write_manifest(shard, done, None)
        out.append(shard)
    return out


def _timed(seconds: dict[str, float], stage: str, call: Callable[[], Any]) -> Any:
    began = time.perf_counter()
    value = call()
    seconds[stage] = round(time.perf_counter() - began, 2)
    print(f"  {stage}: {seconds[stage]:.1f} s", flush=True)
    return value


def run(learners: int = 1000, assignments: tuple[str, ...] = ASSIGNMENTS[:1], shards: int = 4,
        jobs: int = 4, page_kb: int = PAGE_KB) -> dict[str, Any]:
    """The term's stages at ``learners`` learners (see the module docstring); seconds per
    stage and what each produced."""
    from autograder.grader.classroom import decisions
    from autograder.grader.classroom.feedback_return import return_feedback
    from autograder.grader.classroom.fetch import fetch, parse_deadline, read_logins
    from autograder.grader.merge import merge
    from autograder.grader.release import SOLUTIONS
    from autograder.grader.reports import write_reports
    from autograder.grader.reports.common import sorted_results
    from autograder.grader.reports.exports import EXPORT_WRITERS, export_path

    seconds: dict[str, float] = {}
    load_before = round(os.getloadavg()[0], 1)
    quiet: Callable[[str], object] = lambda line: None  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="bench-term-") as tmp:
        base = Path(tmp)
        began = time.perf_counter()
        repos, activity = make_repositories(base / "remotes", learners)
        roster_file, canvas_file = write_class_files(base, learners)
        setup = round(time.perf_counter() - began, 2)
        print(f"  set up {learners} repositories: {setup:.1f} s", flush=True)
        roster = read_logins(roster_file)
        with StandIn(repos, activity) as api:
            fetched = _timed(seconds, "fetch", lambda: fetch(
                ORG, PREFIX, base / "submissions", TOKEN, api.url, log=quiet,
                deadline=parse_deadline(DEADLINE), roster=roster, jobs=jobs))
        logins = sorted(fetched.students)
        shard_dirs = _timed(seconds, "shards", lambda: write_shards(
            base / "shards", logins, assignments, shards, page_kb))
        merged = base / "merged"
        merged.mkdir()
        results = _timed(seconds, "merge", lambda: merge(shard_dirs, merged))
        args = argparse.Namespace(roster=roster_file, canvas_gradebook=canvas_file,
                                  canvas_columns=None, overrides=None)
        inputs = decisions.read_inputs(args, merged)
        db = f"sqlite:///{(merged / 'gradebook.db').resolve()}"
        shown, classroom = _timed(seconds, "gradebook", lambda: decisions.settle(
            results, inputs, merged, db, SOLUTIONS))
        _timed(seconds, "reports", lambda: write_reports(shown, merged, classroom=classroom))
        ordered = sorted_results(shown)
        exported = {}
        for name, stage in (("canvas", "Canvas export"), ("moodle", "Moodle export")):
            path = export_path(merged, name)
            report = _timed(seconds, stage, lambda n=name, p=path: EXPORT_WRITERS[n](
                ordered, p, classroom))
            with open(path, newline="", encoding="utf-8-sig") as fh:
                exported[name] = {"rows": len(list(csv.reader(fh))),
                                  "unmatched": len(report.unmatched)}
        template = (base / "remotes" / f"{PREFIX}-{{student}}.git").as_uri()
        template = template.replace("%7B", "{").replace("%7D", "}")
        returned = _timed(seconds, "return feedback", lambda: return_feedback(
            merged, template, "", log=quiet, jobs=jobs))
        summary_bytes = (merged / "summary.md").stat().st_size
    late = sum(1 for t in fetched.taken.values() if t.late)
    backdated = sum(1 for t in fetched.taken.values() if t.backdated)
    return {
        "learners": learners, "assignments": list(assignments), "shards": shards,
        "jobs": jobs, "page_kb": page_kb, "setup_seconds": setup, "seconds": seconds,
        "total_seconds": round(sum(seconds.values()), 2),
        "fetch": {"taken": len(fetched.students), "failed": len(fetched.failed),
                  "not_taken": len(fetched.not_taken), "late": late, "backdated": backdated},
        "results": len(results), "exports": exported, "summary_bytes": summary_bytes,
        "returned": {"pushed": len(returned.pushed), "failed": len(returned.failed)},
        "load_average": {"before": load_before, "after": round(os.getloadavg()[0], 1)},
    }


def plot(results: dict[str, Any], path: Path) -> None:
    """One bar per stage: its wall time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stages = list(results["seconds"])
    values = [results["seconds"][s] for s in stages]
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    ax.barh(stages, values, color="tab:blue")
    for y, v in enumerate(values):
        ax.annotate(f" {v:.1f} s", (v, y), va="center")
    ax.set_xlabel(f"seconds, {results['learners']} learners")
    ax.invert_yaxis()
    ax.set_xlim(0, max(values) * 1.25 if values else 1)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
