"""Tests of autograder.hints: JAX errors turned into hints, and the feedback wrapper."""

import jax
import jax.numpy as jnp
import pytest

from autograder.hints import feedback, hint_for


def _error_of(fn) -> BaseException:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("expected an exception")


def test_tracer_bool_hint() -> None:
    """Does a Python `if` on a traced value suggest lax.cond / jnp.where?"""
    exc = _error_of(lambda: jax.jit(lambda x: 1 if x > 0 else 2)(1.0))
    assert "lax.cond" in hint_for(exc)


def test_in_place_update_hint() -> None:
    """Does item assignment on a jax.Array suggest .at[].set?"""
    def assign():
        x = jnp.zeros(3)
        x[0] = 1.0

    assert ".at[i].set" in hint_for(_error_of(assign))


def test_key_reuse_hint() -> None:
    """Does a KeyReuseError suggest splitting the key?"""
    def reuse():
        with jax.debug_key_reuse(True):
            key = jax.random.key(0)
            jax.random.normal(key)
            jax.random.normal(key)

    assert "split" in hint_for(_error_of(reuse))


def test_boolean_mask_hint() -> None:
    """Does boolean-mask indexing under jit suggest jnp.where?"""
    exc = _error_of(lambda: jax.jit(lambda x: x[x > 0])(jnp.arange(3.0)))
    assert "jnp.where" in hint_for(exc)


def test_no_hint_for_plain_errors() -> None:
    """Is an unrelated error left without a hint?"""
    assert hint_for(KeyError("x")) is None


def test_feedback_reports_pass_fail_and_not_attempted(capsys: pytest.CaptureFixture) -> None:
    """Does feedback print passed / not yet / not attempted and re-raise with a note?"""
    with feedback("Q1"):
        pass
    with pytest.raises(NotImplementedError):
        with feedback("Q2"):
            raise NotImplementedError()
    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        with feedback("Q3"):
            jax.jit(lambda x: 1 if x > 0 else 2)(1.0)
    out = capsys.readouterr().out
    assert "Q1: passed." in out and "Q2: not attempted yet." in out and "Q3: not yet." in out
    assert any("lax.cond" in note for note in info.value.__notes__)
