"""The classroom workflows run as a runner would: grade-all.yml's jobs (gather, the four grade
shards, merge, return) and feedback.yml's, their own ``run:`` steps in order, with inputs and
secrets as environment variables holding test values, ``fetch`` pointed at local git
repositories through a fake GitHub API, and the merged outputs checked.

What a runner provides is stood in for: each job starts from a fresh copy of the course
repository (``actions/checkout``: the package, and the tiny fixture course as
``solutions/``), artifacts are folders passed between jobs (``upload-artifact`` and
``download-artifact``), and the steps that provision the machine (``setup-python``, ``sudo
sysctl``, ``make setup``, ``pip install``, the Actions cache) are skipped: this Python, with
the copy on ``PYTHONPATH``, is the runner's. Everything else is the workflow's own text."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from autograder.tests.conftest import FIXTURES, ROOT, fresh_database
from autograder.tests.test_fetch import TOKEN, FakeGitHub, _repo

CLASSROOM = ROOT / "autograder" / "workflows"
ORG, PREFIX = "jax-class", "hw0"
DEADLINE = "2026-03-01T23:59:00+00:00"
ON_TIME, LATE = "2026-03-01T20:00:00+00:00", "2026-03-02T08:00:00+00:00"
SUBMISSIONS = FIXTURES / "submissions"
PROVISIONING = re.compile(r"^\s*sudo |\bmake setup\b|\bpip install\b", re.M)


class Runner:
    """Runs one workflow's jobs, step by step, the way GitHub's runner does (see the module
    docstring for what is stood in for)."""

    def __init__(self, workflow: Path, root: Path, inputs: dict[str, object],
                 secrets: dict[str, str], env: dict[str, str]) -> None:
        self.workflow = yaml.safe_load(workflow.read_text())
        self.root, self.inputs, self.secrets, self.env = root, inputs, secrets, env
        self.artifacts: dict[str, Path] = {}
        self.summary = root / "step-summary.md"
        self.log: list[str] = []

    def _checkout(self, job_dir: Path) -> None:
        shutil.copytree(ROOT / "autograder", job_dir / "autograder",
                        ignore=shutil.ignore_patterns("__pycache__", "tests"))
        shutil.copytree(FIXTURES / "course", job_dir / "solutions")
        if (self.root / "grading").exists():
            shutil.copytree(self.root / "grading", job_dir / "grading")
        (job_dir / ".venv").symlink_to(sys.prefix)  # what `make setup` makes: this one

    def expand(self, text: str, matrix: dict[str, object]) -> str:
        """``text`` with its ``${{ ... }}`` expressions replaced."""
        def value(match: re.Match) -> str:
            expr = match[1].strip()
            scope, _, name = expr.partition(".")
            if scope == "inputs":
                return str(self.inputs.get(name, ""))
            if scope == "secrets":
                return self.secrets.get(name, "")
            if scope == "matrix":
                return str(matrix[name])
            if expr == "github.token":
                return "github-token-for-tests"
            if expr == "runner.temp":
                return str(self.root / "runner-temp")
            return ""
        return re.sub(r"\$\{\{(.*?)\}\}", value, text)

    def condition(self, expr: str | None, job_dir: Path) -> bool:
        """An ``if:`` as Actions reads it, for the expressions these workflows use."""
        if expr is None:
            return True
        py = re.sub(r"hashFiles\('([^']*)'\)",
                    lambda m: repr("x" if (job_dir / m[1]).exists() else ""), expr)
        py = re.sub(r"inputs\.(\w+)", lambda m: repr(self.inputs.get(m[1], "")), py)
        py = re.sub(r"steps\.[\w.-]+", "''", py)
        py = py.replace("&&", " and ").replace("||", " or ").replace("!=", " != ")
        return bool(eval(py, {}, {}))  # noqa: S307 - the workflow's own, simple expressions

    def _uses(self, step: dict, job_dir: Path, matrix: dict[str, object]) -> None:
        action = step["uses"].split("@")[0]
        given = {k: self.expand(str(v), matrix) for k, v in step.get("with", {}).items()}
        if action == "actions/checkout":
            self._checkout(job_dir)
        elif action == "actions/upload-artifact":
            if (job_dir / given["path"]).exists():
                dest = self.root / "artifacts" / given["name"]
                shutil.rmtree(dest, ignore_errors=True)
                source = job_dir / given["path"]
                if source.is_dir():
                    shutil.copytree(source, dest)
                else:
                    dest.mkdir(parents=True)
                    shutil.copy(source, dest)
                self.artifacts[given["name"]] = dest
            elif given.get("if-no-files-found") == "error":
                raise AssertionError(f"upload-artifact: no {given['path']}")
        elif action == "actions/download-artifact":
            if "pattern" in given:
                for name, folder in self.artifacts.items():
                    if re.fullmatch(given["pattern"].replace("*", ".*"), name):
                        shutil.copytree(folder, job_dir / given.get("path", ".") / name)
            else:
                shutil.copytree(self.artifacts[given["name"]], job_dir / given["path"],
                                dirs_exist_ok=True)
        # actions/setup-python and actions/cache: the runner's provisioning (see above)

    def run_job(self, name: str, matrix: dict[str, object] | None = None) -> dict[str, int]:
        """Run job ``name`` in a fresh folder; step name -> exit status of each run step."""
        matrix = matrix or {}
        job = self.workflow["jobs"][name]
        job_dir = self.root / "jobs" / (name + "".join(f"-{v}" for v in matrix.values()))
        job_dir.mkdir(parents=True)
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
        statuses: dict[str, int] = {}
        (self.root / "runner-temp").mkdir(exist_ok=True)
        for step in job["steps"]:
            if not self.condition(step.get("if"), job_dir):
                continue
            if "uses" in step:
                self._uses(step, job_dir, matrix)
                continue
            script = self.expand(step["run"], matrix)
            if PROVISIONING.search(script):
                continue
            env = {**os.environ, "PATH": path, "PYTHONPATH": str(job_dir),
                   "GITHUB_STEP_SUMMARY": str(self.summary), "GITHUB_WORKSPACE": str(job_dir),
                   **{k: str(v) for k, v in self.workflow.get("env", {}).items()}, **self.env,
                   **{k: self.expand(str(v), matrix) for k, v in step.get("env", {}).items()}}
            cwd = Path(self.expand(step.get("working-directory", str(job_dir)), matrix))
            proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                                   script], cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=900)
            self.log.append(f"== {name} {matrix} {step.get('name')}: {proc.returncode}\n"
                            f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
            statuses[self.expand(step.get("name", script[:40]), matrix)] = proc.returncode
            if proc.returncode != 0:
                break  # a failed step ends its job
        return statuses


def _git(work: Path, when: str, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                    "-c", "init.defaultBranch=main", *args], cwd=work, check=True,
                   capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when})


def _learners(remotes: Path) -> dict[str, str]:
    """Seven learners' bare repositories ``remotes/ORG/PREFIX-<user>.git`` holding
    exercises/00_tiny.ipynb; user -> the case their notebook is. ``late-lee`` pushed a
    correct answer after the deadline on top of an empty stub; ``copy-cat`` saved a Colab
    copy with the answers beside the untouched original."""
    cases = {"ann": "correct", "BoChen": "partial", "cy": "empty-stub", "dee": "colab-saved",
             "eve": "invalid-json", "late-lee": "empty-stub", "copy-cat": "correct"}
    for user, case in cases.items():
        work, bare = remotes / "work" / user, remotes / ORG / f"{PREFIX}-{user}.git"
        (work / "exercises").mkdir(parents=True)
        _git(work, ON_TIME, "init", "--quiet")
        shutil.copy(SUBMISSIONS / f"{case}.ipynb", work / "exercises" / "00_tiny.ipynb")
        if user == "copy-cat":
            os.rename(work / "exercises" / "00_tiny.ipynb",
                      work / "exercises" / "Copy of 00_tiny.ipynb")
            shutil.copy(SUBMISSIONS / "empty-stub.ipynb", work / "exercises" / "00_tiny.ipynb")
        _git(work, ON_TIME, "add", "-A")
        _git(work, ON_TIME, "commit", "--quiet", "-m", "my work")
        if user == "late-lee":
            shutil.copy(SUBMISSIONS / "correct.ipynb", work / "exercises" / "00_tiny.ipynb")
            _git(work, LATE, "commit", "--quiet", "-am", "too late")
        _git(work, ON_TIME, "init", "--quiet", "--bare", str(bare))
        _git(work, ON_TIME, "push", "--quiet", str(bare), "HEAD:refs/heads/main")
    return cases


def _activity(remotes: Path, cases: dict[str, str]) -> dict[str, list[dict]]:
    """Each repository's pushes as GitHub's activity API gives them: every commit received
    when it says it was made (these learners' clocks are right)."""
    found = {}
    for user in cases:
        bare = remotes / ORG / f"{PREFIX}-{user}.git"
        log = subprocess.run(["git", "--git-dir", str(bare), "log", "--format=%H %cI", "main"],
                             capture_output=True, text=True, check=True).stdout.split("\n")
        found[f"{PREFIX}-{user}"] = [{"after": line.split()[0], "timestamp": line.split()[1],
                                      "ref": "refs/heads/main", "activity_type": "push"}
                                     for line in log if line.strip()]
    return found


def _grading_files(root: Path) -> None:
    """The instructor's grading/ folder: roster, Canvas export, overrides, term file."""
    grading = root / "grading"
    grading.mkdir()
    users = ["ann", "BoChen", "cy", "dee", "eve", "late-lee", "copy-cat"]
    (grading / "roster.csv").write_text(
        '"identifier","github_username","github_id","name"\n'
        + "".join(f'"{u.lower()}@uni.example","{u}","{i}","{u}"\n' for i, u in enumerate(users))
        + '"nobody@uni.example","","",""\n')
    (grading / "canvas-gradebook.csv").write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Lab 0: Tiny (5100),Current Score\n"
        "    Points Possible,,,,,10.00,(read only)\n"
        + "".join(f"{u},{7000 + i},S{i},{u.lower()}@uni.example,A,,\n"
                  for i, u in enumerate(users) if u != "dee"))
    (grading / "overrides.csv").write_text(
        "student,assignment,question,score,reason\n"
        "eve,00_tiny,,4,handed in by e-mail\n")
    (grading / "term.toml").write_text(  # past the due time: work not submitted counts 0
        f"[assignment.00_tiny]\ndue = {DEADLINE}\nmissing = 0\n")


@pytest.fixture
def jobs_root() -> Iterator[Path]:
    """The folder the jobs run in. Their checkout must be readable by the sandboxed kernels'
    own unprivileged users, and pytest's temporary folders are private to root (0700), so
    this one is made beside them, open to read, and removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="learn-jax-workflow-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
def test_grade_all_and_feedback_workflows_run_end_to_end(tmp_path: Path, jobs_root: Path,
                                                         postgres_url: str) -> None:
    """Run as a runner would, with source=github, a deadline and return_feedback: does
    gather fetch the seven learners' repositories (late-lee at the commit before the
    deadline), do the four shards grade them (the isolation check failing only where no
    sandbox works), does merge write grades, the Canvas and Moodle imports from the roster
    and Canvas export (dee, not in Canvas, in unmatched.csv; eve's hand-set 4 everywhere),
    the late commit in the summary and the grades into PostgreSQL (a notebook left as
    released not submitted, given the term file's 0 once due; the assignments input
    passed to grade and merge), does return put each
    learner's own page on their feedback branch, and does feedback.yml's check report a
    learner's visible checks?"""
    from autograder.grader.course import isolation

    remotes = tmp_path / "remotes"
    cases = _learners(remotes)
    db = fresh_database(postgres_url, "workflow_run")
    inputs = {"source": "github", "org": ORG, "prefix": PREFIX, "folder": "submissions",
              "archive_url": "", "run_id": "", "deadline": DEADLINE, "return_feedback": True,
              "assignments": "00_tiny"}
    secrets = {"CLASSROOM_TOKEN": TOKEN, "GRADEBOOK_URL": db, "FEEDBACK_TOKEN": "not-used",
               "LEARN_JAX_RESULTS_KEY": "a-test-key-for-the-shards-manifests"}
    _grading_files(jobs_root)
    runner = Runner(CLASSROOM / "grade-all.yml", jobs_root, inputs, secrets, env={
        "GITHUB_SERVER_URL": remotes.as_uri()})
    with FakeGitHub(ORG, [[_repo(f"{PREFIX}-{u}", (remotes / ORG / f"{PREFIX}-{u}.git")
                                 .as_uri()) for u in cases]], _activity(remotes, cases)) as api:
        runner.env["GITHUB_API_URL"] = api.url
        gathered = runner.run_job("gather")
    log = "\n".join(runner.log)
    assert set(gathered.values()) == {0}, log
    sandboxed = isolation() != "none"
    for shard in runner.workflow["jobs"]["grade"]["strategy"]["matrix"]["shard"]:
        steps = runner.run_job("grade", {"shard": shard})
        log = "\n".join(runner.log)
        assert steps[f"Grade shard {shard}"] == 0, log
        # Without a working sandbox here the runner stops at the isolation check, as it
        # must; the shard's results are handed on to test the rest of the workflow.
        graded = any((runner.root / "jobs" / f"grade-{shard}" / f"results-{shard}")
                     .glob("*/*/result.json"))
        stopped = steps["Fail if any submission ran without the sandbox"] != 0
        assert stopped == (graded and not sandboxed), log
        if stopped:
            runner._uses({"uses": "actions/upload-artifact@v4", "with": {
                "name": f"results-{shard}", "path": f"results-{shard}"}},
                runner.root / "jobs" / f"grade-{shard}", {})
    merged = runner.run_job("merge")
    log = "\n".join(runner.log)
    assert set(merged.values()) == {0}, log
    results = runner.artifacts["results"]

    grades = {r["student"]: (r["score"], r["status"])
              for r in csv.DictReader((results / "grades.csv").open())}
    # cy's notebook, and late-lee's at the deadline, are as released: not submitted, and the
    # term file's 0 for missing work once 00_tiny is due
    assert grades == {"ann": ("5", "graded"), "BoChen": ("3", "graded"),
                      "cy": ("0", "not_submitted"), "dee": ("5", "graded"), "eve": ("4", "graded"),
                      "late-lee": ("0", "not_submitted"), "copy-cat": ("5", "graded")}, log
    canvas = list(csv.reader((results / "grades-canvas.csv").open()))
    # Canvas's own file back: its read-only total stays (Canvas's importer ignores it)
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                         "Lab 0: Tiny (5100)", "Current Score"]
    assert {r[1]: r[5] for r in canvas[2:]} == {
        "7000": "10", "7001": "6", "7002": "0", "7004": "8", "7005": "0", "7006": "10"}
    # Without Moodle's own export, writing the term's 0 for cy's and late-lee's missing work
    # could clear a score typed into Moodle: the Moodle file is refused, and the summary says so.
    assert not (results / "grades-moodle.csv").exists()
    assert list(csv.reader((results / "unmatched.csv").open()))[1:] == [
        ["dee", "canvas", "dee@uni.example is in no Canvas row (ID, SIS User ID, SIS Login ID "
         "or name)"]]
    summary = (results / "summary.md").read_text()
    assert "grades-moodle.csv refused" in summary and "--moodle-gradebook" in summary
    assert "- eve · 00_tiny: — → 4 (handed in by e-mail)" in summary
    assert "- late-lee: 1 commit(s) after 2026-03-01T23:59:00+00:00" in summary
    assert summary in runner.summary.read_text()  # the merge job's summary page
    import sqlalchemy

    engine = sqlalchemy.create_engine(db)
    try:
        with engine.connect() as conn:
            students = conn.execute(sqlalchemy.text(
                "select count(distinct student_id) from submitted_assignment")).scalar()
    finally:
        engine.dispose()
    # eve's submission was invalid (her score is a hand-set one only); cy's and late-lee's
    # were not submitted: nothing graded to record
    assert students == 4

    returned = runner.run_job("return")
    log = "\n".join(runner.log)
    assert set(returned.values()) == {0}, log
    for user in ("ann", "copy-cat"):
        bare = remotes / ORG / f"{PREFIX}-{user}.git"
        page = subprocess.run(["git", "--git-dir", str(bare), "show",
                               "learn-jax-feedback:feedback/00_tiny.html"], capture_output=True,
                              text=True, check=True).stdout
        assert page == (results / user / "00_tiny" / "feedback.html").read_text()

    # the course's package, as feedback.yml's install step puts it on the runner
    learner = Runner(CLASSROOM / "feedback.yml", tmp_path / "learner", {}, {},
                     env={"PYTHONPATH": str(ROOT)})
    learner.root.mkdir()
    shutil.copy(SUBMISSIONS / "partial.ipynb", learner.root / "00_tiny.ipynb")
    learner._checkout = lambda job_dir: shutil.copytree(  # the learner's own repository
        learner.root, job_dir, dirs_exist_ok=True, ignore=shutil.ignore_patterns("jobs"))
    checked = learner.run_job("check")
    log = "\n".join(learner.log)
    assert set(checked.values()) == {0}, log
    report = learner.summary.read_text()
    assert "# Visible checks" in report and "00_tiny.ipynb" in report
    json.loads((learner.root / "00_tiny.ipynb").read_text())  # the learner's file untouched
