"""What every benchmark result records, and where it goes."""

from __future__ import annotations

import datetime
import json
import os
import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def cpu_model() -> str:
    """The CPU's model name, from /proc/cpuinfo where there is one."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(name: str) -> str:
    """The installed version of ``name``, or "not installed" where it is missing."""
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def environment() -> dict[str, Any]:
    """Date, machine, CPU count, backend, devices and package versions."""
    import jax

    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.system()} {platform.machine()}, {cpu_model()}",
        "cpu_count": os.cpu_count(),
        "backend": jax.default_backend(),
        "devices": sorted({d.device_kind for d in jax.devices()}),
        "python": platform.python_version(),
        "packages": {name: _version(name) for name in
                     ("jax", "jaxlib", "numpy", "nbgrader", "jupyter-book")},
    }


def save(name: str, data: dict[str, Any], results: Path = RESULTS) -> Path:
    """Write ``results/<name>.json`` with the environment attached; return its path."""
    results.mkdir(parents=True, exist_ok=True)
    path = results / f"{name}.json"
    path.write_text(json.dumps({"environment": environment(), **data}, indent=2) + "\n")
    return path
