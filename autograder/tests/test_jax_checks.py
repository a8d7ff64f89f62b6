"""Tests of autograder.kernel.jax_checks: jitted, retracing, compile counts, purity, key reuse,
vectorisation."""

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
    counting_compiles,
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


# ---------------------------------------------------------------- purity by behaviour: attacks
# that once passed (a helper, a partial, a write into a global dict) beside pure twins

CONFIG = {"scale": 1.0}
_LAST_SCALE = None


def _remember(scale):
    global _LAST_SCALE
    _LAST_SCALE = scale


def _affine_logged(x, scale, shift, calls):
    calls.append(scale)
    return scale * x + shift


def _affine(x, scale, shift):
    return scale * x + shift


class _Counter:
    def __init__(self) -> None:
        self.n = 0


COUNTER = _Counter()


def test_check_pure_sees_what_a_call_changes_not_only_its_bytecode() -> None:
    """Are a write into a global dict, a helper that assigns a global, a functools.partial that
    appends to its list, a closure's list, an object's attribute and an argument dict changed in
    place each reported, naming what changed (and the helper's assignment as the hint)?"""
    import functools

    def writes_dict(x, scale, shift):
        CONFIG["scale"] = scale
        return CONFIG["scale"] * x + shift

    def calls_helper(x, scale, shift):
        _remember(scale)
        return scale * x + shift

    seen = []

    def closes_over(x, scale, shift):
        seen.append(x)
        return scale * x + shift

    def counts(x, scale, shift):
        COUNTER.n += 1
        return scale * x + shift

    x = jnp.array([0.0, 1.0, 2.0])
    cases = {
        writes_dict: "`CONFIG`['scale'] changed",
        calls_helper: "helper `_remember` assigns the global `_LAST_SCALE`",
        functools.partial(_affine_logged, calls=[]): "keyword argument calls= of a "
                                                      "functools.partial",
        closes_over: "`seen` changed",
        counts: "`COUNTER`.n changed",
    }
    for fn, message in cases.items():
        with pytest.raises(AssertionError, match="is not pure") as raised:
            check_pure(fn, x, 3.0, 1.0, name="affine")
        assert message in str(raised.value), str(raised.value)

    def updates_state(state, batch):
        state["total"] = state["total"] + jnp.sum(batch)
        return state, state["total"]

    with pytest.raises(AssertionError, match=r"modified its arguments in place \(argument #0"):
        check_pure(updates_state, {"total": jnp.float32(0)}, jnp.ones(2))


def test_a_tracer_left_by_a_jitted_call_is_a_leak() -> None:
    """Does a function that stores its argument in a global list only when traced (so the
    eager calls change nothing) fail, naming the tracer it left behind?"""
    store = {"last": None}

    def leaks(x):
        if isinstance(x, jax.core.Tracer):
            store["last"] = x
        return x * 2

    with pytest.raises(AssertionError, match=r"left a JAX tracer in `store`\['last'\]"):
        check_pure(leaks, jnp.ones(2), name="leaks")


def test_pure_twins_keep_their_points() -> None:
    """The honest twins: do a pure function, a functools.partial of one, a function reading a
    global constant, one that prints with jax.debug.print and one that calls a pure NumPy
    function through jax.pure_callback all pass, leaving the globals as they were?"""
    import functools

    def reads_constant(x, scale, shift):
        return CONFIG["scale"] * 0 + scale * x + shift

    def debug_prints(x, scale, shift):
        jax.debug.print("scale {}", scale)
        return scale * x + shift

    def numpy_inside(x, scale, shift):
        shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return scale * jax.pure_callback(lambda a: np.asarray(a) * 1.0, shape, x) + shift

    before = dict(CONFIG)
    x = jnp.array([0.0, 1.0, 2.0])
    for fn in (_affine, reads_constant, debug_prints, numpy_inside):
        check_pure(fn, x, 3.0, 1.0, name="affine")
    check_pure(functools.partial(_affine, shift=1.0), x, 3.0, name="affine")
    assert CONFIG == before


def test_check_vectorised_and_check_jitted_name_host_callbacks() -> None:
    """Is a jitted pure_callback looping over the batch in NumPy (one equation at any batch
    size) refused as not vectorised and not compiled, naming the callback, and so is a
    callback with no result (``jax.debug.callback``: the notebook's Python on every call),
    while a vmap of a jitted function that logs with jax.debug.print passes?"""
    def numpy_loop(xs):
        return np.stack([np.sum(np.asarray(x) ** 2) for x in xs]).astype(np.float32)

    def via_callback(xs):
        return jax.pure_callback(numpy_loop, jax.ShapeDtypeStruct(xs.shape[:1], xs.dtype), xs)

    def per_example(x):
        return jnp.sum(x ** 2)

    def _note(values):
        return None

    def runs_python_each_call(xs):  # a callback with no result: Python on every call
        jax.debug.callback(_note, xs)
        return jax.vmap(jax.jit(per_example))(xs)

    def logs_the_batch(xs):  # jax.debug.print: JAX's own printing, no code of the notebook
        jax.debug.print("batch of {n}", n=xs.shape[0])
        return jax.vmap(jax.jit(per_example))(xs)

    make = lambda n: (jnp.ones((n, 4)),)
    for fn in (via_callback, jax.jit(via_callback)):
        with pytest.raises(AssertionError, match="calls back into Python.*pure_callback of "
                                                 "`numpy_loop`"):
            check_vectorised(fn, make, name="batched")
    with pytest.raises(AssertionError, match="calls back into Python"):
        check_jitted(jax.jit(via_callback), "batched", args=make(3))
    with pytest.raises(AssertionError, match="calls back into Python"):
        check_no_retrace(jax.jit(via_callback), *make(3), name="batched")
    for check in (lambda fn: check_vectorised(fn, make, name="batched"),
                  lambda fn: check_jitted(fn, "batched", args=make(3))):
        with pytest.raises(AssertionError, match="debug_callback of `_note`.*returns nothing"):
            check(jax.jit(runs_python_each_call))
    honest = jax.jit(logs_the_batch)
    check_vectorised(honest, make, name="batched")
    check_jitted(honest, "batched", args=make(3))
    check_no_retrace(honest, *make(3), name="batched")


def test_a_builder_returning_a_plain_function_is_told_to_jit_once_inside_it() -> None:
    """Is a builder's plain result (named as a call) told to jit once inside the builder and
    why a jax.jit inside each call is no answer, while a plain name is told to wrap it?"""
    from autograder.kernel.jax_checks import not_jitted_message

    said = not_jitted_message(lambda x: x, "build_fast_smooth()")
    assert said.startswith("the function build_fast_smooth() returns is a plain function")
    assert "jit it once inside build_fast_smooth" in said
    assert "compiles again on every call" in said
    assert not_jitted_message(lambda x: x, "train_step(params)").startswith(
        "the function train_step(params) returns")
    plain = not_jitted_message(lambda x: x, "clip_by_norm")
    assert plain.startswith("clip_by_norm is a plain function") and "@jax.jit" in plain


def test_counting_compiles_counts_new_programs_not_cache_hits() -> None:
    """Does counting_compiles count one program per call of a plain function that jits afresh
    each time, none for a jitted function called again with the same shapes, and one for a
    new dtype?"""
    x = jnp.arange(4.0)

    def rebuilt(v):  # the anti-pattern: a new jitted closure on every call
        return jax.jit(lambda u: u * 3)(v)

    with counting_compiles("rebuilt") as fresh:
        for _ in range(3):
            rebuilt(x).block_until_ready()
    assert fresh.programs == 3
    once = jax.jit(lambda u: u * 3)
    once(x).block_until_ready()
    other_values = x + 1  # an eager operation compiles a program too: made before counting
    with counting_compiles("once") as again:
        once(x).block_until_ready()
        once(other_values).block_until_ready()
    assert again.programs == 0
    integers = jnp.arange(4)  # int32: another signature, so another program
    with counting_compiles("once") as other:
        once(integers).block_until_ready()
    assert other.programs == 1


def test_counting_compiles_refuses_a_count_the_code_switched_off() -> None:
    """Does counting_compiles fail, instead of reporting 0, when the code inside clears JAX's
    monitoring listeners or changes jax.config (each puts the setting back), while an honest
    twin that compiles nothing new counts 0?"""
    once = jax.jit(lambda u: u + 1)
    x = jnp.arange(3.0)
    once(x)

    def clears_listeners(v):
        jax.monitoring.clear_event_listeners()
        return jax.jit(lambda u: u + 1)(v)

    from jax._src import monitoring

    saved = (monitoring.get_event_listeners(), monitoring.get_event_duration_listeners(),
             monitoring.get_event_time_span_listeners())
    try:
        with pytest.raises(AssertionError, match="removed JAX's monitoring listeners"):
            with counting_compiles("clears_listeners"):
                clears_listeners(x)
    finally:  # put back what the attack cleared, for the tests after this one
        for listener in saved[0]:
            jax.monitoring.register_event_listener(listener)
        for listener in saved[1]:
            jax.monitoring.register_event_duration_secs_listener(listener)
        for listener in saved[2]:
            jax.monitoring.register_event_time_span_listener(listener)

    def disables_jit(v):
        jax.config.update("jax_disable_jit", True)
        return v + 1

    with pytest.raises(AssertionError, match="changed JAX's global configuration"):
        with counting_compiles("disables_jit"):
            disables_jit(x)
    assert not jax.config.jax_disable_jit
    with counting_compiles("once") as honest:
        once(x)
    assert honest.programs == 0


# ---------------------------------------------------------------- issue 47: the program, read
# from its primitives (never its text); outputs in plain containers; the same work traced and
# called with arrays


def _one_device_mesh():
    from jax.sharding import AxisType

    return jax.make_mesh((1,), ("data",), axis_types=(AxisType.Explicit,))


def test_program_of_reads_primitives_nested_at_any_depth_not_names() -> None:
    """Does program_of find shard_map and its collectives (psum by the name the checks use,
    whatever JAX binds), scan, and primitives nested in jit, remat, cond, while and
    custom_jvp bodies, count shard_maps with type checking off, and find none of them in
    functions of the notebook merely named so?"""
    from autograder.kernel.jax_checks import program_of

    mesh = _one_device_mesh()
    spec = jax.P("data")
    x = jax.device_put(jnp.ones(4), jax.NamedSharding(mesh, spec))

    def body(b):
        g = jax.lax.all_gather(b, "data", tiled=True)
        s = jax.lax.psum_scatter(b, "data", tiled=True)
        t = jax.lax.all_to_all(b.reshape(1, -1), "data", 0, 0, tiled=True).reshape(-1)
        return g + s + t + jax.lax.psum(b, "data")

    real = program_of(lambda a: jax.shard_map(body, mesh=mesh, in_specs=spec,
                                              out_specs=spec)(a), x)
    assert {"shard_map", "all_gather", "reduce_scatter", "all_to_all", "psum"} <= \
        real.primitives
    assert real.unchecked_shard_maps == 0 and real.outputs is None
    unchecked = program_of(lambda a: jax.shard_map(lambda b: b * 2, mesh=mesh, in_specs=spec,
                                                   out_specs=spec, check_vma=False)(a), x)
    assert "shard_map" in unchecked.primitives and unchecked.unchecked_shard_maps == 1

    @jax.custom_jvp
    def smooth(v):
        return jnp.tanh(v)

    smooth.defjvp(lambda p, t: (smooth(p[0]), t[0]))
    nested = program_of(jax.jit(lambda v: jax.lax.cond(
        v.sum() > 0, jax.checkpoint(lambda w: jax.lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, smooth(c[1])), (0, w))[1]),
        jnp.sin, v)), jnp.ones(3))
    assert {"cond", "remat", "while", "custom_jvp_call", "tanh", "sin"} <= nested.primitives

    # Functions of the notebook named like what the checks look for: jitted, they show in
    # str(jaxpr) under their names, and are none of it.
    def all_gather(v):
        return v * 2

    def shard_map(v):
        return v + 1

    def scan(v):
        return v - 1

    named = jax.jit(lambda v: scan(jax.jit(shard_map)(jax.jit(all_gather)(v))))
    assert "all_gather" in str(jax.make_jaxpr(named)(jnp.ones(3)))  # what text search saw
    found = program_of(named, jnp.ones(3)).primitives
    assert not {"all_gather", "shard_map", "scan"} & found, found


def test_check_precision_needs_every_contraction_at_full_precision_and_one_at_least() -> None:
    """Does check_precision pass products at HIGHEST or F32_F32_F32 (also under vmap and
    inside scan), and fail, naming it, a convolution at the default precision (no dot in
    the program), a default-precision product nested in a scan, bfloat16 operands, a
    program with no contraction at all, and a precision that only a setting around the call
    gave?"""
    from autograder.kernel.jax_checks import check_precision

    x = jnp.asarray(np.random.default_rng(0).normal(size=(6, 4)), jnp.float32)
    highest = lambda a: jnp.matmul(a.T, a, precision=jax.lax.Precision.HIGHEST)
    check_precision(highest, x, name="gram")
    check_precision(jax.jit(lambda a: jnp.dot(a.T, a, precision=jax.lax.DotAlgorithmPreset
                                              .F32_F32_F32)), x, name="gram")
    check_precision(jax.vmap(highest), jnp.stack([x, x]), name="gram")
    check_precision(lambda a: jax.lax.scan(lambda c, r: (c + highest(r[None]), None),
                                           jnp.zeros((4, 4)), a)[0], x, name="gram")

    def conv_default(a):
        lhs = a.T[:, :, None]
        return jax.lax.conv_general_dilated(lhs, lhs, (1,), "VALID")[:, :, 0]

    np.testing.assert_allclose(conv_default(x), x.T @ x, rtol=1e-5, atol=1e-5)
    with pytest.raises(AssertionError, match="conv_general_dilated at precision = "
                                             r"\[DEFAULT, DEFAULT\]"):
        check_precision(conv_default, x, name="gram")
    with pytest.raises(AssertionError, match="1 of its 2 contraction"):
        check_precision(lambda a: highest(a) + jax.lax.scan(
            lambda c, r: (c + r[:, None] @ r[None], None), jnp.zeros((4, 4)), a)[0], x,
            name="gram")
    with pytest.raises(AssertionError, match="bfloat16 operands"):
        check_precision(lambda a: highest(a.astype(jnp.bfloat16)).astype(jnp.float32), x,
                        name="gram")
    with pytest.raises(AssertionError, match="has no matrix product"):
        check_precision(lambda a: jnp.sum(a[:, :, None] * a[:, None, :], axis=0), x,
                        name="gram")
    with jax.default_matmul_precision("float32"):  # a setting around the call is not the answer's
        with pytest.raises(AssertionError, match="below full float32"):
            check_precision(lambda a: a.T @ a, x, name="gram")


@jax.tree_util.register_pytree_node_class
class _Boxed:
    """An answer's own output class: its unflatten code runs in Python after every call of a
    jitted function, outside the compiled program (it counts the calls with arrays)."""

    rebuilt_from_arrays = 0

    def __init__(self, value):
        self.value = value

    def tree_flatten(self):
        return (self.value,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        if not isinstance(children[0], jax.core.Tracer) and hasattr(children[0], "delete"):
            cls.rebuilt_from_arrays += 1
        return cls(*children)


def test_outputs_of_an_answers_own_class_are_refused_before_any_call() -> None:
    """Do check_jitted (with arguments), check_no_retrace, check_vectorised and the timing
    test refuse a jitted answer that returns an object of a pytree class it registered,
    saying to return arrays, without ever rebuilding one from arrays (its unflatten code
    never runs on a call), while tuples, lists, dicts, None and named tuples pass?"""
    from typing import NamedTuple

    from autograder.kernel import reporter, timing

    class Pair(NamedTuple):
        total: jax.Array
        squares: jax.Array

    per = lambda x: jnp.sum(x ** 2)
    boxed = jax.jit(lambda xs: _Boxed(jax.vmap(per)(xs)))
    make = lambda n: (jnp.ones((n, 4)),)
    _Boxed.rebuilt_from_arrays = 0
    message = r"\(`_Boxed`\): return arrays, not an object of your own class"
    with pytest.raises(AssertionError, match=message):
        check_jitted(boxed, "batched", args=make(3))
    with pytest.raises(AssertionError, match=message):
        check_no_retrace(boxed, *make(3), name="batched")
    with pytest.raises(AssertionError, match=message):
        check_vectorised(boxed, make, name="batched")
    entries: list = []
    with reporter.collecting(entries.append):
        timing.check_speedup(boxed, lambda xs: _Boxed(jnp.stack([per(x) for x in xs])),
                             *make(64), required=1.5, clock=timing.CPU)
    assert all("return arrays, not an object" in e.got for e in entries[:2]), entries
    assert "ratio" not in entries[2].got  # nothing was timed
    assert _Boxed.rebuilt_from_arrays == 0
    plain = jax.jit(lambda xs: (Pair(jnp.sum(xs), xs ** 2), [xs], {"n": None, "m": xs}))
    check_jitted(plain, "batched", args=make(3))
    check_no_retrace(plain, *make(3), name="batched")
    check_vectorised(plain, make, name="batched")


def test_a_function_that_loops_only_when_called_with_arrays_is_not_vectorised() -> None:
    """Does check_vectorised fail an answer that uses vmap when it sees a tracer and a
    Python loop (with the same values) when called with arrays, and one whose traced path
    computes something else than its direct call (a cheap stub for the checks to read),
    while an honest vmap, jitted or not, passes?"""
    per = lambda x: jnp.sum(jnp.sin(x) ** 2)

    def switches(xs):
        if isinstance(xs, jax.core.Tracer):
            return jax.vmap(per)(xs)
        return jnp.stack([per(x) for x in xs])

    def stub_when_traced(xs):
        if isinstance(xs, jax.core.Tracer):
            return jax.vmap(jnp.sum)(xs)
        return jax.vmap(per)(xs)

    make = lambda n: (jnp.ones((n, 4)),)
    with pytest.raises(AssertionError, match=r"called with arrays, runs more operations.*"
                                             r"use `jax.vmap` on every path"):
        check_vectorised(switches, make, name="batched")
    with pytest.raises(AssertionError, match="computes something else when called with "
                                             "arrays than the program it traces to"):
        check_vectorised(stub_when_traced, make, name="batched")
    check_vectorised(jax.vmap(per), make, name="batched")
    check_vectorised(jax.jit(jax.vmap(per)), make, name="batched")


def test_donation_is_read_from_the_program_not_from_deleted_arrays() -> None:
    """Is a jitted update without donation whose own output class deletes its caller's
    params after every call (found among ``jax.live_arrays()``, so ``is_deleted()`` holds)
    refused as not donating, as are one that donates grads instead and a plain function;
    while real donation (``donate_argnums=0``, ``donate_argnames``, and beside a static
    argument, which the lowered program leaves out) passes?"""
    from autograder.kernel.jax_checks import check_donated, donation_of

    class Updated(tuple):  # (new params, old params)
        pass

    def rebuild(aux, children):
        new, old = children
        leaves = jax.tree.leaves(children)
        if not leaves or not all(isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer)
                                 for a in leaves):
            return Updated(children)
        kept = {id(a) for a in leaves}
        olds = [np.asarray(a) for a in jax.tree.leaves(old)]
        for live in jax.live_arrays():
            if id(live) not in kept and not live.is_deleted() and any(
                    live.shape == o.shape and np.array_equal(np.asarray(live), o) for o in olds):
                live.delete()
        return new

    jax.tree_util.register_pytree_node(Updated, lambda u: (tuple(u), None), rebuild)

    def update(params, grads, lr):
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)

    def deletes(params, grads, lr):
        jax.debug.print("update")  # an effect: every call takes JAX's Python path
        return Updated((update(params, grads, lr), params))

    def call(fn, params):
        grads = jax.tree.map(jnp.ones_like, params)
        donation = donation_of(fn, params, grads, 0.1, donate={0: "params"},
                               name="update(params, grads, 0.1)")
        out = fn(params, grads, 0.1)
        assert isinstance(out, dict) and np.allclose(out["b"], 1.9)
        check_donated(donation, fix="jax.jit(update, donate_argnums=0)")

    def fresh(seed):
        return {"w": jnp.arange(6.0).reshape(2, 3) + seed, "b": jnp.ones(3) * 2.0}

    params = fresh(10.0)
    with pytest.raises(AssertionError, match="compiled program does not donate params"):
        call(jax.jit(deletes), params)
    assert all(a.is_deleted() for a in jax.tree.leaves(params))  # what fooled is_deleted()
    with pytest.raises(AssertionError, match="compiled program does not donate params"):
        call(jax.jit(update, donate_argnums=1), fresh(20.0))
    with pytest.raises(AssertionError, match="not a jitted function"):
        call(update, fresh(30.0))
    for honest in (jax.jit(update, donate_argnums=0), jax.jit(update, donate_argnames="params"),
                   jax.jit(update, donate_argnums=0, static_argnums=2)):  # lr static: read too
        call(honest, fresh(40.0))
