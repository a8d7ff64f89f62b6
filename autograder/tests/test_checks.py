"""Tests of autograder.kernel.checks: comparisons whose messages say what differed."""

import jax.numpy as jnp
import numpy as np
import pytest

from autograder.kernel.checks import check_array, check_scalar, check_tree


def test_equal_arrays_pass() -> None:
    """Do equal values pass, across jax and numpy and within tolerance?"""
    check_array(jnp.arange(3.0), np.arange(3.0))
    check_array(jnp.float32(1.0) + 1e-7, 1.0)


def test_wrong_shape_message() -> None:
    """Does a shape mismatch name both shapes (and no dtypes when the dtype is not at issue)?"""
    with pytest.raises(AssertionError) as info:
        check_array(jnp.zeros(2), np.zeros(3), name="f(x)")
    assert str(info.value) == "f(x) has the wrong shape: expected shape (3,), got shape (2,)."


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


def test_dtypes_mentioned_only_when_checked_or_of_another_kind() -> None:
    """Does a value mismatch leave dtypes out unless check_dtype or an int/float mix-up?"""
    with pytest.raises(AssertionError) as info:
        check_array(jnp.array([1.0, 7.0]), np.array([1.0, 2.0]), name="f(x)")
    assert "dtype" not in str(info.value)
    with pytest.raises(AssertionError, match=r"Its dtype is int32; expected float32"):
        check_array(jnp.array([1, 2], jnp.int32), np.array([1.5, 2.0], np.float32))
    with pytest.raises(AssertionError, match=r"Its dtype is float32; expected float64"):
        check_array(jnp.zeros(2), np.zeros(3), check_dtype=True)


def test_nan_where_a_number_was_expected() -> None:
    """Is NaN in place of a number named as such, with its index?"""
    with pytest.raises(AssertionError, match=r"NaN at index \(1,\) where 2 was expected; 1 of 2"):
        check_array(jnp.array([1.0, jnp.nan]), [1.0, 2.0])


def test_uniform_factor_is_reported() -> None:
    """Are values that are all k times the expected ones reported with the factor k?"""
    with pytest.raises(AssertionError, match="Every entry is 8 times the expected value"):
        check_array(jnp.array([8.0, 16.0, -24.0]), [1.0, 2.0, -3.0])
    with pytest.raises(AssertionError) as info:  # constant expected values: any factor "fits"
        check_array(jnp.array([2.0, 2.0]), [1.0, 1.0])
    assert "times the expected" not in str(info.value)


def test_known_mistakes_are_named() -> None:
    """Does a value that matches a known mistake get that mistake's advice added?"""
    mistakes = {"It is the transpose.": np.ones((2, 3))}
    with pytest.raises(AssertionError, match=r"got shape \(2, 3\)\. It is the transpose\.$"):
        check_array(jnp.ones((2, 3)), np.ones((3, 2)), mistakes=mistakes)
    with pytest.raises(AssertionError) as info:
        check_array(jnp.zeros((2, 3)), np.ones((3, 2)), mistakes=mistakes)
    assert "transpose" not in str(info.value)
    with pytest.raises(AssertionError, match="It is the batch gradient"):
        check_tree({"w": jnp.ones(2)}, {"w": np.zeros(2)},
                   mistakes={"It is the batch gradient.": {"w": np.ones(2)}})
    check_array(jnp.ones(2), np.ones(2), mistakes={"never shown": np.ones(2)})
