"""Tests of autograder.grader.sandbox: the bubblewrap sandbox kernels run in."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grader import sandbox
from autograder.grader.release import ROOT


@pytest.fixture
def sandboxed() -> None:
    """Skip (or fail, with LEARN_JAX_REQUIRE_SANDBOX=1) where bubblewrap does not work."""
    if not sandbox.available():
        if os.environ.get("LEARN_JAX_REQUIRE_SANDBOX") == "1":
            pytest.fail("LEARN_JAX_REQUIRE_SANDBOX=1 but bubblewrap does not work here")
        pytest.skip("bubblewrap does not work here (set LEARN_JAX_REQUIRE_SANDBOX=1 to fail)")


# the grader's own, and the built ones (marked as test_runtimes.py's tests are)
RUNTIMES = ["tools", *(pytest.param(n, marks=pytest.mark.runtimes) for n in ("colab", "newest"))]


def _runtime(name: str):  # noqa: ANN202 - a runtime_choice.Runtime
    """Runtime ``name``; a built one only when ``LEARN_JAX_RUNTIMES`` names it (else the test
    is skipped, as conftest's ``kernel_runtime`` does)."""
    from autograder.grader import runtime_choice
    from autograder.tests.conftest import kernel_runtime

    if name == "tools":
        return runtime_choice.tools()
    kernel_runtime(name)
    return runtime_choice.resolve(name)


def _run(tmp_path: Path, code: str, runtime: object = None) -> subprocess.CompletedProcess:
    """Run ``code`` in the sandbox, on the Python of ``runtime`` (a Runtime; default the
    grader's own), as its kernels run."""
    folder = tmp_path / "runtime"
    sandbox.prepare_runtime_dir(folder)
    python = sandbox.interpreter()
    if runtime is not None and runtime.venv is not None:
        python = sandbox.runtime_interpreter(runtime.kernel_python)
    cmd = sandbox.sandboxed_command(folder, [python, "-c", code], runtime)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_kernelspec_runs_the_launcher(tmp_path: Path) -> None:
    """Does the kernelspec start this module's launcher and interrupt by message?"""
    import json

    name = sandbox.install_kernelspec(tmp_path)
    spec = json.loads((tmp_path / "kernels" / name / "kernel.json").read_text())
    assert spec["argv"][1:] == ["-m", "autograder.grader.sandbox", "{connection_file}"]
    assert spec["interrupt_mode"] == "message"


def test_kernels_get_the_shared_compilation_cache_read_only(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Does the kernelspec name the shared compilation cache, bound read-only with the
    reader's settings, while a cache setting of the grader's own environment stays out?"""
    import json

    shared = tmp_path / "compiled"
    shared.mkdir()
    name = sandbox.install_kernelspec(tmp_path / "share", shared)
    spec = json.loads((tmp_path / "share" / "kernels" / name / "kernel.json").read_text())
    assert spec["argv"][1:] == ["-m", "autograder.grader.sandbox", sandbox.COMPILED_OPTION,
                                str(shared.resolve()), "{connection_file}"]
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", "/somewhere/writable")
    args = sandbox.sandbox_args(tmp_path / "runtime", shared)
    binds = [args[i + 1:i + 3] for i, a in enumerate(args) if a == "--ro-bind"]
    assert [str(shared.resolve())] * 2 in binds
    env = {args[i + 1]: args[i + 2] for i, a in enumerate(args) if a == "--setenv"}
    assert env["JAX_COMPILATION_CACHE_DIR"] == str(shared.resolve())
    assert "/somewhere/writable" not in args
    plain = sandbox.sandbox_args(tmp_path / "runtime")
    assert "JAX_COMPILATION_CACHE_DIR" not in plain and "/somewhere/writable" not in plain


@pytest.mark.parametrize("name", RUNTIMES)
def test_sandbox_hides_the_repository_and_the_network(sandboxed: None, tmp_path: Path,
                                                      name: str) -> None:
    """In the sandbox, on the grader's runtime and on each built one (Colab's JAX, the
    newest), are solutions, tests and network absent, and writes only in /tmp? On a built
    runtime, does the kernel run that runtime's JAX, see its system root's ``/usr`` and
    ``/etc`` instead of this machine's, and not the grader's own Python installation?"""
    runtime = _runtime(name)
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden")
    checks = ""
    if runtime.venv is not None:
        checks = (f"import jax\nassert jax.__version__ == {runtime.jax!r}, jax.__version__\n"
                  f"assert not os.path.exists({str(Path(sys.prefix).resolve())!r})\n")
    if runtime.root is not None:
        release = (runtime.root / "etc" / "os-release").read_text()
        checks += f"assert open('/etc/os-release').read() == {release!r}\n"
    code = f"""
import os, socket
{checks}
assert not os.path.exists({str(ROOT / 'solutions')!r})
assert not os.path.exists({str(secret)!r})
assert os.listdir({str(ROOT / 'autograder' / 'tests')!r}) == []
assert "PATH" in os.environ and len(os.environ) < 10, os.environ
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2)
    raise SystemExit("network reachable")
except OSError:
    pass
open("/tmp/scratch", "w").write("ok")
import autograder, ipykernel
print("uid", os.getuid(), "pid", os.getpid())
"""
    proc = _run(tmp_path, code, runtime)
    assert proc.returncode == 0, proc.stderr
    if os.geteuid() == 0:  # a uid of its own, from the range kept for kernels (its launcher's)
        uid = int(re.search(r"uid (\d+)", proc.stdout).group(1))
        assert sandbox.KERNEL_UID_BASE < uid <= sandbox.KERNEL_UID_BASE + 2**22, proc.stdout
    assert secret.read_text() == "hidden"


@pytest.mark.parametrize("name", RUNTIMES)
def test_memory_limit_holds(sandboxed: None, tmp_path: Path, name: str) -> None:
    """Does allocating beyond the memory limit fail inside the sandbox, while JAX works, on
    the grader's runtime and on each built one?"""
    code = ("import jax.numpy as jnp\nassert float(jnp.ones(3).sum()) == 3.0\n"
            f"try:\n    bytearray({sandbox.MEMORY_BYTES * 2})\nexcept MemoryError:\n"
            "    print('limited')\n")
    proc = _run(tmp_path, code, _runtime(name))
    assert proc.returncode == 0 and "limited" in proc.stdout, proc.stderr


# Makes empty files in /tmp until one is refused (at most a million); prints how many.
_FILE_FLOOD = """
import errno
made = 0
try:
    while made < 1_000_000:
        open(f"/tmp/empty-{made}", "w").close()
        made += 1
    print("made", made, "none refused")
except OSError as exc:
    print("made", made, "refused", errno.errorcode.get(exc.errno))
"""
# Makes a few files with text in /tmp and a folder of it, as a kernel's libraries do.
_FEW_FILES = """
import os
os.makedirs("/tmp/.cache/fonts", exist_ok=True)
for i in range(300):
    with open(f"/tmp/.cache/fonts/f{i}.txt", "w") as fh:
        fh.write(str(i) * 100)
total = sum(len(open(f"/tmp/.cache/fonts/f{i}.txt").read()) for i in range(300))
print("made 300", total)
"""


def test_a_flood_of_empty_files_in_tmp_is_refused(sandboxed: None, tmp_path: Path) -> None:
    """Attack: empty files made in the kernel's /tmp until one is refused (they take no bytes,
    so only an inode limit stops them; each holds kernel memory): is the flood refused ("no
    space") before TMP_INODES files, and is nothing of it left on the host after the run?"""
    proc = _run(tmp_path, _FILE_FLOOD)
    assert proc.returncode == 0, proc.stderr
    said = proc.stdout.split()
    assert said[0] == "made" and said[2:] == ["refused", "ENOSPC"], proc.stdout
    assert 0 < int(said[1]) < sandbox.TMP_INODES
    assert [p.name for p in (tmp_path / "runtime").iterdir()] == [sandbox.TMP_MOUNT]
    assert not list((tmp_path / "runtime" / sandbox.TMP_MOUNT).iterdir())


def test_a_few_files_in_tmp_are_written_and_read(sandboxed: None, tmp_path: Path) -> None:
    """Honest twin of the flood: can a kernel write 300 files with text in a folder of /tmp
    (as a library's cache does) and read them back?"""
    proc = _run(tmp_path, _FEW_FILES)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["made", "300", str(sum(len(str(i) * 100)
                                                            for i in range(300)))]


def test_private_tmp_has_an_inode_limit(tmp_path: Path) -> None:
    """Is the kernel's /tmp the launcher's own tmpfs with a size and an inode limit, bound in
    place of bubblewrap's (which takes a size only), and bubblewrap's when none could be made?"""
    own = sandbox.sandbox_args(tmp_path / "runtime", tmp=tmp_path / "runtime" / ".tmp")
    assert ["--bind", str(tmp_path / "runtime" / ".tmp"), "/tmp"] == own[
        own.index("/tmp") - 2:own.index("/tmp") + 1]
    assert "--tmpfs" not in own[:own.index("/tmp")]
    plain = sandbox.sandbox_args(tmp_path / "runtime")
    assert plain[plain.index("--tmpfs"):plain.index("--tmpfs") + 2] == ["--tmpfs", "/tmp"]


def test_python_reached_through_a_linked_folder_starts(sandboxed: None, tmp_path: Path
                                                       ) -> None:
    """When the grader's Python is reached through a link to its environment's folder (a
    runner's checkout whose ``.venv`` links to the Python it set up), does a process still
    start in the sandbox, where only the resolved folders are bound?"""
    (tmp_path / "job").mkdir(mode=0o755)
    (tmp_path / "job" / ".venv").symlink_to(Path(sys.prefix).resolve())
    linked = tmp_path / "job" / ".venv" / "bin" / Path(sys.executable).name
    proc = subprocess.run([str(linked), "-c", "from autograder.grader import sandbox\n"
                           "print(sandbox.interpreter()); print(sandbox.probe())"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    named, why = proc.stdout.split("\n")[:2]
    assert proc.returncode == 0 and why == "None", proc.stdout + proc.stderr
    assert not named.startswith(str(tmp_path))  # the folders resolved, not the link


def test_probe_says_why_the_sandbox_failed(sandboxed: None, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """When the sandboxed process cannot start (its Python missing inside), does the probe
    say so in a line, so that --require-sandbox's refusal names the cause?"""
    monkeypatch.setattr(sandbox, "interpreter", lambda: "/nonexistent/python3")
    why = sandbox.probe()
    assert why is not None and "exit status" in why and "/nonexistent/python3" in why, why


def test_jobs_side_by_side_get_their_share_of_the_cpus(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """With N jobs on C CPUs, does each job get C/N CPUs of its own (at least one), one job
    none (no limit), and does the kernelspec pass a job's CPUs to the launcher first?"""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)
    assert sandbox.job_cpus(0, 1) is None
    assert [sandbox.job_cpus(i, 2) for i in range(2)] == [[0, 1], [2, 3]]
    assert [sandbox.job_cpus(i, 4) for i in range(4)] == [[0], [1], [2], [3]]
    assert [sandbox.job_cpus(i, 8) for i in range(6)] == [[0], [1], [2], [3], [0], [1]]


def _fake_runtime(tmp_path: Path):  # noqa: ANN202 - a runtime_choice.Runtime
    """A built runtime's layout: a Debian-like root (``usr``, ``etc``, ``bin`` a link) and a
    virtual environment whose Python lives in the root's ``/usr``."""
    from autograder.grader.runtime_choice import Runtime

    root, venv = tmp_path / "debian", tmp_path / "colab" / "venv"
    for folder in (root / "usr" / "bin", root / "etc", venv / "bin"):
        folder.mkdir(parents=True)
    (root / "bin").symlink_to("usr/bin")
    (venv / "bin" / "python").symlink_to("/usr/bin/python3.13")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.13.5\n")
    return Runtime("colab", str(tmp_path / "colab" / "python"), venv, root,
                   {"jax": "0.7.2", "jaxlib": "0.7.2", "python": "3.13.5"})


def test_a_runtime_kernel_sees_its_root_and_its_environment_only(tmp_path: Path) -> None:
    """Does a built runtime's kernelspec (its own name) start the launcher with the runtime's
    root and Python, and do its sandbox's arguments bind the root's ``/usr`` and ``/etc`` over
    this machine's, its ``/bin`` link, and its environment, never the grader's Python, with
    every namespace and the environment cleared as for the grader's own kernels?"""
    import json

    runtime = _fake_runtime(tmp_path)
    name = sandbox.install_kernelspec(tmp_path / "share", tmp_path, cpus=[1], runtime=runtime)
    assert name == "learn-jax-sandbox-colab"
    argv = json.loads((tmp_path / "share" / "kernels" / name / "kernel.json").read_text())["argv"]
    assert argv[3:7] == [sandbox.SYSTEM_OPTION, str(runtime.root), sandbox.PYTHON_OPTION,
                         runtime.kernel_python]
    args = sandbox.sandbox_args(tmp_path / "kernel", python=runtime.kernel_python,
                                system=runtime.root)
    binds = [tuple(args[i + 1:i + 3]) for i, a in enumerate(args) if a == "--ro-bind"]
    root = runtime.root.resolve()
    assert (str(root / "usr"), "/usr") in binds and (str(root / "etc"), "/etc") in binds
    assert ("/usr", "/usr") not in binds and ("/etc", "/etc") not in binds
    assert ("usr/bin", "/bin") in [tuple(args[i + 1:i + 3]) for i, a in enumerate(args)
                                   if a == "--symlink"]
    venv = str(runtime.venv.resolve())
    assert (venv, venv) in binds
    assert not any(src == str(Path(sys.prefix).resolve()) for src, _ in binds)
    for kept in ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--clearenv",
                 "--die-with-parent"):
        assert kept in args
    env = {args[i + 1]: args[i + 2] for i, a in enumerate(args) if a == "--setenv"}
    assert env["PATH"].startswith(str(runtime.venv.resolve() / "bin") + ":")


def test_kernelspec_names_the_cpus_before_the_cache(tmp_path: Path) -> None:
    """Does a kernelspec for a job's CPUs start the launcher with ``--cpus`` first, and does
    the launcher refuse a CPU list it cannot use, with a message?"""
    import json

    name = sandbox.install_kernelspec(tmp_path, tmp_path, cpus=[2, 3])
    argv = json.loads((tmp_path / "kernels" / name / "kernel.json").read_text())["argv"]
    assert argv[3:7] == [sandbox.CPUS_OPTION, "2,3", sandbox.COMPILED_OPTION,
                         str(tmp_path.resolve())]
    proc = subprocess.run([sys.executable, "-m", "autograder.grader.sandbox",
                           sandbox.CPUS_OPTION, "x", "conn.json"], capture_output=True, text=True)
    assert proc.returncode != 0 and "--cpus x" in proc.stderr


# Started like the kernelspec's launcher (a process of its own that execs bwrap), so that each
# sandboxed process gets the uid the grader would give its kernel.
_LAUNCH = ("import os, sys\nfrom pathlib import Path\nfrom autograder.grader import sandbox\n"
           "args = sandbox.sandbox_args(Path(sys.argv[1]))\nsandbox.set_limits()\n"
           "os.execv(args[0], [*args, sys.executable, '-c', sys.argv[2]])\n")
_HOG = """
import threading, time
held, stop = [], threading.Event()
while len(held) < 5000:
    try:
        t = threading.Thread(target=stop.wait)
        t.start()
        held.append(t)
    except RuntimeError:
        break
print("held", len(held), flush=True)
time.sleep(60)
"""
_NEIGHBOUR = """
import threading
stop, started = threading.Event(), 0
for _ in range(200):
    try:
        threading.Thread(target=stop.wait).start()
        started += 1
    except RuntimeError:
        break
stop.set()
print("started", started, flush=True)
"""


def _launch(tmp_path: Path, name: str, code: str) -> subprocess.Popen:
    runtime = tmp_path / name
    sandbox.prepare_runtime_dir(runtime)
    return subprocess.Popen([sys.executable, "-c", _LAUNCH, str(runtime), code],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_each_kernel_has_its_own_process_budget(sandboxed: None, tmp_path: Path) -> None:
    """Two kernels at once: while one holds every thread its limit allows (a thread hog, the
    attack), can the other (its honest twin) still start 200 threads? And is the hog itself
    held to the limit?"""
    if os.geteuid() != 0:
        pytest.skip("kernels drop to their own unprivileged users only when the grader is root")
    hog = _launch(tmp_path, "hog", _HOG)
    try:
        line = hog.stdout.readline()
        assert line.startswith("held "), hog.stderr.read() if hog.poll() is not None else line
        held = int(line.split()[1])
        assert held < sandbox.PROCESSES  # the hog's own budget ran out
        neighbour = _launch(tmp_path, "neighbour", _NEIGHBOUR)
        out, err = neighbour.communicate(timeout=120)
        assert neighbour.returncode == 0, err
        assert out.split() == ["started", "200"], (out, err)
    finally:
        hog.kill()
        hog.wait()


def test_a_folder_a_runtime_kernel_sees_is_exposed(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Is a folder inside a built runtime's environment or its root's ``/etc`` reported as
    readable by kernels (so ``grade --reference-cache`` refuses it), and one beside them not?"""
    from autograder.grader import runtime_choice

    runtime = _fake_runtime(tmp_path)
    monkeypatch.setattr(runtime_choice, "installed",
                        lambda: {"tools": runtime_choice.tools(), "colab": runtime})
    assert sandbox.exposing_root(runtime.venv / "cache") == runtime.venv.resolve()
    assert sandbox.exposing_root(runtime.root / "etc" / "x") == (runtime.root / "etc").resolve()
    assert sandbox.exposing_root(tmp_path / "elsewhere") is None
