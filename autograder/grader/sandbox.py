"""Run a submission's Jupyter kernel in a bubblewrap sandbox with resource limits.

The grader writes a kernelspec (:func:`install_kernelspec`) whose command is this module's
launcher, ``python -m autograder.grader.sandbox CONNECTION_FILE``. The launcher sets resource limits
and execs ``bwrap`` around ``python -m ipykernel_launcher``. Inside the sandbox only the
system directories, the Python installation and the ``autograder`` package (without its
tests) are visible, read-only; ``/tmp`` is a small private tmpfs and the working directory;
there is no network, the process tree is in its own PID namespace, and the environment is
cleared. The shared compilation cache (:mod:`autograder.grader.compile_cache`), when the kernelspec
names one (``--compiled DIR``), is bound read-only. When the grader runs as root, the kernel
runs as an unprivileged user of its own (:func:`kernel_uid`: a uid no account and no other
running kernel has), so that the process limit holds (Linux exempts root from it) and counts
that kernel's processes and threads alone: kernels graded at once cannot starve one another.
The
kernel talks to its client over Unix sockets (IPC transport) in a fresh directory of its own
(:func:`new_kernel_dir`), the one writable directory bound in.

A kernel of another runtime (:mod:`autograder.grader.runtime_choice`: Colab's JAX, the newest)
runs in the same sandbox with the same limits; its kernelspec names that runtime's interpreter
(``--python``) and, when the runtime is a Python of a Debian root, that root (``--system``).
The sandbox then shows the root's ``/usr``, ``/etc`` and top-level links (``/bin``, ``/lib``,
...) read-only in place of this machine's, and the runtime's virtual environment instead of
the grader's Python: one bubblewrap, no sandbox nested in another, so the kernel sees exactly
what it sees on the grader's own runtime, with another system's files.

Where bubblewrap does not work (not Linux, not installed, user namespaces disallowed)
:func:`available` is false and grading falls back to the plain ``python3`` kernel: the
result says ``"isolation": "none"``.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

KERNEL_NAME = "learn-jax-sandbox"
NOBODY = 65534
# Kernels run as KERNEL_UID_BASE + the launcher's PID: unique among running kernels (the
# launcher execs bwrap, whose PID lives as long as the kernel), above every ordinary account.
KERNEL_UID_BASE = 1_500_000_000
MEMORY_BYTES = 4 * 2**30  # RLIMIT_DATA: heap and private mappings (XLA works under it)
FILE_BYTES = 64 * 2**20  # RLIMIT_FSIZE: the largest file the kernel may write
TMP_BYTES = 64 * 2**20  # size of the private /tmp
# Files and folders the private /tmp may hold: each costs kernel memory that its size does not
# count (a tmpfs has no inode limit of its own below half the machine's memory pages).
TMP_INODES = 8192
TMP_MOUNT = ".tmp"  # the private /tmp's mount point inside the kernel's runtime directory
PROCESSES = 512  # RLIMIT_NPROC per kernel's uid (threads count: JAX starts a few dozen)
OPEN_FILES = 1024
_KEEP_ENV = ("LANG", "LC_ALL", "TZ", "CUDA_VISIBLE_DEVICES", "PYTHONUNBUFFERED")
_KEEP_ENV_PREFIX = ("JAX_", "XLA_", "TF_CPP_")
PYTHON_OPTION = "--python"  # the launcher's option naming a runtime's kernel interpreter
SYSTEM_OPTION = "--system"  # the launcher's option naming that runtime's system root
COMPILED_OPTION = "--compiled"  # the launcher's option naming the shared compilation cache
CPUS_OPTION = "--cpus"  # the launcher's option naming the CPUs a kernel may run on


def bwrap() -> str | None:
    """The ``bwrap`` executable, or None where there is none."""
    return shutil.which("bwrap") if sys.platform.startswith("linux") else None


def _as_nobody() -> bool:
    """Whether kernels drop to an unprivileged user (the grader is root, setpriv exists)."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def kernel_uid(pid: int | None = None) -> int:
    """The uid (and gid) of the kernel whose launcher has process id ``pid`` (default: this
    process): :data:`KERNEL_UID_BASE` + ``pid``. No two kernels alive at once share it, so
    each has its own ``RLIMIT_NPROC`` budget, and none can signal or ptrace another."""
    return KERNEL_UID_BASE + (os.getpid() if pid is None else pid)


def _package_dir() -> Path:
    return Path(__file__).resolve().parents[1]


def interpreter() -> str:
    """The Python that sandboxed kernels run, named by a path that exists inside the sandbox.

    Only the resolved folders of the installation are bound in, so a path that reaches the
    interpreter through a link to its folder (a ``.venv`` link into the runner's Python, say)
    names nothing there. The folders are resolved; the file name is not (a virtual
    environment's ``python`` is itself a link, and Python finds its environment by the folder
    that holds the name it was started by).
    """
    executable = Path(sys.executable)
    return str(executable.parent.resolve() / executable.name)


def runtime_interpreter(python: str) -> str:
    """:func:`interpreter` for another runtime's ``python`` (its folder resolved, its name
    kept: a virtual environment is found by the name it was started by)."""
    path = Path(python)
    return str(path.parent.resolve() / path.name)


def _python_roots(python: str | None) -> set[Path]:
    """The folders of the Python installation a kernel runs: the grader's own, or that of a
    runtime's virtual environment ``python`` (the environment, and the base installation its
    ``pyvenv.cfg`` names, which the system root holds when it lies under ``/usr``)."""
    if python is None:
        return {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(),
                Path(sys.executable).resolve().parent.parent}
    venv = Path(runtime_interpreter(python)).parent.parent
    roots = {venv}
    config = venv / "pyvenv.cfg"
    for line in config.read_text().splitlines() if config.is_file() else []:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            home = Path(value.strip())
            if not (home == Path("/usr") or Path("/usr") in home.parents):
                roots.add(home.resolve().parent)
    return roots


def _readable_roots(python: str | None = None) -> list[Path]:
    """Directories bound read-only: the Python installation (the grader's, or the runtime's
    whose interpreter is ``python``) and this package."""
    roots = {*_python_roots(python), _package_dir()}
    system = {Path("/usr"), Path("/etc")}
    return sorted(r for r in roots if r not in system and r != Path("/"))


def exposing_root(path: Path) -> Path | None:
    """The folder bound into sandboxed kernels that holds ``path`` (so kernels can read it),
    or None: the grader's own kernels' folders, and those of each built runtime installed here
    (its environment, its root's ``/usr`` and ``/etc``)."""
    from autograder.grader.runtime_choice import installed

    target = path.resolve()
    shown = [*_readable_roots(), Path("/usr"), Path("/etc")]
    for runtime in installed().values():
        if runtime.venv is not None:
            shown += _readable_roots(runtime.kernel_python)
        if runtime.root is not None:
            shown += [runtime.root.resolve() / "usr", runtime.root.resolve() / "etc"]
    for root in shown:
        if target == root or root in target.parents:
            return root
    return None


def _ancestors(paths: list[Path]) -> list[Path]:
    found: set[Path] = set()
    for path in paths:
        found.update(p for p in path.parents if p != Path("/"))
    return sorted(found, key=lambda p: (len(p.parts), str(p)))


def sandbox_args(runtime_dir: Path, compiled: Path | None = None, uid: int | None = None,
                 python: str | None = None, system: Path | None = None,
                 tmp: Path | None = None) -> list[str]:
    """The ``bwrap`` arguments (without the command) for a kernel using ``runtime_dir``, and
    reading the shared compilation cache ``compiled`` (bound read-only) when given. As root,
    the kernel runs as ``uid`` (default :func:`kernel_uid` of this process). ``tmp`` is the
    private tmpfs :func:`private_tmp` mounted (bound at ``/tmp``); None: bubblewrap's own
    tmpfs, limited in size only.

    For another runtime's kernel, ``python`` is its interpreter (its installation is bound
    instead of the grader's) and ``system`` the root whose ``/usr``, ``/etc`` and top-level
    links replace this machine's (None: this machine's)."""
    from autograder.grader.compile_cache import reader_env, without_cache_settings

    base = Path("/") if system is None else system.resolve()
    kernel_python = interpreter() if python is None else runtime_interpreter(python)
    args = [bwrap() or "bwrap", "--ro-bind", str(base / "usr"), "/usr",
            "--ro-bind", str(base / "etc"), "/etc",
            "--proc", "/proc", "--dev", "/dev", "--die-with-parent",
            "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try"]
    if os.geteuid() != 0:
        args.append("--unshare-user")
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        top = base / name
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), f"/{name}"]
        elif top.is_dir():
            args += ["--ro-bind", str(top), f"/{name}"]
    for dev in sorted(Path("/dev").glob("nvidia*")):  # GPUs, where there are any
        args += ["--dev-bind", str(dev), str(dev)]
    roots = _readable_roots(python)
    runtime = runtime_dir.resolve()
    shared = compiled.resolve() if compiled is not None and compiled.is_dir() else None
    # /tmp first: binds below it (a scratch course directory) must stay visible.
    if tmp is not None:
        args += ["--bind", str(tmp), "/tmp"]
    else:
        args += ["--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    # bwrap creates missing parent directories 0700: make them traversable for nobody.
    for parent in _ancestors([*roots, runtime, *([shared] if shared else [])]):
        if parent != Path("/tmp") and not any(parent == r or r in parent.parents
                                              for r in (Path("/usr"), Path("/etc"))):
            args += ["--perms", "0755", "--dir", str(parent)]
    for root in roots:
        args += ["--ro-bind", str(root), str(root)]
    tests = _package_dir() / "tests"
    if tests.is_dir():  # fixtures there include solutions
        args += ["--tmpfs", str(tests)]
    args += ["--bind", str(runtime), str(runtime), "--chdir", "/tmp", "--clearenv",
             "--setenv", "HOME", "/tmp",
             "--setenv", "PATH", f"{Path(kernel_python).parent}:/usr/bin:/bin",
             # the kernel imports the very package the grader runs (the folder bound above),
             # also when that is a checkout on PYTHONPATH rather than the installed one
             "--setenv", "PYTHONPATH", str(_package_dir().parent)]
    env = {k: v for k, v in without_cache_settings(dict(os.environ)).items()
           if k in _KEEP_ENV or k.startswith(_KEEP_ENV_PREFIX)}
    if shared is not None:
        args += ["--ro-bind", str(shared), str(shared)]  # read-only: no kernel writes there
        env.update(reader_env(shared))
    for key, value in sorted(env.items()):
        args += ["--setenv", key, value]
    if _as_nobody():
        uid = kernel_uid() if uid is None else uid
        args += ["--", "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    else:
        args += ["--cap-drop", "ALL", "--"]
    return args


_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x4000, 0x40000


def private_tmp(runtime_dir: Path, size: int = TMP_BYTES, inodes: int = TMP_INODES
                ) -> Path | None:
    """Mount the kernel's ``/tmp``: a tmpfs of ``size`` bytes and ``inodes`` files and folders,
    at ``runtime_dir/.tmp`` in a mount namespace of this process's own (gone with the last
    process in it, the kernel's sandbox), for :func:`sandbox_args` to bind at ``/tmp``.

    Bubblewrap's ``--tmpfs`` takes a size but no inode limit, and the kernel memory an empty
    file costs is counted by neither: a kernel could hold hundreds of megabytes with files of
    no bytes. As root the namespace is a plain mount namespace; otherwise it is in a user
    namespace of this user's (bubblewrap then makes its own inside it). Call it from a process
    with one thread, just before it execs ``bwrap``.

    Returns:
        The mount point, or None where no namespace of our own can be made (a container
        without the right to mount, a set-uid bubblewrap where user namespaces are not
        allowed): the sandbox then uses bubblewrap's tmpfs, with its size limit only.
    """
    if not sys.platform.startswith("linux"):
        return None
    where = runtime_dir / TMP_MOUNT
    uid, gid = os.geteuid(), os.getegid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        where.mkdir(exist_ok=True)
        if libc.unshare(_CLONE_NEWNS | (0 if uid == 0 else _CLONE_NEWUSER)) != 0:
            return None
        if uid != 0:  # this user is itself in the new namespace: bubblewrap maps it again
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
            Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
        options = f"size={size},nr_inodes={inodes},mode=1777".encode()
        if (libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0
                or libc.mount(b"learn-jax-tmp", str(where).encode(), b"tmpfs",
                              _MS_NOSUID | _MS_NODEV, options) != 0):
            raise OSError(ctypes.get_errno(), "mount")
    except OSError:
        return None
    return where


def set_limits() -> None:
    """Apply the kernel's resource limits to this process (inherited by what it execs)."""
    limits = {resource.RLIMIT_DATA: MEMORY_BYTES, resource.RLIMIT_FSIZE: FILE_BYTES,
              resource.RLIMIT_NOFILE: OPEN_FILES, resource.RLIMIT_CORE: 0}
    if _as_nobody():  # Linux exempts root; the count is per uid, and each kernel has its own
        limits[resource.RLIMIT_NPROC] = PROCESSES
    for which, value in limits.items():
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))


def kernel_command(connection_file: str, extra: list[str], compiled: Path | None = None,
                   python: str | None = None, system: Path | None = None,
                   tmp: Path | None = None) -> list[str]:
    """The full command that runs an ipykernel for ``connection_file`` in the sandbox (with
    the shared compilation cache ``compiled`` read-only, when given; on another runtime's
    interpreter ``python`` and system root ``system``, when given; with ``tmp``, the private
    tmpfs of :func:`private_tmp`, as ``/tmp``)."""
    runtime = Path(connection_file).resolve().parent
    kernel_python = interpreter() if python is None else runtime_interpreter(python)
    return [*sandbox_args(runtime, compiled, python=python, system=system, tmp=tmp),
            kernel_python,
            "-m", "ipykernel_launcher", "-f", str(Path(connection_file).resolve()), *extra]


RUN_OPTION = "--run"  # the launcher's option: run a command (not a kernel) in the sandbox


def sandboxed_command(runtime_dir: Path, command: list[str], runtime: Any = None) -> list[str]:
    """A command line that runs ``command`` in the sandbox, with the kernel's limits, using
    ``runtime_dir`` as its one writable host folder (and, with ``runtime``, a
    :class:`~autograder.grader.runtime_choice.Runtime`, showing its installation and system
    root as its kernels see them).

    The limits are set by this module's launcher, which then execs ``bwrap``: the caller needs
    no ``preexec_fn`` (which forks the caller, a process that may hold JAX's threads; a plain
    :class:`subprocess.Popen` spawns without forking Python).
    """
    options: list[str] = []
    if runtime is not None and runtime.venv is not None:
        options = [PYTHON_OPTION, runtime.kernel_python]
        if runtime.root is not None:
            options = [SYSTEM_OPTION, str(runtime.root), *options]
    return [sys.executable, "-m", "autograder.grader.sandbox", *options, RUN_OPTION,
            str(Path(runtime_dir).resolve()), "--", *command]


def prepare_runtime_dir(runtime_dir: Path) -> None:
    """Make ``runtime_dir`` a directory the sandboxed kernel may write (its own, fresh one)."""
    runtime_dir.mkdir(parents=True, exist_ok=True)
    if _as_nobody():
        os.chown(runtime_dir, NOBODY, NOBODY)
    runtime_dir.chmod(0o700)


def seal_runtime_dir(runtime_dir: Path) -> bool:
    """Take write access to ``runtime_dir`` away from the kernel once its sockets exist.

    The kernel binds every socket while it starts; after that it needs no new file there. The
    directory and the connection file become root's and read-only to others, so a submission
    cannot fill the host's disk through the one host folder it can see, nor swap its sockets.
    Possible only when the grader is root and the kernel ``nobody``; returns whether sealed.
    """
    if not _as_nobody() or not runtime_dir.is_dir():
        return False
    for entry in [runtime_dir, *runtime_dir.iterdir()]:
        if entry.is_symlink():
            entry.unlink()  # the kernel made it: nothing of the grader's may point elsewhere
            continue
        os.chown(entry, 0, 0, follow_symlinks=False)
        if entry.is_dir() or entry.is_file():
            entry.chmod(0o755 if entry.is_dir() else 0o644)
    return True


def remove_runtime_dir(runtime_dir: Path) -> None:
    """Delete a kernel's runtime directory after the kernel ended (nothing outlives its run)."""
    shutil.rmtree(runtime_dir, ignore_errors=True)


def new_kernel_dir(runtime_root: Path) -> Path:
    """A fresh directory under ``runtime_root`` for one kernel's connection file and sockets.

    Each kernel gets its own, never reused: files a kernel leaves there cannot affect the
    next kernel or the grader.
    """
    import tempfile

    runtime_root.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="kernel-", dir=runtime_root))
    prepare_runtime_dir(path)
    return path


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """True when a Python process starts in the sandbox here (see :func:`probe`)."""
    return probe() is None


def probe(runtime: Any = None) -> str | None:
    """Start a Python process in the sandbox, as a kernel would start (of ``runtime``, a
    :class:`~autograder.grader.runtime_choice.Runtime`, when given); None when it ran, else
    why not, in a line (bubblewrap missing, or the last lines of what the process printed)."""
    if bwrap() is None:
        return "bubblewrap (bwrap) is not installed"
    import tempfile

    with tempfile.TemporaryDirectory(prefix="learn-jax-probe-") as tmp:
        folder = Path(tmp) / "runtime"
        prepare_runtime_dir(folder)
        python = interpreter() if runtime is None or runtime.venv is None else (
            runtime_interpreter(runtime.kernel_python))
        cmd = sandboxed_command(folder, [python, "-c", "import ipykernel, autograder"],
                                runtime)
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"the sandbox did not start: {exc}"
    if proc.returncode == 0:
        return None
    said = proc.stderr.decode(errors="replace").strip().splitlines()[-3:]
    return f"exit status {proc.returncode}: " + (" / ".join(said) or "nothing printed")


def job_cpus(index: int, jobs: int) -> list[int] | None:
    """The CPUs the kernels of job ``index`` (0 to ``jobs - 1``) run on when ``jobs`` grade
    side by side: an equal share of this process's CPUs (at least one), or None for one job.

    XLA sizes a CPU client's thread pool to the CPUs a process may run on, so two kernels that
    may each use every core start twice as many compute threads as there are cores, and spend
    CPU time waiting on each other; kernels confined to their share do not.
    """
    if jobs <= 1:
        return None
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cpus) < 2:
        return None
    share = max(1, len(cpus) // jobs)
    start = (index * share) % len(cpus)
    return [cpus[(start + i) % len(cpus)] for i in range(share)]


def kernel_name(runtime: str | None = None) -> str:
    """The sandbox kernelspec's name for kernels of ``runtime`` (None: the grader's own)."""
    return KERNEL_NAME if runtime is None else f"{KERNEL_NAME}-{runtime}"


def install_kernelspec(share_dir: Path, compiled: Path | None = None,
                       cpus: list[int] | None = None, runtime: Any = None) -> str:
    """Write the sandbox kernelspec under ``share_dir/kernels``; return its name.

    Put ``share_dir`` on ``JUPYTER_PATH`` for the kernel to be found. With ``compiled``, the
    kernels read that shared compilation cache (read-only); with ``cpus``, they run on those
    CPUs only (:func:`job_cpus`). With ``runtime`` (a
    :class:`~autograder.grader.runtime_choice.Runtime` other than the grader's), they run its
    interpreter, in its system root when it has one.
    """
    name = kernel_name(None if runtime is None or runtime.venv is None else runtime.name)
    spec = share_dir / "kernels" / name
    spec.mkdir(parents=True, exist_ok=True)
    cache = [COMPILED_OPTION, str(compiled.resolve())] if compiled is not None else []
    if cpus:
        cache = [CPUS_OPTION, ",".join(str(c) for c in cpus), *cache]
    if name != KERNEL_NAME:
        cache = [PYTHON_OPTION, runtime.kernel_python, *cache]
        if runtime.root is not None:
            cache = [SYSTEM_OPTION, str(runtime.root), *cache]
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "autograder.grader.sandbox", *cache, "{connection_file}"],
        "display_name": "Python 3 (learn-jax sandbox" + (
            f", {runtime.name} runtime)" if name != KERNEL_NAME else ")"),
        "language": "python",
        # SIGINT sent to bwrap would end the sandbox: interrupt by message instead.
        "interrupt_mode": "message",
        "metadata": {"debugger": False},
    }, indent=1))
    return name


def main(argv: list[str] | None = None) -> None:
    """Launcher: ``python -m autograder.grader.sandbox [--system ROOT] [--python PYTHON]
    [--cpus N,M...] [--compiled DIR] CONNECTION_FILE [ARGS...]`` starts a kernel (of another
    runtime's interpreter and system root, and on those CPUs only, when given);
    ``python -m autograder.grader.sandbox [--system ROOT] [--python PYTHON] --run RUNTIME_DIR
    -- COMMAND...`` runs a command (:func:`sandboxed_command`)."""
    args = sys.argv[1:] if argv is None else argv
    system: Path | None = None
    python: str | None = None
    if args[:1] == [SYSTEM_OPTION] and len(args) > 1:
        system, args = Path(args[1]), args[2:]
    if args[:1] == [PYTHON_OPTION] and len(args) > 1:
        python, args = args[1], args[2:]
    if args[:1] == [RUN_OPTION] and len(args) > 3 and args[2] == "--":
        tmp = private_tmp(Path(args[1]))
        command = [*sandbox_args(Path(args[1]), python=python, system=system, tmp=tmp),
                   *args[3:]]
        set_limits()
        os.execv(command[0], command)
    compiled = None
    if args[:1] == [CPUS_OPTION] and len(args) > 1:
        try:
            os.sched_setaffinity(0, {int(c) for c in args[1].split(",")})
        except (ValueError, OSError, AttributeError) as exc:
            sys.exit(f"{CPUS_OPTION} {args[1]}: {exc}")
        args = args[2:]
    if args[:1] == [COMPILED_OPTION] and len(args) > 1:
        compiled, args = Path(args[1]), args[2:]
    if not args:
        sys.exit(f"usage: python -m autograder.grader.sandbox [{SYSTEM_OPTION} ROOT] "
                 f"[{PYTHON_OPTION} PYTHON] [{CPUS_OPTION} N,M...] [{COMPILED_OPTION} DIR] "
                 "CONNECTION_FILE [ARGS...]")
    connection_file = args[0]
    if _as_nobody():  # this kernel's own uid (this launcher's PID stays bwrap's)
        os.chown(Path(connection_file).parent, kernel_uid(), kernel_uid())
        os.chown(connection_file, kernel_uid(), kernel_uid())
    tmp = private_tmp(Path(connection_file).resolve().parent)
    command = kernel_command(connection_file, args[1:], compiled, python, system, tmp)
    set_limits()
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
