"""Tests of autograder.kernel.compat: the one place where JAX's versions differ."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from autograder.kernel import compat

# No pytest here: test_runtimes.py runs these functions on the Python 3.13 runtimes too (Colab's
# packages lack it).


def test_version_tuple_reads_release_and_dev_versions() -> None:
    """Does version_tuple order versions numerically and ignore suffixes?"""
    assert compat.version_tuple("0.10.2") == (0, 10, 2)
    assert compat.version_tuple("0.7.2") < compat.version_tuple("0.10.2")
    assert compat.version_tuple("0.8.0.dev20251001") == (0, 8, 0)
    assert compat.version_tuple("0.9.0rc1") == (0, 9, 0)
    assert compat.version_tuple("0.12.0.1") == (0, 12, 0)


def test_tested_range_is_inclusive() -> None:
    """Are both ends of the tested range, and what lies between, inside it?"""
    for version in [compat.OLDEST_TESTED_JAX, "0.8.1", "0.10.2", compat.NEWEST_TESTED_JAX]:
        assert compat.tested_range_note(version) is None, version


def test_jaxprs_in_params_finds_every_nested_body() -> None:
    """Does it find the bodies of jit, cond (a tuple of branches) and scan?"""

    def f(x):
        y = jax.jit(jnp.sin)(x)
        y = jax.lax.cond(y.sum() > 0, jnp.cos, jnp.tan, y)
        return jax.lax.scan(lambda c, v: (c + v, c), 0.0, y)[0]

    jaxpr = jax.make_jaxpr(f)(jnp.ones(3)).jaxpr
    found = {eqn.primitive.name: list(compat.jaxprs_in_params(eqn.params))
             for eqn in jaxpr.eqns}
    assert len(found["cond"]) == 2  # both branches
    assert len(found["scan"]) == 1 and all(hasattr(j, "eqns") for j in found["scan"])
    jit_name = next(name for name in found if name in ("pjit", "jit"))
    assert len(found[jit_name]) == 1
    assert list(compat.jaxprs_in_params({"n": 3, "name": "x"})) == []


def test_enable_x64_is_scoped() -> None:
    """Does enable_x64 give 64-bit defaults inside the block only, on this JAX?"""
    with compat.enable_x64():
        assert jnp.arange(3.0).dtype == np.float64
    assert jnp.arange(3.0).dtype == np.float32
    with compat.enable_x64(False):
        assert jnp.arange(3.0).dtype == np.float32


def test_key_reuse_is_caught_in_eager_code_that_ran_before() -> None:
    """Does key_reuse_checking catch a reused key in eager code whose operations already ran
    unchecked earlier (JAX 0.7 misses it otherwise)?"""

    def twice(key):
        return jax.random.normal(key, (3,)) + jax.random.normal(key, (3,))

    key = jax.random.key(0)
    twice(key)  # the same operations, unchecked
    try:
        with compat.key_reuse_checking():
            twice(key)
    except jax.errors.KeyReuseError:
        pass
    else:
        raise AssertionError("the reused key was not caught")


def test_remove_duration_listener_unregisters_once_on_every_version() -> None:
    """Does remove_duration_listener take a registered jax.monitoring listener out (a public
    name on newer JAX, a private one on 0.7), and leave alone one already gone?"""
    from jax._src import monitoring

    heard = []

    def listener(event: str, duration: float, **_: object) -> None:
        heard.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    assert listener in monitoring.get_event_duration_listeners()
    compat.remove_duration_listener(listener)
    assert listener not in monitoring.get_event_duration_listeners()
    compat.remove_duration_listener(listener)  # gone already: nothing to do, no error
    jax.jit(lambda v: v + 1)(jnp.arange(3.0))
    assert heard == []
