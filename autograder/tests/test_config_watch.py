"""JAX's settings as a test cell's checks begin (``autograder.kernel.config_watch``, issue 47):
every setting an earlier cell changed is put back as the notebook started, a ``with`` block
of settings left open included, and what cannot be put back fails the cell's timing tests."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from autograder.kernel import config_watch, timing
from autograder.kernel.jax_checks import restore_default_config


@pytest.fixture
def one_cell(monkeypatch):
    """One IPython cell throughout, a start reading taken now, and the baseline cleared after."""
    monkeypatch.setattr(config_watch, "_cell", lambda: 3)
    monkeypatch.setitem(config_watch._start, "values", config_watch.config_snapshot())
    yield
    config_watch._baseline.update(values=None, cell=None, held={})


def _slow(x):
    for _ in range(30):
        x = jnp.sin(x) * 0.9
    return x


def test_mark_start_keeps_the_first_reading(monkeypatch) -> None:
    """Does a second ``mark_start`` (the notebook's imports cell after the grader's start
    code) keep the reading taken first, before any answer changed a setting?"""
    monkeypatch.setitem(config_watch._start, "values", None)
    config_watch.mark_start()
    first = config_watch.start_values()
    before = jax.config.jax_traceback_filtering
    try:
        jax.config.update("jax_traceback_filtering", "off")
        config_watch.mark_start()
        assert config_watch.start_values()["jax_traceback_filtering"] == first[
            "jax_traceback_filtering"] == before
    finally:
        jax.config.update("jax_traceback_filtering", before)


def test_any_setting_an_earlier_cell_changed_is_put_back_as_the_notebook_started(one_cell
                                                                                 ) -> None:
    """Is a setting outside the debugging checks (``jax_traceback_filtering``), changed before
    the tests, put back to its start value and named after the debugging checks, while a
    setting read only when JAX starts its backends (``jax_platforms``, which the course's
    device simulation sets after a kernel started) and one of the compilation cache
    (``jax_persistent_cache_min_compile_time_secs``, which the trusted run sets to record its
    programs) are left as they are?"""
    config_watch._start["values"]["jax_platforms"] = "set-after-the-start"  # as if it moved
    before = (jax.config.jax_traceback_filtering,
              jax.config.jax_persistent_cache_min_compile_time_secs)
    try:
        jax.config.update("jax_traceback_filtering", "off")
        jax.config.update("jax_debug_nans", True)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", before[1] + 7.0)
        changed = restore_default_config()
        assert changed == ["jax_debug_nans", "jax_traceback_filtering"], changed
        assert jax.config.jax_traceback_filtering == before[0]
        assert jax.config.jax_persistent_cache_min_compile_time_secs == before[1] + 7.0
        assert config_watch.baseline_held() == {}
        assert restore_default_config() == []  # the twin: nothing changed, nothing named
    finally:
        jax.config.update("jax_traceback_filtering", before[0])
        jax.config.update("jax_debug_nans", False)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", before[1])


def test_a_with_block_of_settings_left_open_is_ended_by_the_reset(one_cell) -> None:
    """Does the reset end a thread-local setting an answer entered and never left
    (``jax.debug_nans(True).__enter__()``), which setting the global value alone leaves in
    force, so that the checks run without it; and does a block left properly change
    nothing?"""
    with jax.debug_nans(True):  # the twin: left as a `with` block is
        pass
    assert restore_default_config() == []
    opened = jax.debug_nans(True)
    opened.__enter__()
    try:
        assert jax.config.jax_debug_nans is True
        assert restore_default_config() == ["jax_debug_nans"]
        assert jax.config.jax_debug_nans is False
        assert config_watch.baseline_held() == {}
    finally:
        opened.__exit__(None, None, None)
        jax.config.update("jax_debug_nans", False)


def test_a_setting_the_reset_cannot_put_back_fails_the_timing_test(one_cell, monkeypatch
                                                                   ) -> None:
    """Where a ``with`` block left open cannot be ended (JAX's private state not found: the
    ending made a no-op here), does the cell's timing test fail with a message naming the
    setting and saying what to do, instead of timing the reference under it; and does the
    same honest jitted answer pass once the block is left?"""
    monkeypatch.setattr(config_watch, "_clear_local", lambda name: None)
    x = jnp.linspace(-1.0, 1.0, 256, dtype=jnp.float32)
    opened = jax.debug_key_reuse(True)
    opened.__enter__()
    try:
        restore_default_config()
        assert set(config_watch.baseline_held()) == {"jax_debug_key_reuse"}
        with pytest.raises(AssertionError, match="could not put back.*jax_debug_key_reuse "
                                                 "False -> True.*`with` block"):
            timing.check_speedup(jax.jit(_slow), _slow, x, required=1.5, clock=timing.CPU,
                                 rounds=3)
    finally:
        opened.__exit__(None, None, None)
        jax.config.update("jax_debug_key_reuse", False)
    restore_default_config()
    assert config_watch.baseline_held() == {}
    assert timing.check_speedup(jax.jit(_slow), _slow, x, required=1.5, clock=timing.CPU,
                                rounds=3).ratio > 1.5
