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


def test_primitives_are_named_alike_on_every_version() -> None:
    """Inside a type-checked shard_map, is psum (``psum_invariant`` on 0.7 to 0.12) named
    ``psum``, and jax.checkpoint's primitive ``remat``, while other names stay as JAX gives
    them?"""
    from jax.sharding import AxisType

    mesh = jax.make_mesh((1,), ("data",), axis_types=(AxisType.Explicit,))
    x = jax.device_put(jnp.ones(4), jax.NamedSharding(mesh, jax.P("data")))
    summed = jax.shard_map(lambda b: jax.lax.psum(b, "data"), mesh=mesh,
                           in_specs=jax.P("data"), out_specs=jax.P())
    jaxpr = jax.make_jaxpr(jax.checkpoint(summed))(x).jaxpr
    stack, names = [jaxpr], set()
    while stack:
        for eqn in stack.pop().eqns:
            names.add(compat.canonical_primitive(eqn.primitive.name))
            stack.extend(compat.jaxprs_in_params(eqn.params))
    assert {"remat", "shard_map", "psum"} <= names, names
    assert compat.canonical_primitive("dot_general") == "dot_general"
    (eqn,) = [e for e in jax.make_jaxpr(summed)(x).jaxpr.eqns if e.primitive.name == "shard_map"]
    assert compat.shard_map_checks_types(eqn.params)


def test_counting_operations_counts_eager_dispatches_and_a_jitted_call_once() -> None:
    """Does counting_operations count a Python loop's operations once per example, a jitted
    call once, and leave the results as without it?"""
    per = lambda x: jnp.sum(jnp.sin(x) ** 2)
    looped = lambda xs: jnp.stack([per(x) for x in xs])
    jitted = jax.jit(jax.vmap(per))
    counts = {}
    for name, fn in (("looped", looped), ("jitted", jitted)):
        for n in (2, 8):
            xs = jnp.ones((n, 3))
            with compat.counting_operations() as count:
                out = fn(xs)
            counts[name, n] = count.operations
            np.testing.assert_allclose(out, jitted(xs), rtol=1e-6)
    assert counts["looped", 8] > counts["looped", 2]
    assert counts["jitted", 2] == counts["jitted", 8] == 1


def test_traced_out_tree_and_registry_on_every_version() -> None:
    """Is the output tree of ``jax.jit(f).trace(...)`` found on every version, and is a class
    registered as a pytree node in the registry, a named tuple not?"""
    import collections

    pair = collections.namedtuple("pair", "a b")
    tree = compat.traced_out_tree(jax.jit(lambda x: pair(x, [x])).trace(jnp.ones(2)))
    assert tree.num_leaves == 2 and tree.node_data()[0] is pair
    assert pair not in compat.registered_pytree_types()
    assert collections.OrderedDict in compat.registered_pytree_types()
