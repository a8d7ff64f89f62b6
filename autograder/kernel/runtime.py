"""What a notebook runs on: backend, devices, and problem sizes chosen per backend."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
from types import ModuleType
from typing import TypeVar

T = TypeVar("T")


def use_simulated_cpu_devices(count: int = 8) -> bool:
    """Ask XLA for ``count`` simulated CPU devices when fewer than two accelerators exist.

    Must run before JAX starts its backends (XLA reads its flags once, at the first
    computation or device query; importing JAX alone does not start them). Returns True when
    it set the flag, and prints why, so a reader sees where the extra devices come from. On a
    host with two or more GPUs or TPU cores it does nothing: those devices are used instead.

    Args:
        count: how many CPU devices to simulate.
    """
    if _backends_started():
        raise RuntimeError(
            "JAX has already started, so XLA will not see new flags. Restart the kernel and "
            "run this cell first."
        )
    if accelerator_count() >= 2:
        return False
    flag = f"--xla_force_host_platform_device_count={count}"
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + flag).strip()
    # Keep JAX on the CPU so the simulated devices are the ones it uses.
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    if "jax" in sys.modules:  # imported already (a grader's kernel imports it ahead)
        import jax

        if not jax.config.jax_platforms:  # read from the environment only at import
            jax.config.update("jax_platforms", os.environ["JAX_PLATFORMS"])
    print(
        f"Fewer than two accelerators here: simulating {count} CPU devices "
        f"(XLA_FLAGS={flag}). The code below runs unchanged on 8 real GPUs or TPU cores."
    )
    return True


def _backends_started() -> bool:
    """Whether JAX is imported and has started its backends (after which XLA's flags are
    fixed). Where JAX cannot say, importing it counts as started."""
    if "jax" not in sys.modules:
        return False
    try:
        from jax._src import xla_bridge

        return bool(xla_bridge.backends_are_initialized())
    except (ImportError, AttributeError):
        return True


def accelerator_count() -> int:
    """Count GPUs/TPU chips without importing JAX (cheap probes only)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip() not in ("", "-1")])
    try:
        return len([n for n in os.listdir("/dev") if n.startswith(("nvidia", "accel", "vfio"))
                    and n[-1].isdigit()])
    except OSError:
        return 0


def backend() -> str:
    """The default JAX backend: ``"cpu"``, ``"gpu"`` or ``"tpu"``."""
    import jax

    name = jax.default_backend()
    return "gpu" if name in ("cuda", "rocm") else name


def describe() -> dict[str, object]:
    """Print and return the JAX version, backend and devices this notebook runs on.

    When the JAX found is outside the versions the course is tested on (Colab's, in
    ``requirements-colab.txt``, to the pinned one), it also says so, and why outputs may then
    differ from the text; ``info["tested"]`` is False then.
    """
    import jax

    from autograder.kernel.compat import tested_range_note

    devices = jax.devices()
    note = tested_range_note(jax.__version__)
    info: dict[str, object] = {
        "jax": jax.__version__,
        "backend": backend(),
        "device_count": len(devices),
        "devices": sorted({d.device_kind for d in devices}),
        "tested": note is None,
    }
    print(
        f"JAX {info['jax']} on {info['backend'].upper()}: {len(devices)} device(s), "
        f"{', '.join(info['devices'])}"
    )
    if note:
        print(f"Note: {note}")
    return info


def pick(cpu: T, gpu: T | None = None, tpu: T | None = None) -> T:
    """Choose a value (a problem size, a repeat count) for the backend in use.

    Quick on a 2-core CPU, large enough on an accelerator to show the effect. ``tpu`` falls
    back to ``gpu``, and ``gpu`` to ``cpu``.

    Args:
        cpu: the value on a CPU.
        gpu: the value on a GPU (default: ``cpu``).
        tpu: the value on a TPU (default: ``gpu``).
    """
    name = backend()
    if name == "tpu" and tpu is not None:
        return tpu
    if name in ("gpu", "tpu") and gpu is not None:
        return gpu
    return cpu


# Which release of a library to install with which JAX: (the oldest JAX it goes with, the
# release), newest first. Each pair is checked on the course's runtimes (book/runtimes.md):
# Flax 0.12.12 needs JAX 0.11.1 or later; Flax 0.12.8 needs 0.10 and fails to import on 0.12;
# Flax 0.11.2 is the one Colab ships beside its JAX 0.7.2.
LIBRARY_RELEASES: dict[str, list[tuple[str, str]]] = {
    "flax": [("0.11.1", "0.12.12"), ("0.10.0", "0.12.8"), ("0.7.2", "0.11.2")],
    "equinox": [("0.7.2", "0.13.8")],
}
LIBRARY_NAMES = {"flax": "Flax", "equinox": "Equinox", "optax": "Optax"}


def release_for_jax(library: str, jax_version: str) -> str:
    """The release of ``library`` (a key of ``LIBRARY_RELEASES``) to install with JAX
    ``jax_version``: the newest whose oldest JAX is not newer than it.

    Args:
        library: the package's name on PyPI, such as ``"flax"``.
        jax_version: a JAX version, such as ``jax.__version__``.
    """
    from autograder.kernel.compat import version_tuple

    releases = LIBRARY_RELEASES[library]
    for oldest_jax, release in releases:
        if version_tuple(jax_version) >= version_tuple(oldest_jax):
            return release
    return releases[-1][1]


def optional_library(library: str) -> ModuleType | None:
    """Import ``library`` and print its version beside JAX's; when it is not installed,
    print in one line which release goes with this JAX and how to install it, and return
    None, so that a cell can run its code only ``if optional_library(...)``.

    Args:
        library: the package's name on PyPI: a key of ``LIBRARY_RELEASES`` (``"flax"``,
            ``"equinox"``), or a package that is installed.
    """
    import jax

    name = LIBRARY_NAMES.get(library, library)
    try:
        version = importlib.metadata.version(library)
    except importlib.metadata.PackageNotFoundError:
        release = release_for_jax(library, jax.__version__)
        print(f"{name} is not installed here, so this cell skips its code. With JAX "
              f"{jax.__version__}, `pip install {library}=={release}`, then run it again.")
        return None
    module = importlib.import_module(library)
    print(f"{name} {version} on JAX {jax.__version__}")
    return module
