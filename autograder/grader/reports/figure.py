"""``scores.png``: the score distribution per assignment and the pass rate per question."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.grader.reports.common import by_submission
from autograder.grader.reports.summary import QuestionStats, item_analysis
from autograder.grader.result import Result

if TYPE_CHECKING:
    from matplotlib.figure import Figure

def scores_figure(results: Iterable[Result]) -> Figure | None:
    """Score distribution per assignment and pass rate per question (graded submissions
    only), as a matplotlib figure on the Agg canvas; None when nothing was graded."""
    graded = [r for r in by_submission(results).values() if r.status == "graded"]
    if not graded:
        return None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    stats = item_analysis(graded)
    assignments = sorted({r.assignment for r in graded})
    rows = max(len(assignments), len(stats), 1)
    fig = Figure(figsize=(12, max(3.5, 1.8 + 0.32 * rows)), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.25])
    _plot_distribution(left, graded, assignments)
    _plot_pass_rates(right, stats, assignments)
    fig.suptitle(f"Grading summary: {len(graded)} graded submission(s)", fontsize=13)
    return fig


_JITTER = (0.0, 0.06, -0.06, 0.12, -0.12, 0.18, -0.18)  # fixed, so each run draws the same


def _plot_distribution(ax, graded: list[Result], assignments: list[str]) -> None:
    percents = [[100 * r.score / r.max_score if r.max_score else 0.0
                 for r in graded if r.assignment == a] for a in assignments]
    positions = list(range(len(assignments)))
    box = {"positions": positions, "widths": 0.5, "showfliers": False}
    try:
        ax.boxplot(percents, orientation="horizontal", **box)
    except TypeError:  # matplotlib before 3.10
        ax.boxplot(percents, vert=False, **box)
    for y, values in zip(positions, percents, strict=True):
        jitter = [_JITTER[i % len(_JITTER)] for i in range(len(values))]
        ax.scatter(values, [y + j for j in jitter], s=14, alpha=0.6, color="tab:blue", zorder=3)
    ax.set_yticks(positions, [f"{a} (n={len(v)})" for a, v in zip(assignments, percents,
                                                                   strict=True)])
    ax.set_ylim(len(assignments) - 0.5, -0.5)  # first assignment on top
    ax.set_xlim(-3, 103)
    ax.set_xlabel("Score (% of the assignment's points)")
    ax.set_title("Score distribution per assignment")
    ax.grid(axis="x", alpha=0.3)


def _plot_pass_rates(ax, stats: list[QuestionStats], assignments: list[str]) -> None:
    colors = {a: f"C{i % 10}" for i, a in enumerate(assignments)}
    positions = list(range(len(stats)))
    rates = [100 * s.pass_rate for s in stats]
    ax.barh(positions, rates, color=[colors[s.assignment] for s in stats], height=0.7)
    for y, (rate, s) in enumerate(zip(rates, stats, strict=True)):
        ax.text(min(rate, 100) + 1, y, f"{rate:.0f}% of {s.graded}", va="center", fontsize=8)
    ax.set_yticks(positions, [f"{s.assignment} · {s.question}" for s in stats], fontsize=9)
    ax.set_ylim(max(len(stats), 1) - 0.5, -0.5)
    ax.set_xlim(0, 118)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("Pass rate (% of graded submissions)")
    ax.set_title("Pass rate per question")
    ax.grid(axis="x", alpha=0.3)
    if not stats:
        ax.text(50, 0, "no questions graded", ha="center", va="center")


def write_figure(results: Iterable[Result], path: Path) -> bool:
    """Write ``scores.png`` (no software or time stamp in it); remove an earlier one and
    return False when nothing was graded."""
    fig = scores_figure(results)
    if fig is None:
        path.unlink(missing_ok=True)
        return False
    fig.savefig(path, format="png", dpi=100, metadata={"Software": None})
    return True
