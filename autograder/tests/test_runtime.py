"""Tests of autograder.kernel.runtime: backend report, per-backend sizes, simulated devices."""

import os
import subprocess
import sys

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
