"""Tests of autograder.kernel.runtime: backend report, per-backend sizes, simulated devices,
and the libraries a cell runs only where they are installed."""

import os
import subprocess
import sys
from pathlib import Path

from autograder.kernel import runtime


def test_describe_reports_backend_and_devices(capsys) -> None:
    """Does describe() print and return the JAX version, backend and device count?"""
    info = runtime.describe()
    assert info["backend"] in ("cpu", "gpu", "tpu") and info["device_count"] >= 1
    out = capsys.readouterr().out
    assert "JAX" in out
    assert info["tested"] and "Note:" not in out  # the pinned JAX is inside the tested range


def test_describe_warns_outside_the_tested_range(capsys, monkeypatch) -> None:
    """Does describe() say plainly when the JAX it finds is older than Colab's or newer than
    the newest tested JAX, and mark the report untested?"""
    import jax

    from autograder import compat

    for version, word in [("0.6.0", "older"), ("0.99.1", "newer"), ("0.7.1.dev20250101", "older")]:
        monkeypatch.setattr(jax, "__version__", version)
        info = runtime.describe()
        out = capsys.readouterr().out
        assert not info["tested"] and f"Note: JAX {version} is {word}" in out, out
        assert f"{compat.OLDEST_TESTED_JAX} to {compat.NEWEST_TESTED_JAX}" in out


def test_pick_by_backend() -> None:
    """Does pick() fall back from tpu to gpu to cpu?"""
    assert runtime.pick(1, 2, 3) == {"cpu": 1, "gpu": 2, "tpu": 3}[runtime.backend()]
    assert runtime.pick(7) == 7


def test_simulated_devices_in_fresh_process() -> None:
    """Does use_simulated_cpu_devices(8) give eight devices when set before JAX starts?"""
    code = ("from autograder.kernel.runtime import use_simulated_cpu_devices as u; u(8); "
            "import jax; print('COUNT', jax.device_count())")
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_PLATFORMS")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert "COUNT 8" in out and "simulating 8 CPU devices" in out


def test_simulated_devices_after_jax_import_but_before_it_started() -> None:
    """With JAX imported but its backends not started (as in a grader's kernel started
    ahead), does use_simulated_cpu_devices(8) still give eight CPU devices?"""
    code = ("import jax, jax.numpy\n"
            "from autograder.kernel.runtime import use_simulated_cpu_devices as u; u(8)\n"
            "print('COUNT', jax.device_count(), jax.default_backend())")
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_PLATFORMS")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert "COUNT 8 cpu" in out and "simulating 8 CPU devices" in out


def test_simulated_devices_refused_after_jax_started() -> None:
    """Does it refuse, with a clear message, once JAX has started (here by a device query)?"""
    import jax

    jax.devices()

    try:
        runtime.use_simulated_cpu_devices(8)
    except RuntimeError as exc:
        assert "Restart the kernel" in str(exc)
    else:
        raise AssertionError("expected RuntimeError")


def _pins(name: str) -> dict[str, str]:
    """The ``package==version`` lines of a requirements file at the repository's root."""
    root = Path(__file__).resolve().parents[2]
    lines = (root / name).read_text().splitlines()
    return dict(line.split("#")[0].strip().split("==") for line in lines
                if line.split("#")[0].strip())


def test_library_releases_agree_with_the_runtimes_pins() -> None:
    """Does release_for_jax() name, for each runtime's JAX, the release that runtime's file
    pins (Flax 0.12.12 and Equinox 0.13.8 with the newest JAX, Colab's Flax 0.11.2 with
    Colab's JAX), and the release between for the tools' JAX 0.10.2?"""
    for name in ("requirements-newest.txt", "requirements-colab.txt"):
        pins = _pins(name)
        for library in runtime.LIBRARY_RELEASES:
            if library in pins:
                assert runtime.release_for_jax(library, pins["jax"]) == pins[library], name
    assert {"flax", "equinox"} <= set(_pins("requirements-newest.txt"))
    assert runtime.release_for_jax("flax", "0.10.2") == "0.12.8"
    assert runtime.release_for_jax("flax", "0.11.0") == "0.12.8"
    assert runtime.release_for_jax("flax", "0.11.1") == "0.12.12"
    assert runtime.release_for_jax("equinox", "0.7.2") == "0.13.8"


def test_optional_library_runs_or_says_what_to_install(capsys, monkeypatch) -> None:
    """Does optional_library() return an installed library and print its version beside
    JAX's, and for a missing one return None and print one line naming the release that goes
    with this JAX and the pip command?"""
    import importlib.metadata

    import jax
    import optax

    assert runtime.optional_library("optax") is optax
    assert capsys.readouterr().out == f"Optax {optax.__version__} on JAX {jax.__version__}\n"

    real = importlib.metadata.version

    def missing_flax(name: str) -> str:
        if name == "flax":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", missing_flax)
    monkeypatch.setattr(jax, "__version__", "0.7.2")
    assert runtime.optional_library("flax") is None
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "Flax is not installed here" in out
    assert "With JAX 0.7.2, `pip install flax==0.11.2`" in out
