"""Tests of autograder.kernel.jax_checks: jitted, retracing, purity, key reuse, vectorisation."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.kernel.jax_checks import (
    check_jitted,
    check_no_key_reuse,
    check_no_retrace,
    check_pure,
    check_vectorised,
    jaxpr_size,
)


def test_check_jitted() -> None:
    """Is a jax.jit function accepted and a plain function refused?"""
    check_jitted(jax.jit(jnp.sin))
    with pytest.raises(AssertionError, match="not a jitted function"):
        check_jitted(lambda x: x)


def test_check_no_retrace() -> None:
    """Is a stable jitted function accepted, and one that changes a static value refused?"""
    check_no_retrace(jax.jit(lambda x: x * 2), jnp.ones(3))
    calls = iter(range(100))
    f = jax.jit(lambda x, n: x * n, static_argnums=1)

    class Fresh:  # a static argument that differs on every call
        def __hash__(self):
            return next(calls)

        def __eq__(self, other):
            return False

        def __rmul__(self, x):
            return x

    with pytest.raises(AssertionError, match="compiled again"):
        check_no_retrace(f, jnp.ones(3), Fresh())


def test_check_pure() -> None:
    """Are global assignment, printing and in-place NumPy writes each reported?"""
    check_pure(lambda x: jnp.sin(x) * 2, jnp.ones(3))

    def writes_global(x):
        global _LAST
        _LAST = x
        return x

    def prints(x):
        print("x is", x)
        return x

    def debug_prints(x):
        jax.debug.print("x is {}", x)
        return x * 2

    def mutates(x):
        x[0] = 5.0
        return jnp.asarray(x)

    check_pure(debug_prints, jnp.ones(2))  # jax.debug.print is part of the program: fine
    with pytest.raises(AssertionError, match="assigns the global `_LAST`"):
        check_pure(writes_global, jnp.ones(2))
    with pytest.raises(AssertionError, match="prints from Python"):
        check_pure(prints, jnp.ones(2))
    with pytest.raises(AssertionError):
        check_pure(mutates, np.ones(2))


def test_check_no_key_reuse() -> None:
    """Is a reused key caught, and correct splitting accepted?"""
    def good(key):
        a, b = jax.random.split(key)
        return jax.random.normal(a) + jax.random.normal(b)

    def bad(key):
        return jax.random.normal(key) + jax.random.normal(key)

    check_no_key_reuse(good, jax.random.key(0))
    with pytest.raises(jax.errors.KeyReuseError):
        check_no_key_reuse(bad, jax.random.key(0))


def test_check_vectorised() -> None:
    """Is a Python loop over the batch refused and a vmap accepted?"""
    def per_example(x):
        return jnp.sum(x ** 2)

    def looped(xs):
        return jnp.stack([per_example(x) for x in xs])

    make = lambda n: (jnp.ones((n, 4)),)
    check_vectorised(jax.vmap(per_example), make)
    assert jaxpr_size(looped, *make(16)) > jaxpr_size(looped, *make(2))
    with pytest.raises(AssertionError, match="loops over the batch"):
        check_vectorised(looped, make)
    with pytest.raises(AssertionError, match="loops over the batch"):  # hidden inside jit
        check_vectorised(jax.jit(looped), make)
    check_vectorised(jax.jit(jax.vmap(per_example)), make)
