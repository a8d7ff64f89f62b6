"""Tests of bench/: the benchmarks run at tiny sizes and write their JSON and plots."""

import json
from pathlib import Path

from bench.run import main


def test_fidelity_benchmark_runs_tiny(tmp_path: Path) -> None:
    """Does `python -m bench.run --tiny` write a result with false_fail/false_pass and a plot?"""
    assert main(["--tiny", "--only", "fidelity", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "timing_fidelity.json").read_text())
    assert data["environment"]["packages"]["jax"] and data["environment"]["cpu_count"]
    for condition in ("idle", "busy"):
        for q in data["conditions"][condition]["questions"].values():
            assert {"false_fail", "false_pass"} <= set(q)
            assert q["reference"]["runs"] == 2 and q["reference"]["speedups"]
    assert (tmp_path / "timing_fidelity.png").stat().st_size > 5_000


def test_unknown_benchmark_is_a_usage_error(tmp_path: Path) -> None:
    """Is an unknown benchmark name refused with exit status 2?"""
    assert main(["--only", "nope", "--out", str(tmp_path)]) == 2
