"""Where JAX differs between the versions the course runs on, handled once.

Learners run the notebooks on Google Colab's JAX (the oldest version the course is tested on,
``OLDEST_TESTED_JAX``, pinned in ``requirements-colab.txt``) or on the newest JAX
(``NEWEST_TESTED_JAX``, pinned in ``requirements-newest.txt``, the runtime the book is executed
on); the grading tools' pins (``requirements.txt``) lie between. Notebooks and checks use the
names below instead of testing versions themselves. ``autograder/tests/test_environment.py``
fails when these constants and the files disagree.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

OLDEST_TESTED_JAX = "0.7.2"
NEWEST_TESTED_JAX = "0.12.0.1"


def version_tuple(version: str) -> tuple[int, ...]:
    """``"0.10.2"`` -> ``(0, 10, 2)``; a suffix such as ``.dev20260101`` or ``rc1`` is ignored.

    Args:
        version: a version string as ``jax.__version__`` gives it.
    """
    parts = []
    for piece in version.split(".")[:3]:
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


def tested_range_note(version: str) -> str | None:
    """A sentence for a JAX ``version`` outside the tested range, or None inside it.

    Args:
        version: the running JAX's version.
    """
    have = version_tuple(version)
    if have < version_tuple(OLDEST_TESTED_JAX):
        return (f"JAX {version} is older than any version this course is tested on "
                f"({OLDEST_TESTED_JAX} to {NEWEST_TESTED_JAX}): some cells may fail or print "
                f"differently. Upgrade JAX, or use Colab's runtime.")
    if have > version_tuple(NEWEST_TESTED_JAX):
        return (f"JAX {version} is newer than any version this course is tested on "
                f"({OLDEST_TESTED_JAX} to {NEWEST_TESTED_JAX}): outputs may differ from the "
                f"text (warnings, how a jaxpr prints).")
    return None


def jaxprs_in_params(params: dict[str, Any]) -> Iterator[Any]:
    """The jaxprs nested in an equation's parameters (bodies of jit, cond, scan, while, ...).

    JAX moved its own helper between versions (``jax.core`` in 0.7, ``jax.extend.core`` later,
    with the old name deprecated), so this walks the parameters itself: a value with ``eqns``
    is a jaxpr, one with ``jaxpr`` a closed jaxpr, and tuples and lists (``cond``'s branches)
    are searched too.

    Args:
        params: ``eqn.params`` of a jaxpr equation.
    """
    stack = list(params.values())
    while stack:
        value = stack.pop(0)
        if hasattr(value, "eqns"):
            yield value
        elif hasattr(value, "jaxpr") and hasattr(value.jaxpr, "eqns"):
            yield value.jaxpr
        elif isinstance(value, tuple | list):
            stack[:0] = list(value)


@contextlib.contextmanager
def enable_x64(enabled: bool = True) -> Iterator[None]:
    """64-bit mode inside a ``with`` block only.

    ``jax.enable_x64`` on newer JAX; ``jax.experimental.enable_x64`` on 0.7 (it has no top-level
    name). Both scope the change to the block.

    Args:
        enabled: True for 64-bit defaults inside the block, False for 32-bit.
    """
    import jax

    scoped = getattr(jax, "enable_x64", None)
    if scoped is None:
        from jax.experimental import disable_x64 as scoped_off
        from jax.experimental import enable_x64 as scoped_on

        manager = scoped_on() if enabled else scoped_off()
    else:
        manager = scoped(enabled)
    with manager:
        yield


def key_reuse_checking() -> contextlib.AbstractContextManager:
    """``jax.debug_key_reuse(True)`` that also catches reuse in eager code on every version.

    On JAX 0.7 the checker misses reuse in eager calls whose operations already ran earlier in
    the session (their cached executables skip the check); jitted code is checked. There the
    caches are cleared first, so eager code is checked again. Newer JAX needs no help (seen on
    0.10.2; versions between are treated like 0.7).
    """
    import jax

    if version_tuple(jax.__version__) < (0, 10):
        jax.clear_caches()
    return jax.debug_key_reuse(True)


def remove_duration_listener(callback: Any) -> None:
    """Unregister a ``jax.monitoring`` duration listener ``callback`` registered before.

    Newer JAX has ``jax.monitoring.unregister_event_duration_listener`` (0.10.2 does); on 0.7
    only a private helper does it. A listener already gone (``clear_event_listeners`` removed
    it) is left alone.

    Args:
        callback: the function given to ``register_event_duration_secs_listener``.
    """
    import jax
    from jax._src import monitoring

    if callback not in monitoring.get_event_duration_listeners():
        return
    remove = getattr(jax.monitoring, "unregister_event_duration_listener", None)
    if remove is None:
        remove = monitoring._unregister_event_duration_listener_by_callback
    remove(callback)


# Primitives JAX renamed between versions, by the name the checks use: inside ``shard_map``
# with type checking on, ``psum`` binds ``psum_invariant`` (0.7 to 0.12; ``psum2`` before),
# ``all_gather`` may bind ``all_gather_invariant``, and ``jax.checkpoint`` binds ``remat2``
# (``checkpoint`` in some versions).
PRIMITIVE_ALIASES: dict[str, str] = {
    "psum_invariant": "psum",
    "psum2": "psum",
    "all_gather_invariant": "all_gather",
    "remat2": "remat",
    "checkpoint": "remat",
}


def canonical_primitive(name: str) -> str:
    """The name the checks use for the primitive JAX calls ``name`` (see
    :data:`PRIMITIVE_ALIASES`); any other name unchanged.

    Args:
        name: ``eqn.primitive.name`` of a jaxpr equation.
    """
    return PRIMITIVE_ALIASES.get(name, name)


def shard_map_checks_types(params: dict[str, Any]) -> bool:
    """Whether a ``shard_map`` equation keeps its type checking on: ``check_vma`` (0.7 and
    later), ``check_rep`` before it.

    Args:
        params: ``eqn.params`` of a ``shard_map`` equation.
    """
    for key in ("check_vma", "check_rep"):
        if key in params:
            return bool(params[key])
    return True


def traced_out_tree(traced: Any) -> Any:
    """The output tree structure (a ``PyTreeDef``) of what ``jax.jit(f).trace(...)`` returned:
    ``out_tree`` on JAX 0.10 and later, ``_out_tree`` on 0.7.

    Args:
        traced: a ``jax.stages.Traced``.
    """
    tree = getattr(traced, "out_tree", None)
    return tree if tree is not None else traced._out_tree


def registered_pytree_types() -> frozenset[type]:
    """The classes registered as pytree nodes through ``jax.tree_util`` (JAX's own and those
    a notebook registered), whose flatten and unflatten functions are Python code: JAX keeps
    them in a private dict on every version the course runs."""
    from jax._src import tree_util

    return frozenset(tree_util._registry)


@dataclass
class OperationCount:
    """What :func:`counting_operations` counted: ``operations`` JAX ran one by one."""

    operations: int = 0


@contextlib.contextmanager
def counting_operations() -> Iterator[OperationCount]:
    """Count the operations JAX runs eagerly (one dispatch each) inside the block.

    Every primitive applied to concrete arrays goes through JAX's evaluation trace; inside
    the block that trace is one that counts before it runs the primitive as usual. A call of a
    jitted function counts once (its program runs whole); a Python loop over a batch counts
    its operations once per example. JAX 0.7 to 0.12 keep the current trace in
    ``jax._src.core`` (``set_current_trace``, ``EvalTrace``); no public name does this.
    """
    from jax._src import core

    count = OperationCount()

    class Counting(core.EvalTrace):
        def process_primitive(self, primitive: Any, args: Any, params: Any, /) -> Any:
            count.operations += 1
            return super().process_primitive(primitive, args, params)

    with core.set_current_trace(Counting()):
        yield count
