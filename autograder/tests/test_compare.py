"""Tests of autograder.compare: comparisons whose messages say what differed."""

import jax.numpy as jnp
import numpy as np
import pytest

from autograder.compare import check_array, check_scalar, check_tree


def test_equal_arrays_pass() -> None:
    """Do equal values pass, across jax and numpy and within tolerance?"""
    check_array(jnp.arange(3.0), np.arange(3.0))
    check_array(jnp.float32(1.0) + 1e-7, 1.0)


def test_wrong_shape_message() -> None:
    """Does a shape mismatch name both shapes and dtypes?"""
    with pytest.raises(AssertionError, match=r"wrong shape: expected shape \(3,\).*got shape \(2,"):
        check_array(jnp.zeros(2), np.zeros(3), name="f(x)")


def test_wrong_values_message_gives_largest_difference() -> None:
    """Does a value mismatch report the largest difference and where it is?"""
    with pytest.raises(AssertionError, match=r"largest difference 5 at index \(1,\)"):
        check_array(jnp.array([1.0, 7.0, 3.0]), [1.0, 2.0, 3.0])


def test_dtype_checked_only_when_asked() -> None:
    """Is dtype compared only with check_dtype=True?"""
    check_array(jnp.ones(2, jnp.float32), np.ones(2, np.float64))
    with pytest.raises(AssertionError, match="wrong dtype"):
        check_array(jnp.ones(2, jnp.float32), np.ones(2, np.float64), check_dtype=True)


def test_none_and_bool_and_nan() -> None:
    """Are None, boolean mismatches and NaN placement reported?"""
    with pytest.raises(AssertionError, match="returned None"):
        check_array(None, 1.0)
    with pytest.raises(AssertionError, match="1 of 2 entries"):
        check_array(np.array([True, False]), np.array([True, True]))
    check_array([np.nan, 1.0], [np.nan, 1.0])
    with pytest.raises(AssertionError):
        check_array([np.nan, 1.0], [0.0, 1.0])


def test_tree_names_the_leaf() -> None:
    """Does check_tree name the differing leaf's path and catch structure changes?"""
    with pytest.raises(AssertionError, match=r"grads\['b'\]"):
        check_tree({"w": jnp.ones(2), "b": jnp.zeros(1)}, {"w": np.ones(2), "b": np.ones(1)},
                   name="grads")
    with pytest.raises(AssertionError, match="wrong structure"):
        check_tree({"w": 1.0}, {"w": 1.0, "b": 2.0})


def test_scalar() -> None:
    """Does check_scalar refuse arrays of shape (1,)?"""
    check_scalar(jnp.float32(2.0), 2.0)
    with pytest.raises(AssertionError, match="should be a scalar"):
        check_scalar(jnp.ones(1), 1.0)
