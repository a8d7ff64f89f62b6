"""The course's own speedups: every timing chart the chapters draw, measured here.

Each chapter that charts timings (eager vs jit vs NumPy, Python loop vs vmap, one device vs
eight, ...) is executed (at its default parameters, or others injected as papermill does)
while
``autograder.timing.plot_timings`` appends the numbers it plots to a file
(``LEARN_JAX_TIMINGS``). The result lists, per chapter and chart, the median seconds per call
of each bar and its speedup over the slowest bar, with the backend and device they ran on.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Dense bfloat16 peaks from the vendors' datasheets, TFLOP/s (no sparsity), by device_kind.
PEAK_BF16_TFLOPS = {"NVIDIA H100 80GB HBM3": 989.4, "NVIDIA H200": 989.4,
                    "NVIDIA H100 PCIe": 756.0, "NVIDIA A100-SXM4-80GB": 312.0,
                    "NVIDIA A100-SXM4-40GB": 312.0, "NVIDIA L4": 121.0, "Tesla T4": 65.0}


def matmul(n: int | None = None) -> dict[str, Any]:
    """Achieved TFLOP/s of one large bfloat16 matrix product, and the fraction of peak.

    The fraction is given only for devices whose datasheet peak is in
    :data:`PEAK_BF16_TFLOPS`; on a CPU there is none.
    """
    import jax
    import jax.numpy as jnp

    from autograder.timing import time_call

    backend = jax.default_backend()
    n = n or (8192 if backend in ("gpu", "tpu") else 2048)
    a = jax.random.normal(jax.random.key(0), (n, n), jnp.bfloat16)
    product = jax.jit(lambda x, y: x @ y)
    seconds = time_call(product, a, a, rounds=9, name="matmul").median
    tflops = 2 * n**3 / seconds / 1e12
    kind = jax.devices()[0].device_kind
    peak = PEAK_BF16_TFLOPS.get(kind)
    return {"n": n, "dtype": "bfloat16", "backend": backend, "device_kind": kind,
            "seconds": seconds, "tflops": round(tflops, 3),
            "peak_tflops": peak, "fraction_of_peak": round(tflops / peak, 3) if peak else None}


def charting_chapters() -> list[str]:
    """Chapters whose code calls ``plot_timings``."""
    return sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb")
                  if "plot_timings(" in p.read_text())


def run(chapters: list[str] | None = None, parameters: dict[str, Any] | None = None
        ) -> dict[str, Any]:
    """Execute each chapter and collect its charts' numbers."""
    from nbclient import NotebookClient
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    from autograder.progress import Progress

    chapters = chapters or charting_chapters()
    results: dict[str, Any] = {"matmul": matmul(), "chapters": {}}
    bar = Progress(len(chapters), "chapters executed for their timing charts")
    with tempfile.TemporaryDirectory(prefix="bench-speedups-") as tmp:
        for chapter in chapters:
            record = Path(tmp) / f"{chapter}.jsonl"
            os.environ["LEARN_JAX_TIMINGS"] = str(record)
            nb = load_notebook_node(str(ROOT / "notebooks" / f"{chapter}.ipynb"))
            if parameters:
                nb = parameterize_notebook(nb, parameters)
            try:  # nbclient, like the book: cells tagged raises-exception may raise
                NotebookClient(nb, timeout=600, kernel_name="python3",
                               resources={"metadata": {"path": str(ROOT / "notebooks")}}
                               ).execute()
            finally:
                del os.environ["LEARN_JAX_TIMINGS"]
            charts = []
            for line in record.read_text().splitlines() if record.exists() else []:
                chart = json.loads(line)
                slowest = max(chart["seconds"].values())
                chart["speedup_over_slowest"] = {k: round(slowest / v, 2)
                                                 for k, v in chart["seconds"].items()}
                charts.append(chart)
            results["chapters"][chapter] = charts
            bar.advance()
    bar.done()
    return results


def plot(results: dict[str, Any], path: Path) -> None:
    """One panel per chart: speedup of each bar over the chart's slowest bar (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    charts = [(chapter, c) for chapter, cs in results["chapters"].items() for c in cs]
    cols = 3
    rows = max(1, -(-len(charts) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(15, 2.6 * rows), squeeze=False)
    for ax in axes.flat[len(charts):]:
        ax.axis("off")
    for ax, (chapter, chart) in zip(axes.flat, charts, strict=False):
        names = list(chart["seconds"])
        values = [chart["speedup_over_slowest"][n] for n in names]
        bars = ax.barh(names, values, color="tab:blue")
        for bar, value in zip(bars, values, strict=True):
            ax.annotate(f" {value:g}x", (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                        va="center", fontsize=8)
        ax.set_xscale("log")
        ax.set_xlim(0.5, max(values) * 8)
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize=7)
        title = f"{chapter}: {chart['title']}"
        ax.set_title(title if len(title) < 70 else title[:67] + "...", fontsize=8)
    fig.suptitle("Speedup over the slowest bar of each chapter chart "
                 f"({charts[0][1]['backend'] if charts else '?'}; log scale)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
