"""Shared fixtures: paths of the repository and of the tiny fixture course, a throwaway
PostgreSQL server, and headless Chromium."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
# Tests that grade test the grader on its own runtime, whatever runtime their notebooks name
# (a Colab-saved fixture would otherwise need Colab's runtime built); test_runtime_choice.py
# grades with --runtime auto and each built runtime explicitly.
os.environ["LEARN_JAX_GRADE_RUNTIME"] = "tools"
# One reference cache for the whole run, grade's and release's default: each reference answer
# runs once per runtime however many tests grade it, and each generated course is made once.
# `make test` names one that `release --check` filled before; else one for this run (the
# controlling process makes it before pytest-xdist's workers start, which inherit it).
REFERENCE_CACHE_MADE = not os.environ.get("LEARN_JAX_REFERENCE_CACHE")
if REFERENCE_CACHE_MADE:
    os.environ["LEARN_JAX_REFERENCE_CACHE"] = tempfile.mkdtemp(prefix="learn-jax-references-")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the run's reference cache where this process made it."""
    if REFERENCE_CACHE_MADE and not hasattr(config, "workerinput"):
        shutil.rmtree(os.environ["LEARN_JAX_REFERENCE_CACHE"], ignore_errors=True)


TIMING_GROUP = "timing"


def group_name(*parts: str) -> str:
    """An xdist group's name made of ``parts``, joined with ``:``.

    Never brackets: pytest-xdist's ``--dist loadgroup`` reads a test's group from the end of
    its id, after an ``@`` that comes after the last ``]`` (so that an ``@`` inside a
    parameter is not taken for one); a group named ``exercise[06_jit]`` ends in a ``]`` and
    xdist schedules each of its tests alone (pytest-xdist 3.8, ``LoadGroupScheduling``).
    """
    name = ":".join(parts)
    if "[" in name or "]" in name or "@" in name:
        raise ValueError(f"xdist group {name!r}: no brackets or @ (loadgroup ignores it)")
    return name


def chapter_stem(asked: str) -> str:
    """The stem of the chapter ``asked`` names (``06`` or ``06_jit``); a usage error names the
    chapters when none or several match."""
    stems = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    found = [s for s in stems if s == asked or s.split("_", 1)[0] == asked.zfill(2)]
    if len(found) != 1:
        raise pytest.UsageError(f"--chapter {asked}: no chapter has that number or stem "
                                f"(chapters: {', '.join(stems)})")
    return found[0]


def about_chapter(nodeid: str, stem: str) -> bool:
    """Whether a test is about chapter ``stem``: one of its parameters names the chapter (its
    notebook, exercise source or wrong-answer folder)."""
    params = nodeid.partition("[")[2]
    return bool(re.search(rf"(^|[-/\[]){re.escape(stem)}($|[-/.\]])", params))


def keep_chapter(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--chapter`` (an option of suite_report.py), deselect every test that is not
    about that chapter."""
    asked = config.getoption("chapter", None)
    if not asked:
        return
    stem = chapter_stem(asked)
    kept: dict[bool, list[pytest.Item]] = {True: [], False: []}
    for item in items:
        kept[about_chapter(item.nodeid, stem)].append(item)
    config.hook.pytest_deselected(items=kept[False])
    items[:] = kept[True]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep one chapter's tests with ``--chapter`` (:func:`keep_chapter`), and group the tests
    for pytest-xdist (``make test TEST_WORKERS=2`` runs ``-n 2 --dist loadgroup``; the
    default, one process, ignores the groups).

    A module's tests run on one worker, in order, so a module-scoped fixture is built once;
    a test that runs on a kernel runtime is grouped with its module's other tests on that
    runtime, so the runtimes run side by side. Every test marked ``timing`` (it measures time
    against a bar) runs in one group, on one worker: no two timing-sensitive tests ever run
    beside each other. Without xdist the marks do nothing.

    This hook must run before pytest-xdist's, which turns each ``xdist_group`` mark into the
    ``@group`` suffix of the test's id that ``--dist loadgroup`` schedules by: run after it,
    the marks are ignored and every test is scheduled alone.
    """
    keep_chapter(config, items)
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        if item.get_closest_marker("timing"):
            group = TIMING_GROUP
        else:
            group = item.module.__name__.rsplit(".", 1)[-1] if item.module else item.nodeid
            params = getattr(item, "callspec", None)
            runtime = params.params.get("runtime", params.params.get("any_runtime")) \
                if params else None
            if runtime is not None:
                group = group_name(group, str(getattr(runtime, "name", runtime)))
        item.add_marker(pytest.mark.xdist_group(group))


def toc_pages() -> list[str]:
    """The book's pages in reading order, as ``_toc.yml`` lists them (its root first)."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]]

    def walk(entries: list[dict]) -> None:
        for entry in entries:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc["parts"]:
        walk(part["chapters"])
    return pages


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium driven by Selenium (Debian's chromium + chromium-driver, or Chrome +
    chromedriver), for the book's pages (test_book.py) and feedback pages
    (test_feedback_page.py)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary = shutil.which("chromium") or shutil.which("google-chrome")
    driver_path = shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.fail("Chromium and chromedriver are needed: `make browser-deps` installs them")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--window-size=1280,900"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture
def tiny_course() -> Path:
    """Folder holding ``00_tiny.ipynb``, a two-question nbgrader source notebook."""
    return FIXTURES / "course"


@pytest.fixture
def submissions() -> Path:
    """Folder of submissions of ``00_tiny``, one file per case."""
    return FIXTURES / "submissions"


def _postgres_bin() -> Path:
    """The folder of PostgreSQL's server programs (Debian keeps them off PATH)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit()
                   else 0)
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    pytest.fail("PostgreSQL's server is not installed: run `make db-deps` (Debian's postgresql)")


def _as_server_user(argv: list[str]) -> list[str]:
    """``argv`` run as an unprivileged user when this is root (initdb refuses to run as root)."""
    if os.geteuid() != 0:
        return argv
    user = "postgres" if _has_user("postgres") else "nobody"
    return ["runuser", "-u", user, "--", *argv]


def _has_user(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A SQLAlchemy URL of an empty database on a throwaway PostgreSQL server.

    The server is initialised in a temporary folder, listens on a Unix socket only (no TCP),
    runs as an unprivileged user when the tests run as root, and is stopped and deleted after
    the session.
    """
    import psycopg

    bindir = _postgres_bin()
    home = Path(tempfile.mkdtemp(prefix="learn-jax-pg-"))
    home.chmod(0o755)
    data, sockets = home / "data", home / "run"
    for folder in (data, sockets):
        folder.mkdir()
        if os.geteuid() == 0:
            user = "postgres" if _has_user("postgres") else "nobody"
            shutil.chown(folder, user)
    run = functools.partial(subprocess.run, check=True, capture_output=True, text=True)
    try:
        run(_as_server_user([str(bindir / "initdb"), "-D", str(data), "-U", "grader",
                             "-A", "trust", "--no-sync", "-E", "UTF8"]))
        options = f"-k {sockets} -c listen_addresses='' -c fsync=off -c max_connections=100"
        run(_as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-w",
                             "-l", str(sockets / "server.log"), "start"]))
        with psycopg.connect(host=str(sockets), user="grader", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute("CREATE DATABASE gradebook")
        yield f"postgresql+psycopg://grader@/gradebook?host={sockets}"
    finally:
        subprocess.run(_as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-m",
                                        "immediate", "-w", "stop"]), capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def fresh_database(url: str, name: str) -> str:
    """The URL of a new, empty database ``name`` on the server of ``url`` (dropped first if
    it exists)."""
    import psycopg
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    host = parsed.query["host"]
    with psycopg.connect(host=host, user=parsed.username, dbname="postgres",
                         autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return parsed.set(database=name).render_as_string(hide_password=False)


# ----------------------------------------------------------------- the Python 3.13 runtimes


def _runtimes_script():
    """The module .ci/runtimes.py (it names the runtimes, their files and kernels)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("learn_jax_runtimes",
                                                  ROOT / ".ci" / "runtimes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUNTIMES_SCRIPT = _runtimes_script()
RUNTIME_NAMES = list(RUNTIMES_SCRIPT.RUNTIMES)


class KernelRuntime:
    """One of the course's kernel runtimes (``.ci/runtimes.py``), as registered with Jupyter;
    ``tools`` is the tools' own (.venv, requirements.txt, kernel ``python3``)."""

    def __init__(self, name: str) -> None:
        import sys

        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

        self.name = name
        if name == "tools":
            self.kernel, self.requirements = "python3", "requirements.txt"
            self.python_version = "{}.{}".format(*sys.version_info[:2])
            self.pins = [line.split("#")[0].strip() for line in
                         (ROOT / self.requirements).read_text().splitlines()
                         if line.split("#")[0].strip()]
            self.python = sys.executable
            return
        self.kernel = RUNTIMES_SCRIPT.RUNTIMES[name]["kernel"]
        self.requirements = RUNTIMES_SCRIPT.RUNTIMES[name]["requirements"]
        self.python_version, self.pins = RUNTIMES_SCRIPT.requirements(name)
        try:
            spec = KernelSpecManager().get_kernel_spec(self.kernel)
        except NoSuchKernel:
            pytest.fail(f"no Jupyter kernel {self.kernel}: run `make setup-runtimes`")
        #: the command that runs the runtime's Python (its venv, through bwrap if needed)
        self.python = spec.argv[0]
        if not Path(self.python).exists():
            pytest.fail(f"kernel {self.kernel} runs {self.python}, which is missing: run "
                        "`make setup-runtimes`")

    def pinned(self, package: str) -> str:
        """The version ``package`` is pinned to in the runtime's requirements file."""
        for line in self.pins:
            name, _, version = line.partition("==")
            if name.strip().lower() == package:
                return version.strip()
        raise KeyError(f"{self.requirements} pins no {package}")

    def __repr__(self) -> str:
        return f"KernelRuntime({self.name!r})"


def asked_runtimes() -> list[str]:
    """The runtimes ``LEARN_JAX_RUNTIMES`` lists (space- or comma-separated), as listed."""
    return os.environ.get("LEARN_JAX_RUNTIMES", "").replace(",", " ").split()


@functools.cache
def kernel_runtime(name: str) -> KernelRuntime:
    """Runtime ``name`` when ``LEARN_JAX_RUNTIMES`` lists it (``make test`` sets it); else the
    calling test is skipped."""
    if name not in asked_runtimes():
        pytest.skip(f"the {name} runtime is not asked for: set LEARN_JAX_RUNTIMES "
                    "(make test, make test-runtimes and make test-colab do)")
    return KernelRuntime(name)


@pytest.fixture(scope="session", params=RUNTIME_NAMES)
def runtime(request: pytest.FixtureRequest) -> KernelRuntime:
    """Each Python 3.13 kernel runtime in turn (colab, newest); skipped when not asked for."""
    return kernel_runtime(request.param)


@pytest.fixture(scope="session", params=["tools", *RUNTIME_NAMES])
def any_runtime(request: pytest.FixtureRequest) -> KernelRuntime:
    """Each kernel runtime in turn, the tools' own (``python3``, JAX of requirements.txt)
    first; skipped when not asked for in ``LEARN_JAX_RUNTIMES``."""
    return kernel_runtime(request.param)
