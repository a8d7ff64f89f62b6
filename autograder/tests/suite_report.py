"""Where the suite's time goes: a report that ``make test`` prints at its end.

For each test module and runtime it adds up the seconds its tests took (set-up, call and
tear-down, module fixtures included), how many Jupyter kernels and exercise-harness runs they
started, and how busy the workers were; it counts the checks that ran on each runtime (exercise
sources, questions, wrong answers) so that a faster suite is seen to check as much as before.

Processes are counted from outside them: a watcher process beside each test process lists
``/proc`` and counts the new processes below it (through sandboxes and runtimes' ``bwrap``
too) by what they run, a kernel (``ipykernel``) or the exercise harness. Each test's counts
travel to the controlling process in the test's report (``user_properties``), so the report
is the same with pytest-xdist workers or without them.

Each test also carries the CPU seconds its process and the children it waited for used (a
kernel, the harness, a grading run: :func:`cpu_seconds`; a kernel killed at shut-down, as the
built runtimes' are, is missed), and the controlling process reads the whole machine's busy
CPU time (:func:`machine_cpu_seconds`), so the report says how much of the machine the suite
kept busy, and which groups of tests (pytest-xdist's ``loadgroup``: the
timing group runs on one worker, one test after another) set the floor under its wall time,
and which tests took longest.

The report is printed at the end of the run and written as JSON (``--suite-report PATH``,
default ``_build/suite-report.json``). This module is a pytest plugin that pyproject.toml
loads (``-p autograder.tests.suite_report``), so its options exist however pytest is called.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_WORDS = ("tools", "colab", "newest")
# What a process runs, read from its command line: the first kind whose marker it holds.
KINDS = {"kernels": "ipykernel", "harness runs": "autograder.tests.exercise_harness"}
_PROPERTY = "suite-report"
_CHECKS: list[dict[str, Any]] = []  # checks this process ran, not yet given to a report


def note_checks(entry: dict[str, Any]) -> None:
    """Record checks this process ran (``{"runtime", "source", "questions", "wrong"}``); the
    test running now carries them to the report."""
    _CHECKS.append(entry)


def cpu_seconds() -> float:
    """CPU seconds (user and system) this process and its waited-for children used so far."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def machine_cpu_seconds() -> float | None:
    """CPU seconds every core of the machine has spent busy since boot (``/proc/stat``: all
    but idle and I/O wait), or None where there is no ``/proc/stat``. Unlike
    :func:`cpu_seconds` it counts every process, kernels killed at shut-down included, and
    anything else the machine runs."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    ticks = [int(v) for v in fields[1:9]]  # user nice system idle iowait irq softirq steal
    busy = sum(ticks) - ticks[3] - ticks[4]
    return busy / os.sysconf("SC_CLK_TCK")


def group_of(nodeid: str) -> str:
    """The pytest-xdist group a test ran in (the ``@group`` suffix ``--dist loadgroup`` gives
    its id), or its module when it has none."""
    return nodeid.rsplit("@", 1)[1] if "@" in nodeid.rsplit("::", 1)[-1] else module_of(nodeid)


class ProcessScan:
    """One view of the processes below ``root``: it remembers each process it saw (by pid and
    start time) with its parent, so that a child still counts as below ``root`` after the
    process between them ended."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.parents: dict[tuple[int, int], int] = {}  # (pid, start time) -> parent pid
        self.found: set[tuple[str, int, int]] = set()  # (kind, pid, start time)
        self.waiting: list[tuple[int, int]] = []  # processes seen running bwrap

    @staticmethod
    def _stat(pid: int) -> tuple[int, int] | None:
        """(parent pid, start time) of ``pid``, None when it is gone."""
        try:
            raw = Path(f"/proc/{pid}/stat").read_bytes()
        except OSError:
            return None
        fields = raw[raw.rindex(b")") + 2:].split()  # after the command name, which may hold )
        return int(fields[1]), int(fields[19])

    def _is_below(self, ppid: int, parents: dict[int, int]) -> bool:
        for _ in range(64):  # a process chain is never this deep
            if ppid == self.root:
                return True
            if ppid <= 1 or ppid not in parents:
                return False
            ppid = parents[ppid]
        return False

    def scan(self) -> list[tuple[str, int, int]]:
        """Look at ``/proc`` once; return the processes of a counted kind found new."""
        try:
            names = os.listdir("/proc")
        except OSError:
            return []
        alive: dict[int, int] = {}
        fresh = []
        for name in names:
            if not name.isdigit():
                continue
            stat = self._stat(int(name))
            if stat is None:
                continue
            pid, (ppid, started) = int(name), stat
            alive[pid] = ppid
            if (pid, started) not in self.parents:
                self.parents[(pid, started)] = ppid
                fresh.append((pid, started))
        known = {pid: ppid for (pid, _), ppid in self.parents.items()}
        known.update(alive)
        new = []
        # A sandbox or runtime's bwrap becomes the kernel by exec (same pid): a process still
        # running bwrap is looked at again until it runs something else (or ends).
        waiting, self.waiting = [*self.waiting, *fresh], []
        for pid, started in waiting:
            if pid not in alive or not self._is_below(alive[pid], known):
                continue
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if Path(argv[0].decode(errors="replace")).name == "bwrap":
                self.waiting.append((pid, started))
                continue
            command = b" ".join(argv)
            for kind, marker in KINDS.items():
                if marker.encode() in command:
                    new.append((kind, pid, started))
                    break
        self.found.update(new)
        return new


def watch(root: int, log: Path, interval: float) -> None:
    """Scan every ``interval`` seconds while ``root`` lives, appending each counted process
    found below it to ``log`` (``kind<TAB>pid<TAB>start time``)."""
    view = ProcessScan(root)
    with log.open("a") as out:
        while Path(f"/proc/{root}").exists():
            for kind, pid, started in view.scan():
                out.write(f"{kind}\t{pid}\t{started}\n")
            out.flush()
            time.sleep(interval)


class ProcessCounter:
    """Counts the processes started below this one, by kind, from ``/proc``.

    A watcher process of its own (:func:`watch`) scans every ``interval`` seconds, so that a
    kernel that lives a second is seen, and :meth:`snapshot` scans once more in this process.
    The watcher is a process, not a thread: a timing test in this process would see a thread
    of ours as code running beside the answer it measures (and rightly fail it).
    """

    def __init__(self, interval: float = 0.25) -> None:
        self.interval = interval
        self.view = ProcessScan(os.getpid())
        self.log: Path | None = None
        self._watcher: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the watcher (no-op where ``/proc`` is missing)."""
        if not Path("/proc/self/stat").exists():
            return
        handle, name = tempfile.mkstemp(prefix="learn-jax-processes-", suffix=".tsv")
        os.close(handle)
        self.log = Path(name)
        self._watcher = subprocess.Popen(
            [sys.executable, "-c", "import sys; from autograder.tests.suite_report import watch;"
             " from pathlib import Path; watch(int(sys.argv[1]), Path(sys.argv[2]), "
             "float(sys.argv[3]))", str(os.getpid()), name, str(self.interval)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p)))

    def stop(self) -> None:
        """Stop the watcher and remove its log."""
        if self._watcher is not None:
            self._watcher.terminate()
            self._watcher.wait()
            self._watcher = None
        if self.log is not None:
            self.log.unlink(missing_ok=True)

    def snapshot(self) -> dict[str, int]:
        """How many processes of each kind were started below this one so far."""
        if not Path("/proc/self/stat").exists():
            return {}
        self.view.scan()
        found = set(self.view.found)
        if self.log is not None:
            with contextlib.suppress(OSError):
                for line in self.log.read_text().splitlines():
                    kind, pid, started = line.split("\t")
                    found.add((kind, int(pid), int(started)))
        return dict(collections.Counter(kind for kind, _, _ in found))


def runtime_of(nodeid: str) -> str:
    """The runtime a test ran on, from its id's parameters (``-`` when it names none)."""
    nodeid = re.sub(r"@[\w.:\-]+$", "", nodeid)  # xdist's "@group" suffix
    params = nodeid.partition("[")[2].rpartition("]")[0]
    for word in params.replace("/", "-").split("-"):
        if word in RUNTIME_WORDS:
            return word
    return "-"


def module_of(nodeid: str) -> str:
    """The test module's name (``test_exercises``) of a test id."""
    return Path(nodeid.split("::", 1)[0]).stem


class SuiteReport:
    """The pytest plugin: counts processes in every test process, adds everything up in the
    controlling one (pytest-xdist's controller, or the only process)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.is_worker = hasattr(config, "workerinput")
        self.counter = ProcessCounter()
        self._before: dict[str, int] = {}
        self.started = time.time()
        self.machine_started = machine_cpu_seconds()
        self.areas: dict[tuple[str, str], dict[str, Any]] = {}
        self.workers: dict[str, list[float]] = {}  # worker -> [seconds busy, first, last]
        self.checks: dict[tuple[str, str], dict[str, Any]] = {}
        self.outcomes: collections.Counter[str] = collections.Counter()
        self.groups: collections.Counter[str] = collections.Counter()  # group -> seconds
        self.tests: collections.Counter[str] = collections.Counter()  # test id -> seconds
        self._cpu_before = 0.0

    # ----------------------------------------------------------- in each test process
    def pytest_sessionstart(self) -> None:
        """Start counting processes."""
        self.counter.start()

    def pytest_sessionfinish(self) -> None:
        """Stop counting processes and, in the controlling process, write the JSON."""
        self.counter.stop()
        if not self.is_worker:
            path = Path(self.config.getoption("suite_report"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(self.as_json(), indent=1) + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
        """Counts before the test's set-up."""
        _CHECKS.clear()
        self._before = self.counter.snapshot()
        self._cpu_before = cpu_seconds()
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Iterator[None]:
        """After the tear-down (module fixtures' too), give the test's counts to its report."""
        yield
        after = self.counter.snapshot()
        started = {kind: after.get(kind, 0) - self._before.get(kind, 0) for kind in KINDS}
        item.user_properties.append((_PROPERTY, {
            "started": started, "checks": list(_CHECKS),
            "cpu": round(cpu_seconds() - self._cpu_before, 2)}))
        _CHECKS.clear()

    # ------------------------------------------------------ in the controlling process
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Add a test phase's time and counts to its module and runtime."""
        if self.is_worker:
            return
        key = (module_of(report.nodeid), runtime_of(report.nodeid))
        area = self.areas.setdefault(key, {"seconds": 0.0, "cpu_seconds": 0.0, "tests": 0,
                                           **dict.fromkeys(KINDS, 0)})
        area["seconds"] += report.duration
        self.groups[group_of(report.nodeid)] += report.duration
        self.tests[report.nodeid.split("@", 1)[0]] += report.duration
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            area["tests"] += 1
            self.outcomes[report.outcome] += 1
        node = getattr(report, "node", None)
        worker = node.gateway.id if node is not None else "main"
        now = time.time()
        busy = self.workers.setdefault(worker, [0.0, now - report.duration, now])
        busy[0] += report.duration
        busy[2] = now
        for name, value in report.user_properties:
            if name != _PROPERTY:
                continue
            for kind, n in value["started"].items():
                area[kind] += n
            area["cpu_seconds"] += value.get("cpu", 0.0)
            for entry in value["checks"]:
                self.checks[(entry["runtime"], entry["source"])] = entry

    def totals(self) -> dict[str, Any]:
        """Wall time, test time, and how busy the workers were on average."""
        wall = time.time() - self.started
        busy = sum(w[0] for w in self.workers.values())
        cpu = sum(a["cpu_seconds"] for a in self.areas.values())
        now = machine_cpu_seconds()
        machine = (now - self.machine_started if now is not None
                   and self.machine_started is not None else None)
        return {"wall_seconds": round(wall, 1), "test_seconds": round(busy, 1),
                "cpu_seconds": round(cpu, 1), "workers": len(self.workers),
                "busy_workers_on_average": round(busy / wall, 2) if wall else 0.0,
                "busy_cores_on_average": round(cpu / wall, 2) if wall else 0.0,
                "machine_cpu_seconds": round(machine, 1) if machine is not None else None,
                "machine_cores_busy": round(machine / wall, 2) if machine and wall else None,
                **{kind: sum(a[kind] for a in self.areas.values()) for kind in KINDS}}

    def checks_per_runtime(self) -> dict[str, dict[str, int]]:
        """Per runtime: exercise sources, questions and wrong answers the harness checked."""
        out: dict[str, dict[str, int]] = {}
        for (runtime, _), entry in sorted(self.checks.items()):
            row = out.setdefault(runtime, {"exercises": 0, "questions": 0, "wrong answers": 0})
            row["exercises"] += 1
            row["questions"] += entry["questions"]
            row["wrong answers"] += entry["wrong"]
        return out

    def as_json(self) -> dict[str, Any]:
        """Everything the report holds, for ``--suite-report``."""
        return {"totals": self.totals(), "outcomes": dict(self.outcomes),
                "workers": {w: round(b[0], 1) for w, b in sorted(self.workers.items())},
                "checks_per_runtime": self.checks_per_runtime(),
                "longest_groups": {g: round(v, 1) for g, v in self.groups.most_common(10)},
                "slowest_tests": {t: round(v, 1) for t, v in self.tests.most_common(40)},
                "areas": [{"module": m, "runtime": r, **{k: round(v, 1) if isinstance(v, float)
                                                          else v for k, v in a.items()}}
                          for (m, r), a in sorted(self.areas.items(),
                                                   key=lambda kv: -kv[1]["seconds"])]}

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the report: the costliest areas, the totals and the checks per runtime."""
        if self.is_worker or not self.areas:
            return
        write = terminalreporter.write_line
        terminalreporter.section("where the time went (suite report)")
        modules: dict[str, dict[str, Any]] = {}
        for (module, runtime), area in self.areas.items():
            row = modules.setdefault(module, {"seconds": 0.0, "by": {}, **dict.fromkeys(KINDS, 0)})
            row["seconds"] += area["seconds"]
            row["by"][runtime] = area["seconds"]
            for kind in KINDS:
                row[kind] += area[kind]
        write(f"{'module':<32}{'seconds':>9}{'kernels':>9}{'harness':>9}  by runtime")
        shown = sorted(modules.items(), key=lambda kv: -kv[1]["seconds"])
        for module, row in shown[:25]:
            by = ", ".join(f"{r} {s:.0f}" for r, s in sorted(row["by"].items()) if r != "-")
            write(f"{module:<32}{row['seconds']:>9.0f}{row['kernels']:>9}"
                  f"{row['harness runs']:>9}  {by}")
        rest = shown[25:]
        if rest:
            write(f"{f'({len(rest)} more modules)':<32}"
                  f"{sum(r['seconds'] for _, r in rest):>9.0f}")
        t = self.totals()
        write(f"wall {t['wall_seconds']:.0f} s, tests {t['test_seconds']:.0f} s on "
              f"{t['workers']} worker(s): {t['busy_workers_on_average']} busy on average; "
              f"{t['kernels']} kernels, {t['harness runs']} harness runs started")
        write(f"CPU {t['cpu_seconds']:.0f} s: {t['busy_cores_on_average']} cores busy on "
              f"average (the machine: {t['machine_cores_busy']}, {os.cpu_count()} cores); "
              "longest groups: " + ", ".join(
                  f"{g} {v:.0f} s" for g, v in self.groups.most_common(3)))
        for runtime, row in self.checks_per_runtime().items():
            write(f"checked on {runtime}: {row['exercises']} exercises, {row['questions']} "
                  f"questions, {row['wrong answers']} wrong answers")
        write(f"report: {self.config.getoption('suite_report')}")


def pytest_addoption(parser: pytest.Parser) -> None:
    """The suite's own options: ``--suite-report PATH`` (where the JSON goes) and
    ``--chapter NN`` (conftest.py keeps only that chapter's tests)."""
    parser.addoption("--suite-report", default=str(ROOT / "_build" / "suite-report.json"),
                     help="where the suite report's JSON is written")
    parser.addoption("--chapter", metavar="NN", default=None,
                     help="run only the tests about one chapter (its number or stem): its "
                     "notebook, its exercise and wrong answers, its hints, on every runtime")


def pytest_configure(config: pytest.Config) -> None:
    """Register the report's plugin object."""
    config.pluginmanager.register(SuiteReport(config), "suite-report-counts")
