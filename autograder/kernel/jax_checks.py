"""Checks that look at *how* a learner's JAX code works, not only what it returns.

"Is it jitted", "is it vectorised" and the timing tests also look into the program a function
traces to (:func:`host_callbacks`): a ``jax.pure_callback`` or ``io_callback`` runs Python on
every call, outside the compiled program, so a jitted callback into eager code is not compiled
work. What a program uses (``shard_map``, collectives, ``scan``: :func:`program_of`) and how
precisely it multiplies (:func:`check_precision`) are read from its primitives, nested jaxprs
included; a function of the notebook merely named like one is none of them. Outputs must be
arrays in plain containers (:func:`output_problem`), and "vectorised" also holds for the answer
called with arrays, not only for the program it traces to. Donation (:func:`donation_of`,
:func:`check_donated`) is read from the compiled program's aliasing, the deleted arrays
after the call only a second opinion. Purity (:func:`check_pure`) is
decided from what a call does: the globals and the containers reachable from the function
compared around its calls, tracers left behind, its arguments left untouched.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from autograder.kernel.config_watch import (  # noqa: F401 - their home before
    DEFAULT_CONFIG,
    config_message,
    config_snapshot,
    describe_changes,
    restore_config,
)
from autograder.kernel.programs import (  # noqa: F401 - is_jitted, jitted_type: their home before
    call_compiled,
    callback_message,
    callbacks_in,
    contractions,
    custom_outputs,
    equations,
    equations_of,
    host_callbacks,
    is_jitted,
    jitted_type,
    output_message,
    output_problem,
    precision_shortfall,
    primitive_names,
    traced_jaxpr,
    traced_program,
)


def check_jitted(fn: Any, name: str = "the function", *, args: tuple | None = None,
                 kwargs: dict | None = None) -> None:
    """Assert that ``fn`` was wrapped with ``jax.jit`` (directly or as a decorator) and, when
    ``args`` (and ``kwargs``) are given, that the program it traces to for them calls no
    Python function back (:func:`host_callbacks`): a jitted ``jax.pure_callback`` into eager
    code is not a compiled answer; and that its outputs are arrays in plain containers
    (:func:`output_problem`), whose rebuilding after a call runs no code of the notebook.

    Raises:
        AssertionError: when ``fn`` is a plain Python function or some other callable, its
            program calls back into Python, or it returns an object of its own class.
    """
    from autograder.kernel.reporter import observe

    problem = None if is_jitted(fn) else not_jitted_message(fn, name)
    if problem is None and args is not None:
        config = config_snapshot()
        try:
            problem = (callback_message(name, host_callbacks(fn, *args, **(kwargs or {})))
                       or output_problem(fn, *args, name=name, **(kwargs or {})))
        finally:
            changed = restore_config(config)
        problem = config_message(name, changed) if changed else problem
    observe(f"{name} is jitted", problem)


def not_jitted_message(fn: Any, name: str) -> str:
    """What :func:`check_jitted` says of ``fn``, named ``name``, when it is not jitted.

    A builder's result (``name`` a call, such as ``build_fast_smooth()``) is told to jit once
    inside the builder and return that, and why calling ``jax.jit`` inside each call is no
    answer; a plain name is told to wrap or decorate it.
    """
    kind = type(fn).__name__
    builder = re.search(r"(\w+)\(.*\)$", name)
    if builder:
        return (f"the function {name} returns is a plain {kind}, not a jitted function: jit "
                f"it once inside {builder.group(1)} and return that (`return jax.jit(f, ...)`). "
                "A `jax.jit(f)(...)` inside each call traces and compiles again on every call.")
    return (f"{name} is a plain {kind}, not a jitted function. Wrap it: `f = jax.jit(f)` or "
            "decorate the def with `@jax.jit`.")


def cache_size(fn: Any) -> int:
    """How many compiled versions a jitted function holds, as JAX's own jitted type counts
    them (an attribute the object defines is never consulted).

    Raises:
        AssertionError: when ``fn`` is not a function ``jax.jit`` made: its compilations
            cannot be counted, and a count that is not there is never read as 0.
    """
    if not is_jitted(fn):
        raise AssertionError(
            f"a {type(fn).__name__} is not a jitted function, so how often it compiles "
            "cannot be measured: wrap it with `jax.jit` (or decorate the def with `@jax.jit`).")
    return int(jitted_type()._cache_size(fn))


def check_no_retrace(fn: Any, *args: Any, name: str = "the function", **kwargs: Any) -> None:
    """Assert that a second call with same-shaped arguments reuses the first compilation.

    The count is JAX's own (:func:`cache_size`); a function that is not jitted, or whose
    calls change JAX's configuration, fails.

    Raises:
        AssertionError: when ``fn`` is not jitted, when the second call compiled again
            (typically a ``jax.jit`` created inside the function, or a static argument
            that changes on every call), when a call changed ``jax.config``, or when it
            returns an object of its own class (:func:`output_problem`; then it is not
            called).
    """
    from autograder.kernel.reporter import observe
    from autograder.kernel.timing import block

    check_jitted(fn, name, args=args, kwargs=kwargs)
    check = f"{name} compiles once"
    if not is_jitted(fn):
        observe(check, f"{name} is not a jitted function, so whether it compiles once cannot "
                "be measured: wrap it with `jax.jit`.")
        return
    config = config_snapshot()
    try:
        outputs = output_problem(fn, *args, name=name, **kwargs)
        if not outputs:  # else refused before any call: rebuilding them runs notebook code
            block(fn(*args, **kwargs))
            before = cache_size(fn)
            block(fn(*args, **kwargs))
            after = cache_size(fn)
    finally:
        changed = restore_config(config)
    if changed:
        observe(check, config_message(name, changed))
        return
    if outputs:
        observe(check, outputs)
        return
    observe(check, (
        f"{name} was compiled again on a second call with the same shapes "
        f"({before} -> {after} cached versions). Are static arguments changing, or is "
        "`jax.jit` applied afresh on each call?") if after > before else None)


# The event JAX records each time it lowers a jaxpr to a new program (before XLA compiles it or
# loads it from the persistent compilation cache); a call served from jit's caches records none.
LOWERING_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"


@dataclass
class CompileCount:
    """What :func:`counting_compiles` counted: ``programs`` lowered inside its block."""

    programs: int = 0


@contextlib.contextmanager
def counting_compiles(name: str = "the code") -> Iterator[CompileCount]:
    """Count the programs JAX compiles inside the block, whatever compiles them.

    Every new compilation starts by lowering a traced program, which JAX reports through
    ``jax.monitoring`` (:data:`LOWERING_EVENT`), also when XLA's work is then loaded from the
    persistent compilation cache; a call that reuses a compiled program reports nothing. So
    ``jax.jit(f)`` built afresh on each call counts once per call, even for a plain function
    that cannot be asked for its cache (:func:`cache_size` counts one jitted function's).

    Args:
        name: what runs inside the block, for the messages.

    Raises:
        AssertionError: on leaving the block, when the code inside removed the counter's
            listener (``jax.monitoring.clear_event_listeners()``) or changed ``jax.config``:
            the count would not be what ran.
    """
    import jax
    from jax._src import monitoring

    from autograder.kernel.compat import remove_duration_listener

    count = CompileCount()

    def on_event(event: str, duration: float, **_: Any) -> None:
        if event == LOWERING_EVENT:
            count.programs += 1

    config = config_snapshot()
    jax.monitoring.register_event_duration_secs_listener(on_event)
    try:
        yield count
        listening = on_event in monitoring.get_event_duration_listeners()
    finally:
        remove_duration_listener(on_event)
        changed = restore_config(config)
    if changed:
        raise AssertionError(config_message(name, changed))
    if not listening:
        raise AssertionError(
            f"{name} removed JAX's monitoring listeners while the test counted its "
            "compilations, so they cannot be measured: an answer must not call "
            "jax.monitoring.clear_event_listeners().")


def _captured(fn: Callable, *args: Any, **kwargs: Any) -> tuple[Any, str]:
    from autograder.kernel.timing import block

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = block(fn(*args, **kwargs))
    return result, out.getvalue()


def check_pure(fn: Callable, *args: Any, name: str = "the function", **kwargs: Any) -> None:
    """Assert that ``fn`` behaves as a pure function on these arguments (see :func:`impurity`).

    Raises:
        AssertionError: naming the first impurity found.
    """
    from autograder.kernel.reporter import observe

    config = config_snapshot()
    try:
        problem = impurity(fn, *args, name=name, **kwargs)
    finally:
        changed = restore_config(config)
    observe(f"{name} is pure", config_message(name, changed) if changed else problem)


def impurity(fn: Callable, *args: Any, name: str = "the function", **kwargs: Any) -> str | None:
    """The first impurity of ``fn`` on these arguments (a message), or None.

    Decided from what calls do (:mod:`autograder.kernel.state`): the globals and containers
    ``fn`` can reach (through its helpers, ``functools.partial``, closures and default
    arguments) must be the same after two eager calls and two jitted calls as before, with no
    JAX tracer left in them; its arguments must be left untouched; it must return the same value
    twice, print nothing from Python (which under jit runs only while tracing;
    ``jax.debug.print`` is fine), and return the same value under ``jax.jit`` as eagerly. The
    global assignments in the code it leads to (``STORE_GLOBAL``) name the likely cause in the
    message; one in ``fn``'s own code fails even when the calls here show no change.
    """
    try:
        _check_pure(fn, *args, name=name, **kwargs)
    except AssertionError as exc:
        return str(exc)
    return None


def _write_hint(roots: Any, name: str) -> tuple[str, bool]:
    """A phrase naming the global assignments in the notebook code ``fn`` leads to, and whether
    ``fn``'s own code makes one."""
    from autograder.kernel.state import global_writes

    for i, func in enumerate(roots.functions):
        writes = global_writes(func)
        if writes:
            who = name if i == 0 else f"{name}'s helper `{func.__name__}`"
            return f"{who} assigns the global `{writes[0]}`", i == 0
    return "", False


def _state_message(name: str, found: list[str], hint: str, tracers: list[str]) -> str:
    what = f"it left a JAX tracer in {tracers[0]}" if tracers else "; ".join(found[:2])
    cause = f" ({hint})" if hint else ""
    return (f"{name} is not pure: calling it changed state outside it ({what}){cause}. A pure "
            "function reads only its arguments and changes nothing else; under jit such a "
            "write happens once, at trace time, and stores a tracer instead of a value. Return "
            "the value instead.")


def _new_tracers(before: Any, after: Any) -> list[str]:
    """Where ``after`` holds a JAX tracer that ``before`` did not (a tracer an earlier cell left
    is not this call's doing)."""
    return [path for path in after.tracers if before.tokens.get(path) != after.tokens[path]]


def _check_pure(fn: Callable, *args: Any, name: str, **kwargs: Any) -> None:
    import jax

    from autograder.kernel.checks import check_tree
    from autograder.kernel.state import (
        changes,
        fingerprint,
        fingerprint_arguments,
        reachable_roots,
    )

    target = getattr(fn, "__wrapped__", fn)
    roots = reachable_roots(fn)
    hint, own = _write_hint(roots, name)
    if own:
        raise AssertionError(f"{hint}: under jit that happens once, at trace time, not on every "
                             "call. Return the value instead.")
    before, arguments = fingerprint(roots), fingerprint_arguments(args, kwargs)
    first, _ = _captured(fn, *args, **kwargs)
    second, _ = _captured(fn, *args, **kwargs)
    touched = changes(arguments, fingerprint_arguments(args, kwargs))
    if touched:
        raise AssertionError(f"{name} modified its arguments in place ({touched[0]}): build "
                             "and return new values instead.")
    eager = fingerprint(reachable_roots(fn))
    found = changes(before, eager)
    if found:
        raise AssertionError(_state_message(name, found, hint, _new_tracers(before, eager)))
    check_tree(second, first, name=f"{name} called twice (second call)")
    # A fresh jit of the Python function: it traces on the first call only, so a Python print
    # shows once, while jax.debug.print (part of the compiled program) shows on both calls.
    fresh = jax.jit(lambda *a, **k: target(*a, **k))
    traced, first_out = _captured(fresh, *args, **kwargs)
    _, second_out = _captured(fresh, *args, **kwargs)
    jitted = fingerprint(reachable_roots(fn))
    found = changes(eager, jitted)
    if found:
        raise AssertionError(_state_message(name, found, hint, _new_tracers(eager, jitted)))
    if first_out != second_out:
        raise AssertionError(
            f"{name} prints from Python ({first_out.strip()[:60]!r}): under jit that only "
            "happens while tracing. Use `jax.debug.print` or return the value."
        )
    check_tree(traced, first, name=f"jax.jit({name})", rtol=1e-4, atol=1e-5)


def check_no_key_reuse(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn`` with JAX's key-reuse checker on; return its result.

    Raises:
        jax.errors.KeyReuseError: when a PRNG key is consumed twice (the hint says how to
            split keys).
    """
    from autograder.kernel.compat import key_reuse_checking

    with key_reuse_checking():
        return fn(*args, **kwargs)


def jaxpr_size(fn: Callable, *args: Any, **kwargs: Any) -> int:
    """Number of equations in ``fn``'s jaxpr for these arguments (nested jaxprs included)."""
    return sum(1 for _ in equations(traced_jaxpr(fn, *args, **kwargs)))


def check_vectorised(
    fn: Callable, make_args: Callable[[int], tuple], name: str = "the function"
) -> None:
    """Assert that ``fn`` handles a batch as one vectorised computation, not a Python loop.

    ``make_args(n)`` builds arguments for a batch of ``n`` examples. A Python loop over the
    batch makes the traced program grow with ``n``; ``vmap`` (or batched array code) keeps
    it the same size. A host callback (``jax.pure_callback``: Python, perhaps a NumPy loop,
    run from the program) is one equation at any batch size, so it fails too, named.

    The program read is the one ``fn`` traces to, so ``fn`` must also compute the same
    thing when called with arrays as that program does: on a batch of 16 whose
    floating-point arrays are drawn at random, ``fn`` called directly and ``fn`` run through
    the course's own ``jax.jit`` (:func:`call_compiled`, where its Python body runs only while
    tracing) must agree, and a direct call must run no more operations one by one for 16
    examples than for 2 (:func:`autograder.kernel.compat.counting_operations`). An answer
    that takes another path when it sees a tracer (``vmap``) than with concrete arrays (a
    Python loop) fails. Its outputs must be arrays in plain containers
    (:func:`output_problem`).

    Raises:
        AssertionError: when the jaxpr for 16 examples is larger than for 2, calls back
            into Python, returns an object of the answer's own class, or when the traced
            program's values differ from a direct call's.
    """
    from autograder.kernel.reporter import observe

    config = config_snapshot()
    try:
        small = traced_jaxpr(fn, *make_args(2))
        large_args = make_args(16)
        large = traced_jaxpr(fn, *large_args)
        problem = (output_problem(fn, *large_args, name=name)
                   or _loops_when_called(fn, make_args, name)
                   or _traced_path_differs(fn, _drawn(large_args), name))
    finally:
        changed = restore_config(config)
    check = f"{name} is vectorised"
    if changed:
        observe(check, config_message(name, changed))
        return
    sizes = [sum(1 for _ in equations(jaxpr)) for jaxpr in (small, large)]
    loops = (f"{name} traces to more operations for 16 examples than for 2: it loops over "
             "the batch in Python. Use `jax.vmap` so the program stays the same size whatever "
             "the batch.") if sizes[1] > sizes[0] else None
    observe(check, callback_message(name, callbacks_in(small) + callbacks_in(large)) or loops
            or problem)


def _drawn(args: tuple) -> tuple:
    """``args`` with every floating-point array of one or more dimensions drawn anew,
    uniformly in [-1, 1) (same shape and dtype), from the operating system's entropy; keys,
    integers, scalars and Python values as given."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng()

    def draw(leaf: Any) -> Any:
        dtype = getattr(leaf, "dtype", None)
        if dtype is None or not getattr(leaf, "ndim", 0):
            return leaf
        try:
            floating = jnp.issubdtype(dtype, jnp.floating)
        except TypeError:  # extended dtypes such as PRNG keys
            return leaf
        if not floating:
            return leaf
        return jnp.asarray(rng.uniform(-1.0, 1.0, size=leaf.shape), dtype)

    return jax.tree.map(draw, args)


def _loops_when_called(fn: Callable, make_args: Callable[[int], tuple], name: str
                       ) -> str | None:
    """The failure when ``fn`` called with concrete arrays runs more operations one by one
    for 16 examples than for 2 (a Python loop that only a direct call takes), else None."""
    from autograder.kernel.compat import counting_operations
    from autograder.kernel.timing import block

    counts = []
    for n in (2, 16):
        args = make_args(n)
        with counting_operations() as count:
            block(fn(*args))
        counts.append(count.operations)
    if counts[1] <= counts[0]:
        return None
    return (f"{name}, called with arrays, runs more operations for 16 examples than for 2, "
            "though the program it traces to does not grow: "
            "it loops over the batch in Python unless it is traced. A function must do the "
            "same work whichever way it is called: use `jax.vmap` on every path, not only "
            "when its arguments are tracers.")


def _traced_path_differs(fn: Callable, args: tuple, name: str) -> str | None:
    """The failure when ``fn(*args)`` called directly differs from ``fn`` run through the
    course's own ``jax.jit`` on the same arguments, else None."""
    from autograder.kernel.checks import check_tree
    from autograder.kernel.timing import block

    direct = block(fn(*args))
    traced = block(call_compiled(fn, *args))
    try:
        check_tree(direct, traced, name=f"{name} called with arrays", rtol=1e-4, atol=1e-5)
    except AssertionError as exc:
        return (f"{name} computes something else when called with arrays than the program it "
                f"traces to under jax.jit ({exc}). The checks read the traced program: a "
                "function must do the same work whichever way it is called, not branch on "
                "whether its arguments are tracers.")
    return None


@dataclass(frozen=True)
class Program:
    """What a function's traced program is made of, read from its equations (never from its
    text, where the names of the notebook's functions show).

    ``primitives``: the primitives it calls, nested jaxprs included, by the names the checks
    use (:func:`primitive_names`; ``psum`` whatever JAX version binds it). ``unchecked_shard_maps``:
    how many of its ``shard_map`` calls switch type checking off (``check_vma=False``).
    ``outputs``: the failure when its outputs are not arrays in plain containers
    (:func:`output_problem`), else None.
    """

    primitives: frozenset[str]
    unchecked_shard_maps: int
    outputs: str | None


def program_of(fn: Callable, *args: Any, name: str = "the function", **kwargs: Any) -> Program:
    """The :class:`Program` ``fn`` traces to for these arguments (see :func:`traced_program`:
    a plain function is traced through the course's own ``jax.jit``).

    Raises:
        AssertionError: when tracing it changed JAX's configuration (the change is undone).
    """
    from autograder.kernel.compat import shard_map_checks_types, traced_out_tree

    config = config_snapshot()
    try:
        traced = traced_program(fn, *args, **kwargs)
    finally:
        changed = restore_config(config)
    if changed:
        raise AssertionError(config_message(name, changed))
    jaxpr = traced.jaxpr.jaxpr
    unchecked = sum(1 for eqn in equations_of(jaxpr, "shard_map")
                    if not shard_map_checks_types(eqn.params))
    return Program(primitive_names(jaxpr), unchecked,
                   output_message(name, custom_outputs(traced_out_tree(traced))))


def check_precision(fn: Callable, *args: Any, name: str = "the function",
                    **kwargs: Any) -> None:
    """Assert that every contraction in the program ``fn`` traces to multiplies at full
    float32 precision, and that there is at least one.

    The contractions are read from the equations (:func:`contractions`): every
    ``dot_general`` (a matrix product, ``jnp.dot``, ``einsum``), every convolution
    (``conv_general_dilated``), and any other primitive that takes a ``precision``, nested
    jaxprs included; each must carry ``Precision.HIGHEST`` (or the dot algorithm
    ``F32_F32_F32``) on float32 operands. The program is traced at JAX's own default
    precision (``jax.default_matmul_precision(None)``): the precision must be the answer's,
    not a setting around the call.

    Raises:
        AssertionError: naming the first contraction below full precision, or saying that
            there is none.
    """
    import jax

    from autograder.kernel.reporter import observe

    config = config_snapshot()
    try:
        with jax.default_matmul_precision(None):
            jaxpr = traced_jaxpr(fn, *args, **kwargs)
        outputs = output_problem(fn, *args, name=name, **kwargs)
    finally:
        changed = restore_config(config)
    check = f"every matrix product of {name} is at full float32 precision"
    if changed:
        observe(check, config_message(name, changed))
        return
    found = contractions(jaxpr)
    loose = [short for eqn in found if (short := precision_shortfall(eqn)) is not None]
    if not found:
        problem = (f"the program of {name} has no matrix product (no dot_general or "
                   "convolution): compute it with one (`x.T @ x`, `jnp.dot`, `jnp.einsum`) "
                   "and pass precision=jax.lax.Precision.HIGHEST to it.")
    elif loose:
        problem = (f"the program of {name} has {len(loose)} of its {len(found)} "
                   f"contraction(s) below full float32 precision ({loose[0]}): on a GPU or "
                   "TPU it multiplies in bfloat16 or TF32. Pass "
                   "precision=jax.lax.Precision.HIGHEST (or "
                   "jax.lax.DotAlgorithmPreset.F32_F32_F32) to every product and convolution, "
                   "on float32 operands.")
    else:
        problem = None
    observe(check, problem or outputs)


def restore_default_config() -> list[str]:
    """Put every JAX setting back as it was before any answer ran (and those in
    :data:`DEFAULT_CONFIG` to their defaults), a ``with`` block of settings left open
    included; return the names of those an earlier cell had changed (settings this JAX lacks
    are skipped; those read only when JAX starts and the compilation cache's are left:
    :func:`autograder.kernel.config_watch.left_as_set`).

    Called as a test cell's checks begin (``feedback()``); what every setting is then is the
    cell's baseline (:func:`autograder.kernel.config_watch.mark_baseline`): a timing test of
    the cell verifies it before each timed call, so a setting the answer changes later (in
    its builder, say) cannot slow the reference, and one that could not be put back fails
    it."""
    from autograder.kernel.config_watch import left_as_set, mark_baseline, put_back, start_values

    wanted = dict(DEFAULT_CONFIG)  # named first, in this order, when they changed
    wanted.update((name, value) for name, value in sorted(start_values().items())
                  if name not in DEFAULT_CONFIG and not left_as_set(name))
    changed, held = put_back(wanted)
    mark_baseline(held)
    return list(changed)


@dataclass
class Donation:
    """What :func:`donation_of` read before a call: the arrays of the positional arguments
    to be donated, and whether the compiled program donates each (None: no program does)."""

    name: str
    names: dict[int, str]
    arrays: dict[int, list[Any]]
    program: list[list[bool]] | None
    problem: str | None = None


def donation_of(fn: Callable, *args: Any, donate: dict[int, str], name: str = "the function",
                **kwargs: Any) -> Donation:
    """Read, before ``fn(*args, **kwargs)`` is called, whether the program it compiles to
    donates the positional arguments ``donate`` (position -> how a message names it), from
    the lowered module's input/output aliasing (:func:`donated_leaves`); keep their arrays for
    :func:`check_donated` to look at after the call. Tracing runs under the configuration
    watch, as every check's call does."""
    import jax

    from autograder.kernel.programs import donated_leaves

    arrays = {i: jax.tree.leaves(args[i]) for i in donate}
    config = config_snapshot()
    try:
        program = donated_leaves(fn, *args, **kwargs)
        problem = None
    except Exception as exc:  # noqa: BLE001 - the answer's tracing failed: the call says why
        program, problem = None, f"{name} could not be traced ({type(exc).__name__})"
    changed = restore_config(config)
    if changed:
        problem = config_message(name, changed)
    return Donation(name, dict(donate), arrays, program, problem)


def check_donated(donation: Donation, fix: str) -> None:
    """After the call :func:`donation_of` looked at: assert that its compiled program donates
    every array of the arguments named there, and, as a second opinion, that the runtime
    freed each of them (``is_deleted()``). An array deleted some other way (an answer that
    finds its inputs and ``.delete()``s them) is no donation: the program is what is read.
    ``fix`` says how to donate (``jax.jit(update, donate_argnums=0)``).

    Observes ``"<name> donates <names joined by 'and'>"``.
    """
    from autograder.kernel.reporter import observe

    names = " and ".join(donation.names.values())
    check = f"{donation.name} donates {names}"
    if donation.problem:
        observe(check, donation.problem)
        return
    if donation.program is None:
        observe(check, f"{donation.name} is not a jitted function, so no compiled program "
                f"donates {names}: donate them ({fix}), so that XLA writes the new values "
                "into their buffers.")
        return
    undonated = [donation.names[i] for i in donation.names
                 if not all(donation.program[i])]
    if undonated:
        observe(check, f"{donation.name}'s compiled program does not donate "
                f"{' and '.join(undonated)}: donation is read from the program XLA compiles "
                f"(its input/output aliasing), and arrays deleted some other way are no "
                f"donation; donate them ({fix}), so that XLA writes the new values into their "
                "buffers.")
        return
    kept = [donation.names[i] for i, leaves in donation.arrays.items()
            if not all(leaf.is_deleted() for leaf in leaves)]
    observe(check, None if not kept else (
        f"after {donation.name}, the {' and '.join(kept)} passed in still hold their memory, "
        f"although its program donates them: donate them ({fix}) and pass arrays JAX can "
        "reuse (device arrays of the same shape and dtype as the results)."))
