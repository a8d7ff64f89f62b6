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
    InteractiveShell.clear_instance()  # a shell an earlier test in this process left behind
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


def test_fresh_inputs_are_new_random_draws_that_keep_shape_dtype_and_other_leaves() -> None:
    """Does every call get float arrays drawn anew within the example's range (same shape and
    dtype), while integers, keys, Python numbers and constant arrays pass unchanged, and do
    two tests (seeded by the OS) draw different inputs?"""
    import numpy as np

    key = jax.random.key(0)
    example = (jnp.linspace(-3.0, 3.0, 8), np.ones(2, np.float32) * [1, 2], jnp.arange(3), 7,
               key, jnp.zeros(4))
    fresh = timing.FreshInputs(example, {"scale": 0.5})
    seen = set()
    for _ in range(50):
        (x, y, ints, n, k, zeros), kwargs = fresh.next()
        assert x.shape == (8,) and x.dtype == jnp.float32 and isinstance(y, jax.Array)
        assert y.dtype == np.float32 and bool(jnp.all((x >= -3) & (x <= 3)))
        assert ints.tolist() == [0, 1, 2] and n == 7 and k is key and kwargs == {"scale": 0.5}
        assert zeros is example[5]
        seen.add(tuple(np.asarray(x).tolist()))
    assert len(seen) == 50
    other = timing.FreshInputs(example, {}).next()[0][0]
    assert not any(np.array_equal(np.asarray(other), np.array(s)) for s in seen)


def test_fresh_inputs_follow_the_test_cells_recipe() -> None:
    """With ``inputs=``, are a call's positional arguments what the recipe draws from the
    generator (NumPy arrays placed on the device), the keyword arguments kept?"""
    import numpy as np

    fresh = timing.FreshInputs((jnp.ones(3), 5), {"mode": "l2"},
                               make=lambda rng: (rng.normal(size=(2, 3)).astype(np.float32), 9))
    (x, n), kwargs = fresh.next()
    assert isinstance(x, jax.Array) and x.shape == (2, 3) and n == 9 and kwargs == {"mode": "l2"}
    single = timing.FreshInputs((), {}, make=lambda rng: rng.uniform(size=4))
    assert single.next()[0][0].shape == (4,)


def test_timed_calls_share_inputs_with_the_reference_at_random_positions() -> None:
    """In each round, do the reference's timed calls get inputs that the answer got too, at
    positions among its calls that change from round to round, with both outputs kept?"""
    import numpy as np

    seen: dict[str, list[float]] = {"answer": [], "reference": []}

    def tagged(name):
        def fn(x):
            seen[name].append(float(x[0]))
            # the reference's one call outlasts the target: one timed call a round, which is
            # always one of the shared ones, however busy the machine (the answer's many)
            time.sleep(0.0005 if name == "answer" else 0.005)
            return x * 2
        return fn

    timing.compare({"answer": tagged("answer"), "reference": tagged("reference")},
                   jnp.linspace(0.0, 1.0, 4), rounds=4, warmup=1, target=0.004, fresh=True,
                   pair=("answer", "reference"))
    pairs = list(timing._last_pairs)
    assert len(pairs) >= 4
    assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in pairs)
    answer, reference = seen["answer"][2:], seen["reference"][2:]  # after warm-up, calibration
    assert set(reference) <= set(answer)
    assert len(set(answer)) == len(answer)  # no input repeated
    positions = [answer.index(value) for value in reference]
    assert len(set(np.diff(positions))) > 1 or len(set(positions)) > 1


def test_wrong_outputs_forgive_one_disagreement_among_five_but_not_two() -> None:
    """Does the output check pass matching outputs and one float32 tie among five or more
    compared calls, and fail two disagreements (or one among fewer than five), saying how?"""
    right, wrong = jnp.ones(3), jnp.ones(3) * 2
    assert timing.wrong_outputs([(right, right)] * 7, "fast", "ref", 1e-4, 1e-5) is None
    assert timing.wrong_outputs([(wrong, right)] + [(right, right)] * 6, "fast", "ref", 1e-4,
                                1e-5) is None
    message = timing.wrong_outputs([(wrong, right)] * 2 + [(right, right)] * 5, "fast", "ref",
                                   1e-4, 1e-5)
    assert message and "wrong values on 2 of the 7 timed calls" in message
    assert timing.wrong_outputs([(wrong, right), (right, right)], "f", "r", 1e-4, 1e-5)
    tree = timing.wrong_outputs([((right,), right)] * 3, "f", "r", 1e-4, 1e-5)
    assert tree and "where the reference returned" in tree


def test_check_speedup_reports_callbacks_values_and_speedup_in_the_trusted_order() -> None:
    """Do a timing test's three results (no callback, the timed values, the speedup) reach the
    grader in the same order and under the same names as the trusted run records them, and
    does a jitted callback fail the first while an honest jit passes all three?"""
    import numpy as np

    from autograder.kernel import reporter

    def slow(x):
        for _ in range(30):
            x = jnp.sin(x) * 0.9
        return x

    def via_callback(x):
        return jax.pure_callback(lambda a: np.asarray(slow(jnp.asarray(a))),
                                 jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    x = jnp.linspace(-1.0, 1.0, 64)
    entries: dict[str, list] = {}
    for label, fast, recording in (("trusted", None, True), ("honest", jax.jit(slow), False),
                                   ("callback", jax.jit(via_callback), False)):
        entries[label] = []
        with reporter.collecting(entries[label].append, recording=recording):
            timing.check_speedup(fast, slow, x, required=1.5, what="fast(x)", rounds=3,
                                 clock=timing.CPU)
    keys = [[e.key for e in found] for found in entries.values()]
    assert keys[0] == keys[1] == keys[2] and [k[0] for k in keys[0]] == ["value", "value",
                                                                         "speedup"]
    honest, attack = entries["honest"], entries["callback"]
    assert [e.got for e in honest[:2]] == ["ok", "ok"] and honest[2].got["ratio"] > 1.5
    assert "calls back into Python" in attack[0].got and "pure_callback" in attack[0].got
    assert attack[1].got == "ok"  # its values are right: the callback ran the eager code


def test_timing_tests_run_in_one_xdist_group(request: pytest.FixtureRequest) -> None:
    """Is every test marked ``timing`` (this module's too) put in the one xdist group, so that
    no two timing-sensitive tests run beside each other under ``make test``'s workers?"""
    from autograder.tests.conftest import TIMING_GROUP

    group = request.node.get_closest_marker("xdist_group")
    assert group is not None and group.args == (TIMING_GROUP,)


def test_drain_waits_for_work_queued_on_every_device() -> None:
    """Does drain() return only when work dispatched earlier and not waited for (a heavy
    product whose result nobody blocked on) has finished?"""
    burn = jax.jit(lambda m: jnp.tanh(m @ m) @ m)
    big = jnp.ones((600, 600))
    burn(big).block_until_ready()  # compiled: what follows is only the queued work
    queued = [burn(big) for _ in range(3)]
    timing.drain()
    assert all(y.is_ready() for y in queued)


def test_the_reference_is_measured_first_and_guarded(monkeypatch) -> None:
    """In a timing test, is the reference warmed up, calibrated and measured before the
    answer in every round, with outstanding work drained before each of its timed calls
    (and before the first timed call of the answer's)?"""
    log: list[str] = []
    monkeypatch.setattr(timing, "drain", lambda: log.append("drain"))

    def tagged(name, seconds):
        def fn(x):
            log.append(name)
            time.sleep(seconds)
            return x * 2
        return fn

    timing.speedup(tagged("answer", 0.0003), tagged("reference", 0.002),
                   jnp.linspace(0.0, 1.0, 4), rounds=3, warmup=1, target=0.004, fresh=True,
                   names=("answer", "reference"))
    calls = [entry for entry in log if entry != "drain"]
    assert calls[0] == "reference" and calls[1] == "answer"  # warm-up: the reference first
    timed = log[log.index("drain"):]
    assert all(timed[i - 1] == "drain" for i, entry in enumerate(timed) if entry == "reference")
    rounds = [i for i in range(1, len(timed)) if timed[i] == "answer"
              and timed[i - 1] == "drain"]
    assert len(rounds) >= 3  # each round's answer starts after a drain


def test_a_setting_changed_after_the_cells_checks_began_fails_the_timing_test(monkeypatch
                                                                              ) -> None:
    """Does a JAX setting that slows only eager code (``jax_debug_key_reuse``), switched on
    after the test cell's checks began (by the answer's builder, say), fail the timing test
    with a message naming it, and is it put back before the reference runs; while the same
    setting switched on before the checks began, and one outside the debugging checks chosen
    beforehand (``jax_explain_cache_misses``), are put back by them, named, and the course's
    float32 matmul context changes nothing for an honest jitted answer?"""
    from autograder.kernel import config_watch
    from autograder.kernel.jax_checks import restore_default_config

    def slow(x):
        for _ in range(30):
            x = jnp.sin(x) * 0.9
        return x

    x = jnp.linspace(-1.0, 1.0, 256, dtype=jnp.float32)
    monkeypatch.setattr(config_watch, "_cell", lambda: 7)  # one IPython cell throughout
    before = jax.config.jax_debug_key_reuse, jax.config.jax_explain_cache_misses
    try:
        restore_default_config()  # the cell's checks begin: its baseline
        jax.config.update("jax_debug_key_reuse", True)  # the builder's change
        with pytest.raises(AssertionError, match="changed JAX's global configuration.*"
                                                 "jax_debug_key_reuse False -> True"):
            timing.check_speedup(jax.jit(slow), slow, x, required=1.5, clock=timing.CPU,
                                 rounds=3)
        assert jax.config.jax_debug_key_reuse is False  # put back
        jax.config.update("jax_debug_key_reuse", True)  # switched on before the checks
        jax.config.update("jax_explain_cache_misses", True)  # the twin: chosen beforehand
        assert {"jax_debug_key_reuse", "jax_explain_cache_misses"} <= set(
            restore_default_config())
        assert jax.config.jax_explain_cache_misses is before[1]
        with jax.default_matmul_precision("float32"):
            assert timing.check_speedup(jax.jit(slow), slow, x, required=1.5,
                                        clock=timing.CPU, rounds=3).ratio > 1.5
    finally:
        jax.config.update("jax_debug_key_reuse", before[0])
        jax.config.update("jax_explain_cache_misses", before[1])
        config_watch._baseline.update(values=None, cell=None, held={})
