"""Book build time: a clean build (every notebook executed) and a no-change rebuild."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _build(env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(["make", "book"], cwd=ROOT, check=True, capture_output=True, text=True,
                   env=env)
    return time.perf_counter() - start


def run(timings: Path | None = None) -> dict[str, Any]:
    """Seconds for `make book` from nothing (`_build/` removed), then again unchanged.

    With ``timings``, the clean build's chapters append their timing charts to that file
    (``LEARN_JAX_TIMINGS``, one JSON line per chart; see :mod:`bench.speedups`).
    """
    shutil.rmtree(ROOT / "_build", ignore_errors=True)
    clean = _build(dict(os.environ, LEARN_JAX_TIMINGS=str(timings)) if timings else None)
    rebuild = _build()
    return {"clean_build_seconds": round(clean, 1), "rebuild_seconds": round(rebuild, 1),
            "targets_seconds": {"clean_build": 600, "rebuild": 120}}


def plot(results: dict[str, Any], path: Path) -> None:
    """Bars of the two build times against their targets."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 2.6))
    values = [results["clean_build_seconds"], results["rebuild_seconds"]]
    targets = [results["targets_seconds"]["clean_build"], results["targets_seconds"]["rebuild"]]
    labels = ["clean build", "no-change rebuild"]
    ax.barh(labels, values, color="tab:blue", label="measured")
    ax.scatter(targets, labels, marker="|", s=400, color="black", label="target (at most)")
    for y, v in enumerate(values):
        ax.annotate(f" {v:.0f} s", (v, y), va="center")
    ax.set_xlabel("seconds (make book)")
    ax.legend(loc="lower right", fontsize=8)
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
