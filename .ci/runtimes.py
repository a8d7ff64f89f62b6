"""Build the course's Python 3.13 kernel runtimes and register them as Jupyter kernels.

Usage (the Makefile calls it with .venv's Python; it needs only the standard library)::

    python .ci/runtimes.py setup colab newest --kernels-into .venv
    python .ci/runtimes.py python newest        # prints the command that runs its Python

Each runtime is a virtual environment built from one requirements file (its ``# python:``
line names the interpreter; its pins the packages), with the course package installed over it
without dependencies, as a notebook's first cell installs it in Colab:

- ``colab``: Google Colab's published runtime, ``requirements-colab.txt``, kernel
  ``learn-jax-colab``;
- ``newest``: the newest JAX, ``requirements-newest.txt``, kernel ``learn-jax-newest``.

The interpreter is, first found: ``$PYTHON313`` (a path or command); ``python3.13`` when it
runs and has venv and ensurepip; else Python 3.13 of a minimal Debian 13 ("trixie") root made
with ``debootstrap`` from the Debian mirror this machine's apt already uses, and run through
``bwrap`` (bubblewrap). In the root, the system folders (/usr, /etc) are Debian 13's and every
other top-level folder of this machine (/home, /root, /tmp, /var, /opt, ...) is this machine's
at the same path, so a kernel sees the repository, the notebooks' folders, Jupyter's connection
files and caches where the host has them. It is a way to run another distribution's Python,
not a sandbox (the grader has its own, autograder/SECURITY.md).

Everything is cached outside the repository, in ``$LEARN_JAX_CACHE`` or
``${XDG_CACHE_HOME:-~/.cache}/learn-jax``, and reused: a runtime is rebuilt when its
requirements file or its interpreter changed, the root when its package list changed. The
course package is reinstalled on every ``setup``, so kernels run the working tree's code.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

RUNTIMES = {
    "colab": {"requirements": "requirements-colab.txt", "kernel": "learn-jax-colab",
              "display": "Python {python} (Colab's packages, JAX {jax})"},
    "newest": {"requirements": "requirements-newest.txt", "kernel": "learn-jax-newest",
               "display": "Python {python} (newest JAX, {jax})"},
}
# Which Debian release ships which Python as its python3 (the root's suite).
DEBIAN_SUITES = {"3.13": "trixie"}
ROOT_PACKAGES = ["python3.13", "python3.13-venv", "git", "ca-certificates"]
# Folders of the root that replace the host's (the system, and the kernel's own /proc, /dev,
# /sys); every other top-level folder is the host's, /var and /run included.
SYSTEM = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev", "sys",
          "boot", "lost+found"}
# Host files laid over the root's /etc when present: name resolution, users, certificates,
# and pip's configuration (its index, caches of wheels), so pip behaves as on the host.
HOST_ETC = ["/etc/resolv.conf", "/etc/hosts", "/etc/passwd", "/etc/group", "/etc/ssl/certs",
            "/etc/pip.conf", "/etc/xdg/pip"]


class SetupError(RuntimeError):
    """A runtime could not be built; the message says what to do."""


def cache_dir() -> Path:
    """Where the roots and runtimes are kept (outside the repository)."""
    if os.environ.get("LEARN_JAX_CACHE"):
        return Path(os.environ["LEARN_JAX_CACHE"]).expanduser().resolve()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return (Path(base).expanduser() / "learn-jax").resolve()


def log(message: str) -> None:
    print(f"[runtimes] {message}", flush=True)


def requirements(name: str) -> tuple[str, list[str]]:
    """The Python version (``# python: X.Y``) and the requirement lines of runtime ``name``."""
    path = REPO / RUNTIMES[name]["requirements"]
    python, pins = None, []
    for line in path.read_text().splitlines():
        found = re.fullmatch(r"#\s*python:\s*(\d+\.\d+)\s*", line)
        if found:
            python = found.group(1)
        elif line.split("#")[0].strip():
            pins.append(line.split("#")[0].strip())
    if python is None:
        raise SetupError(f"{path.name} has no '# python: X.Y' line naming its interpreter")
    return python, pins


# ----------------------------------------------------------------------- the interpreter


def _works(command: str, version: str) -> str | None:
    """The full path of ``command`` when it is Python ``version`` with venv and ensurepip."""
    found = shutil.which(command)
    if not found:
        return None
    check = (f"import sys, venv, ensurepip; "
             f"assert sys.version_info[:2] == {tuple(map(int, version.split('.')))}; "
             f"print(sys.executable)")
    try:
        proc = subprocess.run([found, "-c", check], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def host_python(version: str) -> str | None:
    """A Python ``version`` of this machine's own: ``$PYTHON313`` (for 3.13) or on PATH."""
    variable = "PYTHON" + version.replace(".", "")
    if os.environ.get(variable):
        found = _works(os.environ[variable], version)
        if not found:
            raise SetupError(f"${variable}={os.environ[variable]} is not a working Python "
                             f"{version} with the venv module")
        return found
    return _works(f"python{version}", version)


def debian_mirror() -> str:
    """The Debian archive this machine's apt uses (``$LEARN_JAX_DEBIAN_MIRROR`` overrides)."""
    if os.environ.get("LEARN_JAX_DEBIAN_MIRROR"):
        return os.environ["LEARN_JAX_DEBIAN_MIRROR"]
    release = Path("/etc/os-release")
    codename = ""
    if release.exists():
        found = re.search(r"^VERSION_CODENAME=\"?(\w+)", release.read_text(), re.M)
        codename = found.group(1) if found else ""
    files = ["/etc/apt/sources.list", *sorted(glob.glob("/etc/apt/sources.list.d/*.list")),
             *sorted(glob.glob("/etc/apt/sources.list.d/*.sources"))]
    for name in files:
        with contextlib.suppress(OSError):
            text = Path(name).read_text()
            if name.endswith(".sources"):  # deb822 stanzas
                for stanza in re.split(r"\n\s*\n", text):
                    uris = re.search(r"^URIs:\s*(\S+)", stanza, re.M)
                    suites = re.search(r"^Suites:\s*(.+)$", stanza, re.M)
                    if uris and suites and codename in suites.group(1).split():
                        return uris.group(1)
            else:
                for line in text.splitlines():
                    parts = re.sub(r"\[[^]]*\]", "", line).split()
                    if len(parts) >= 3 and parts[0] == "deb" and parts[2] == codename:
                        return parts[1]
    raise SetupError("no Debian mirror found in /etc/apt/sources.list*: install Python 3.13 "
                     "(python3.13 on PATH, or $PYTHON313), or set LEARN_JAX_DEBIAN_MIRROR")


def _as_root(argv: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return argv
    if not shutil.which("sudo"):
        raise SetupError(f"{argv[0]} needs root: run as root, install sudo, or install "
                         "Python 3.13 (python3.13 on PATH, or $PYTHON313)")
    return ["sudo", *argv]


def _apt_install(*packages: str) -> None:
    missing = [p for p in packages if not shutil.which({"bubblewrap": "bwrap"}.get(p, p))]
    if not missing:
        return
    if not shutil.which("apt-get"):
        raise SetupError(f"{', '.join(missing)} missing and no apt-get: install Python 3.13 "
                         "(python3.13 on PATH, or $PYTHON313)")
    log(f"installing Debian's {', '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(_as_root(["apt-get", "update", "-qq"]), check=True, env=env)
    subprocess.run(_as_root(["apt-get", "install", "-y", "-qq", *missing]), check=True,
                   env=env, stdout=subprocess.DEVNULL)


def debian_root(version: str) -> Path:
    """A minimal Debian root with Python ``version``, made once and reused."""
    suite = DEBIAN_SUITES.get(version)
    if suite is None:
        raise SetupError(f"no Debian release known for Python {version}: add it to "
                         "DEBIAN_SUITES in .ci/runtimes.py, or set $PYTHON" +
                         version.replace(".", ""))
    root = cache_dir() / f"debian-{suite}"
    wanted = json.dumps({"suite": suite, "packages": ROOT_PACKAGES})
    stamp = root / ".learn-jax-root"
    if stamp.exists() and stamp.read_text() == wanted:
        return root
    _apt_install("debootstrap", "bubblewrap")
    mirror = debian_mirror()
    building = cache_dir() / f"debian-{suite}.building"
    for old in (building, root):
        if old.exists():
            subprocess.run(_as_root(["rm", "-rf", str(old)]), check=True)
    log(f"building a Debian {suite} root with Python {version} (debootstrap, about a minute)")
    start = time.monotonic()
    proc = subprocess.run(_as_root([
        "debootstrap", "--variant=minbase", f"--include={','.join(ROOT_PACKAGES)}", suite,
        str(building), mirror]), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SetupError(f"debootstrap {suite} from {mirror} failed:\n{proc.stdout[-2000:]}"
                         f"{proc.stderr[-2000:]}")
    if os.geteuid() != 0:  # so the wrapper can add mount points without root
        subprocess.run(["sudo", "chown", "-R", f"{os.getuid()}:{os.getgid()}", str(building)],
                       check=True)
    for deb in (building / "var" / "cache" / "apt" / "archives").glob("*.deb"):
        deb.unlink()
    (building / ".learn-jax-root").write_text(wanted)
    building.rename(root)
    log(f"Debian {suite} root ready in {time.monotonic() - start:.0f} s")
    return root


# The command that runs a runtime's Python: the virtual environment beside it (``venv/``), run
# directly (this machine's own Python) or through bubblewrap in the Debian root.
HOST_WRAPPER = """#!/usr/bin/env bash
# Generated by .ci/runtimes.py: runs the virtual environment beside this file.
exec "$(dirname "${{BASH_SOURCE[0]}}")/venv/bin/python" "$@"
"""

ROOT_WRAPPER = """#!/usr/bin/env bash
# Generated by .ci/runtimes.py: runs the virtual environment beside this file with Python
# {version} of a Debian root, through bubblewrap. The root's /usr and /etc replace the host's;
# every other top-level folder is the host's, at the same path.
root={root}
python="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)/venv/bin/python"
args=(--ro-bind "$root" / --proc /proc --dev-bind /dev /dev --ro-bind /sys /sys --die-with-parent)
for dir in /*; do
  name=${{dir#/}}
  case " {system} " in *" $name "*) continue ;; esac
  [ -d "$dir" ] && [ ! -L "$dir" ] || continue
  [ -d "$root/$name" ] || mkdir -p "$root/$name" 2>/dev/null || continue
  args+=(--bind "$dir" "$dir")
done
for path in {host_etc}; do
  [ -e "$path" ] || continue
  if [ -d "$path" ]; then
    mkdir -p "$root$path" 2>/dev/null || continue
  elif [ ! -e "$root$path" ]; then
    {{ mkdir -p "${{root}}${{path%/*}}" && touch "$root$path"; }} 2>/dev/null || continue
  fi
  args+=(--ro-bind "$path" "$path")
done
exec bwrap "${{args[@]}}" --chdir "$PWD" "$python" "$@"
"""


# ----------------------------------------------------------------------- a runtime


def _write_if_changed(path: Path, text: str, mode: int | None = None) -> None:
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if mode is not None:
        path.chmod(mode)


def python_command(name: str) -> Path:
    """The executable that runs runtime ``name``'s Python (its venv, through bwrap if needed)."""
    return cache_dir() / name / "python"


def _venv_python_argv(version: str) -> tuple[list[str], str]:
    """How to run the base interpreter, and what identifies it (for the stamp)."""
    found = host_python(version)
    if found:
        return [found], f"host {found}"
    root = debian_root(version)
    _apt_install("bubblewrap")
    return [], f"root {root} {(root / '.learn-jax-root').read_text()}"


def build(name: str) -> None:
    """Make runtime ``name`` current: its venv, its wrapper, the course package."""
    version, pins = requirements(name)
    base = cache_dir() / name
    venv = base / "venv"
    argv, identity = _venv_python_argv(version)
    command = python_command(name)
    if argv:  # this machine's own Python 3.13
        wrapper = HOST_WRAPPER.format()
    else:
        root = cache_dir() / f"debian-{DEBIAN_SUITES[version]}"
        for what, path, fix in [("cache", cache_dir(), "set LEARN_JAX_CACHE to a folder "
                                 "elsewhere"), ("repository", REPO, "clone it elsewhere")]:
            top = path.parts[1] if len(path.parts) > 1 else ""
            if top in SYSTEM:
                raise SetupError(f"the {what} {path} lies under /{top}, which the Debian root "
                                 f"replaces: {fix}, or install Python 3.13")
        wrapper = ROOT_WRAPPER.format(version=version, root=shlex.quote(str(root)),
                                      system=" ".join(sorted(SYSTEM)),
                                      host_etc=" ".join(HOST_ETC))
    req_file = REPO / RUNTIMES[name]["requirements"]
    wanted = json.dumps({"requirements": hashlib.sha256(req_file.read_bytes()).hexdigest(),
                         "interpreter": identity})
    stamp = base / ".installed"
    if not (stamp.exists() and stamp.read_text() == wanted):
        if base.exists():
            shutil.rmtree(base)
        base.mkdir(parents=True)
        log(f"building the {name} runtime (Python {version}, {req_file.name})")
        start = time.monotonic()
        if argv:
            subprocess.run([*argv, "-m", "venv", str(venv)], check=True)
        else:  # the root's own python makes the venv: the wrapper, pointed at it
            bootstrap = base / "bootstrap"
            line = 'python="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/venv/bin/python"'
            assert line in wrapper
            _write_if_changed(bootstrap, wrapper.replace(line, f"python=/usr/bin/python{version}"),
                              0o755)
            subprocess.run([str(bootstrap), "-m", "venv", str(venv)], check=True, cwd=REPO)
            bootstrap.unlink()
        _write_if_changed(command, wrapper, 0o755)
        subprocess.run([str(command), "-m", "pip", "install", "-qq",
                        "--disable-pip-version-check", "-r", str(req_file)],
                       check=True, cwd=REPO)
        stamp.write_text(wanted)
        log(f"{name} runtime built in {time.monotonic() - start:.0f} s")
    else:
        _write_if_changed(command, wrapper, 0o755)


def install_package(names: list[str]) -> None:
    """Install the working tree's course package into each runtime, without dependencies."""
    with tempfile.TemporaryDirectory(prefix="learn-jax-wheel-") as out:
        before = {p for p in ("build", "learn_jax_autograder.egg-info") if (REPO / p).exists()}
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--disable-pip-version-check", "-w", out, str(REPO)], check=True,
                       cwd=REPO)
        for leftover in {"build", "learn_jax_autograder.egg-info"} - before:
            shutil.rmtree(REPO / leftover, ignore_errors=True)
        (wheel,) = Path(out).glob("*.whl")
        for name in names:
            subprocess.run([str(python_command(name)), "-m", "pip", "install", "-qq",
                            "--disable-pip-version-check", "--no-deps", "--force-reinstall",
                            str(wheel)], check=True, cwd=REPO)


def versions(name: str) -> dict[str, str]:
    """Python's, JAX's, jaxlib's and NumPy's versions in runtime ``name``."""
    code = ("import importlib.metadata as m, json, platform; print(json.dumps(dict("
            "python=platform.python_version(), **{p: m.version(p) for p in "
            "('jax', 'jaxlib', 'numpy', 'ipython', 'ipykernel')})))")
    out = subprocess.run([str(python_command(name)), "-c", code], capture_output=True,
                         text=True, check=True, cwd=REPO).stdout
    return json.loads(out.splitlines()[-1])


def register_kernel(name: str, prefix: Path, found: dict[str, str]) -> Path:
    """Write runtime ``name``'s kernelspec into ``prefix``/share/jupyter/kernels (rewritten only
    when it changed, so its time tells when the runtime last changed)."""
    spec = RUNTIMES[name]
    folder = prefix / "share" / "jupyter" / "kernels" / spec["kernel"]
    text = json.dumps({
        "argv": [str(python_command(name)), "-Xfrozen_modules=off", "-m", "ipykernel_launcher",
                 "-f", "{connection_file}"],
        "display_name": spec["display"].format(**found),
        "language": "python",
        "env": {"PYDEVD_DISABLE_FILE_VALIDATION": "1"},
        "metadata": {"learn_jax": {"runtime": name, "versions": found}},
    }, indent=1) + "\n"
    _write_if_changed(folder / "kernel.json", text)
    return folder


@contextlib.contextmanager
def locked():
    """One set-up at a time per cache (two `make` runs side by side wait for each other)."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    setup = sub.add_parser("setup", help="build the runtimes and register their kernels")
    setup.add_argument("names", nargs="*", help=f"runtimes to set up: {', '.join(RUNTIMES)} "
                       "(default: all)")
    setup.add_argument("--kernels-into", type=Path, default=Path(sys.prefix),
                       help="the environment whose Jupyter gets the kernelspecs")
    show = sub.add_parser("python", help="print the command that runs a runtime's Python")
    show.add_argument("name", choices=list(RUNTIMES))
    args = parser.parse_args(argv)
    try:
        if args.command == "python":
            print(python_command(args.name))
            return 0
        start = time.monotonic()
        names = args.names or list(RUNTIMES)
        unknown = [n for n in names if n not in RUNTIMES]
        if unknown:
            raise SetupError(f"unknown runtime {', '.join(unknown)}: choose from "
                             f"{', '.join(RUNTIMES)}")
        with locked():
            for name in names:  # each base interpreter first: a Debian root is made once
                _venv_python_argv(requirements(name)[0])
            # The runtimes' venvs are independent: pip fills them side by side (downloads
            # and unpacking overlap), and the first failure is raised here.
            with concurrent.futures.ThreadPoolExecutor(max_workers=len(names)) as pool:
                list(pool.map(build, names))
            install_package(names)
        for name in names:
            found = versions(name)
            register_kernel(name, args.kernels_into.resolve(), found)
            log(f"{RUNTIMES[name]['kernel']}: " + ", ".join(f"{k} {v}" for k, v in found.items()))
        log(f"set up in {time.monotonic() - start:.0f} s")
    except SetupError as exc:
        print(f"runtimes: {exc}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as exc:
        print(f"runtimes: {shlex.join(map(str, exc.cmd))} failed (exit {exc.returncode})",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
