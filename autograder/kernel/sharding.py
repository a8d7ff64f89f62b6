"""Checks of how an array is laid out on a mesh, for chapter 11's exercise (learner side).

A layout check reports through :func:`autograder.kernel.reporter.observe`: the message names
the layout the answer produced and the one asked for, as ``P(...)`` text a learner can compare
with their own ``PartitionSpec``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from autograder.kernel.reporter import observe


def spec_text(spec: Sequence[Any], ndim: int) -> str:
    """``spec`` padded to one entry per array axis, as ``P(...)`` text."""
    entries = list(spec) + [None] * (ndim - len(spec))
    return "P(" + ", ".join(repr(e) for e in entries) + ")"


def layout_text(arr: Any) -> str:
    """How ``arr`` is laid out, in words a learner can compare with a ``P(...)``."""
    sharding = getattr(arr, "sharding", None)
    if isinstance(sharding, NamedSharding):
        return spec_text(sharding.spec, arr.ndim)
    if len(getattr(sharding, "device_set", ())) == 1:
        return "a single device (not placed on the mesh)"
    return type(sharding).__name__


def check_layout(arr: Any, mesh: Mesh, spec: PartitionSpec, name: str,
                 why: Callable[[Any], str] = lambda arr: "") -> None:
    """Report whether ``arr`` is laid out as ``NamedSharding(mesh, spec)``.

    Args:
        arr: what the answer returned.
        mesh: the mesh the question passed in.
        spec: the layout asked for.
        name: how to call ``arr`` in the message.
        why: advice for a wrong layout, computed from ``arr`` (empty by default).
    """
    if not isinstance(arr, jax.Array):
        failure = f"{name} should be a jax.Array, got {type(arr).__name__}."
    elif not arr.sharding.is_equivalent_to(NamedSharding(mesh, spec), arr.ndim):
        failure = (f"{name} is laid out as {layout_text(arr)}; expected "
                   f"{spec_text(spec, arr.ndim)} on the mesh passed in.{why(arr)}")
    else:
        failure = None
    observe(f"the layout of {name}", failure)


def spec_of(arr: Any) -> tuple | None:
    """``arr``'s spec padded to its rank, or None when it is not on a mesh."""
    sharding = getattr(arr, "sharding", None)
    if not isinstance(sharding, NamedSharding):
        return None
    return tuple(sharding.spec) + (None,) * (arr.ndim - len(sharding.spec))
