"""The course's own speedups: every timing chart the chapters draw, measured here.

While a chapter runs with the environment variable ``LEARN_JAX_TIMINGS`` naming a file,
``autograder.kernel.timing.plot_timings`` appends the numbers it plots to it, one JSON line per
chart, naming the cell that drew it. ``make bench`` sets it for its clean book build, which
executes every chapter anyway, so the charts are collected there rather than by running the
chapters a second time; :func:`run` executes the chapters itself when there is no such record
(``--only speedups``, or another set of parameters, injected as papermill does). Either way
:func:`collect` lists, per chapter and chart, the median seconds per call of each bar and its
speedup over the slowest bar, with the backend and device they ran on.
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

    from autograder.kernel.timing import time_call

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


def _chapter_of_cell() -> dict[str, str]:
    """Cell fingerprint -> chapter, for every code cell of the chapters."""
    import nbformat

    from autograder.kernel.timing import cell_digest

    owners: dict[str, str] = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                owners.setdefault(cell_digest(cell.source), path.stem)
    return owners


def collect(record: Path) -> dict[str, list[dict[str, Any]]]:
    """Chapter -> its charts, from a ``LEARN_JAX_TIMINGS`` file, in the order they were drawn.

    Raises:
        ValueError: when a chart's cell is in no chapter (a changed or unknown notebook).
    """
    owners = _chapter_of_cell()
    chapters: dict[str, list[dict[str, Any]]] = {}
    lines = record.read_text().splitlines() if record.exists() else []
    for number, line in enumerate(lines, 1):
        chart = json.loads(line)
        chapter = owners.get(chart.pop("cell", None) or "")
        if chapter is None:
            raise ValueError(f"{record}:{number}: chart {chart['title']!r} was drawn by a cell "
                             "that is in no chapter of notebooks/")
        slowest = max(chart["seconds"].values())
        chart["speedup_over_slowest"] = {k: round(slowest / v, 2)
                                         for k, v in chart["seconds"].items()}
        chapters.setdefault(chapter, []).append(chart)
    return dict(sorted(chapters.items()))


def execute(chapters: list[str], record: Path, parameters: dict[str, Any] | None = None
            ) -> None:
    """Run each chapter (nbclient, as the book does) with its charts appended to ``record``."""
    from nbclient import NotebookClient
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    from autograder.grader.progress import Progress

    bar = Progress(len(chapters), "chapters executed for their timing charts")
    os.environ["LEARN_JAX_TIMINGS"] = str(record)
    try:
        for chapter in chapters:
            nb = load_notebook_node(str(ROOT / "notebooks" / f"{chapter}.ipynb"))
            if parameters:
                nb = parameterize_notebook(nb, parameters)
            # cells tagged raises-exception may raise, as in the book
            NotebookClient(nb, timeout=600, kernel_name="python3",
                           resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
            bar.advance()
    finally:
        del os.environ["LEARN_JAX_TIMINGS"]
    bar.done()


def run(chapters: list[str] | None = None, parameters: dict[str, Any] | None = None,
        record: Path | None = None) -> dict[str, Any]:
    """The chapters' charts and a matrix product's TFLOP/s.

    With ``record`` (a ``LEARN_JAX_TIMINGS`` file a book build wrote) the charts come from
    it; otherwise ``chapters`` (default: every charting chapter) are executed now.
    """
    results: dict[str, Any] = {"matmul": matmul()}
    if record is not None:
        results["charts_from"] = "the clean book build of the same make bench run"
        results["chapters"] = collect(record)
        return results
    with tempfile.TemporaryDirectory(prefix="bench-speedups-") as tmp:
        path = Path(tmp) / "timings.jsonl"
        execute(chapters or charting_chapters(), path, parameters)
        results["charts_from"] = "the chapters, executed for this benchmark"
        results["chapters"] = collect(path)
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
