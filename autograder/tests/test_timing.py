"""Tests of autograder.kernel.timing: blocking, interleaved rounds, speedups and timing tests.

Sleep-based functions give known durations, so these tests do not depend on the machine's
speed or load (no timing thresholds on real work here; those live in bench/).
"""

import time

import jax
import jax.numpy as jnp
import matplotlib
import pytest

from autograder.kernel import timing

# Measures time against a bar (or loads the machine doing so): one at a time under xdist.
pytestmark = pytest.mark.timing

matplotlib.use("Agg")


def _sleeper(seconds: float):
    def fn(*_args):
        time.sleep(seconds)
        return jnp.zeros(1)

    return fn


def test_block_returns_tree_and_waits() -> None:
    """Does block() return its argument after waiting on every leaf?"""
    tree = {"a": jnp.ones(3) * 2, "b": [jnp.zeros(2)], "c": 3}
    assert timing.block(tree) is tree


def test_compare_interleaves_and_repeats_short_calls() -> None:
    """Does compare() measure each function once per round, with per-call seconds?"""
    calls: list[str] = []

    def tagged(name, seconds):
        def fn():
            calls.append(name)
            time.sleep(seconds)
        return fn

    result = timing.compare({"a": tagged("a", 0.004), "b": tagged("b", 0.004)}, rounds=3,
                            warmup=1, target=0.001)
    assert [len(t.seconds) for t in result.values()] == [3, 3]
    measured = calls[4:]  # after warm-up and calibration
    assert measured == ["a", "b"] * 3
    assert 0.003 < result["a"].median < 0.05


def test_speedup_is_median_of_round_ratios() -> None:
    """Is the speedup of a 20 ms vs a 100 ms function about 5?"""
    result = timing.speedup(_sleeper(0.02), _sleeper(0.1), rounds=3, warmup=1, target=0.001)
    assert len(result.ratios) == 3
    assert 3.0 < result.ratio < 6.5  # sleep overshoots by a few ms under load
    assert "faster" in str(result)


def test_check_speedup_fails_slow_answers(capsys: pytest.CaptureFixture) -> None:
    """Does the timing test fail an answer slower than the reference, and say so? (Ten times
    slower, so that sleeps overshooting on a busy machine cannot lift it to 1.5x.)"""
    with pytest.raises(AssertionError, match="only .*x as fast"):
        timing.check_speedup(_sleeper(0.05), _sleeper(0.005), required=1.5, rounds=3,
                             target=0.001, clock=timing.WALL)
    assert "required at least 1.5x" in capsys.readouterr().out


def test_check_speedup_passes_fast_answers() -> None:
    """Does the timing test pass an answer well above the bar?"""
    result = timing.check_speedup(_sleeper(0.001), _sleeper(0.010), required=1.5, rounds=3,
                                  target=0.001, clock=timing.WALL)
    assert result.ratio > 1.5


def test_compile_seconds_measures_compilation() -> None:
    """Does compile_seconds lower and compile a plain or jitted function?"""
    assert timing.compile_seconds(lambda x: jnp.sin(x) * 2, jnp.ones(8)) > 0
    assert timing.compile_seconds(jax.jit(jnp.cos), jnp.ones(8)) > 0


def test_required_speedup_per_backend() -> None:
    """Is there a threshold for each backend, and the CPU one used for unknown backends?"""
    assert set(timing.REQUIRED_SPEEDUP) == {"cpu", "gpu", "tpu"}
    assert timing.required_speedup("cpu") == timing.REQUIRED_SPEEDUP["cpu"]
    assert timing.required_speedup("metal") == timing.REQUIRED_SPEEDUP["cpu"]


def test_plot_timings_draws_one_bar_each() -> None:
    """Does plot_timings draw a labelled bar per entry?"""
    ax = timing.plot_timings({"eager": 0.004, "jit": 0.0004}, title="t")
    assert len(ax.patches) == 2 and ax.get_title() == "t"


def test_format_seconds() -> None:
    """Are durations shown in µs, ms or s?"""
    assert timing.format_seconds(2e-5) == "20 µs"
    assert timing.format_seconds(0.0041) == "4.1 ms"
    assert timing.format_seconds(2.3) == "2.30 s"


def test_timing_tests_use_cpu_time_on_cpu() -> None:
    """Do timing tests count process CPU time on the CPU backend and wall time elsewhere?"""
    assert timing.timing_test_clock("cpu") is timing.CPU
    assert timing.timing_test_clock("gpu") is timing.WALL
    assert timing.timing_test_clock("tpu") is timing.WALL


def test_cpu_clock_ignores_waiting() -> None:
    """Does the CPU clock leave out time spent waiting (here, sleeping), unlike wall time?"""
    wall = timing.time_call(_sleeper(0.01), rounds=2, target=0.001, clock=timing.WALL)
    cpu = timing.time_call(_sleeper(0.01), rounds=2, target=0.001, clock=timing.CPU)
    assert wall.median > 0.009 and cpu.median < 0.005


def test_recorded_chart_names_the_cell_that_drew_it(tmp_path, monkeypatch) -> None:
    """Does a chart recorded to $LEARN_JAX_TIMINGS name its IPython cell (None outside)?"""
    import json

    from IPython.core.interactiveshell import InteractiveShell

    record = tmp_path / "timings.jsonl"
    monkeypatch.setenv("LEARN_JAX_TIMINGS", str(record))
    timing.record_timings("outside IPython", {"a": 1.0})
    source = ("from autograder.kernel.timing import record_timings\n"
              "record_timings('in a cell', {'a': 2.0})")
    shell = InteractiveShell.instance()
    try:
        assert shell.run_cell(source, store_history=True).success
    finally:
        InteractiveShell.clear_instance()
    outside, inside = (json.loads(line) for line in record.read_text().splitlines())
    assert outside["cell"] is None
    assert inside["title"] == "in a cell" and inside["cell"] == timing.cell_digest(source)


@pytest.mark.parametrize(("first", "measurements"), [(1.3, 2), (1.0, 1), (2.0, 1)])
def test_only_a_near_miss_is_measured_again(monkeypatch, first: float, measurements: int
                                            ) -> None:
    """Is a first speedup just under a 1.5x bar measured again, but a pass or clear miss not?"""
    made = []

    def measured(*_args, **_kwargs) -> timing.Speedup:
        made.append(first)
        return timing.Speedup(first, [first], timing.Timing("answer", [1.0]),
                              timing.Timing("reference", [first]))

    monkeypatch.setattr(timing, "speedup", measured)
    if first >= 1.5:
        timing.check_speedup(abs, abs, 1.0, required=1.5)
    else:
        with pytest.raises(AssertionError):
            timing.check_speedup(abs, abs, 1.0, required=1.5)
    assert len(made) == measurements


def test_fresh_inputs_differ_each_call_but_keep_shape_dtype_and_other_leaves() -> None:
    """Does every call get float arrays with new values (same shape and dtype), while
    integers, keys and Python numbers pass unchanged?"""
    import numpy as np

    key = jax.random.key(0)
    fresh = timing.FreshInputs((jnp.ones(3), np.ones(2, np.float32), jnp.arange(3), 7, key),
                               {"scale": 0.5})
    seen = set()
    for _ in range(50):
        (x, y, ints, n, k), kwargs = fresh.next()
        assert x.shape == (3,) and x.dtype == jnp.float32 and y.dtype == np.float32
        assert ints.tolist() == [0, 1, 2] and n == 7 and k is key and kwargs == {"scale": 0.5}
        seen.add((float(x[0]), float(y[0])))
    assert len(seen) == 50 and all(abs(a - 1.0) < 1e-3 for a, _ in seen)


def test_timing_tests_run_in_one_xdist_group(request: pytest.FixtureRequest) -> None:
    """Is every test marked ``timing`` (this module's too) put in the one xdist group, so that
    no two timing-sensitive tests run beside each other under ``make test``'s workers?"""
    from autograder.tests.conftest import TIMING_GROUP

    group = request.node.get_closest_marker("xdist_group")
    assert group is not None and group.args == (TIMING_GROUP,)
