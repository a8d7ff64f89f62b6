"""Turn JAX's typical errors into hints, and wrap test code so learners see them.

A failing check shows the learner, in this order:

1. the error's class and first line (``AssertionError: grads['b'] has the wrong shape ...``);
2. the test's own advice for this error, attached with :func:`advice` (``Hint: ...``);
3. a generic course hint for the error (``Hint: ...``), only when it adds something.

**The specific message wins.** A test's own message (an ``AssertionError`` raised by the test
or by a check in ``autograder``) is shown first, and a generic hint is added to it only when
the message does not already give that advice (:class:`Hint` ``keys``). Advice that a test
attached to an error with :func:`advice` replaces the generic hint for that error: the test
knows the situation, the generic hint only the error's type. (Exercise 03's shuffled epochs
are the example: a key reused *across epochs* needs ``fold_in``, and the generic "split the
key" advice for ``KeyReuseError`` would loop on the same error.)

Hints are matched against the exception's class, message, and where it was raised (a frame
of ``pmap``, the source line of the learner's code), so that the same mistake gets the same
hint on every JAX version the course supports even when JAX words its error differently.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType

from autograder.kernel.tracebacks import SUMMARY_CHARS, first_line  # noqa: F401 - re-exported

Matcher = Callable[[BaseException], bool]

_ADVICE = "_autograder_advice"


@dataclass(frozen=True)
class Hint:
    """A generic course hint for one kind of error.

    Attributes:
        name: a short identifier (tests refer to hints by it, see :func:`hint_name`).
        text: the advice shown to the learner.
        matches: decides whether an exception is this kind of error.
        keys: phrases that, found in a test's own message, mean that the message already gives
            this advice (the hint is then left out as noise).
    """

    name: str
    text: str | Callable[[BaseException], str]
    matches: Matcher
    keys: tuple[str, ...] = ()

    def say(self, exc: BaseException) -> str:
        """The advice for ``exc`` (a hint may word it after the transformation in play)."""
        return self.text(exc) if callable(self.text) else self.text


# --- matchers ---------------------------------------------------------------------------------


def _kind(*names: str) -> Matcher:
    """The exception's class (or one of its bases) has one of these names."""
    return lambda exc: any(cls.__name__ in names for cls in type(exc).__mro__)


def _says(*fragments: str) -> Matcher:
    """The exception's message contains one of these fragments."""
    return lambda exc: any(fragment in str(exc) for fragment in fragments)


def _says_re(pattern: str) -> Matcher:
    """The exception's message matches this regular expression."""
    compiled = re.compile(pattern)
    return lambda exc: compiled.search(str(exc)) is not None


def _all(*matchers: Matcher) -> Matcher:
    return lambda exc: all(m(exc) for m in matchers)


def _any(*matchers: Matcher) -> Matcher:
    return lambda exc: any(m(exc) for m in matchers)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from or during (JAX re-raises with a cause)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _frames(exc: BaseException) -> Iterator[tuple[str, str, int]]:
    """(file name, function name, line number) of every frame of ``exc``'s tracebacks."""
    for link in _chain(exc):
        tb: TracebackType | None = link.__traceback__
        for frame, lineno in traceback.walk_tb(tb):
            yield frame.f_code.co_filename, frame.f_code.co_name, lineno


def _library_dirs() -> tuple[str, ...]:
    """Folders of JAX and jaxlib (their frames are not the learner's or the course's code)."""
    dirs = []
    for name in ("jax", "jaxlib"):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            dirs.append(os.path.dirname(path) + os.sep)
    return tuple(dirs)


def _raised_by_library(exc: BaseException) -> bool:
    """True when the innermost frame of ``exc`` is inside JAX or jaxlib."""
    frames = list(traceback.walk_tb(exc.__traceback__))
    if not frames:
        return False
    return frames[-1][0].f_code.co_filename.startswith(_library_dirs())


def _raised_in(*parts: str) -> Matcher:
    """A frame of JAX's own code (file or function name) contains one of ``parts``.

    For example ``_raised_in("pmap")``: the error came from inside ``jax.pmap``. Only JAX's
    frames count, so a learner's cell or file named after ``pmap`` does not.
    """
    def match(exc: BaseException) -> bool:
        library = _library_dirs()
        return any(part in os.path.basename(filename) or part in function
                   for filename, function, _ in _frames(exc) if filename.startswith(library)
                   for part in parts)
    return match


def _user_line(exc: BaseException) -> str:
    """The source line of the innermost frame outside the installed libraries, Python's own
    and this package (:func:`autograder.kernel.tracebacks.is_library_file`).

    That is the learner's code that raised (or called into JAX). Empty when the source is not
    available (IPython and the exercise harness register cells in ``linecache``).
    """
    import linecache

    from autograder.kernel.tracebacks import is_library_file

    frames = list(traceback.walk_tb(exc.__traceback__))
    for frame, lineno in reversed(frames):
        if not is_library_file(frame.f_code.co_filename):
            return linecache.getline(frame.f_code.co_filename, lineno, frame.f_globals).strip()
    return ""


def _user_line_re(pattern: str) -> Matcher:
    compiled = re.compile(pattern)
    return lambda exc: compiled.search(_user_line(exc)) is not None


def transformation(exc: BaseException) -> str:
    """The JAX transformation that was tracing when ``exc`` was raised, from what JAX says:
    ``"vmap"``, ``"grad"``, ``"jit"``, ``"scan"``... (``"jit"`` when JAX does not say).

    Args:
        exc: a tracer error (``TracerBoolConversionError``, ``ConcretizationTypeError``...).
    """
    text = "\n".join(str(link) for link in _chain(exc))
    found = re.search(r"while tracing the function .*? for (\w+)", text)
    if found:
        return found.group(1)
    if re.search(r"\b(BatchTracer|VmapTracer)\b", text):  # VmapTracer from JAX 0.12
        return "vmap"
    if re.search(r"\b(JVPTracer|LinearizeTracer|JaxprTracer.*grad)", text):
        return "grad"
    return "jit"


def _if_on_tracer(exc: BaseException) -> str:
    """The hint for a Python ``if`` on a traced value, worded for the transformation."""
    where = transformation(exc)
    if where == "vmap":
        return ("A Python `if`/`while`/`and`/`or` looked at a traced value inside vmap: there "
                "each value stands for a whole batch, so Python cannot pick one branch. Select "
                "elementwise with `jnp.where(condition, a, b)` (or `jnp.minimum`/`jnp.maximum`); "
                "`jax.lax.cond` works too, but under vmap it computes both branches.")
    return (f"A Python `if`/`while`/`and`/`or` looked at a traced value inside {where}. Branch "
            "with `jax.lax.cond` or select with `jnp.where` (loop with `jax.lax.while_loop`); "
            "or mark the argument static (`static_argnames`) if it is a configuration value, "
            "not data. (`lax.cond` and `while_loop` are taught in chapter 06.)")


# --- the hints --------------------------------------------------------------------------------

_PMAP_SHARED = (
    "`pmap` split a value over the devices that has no device axis: with `in_axes=0` (the "
    "default) every argument's leading axis is divided among the devices, and a scalar (such "
    "as the bias `b`, or a Python float like a learning rate or scale) has no axis to divide. "
    "Parameters and settings are shared, not split: give them `None` in `in_axes`, e.g. "
    "`jax.pmap(step, axis_name=..., in_axes=(None, 0, 0, None))`."
)

_SCALAR_SPLIT = (
    "A sharding that splits an axis, such as `P(\"data\")`, was given to a scalar (a rank-0 "
    "value, such as the bias `b`), which has no axis to split. This usually means a whole "
    "parameter dict was placed with the batch's `PartitionSpec`. Parameters are replicated, "
    "a full copy on every device: `NamedSharding(mesh, P())`; only the batch's rows get "
    "`P(\"data\")`."
)

_HINTS: list[Hint] = [
    Hint("not-attempted",
         "Not attempted yet: replace `raise NotImplementedError()` with your answer, then run "
         "this cell again.",
         _kind("NotImplementedError")),
    # A test's own message that reports NaN in a gradient.
    Hint("nan-gradient-where",
         "A NaN gradient where the function's value is fine usually comes from `jnp.where`: "
         "`jax.grad` differentiates both branches, and a NaN or inf in the branch that is not "
         "selected still poisons the gradient (0 * inf = NaN). Use the double-where trick: "
         "first make the unsafe branch's input safe, e.g. `safe_x = jnp.where(x > 0, x, 1.0)`, "
         "then `jnp.where(x > 0, jnp.sqrt(safe_x), other)`; or branch with `lax.cond` / "
         "`lax.switch`, which differentiate only the selected branch.",
         _all(_kind("AssertionError"), _says("NaN"), _says_re(r"(?i)grad")),
         keys=("double-where", "double where")),
    Hint("python-while-on-tracer",
         "A Python `while` loop tested a traced value: inside `jit` (and `grad`, `vmap`, "
         "`scan`) the loop condition is not known until the compiled program runs, so Python "
         "cannot decide whether to go round again. Write the loop with "
         "`jax.lax.while_loop(cond_fun, body_fun, init_state)`, carrying everything the loop "
         "updates (e.g. `(x, steps)`) in the state.",
         _all(_kind("TracerBoolConversionError", "ConcretizationTypeError"),
              _user_line_re(r"^while\b")),
         keys=("while_loop",)),
    Hint("python-max-on-tracer",
         "Python's `max`/`min` decide with an `if` on a traced value. Use `jnp.maximum(a, b)` / "
         "`jnp.minimum(a, b)`, elementwise and traceable; to update one entry, "
         "`y = y.at[-1].max(0.0)` (the `.at[]` updates of chapter 01).",
         _all(_kind("TracerBoolConversionError", "ConcretizationTypeError"),
              _user_line_re(r"(?<![\w.])(max|min)\(")),
         keys=("jnp.maximum", "jnp.minimum")),
    Hint("bincount-length",
         "`jnp.bincount` under `jit` must know its output's size: pass a static `length`, e.g. "
         "`jnp.bincount(labels, length=num_classes)` (`minlength` is only a lower bound). "
         "With `length`, labels at or above it are dropped, not counted.",
         _says("of jnp.bincount")),
    Hint("python-if-on-tracer", lambda exc: _if_on_tracer(exc),
         _kind("TracerBoolConversionError"),
         keys=("lax.cond", "jnp.where")),
    Hint("traced-index",
         "A traced value was used where Python needs a concrete int (an index, a range, a "
         "shape). Use `jax.lax.dynamic_slice`, `lax.fori_loop`, or make the argument static.",
         _kind("TracerIntegerConversionError"),
         keys=("fori_loop", "static")),
    Hint("boolean-mask",
         "Boolean-mask indexing gives a shape that depends on the data, which jit cannot "
         "compile. Keep the shape fixed: `jnp.where(mask, x, 0)` or `jnp.sum(x, where=mask)`.",
         _kind("NonConcreteBooleanIndexError")),
    Hint("numpy-on-tracer",
         "NumPy (`np.…`, `np.asarray`, `float(...)`) was called on a traced value: inside "
         "`jit`, `grad`, `vmap` or `lax.scan` the values are not known yet, only their shapes "
         "and dtypes. Use `jax.numpy` (`jnp.…`) for computations on traced arrays.",
         _kind("TracerArrayConversionError"),
         keys=("jax.numpy", "jnp.")),
    Hint("concrete-value",
         "Code needed a concrete (known-at-trace-time) value from a traced array: a shape, a "
         "Python `if`, `int(...)`, `float(...)`. Compute shapes from static values, keep "
         "values as arrays (`jnp` functions), or mark the argument static with "
         "`static_argnames`.",
         _kind("ConcretizationTypeError")),
    Hint("escaped-tracer",
         "A tracer escaped its transformation, usually by being stored in a global or a list "
         "outside the function. Return values instead of saving them on the side.",
         _kind("UnexpectedTracerError")),
    Hint("key-reuse",
         "A PRNG key was used twice: passed to two draws, or drawn from after it was split. "
         "Split it first, `key, subkey = jax.random.split(key)`, draw only with the new keys, "
         "and use each key once.",
         _kind("KeyReuseError"),
         keys=("jax.random.split", "fold_in")),
    Hint("in-place-update",
         "JAX arrays are immutable. Instead of `x[i] = v`, write `x = x.at[i].set(v)` (or "
         "`.add`, `.mul`, `.min`, `.max`).",
         _says("in-place item assignment"),
         keys=(".at[",)),
    Hint("grad-non-scalar",
         "`jax.grad` needs a function that returns one number. Reduce the output (e.g. "
         "`.sum()` or a mean) or use `jax.jacrev`/`jax.vmap(jax.grad(...))`; if the function "
         "returns a pair `(loss, extras)`, pass `has_aux=True`.",
         _says("Gradient only defined for scalar-output functions")),
    Hint("grad-int-input",
         "`jax.grad` differentiates with respect to float inputs; pass floats (e.g. `2.0`, "
         "not `2`; `jnp.arange(n, dtype=jnp.float32)`) or differentiate with respect to "
         "another argument (`argnums`).",
         _says("grad requires real- or complex-valued inputs")),
    Hint("argnums-one-based",
         "`argnums` counts the function's positional arguments from 0: the first argument is "
         "`argnums=0`, so `argnums=(0, 1)` differentiates with respect to the first two. An "
         "`argnums` past the last argument asks for an argument the call does not pass.",
         _says_re(r"differentiating with respect to argnums=.* requires at least \d+ positional"),
         keys=("counts from 0", "from 0")),
    Hint("grad-static-argnums",
         "`jax.grad` has no `static_argnums`: choose the arguments to differentiate with "
         "`argnums` (e.g. `argnums=(0, 2)` returns the pair of gradients); the other arguments "
         "are simply not differentiated, integer data included.",
         _says("unexpected keyword argument 'static_argnums'")),
    Hint("grad-while-loop",
         "Reverse-mode `jax.grad` cannot go through `lax.while_loop` (or a `fori_loop` whose "
         "bounds are traced): the number of steps is unknown when the backward pass is built. "
         "Use `lax.scan`, whose length is fixed, for a loop you differentiate.",
         _says("Reverse-mode differentiation does not work for lax.while_loop")),
    Hint("string-traced",
         "A string (or another non-array value) was passed to a jitted function as an "
         "ordinary argument, and `jit` can only trace arrays. Mark configuration arguments "
         "static: `jax.jit(f, static_argnames=\"mode\")` (the name must match the parameter's "
         "name, and then both `f(x, \"l2\")` and `f(x, mode=\"l2\")` work).",
         _says("as an abstract array"),
         keys=("static_argnames",)),
    Hint("unhashable-static",
         "An array (or a traced value) was passed as a static argument. Static arguments must "
         "be hashable Python values fixed at trace time (strings, ints, tuples), and each new "
         "value compiles a new program. Data that changes (thresholds, learning rates, step "
         "counts) should be ordinary traced arguments: leave it out of `static_argnames`, and "
         "loop with `lax.fori_loop` when a count is traced.",
         _says("Non-hashable static arguments are not supported")),
    Hint("python-number",
         "A plain Python number reached code that expects an array (`.astype`, `.shape`, "
         "`.at`, indexing). The tests pass Python floats where the question allows them: "
         "convert first with `jnp.asarray(a)`, or use `jnp` functions, which accept numbers.",
         _says_re(r"'(float|int)' object (has no attribute|is not subscriptable)")),
    Hint("pytree-arithmetic",
         "Arithmetic was applied to a Python list, tuple or dict (a pytree node), not to an "
         "array. Apply the operation to every array in the structure with "
         "`jax.tree.map(lambda p, g: ..., params, grads)`.",
         _any(_says("can't multiply sequence by non-int"),
              _says_re(r"(unsupported operand type\(s\) for|bad operand type for unary) "
                       r".*'(list|tuple|dict)'"))),
    Hint("switch-index",
         "`lax.switch` picks a branch by an integer index, not a boolean: build the index as "
         "an integer, e.g. `(x >= 0).astype(jnp.int32) + (x >= 4).astype(jnp.int32)`.",
         _says("Index type must be an integer, got")),
    # pmap with shared values mapped over the devices (JAX 0.10: IndexError from inside pmap;
    # JAX 0.7: ValueError that names the rank; a pjit rank error for Python scalars).
    Hint("pmap-shared-mapped", _PMAP_SHARED,
         _any(_says("pmap was requested to map its argument along axis"),
              _all(_kind("IndexError"), _says("tuple index out of range"),
                   _any(_raised_in("pmap", "_mapped_axis_size"), _user_line_re(r"\bpmap\("))),
              _all(_says("only valid for values of rank at least 1"),
                   _any(_raised_in("pmap"), _user_line_re(r"\bpmap\(")))),
         keys=("in_axes",)),
    # A scalar given P("data") by device_put (JAX 0.10: a bare AssertionError "(0, P('data',))";
    # JAX 0.12: a ValueError "Length of sharding.spec (1) must be equal to aval's ndim (0)";
    # JAX 0.7 and jit's shardings: "only valid for values of rank at least 1").
    Hint("scalar-split", _SCALAR_SPLIT,
         _any(_all(_kind("AssertionError"), _says_re(r"^\(0, (P|PartitionSpec)\(")),
              _says("only valid for values of rank at least 1"),
              _says("must be equal to aval's ndim (0)")),
         keys=("P()",)),
    Hint("in-specs-too-long",
         "An `in_specs` entry splits more axes than its argument has, e.g. `P(\"data\")` for a "
         "scalar such as the bias `b`: the parameters were given the batch's spec. Give the "
         "parameters `P()` (replicated, every device gets all of them) and the batch "
         "`P(\"data\")`: `in_specs=(P(), P(\"data\"), P(\"data\"))`.",
         _says("in_specs entry which is too long")),
    Hint("pmap-sizes",
         "The mapped axes of `pmap`'s arguments have different sizes, or do not match the "
         "number of devices: parameters and settings shared by every device get `None` in "
         "`in_axes`, and only the data is split (leading axis = number of devices).",
         _any(_says("pmap got inconsistent sizes"),
              _all(_kind("IndivisibleError"), _raised_in("pmap")))),
    Hint("vmap-scalar-mapped",
         "`vmap` was asked to map a value that has no axis there (a scalar, often a parameter "
         "such as the bias): use `None` in `in_axes` for arguments that every example shares, "
         "e.g. `jax.vmap(f, in_axes=(None, 0))(params, xs)`.",
         _says("vmap was requested to map its argument along axis")),
    Hint("unbound-axis",
         "A collective (psum, pmean, ...) names an axis that no enclosing pmap/shard_map/vmap "
         "declared: pass `axis_name=` to `jax.pmap`, or use the mesh's axis name.",
         _says("unbound axis name")),
    Hint("abstract-tracer",
         "A traced value was used where a concrete one is needed; see `static_argnames`.",
         _says("Abstract tracer value encountered")),
    Hint("incompatible-shapes",
         "Two arrays' shapes do not broadcast. Check each argument's shape, and `in_axes` if "
         "this runs under `vmap`.",
         _says("incompatible shapes")),
    Hint("vmap-sizes",
         "The mapped axes of `vmap`'s arguments have different sizes: check `in_axes`, and "
         "use `None` for arguments that are shared rather than batched.",
         _says("vmap got inconsistent sizes")),
    Hint("contracting-dims",
         "A matrix product got operands whose inner dimensions differ. Check the shapes; under "
         "`vmap`, each mapped argument loses its batch axis inside the function, so check "
         "`in_axes` (which axis of each argument is the batch?).",
         _says("requires contracting dimensions to have the same shape")),
    # Explicit mesh axes: JAX could not work out a result's layout while tracing.
    Hint("sharding-type-error",
         "On mesh axes of type `Explicit` JAX works out every result's layout while it traces, "
         "and here it cannot decide, usually because an operation contracts or sums an axis "
         "that is split over the mesh. Say which layout you want: `out_sharding=` on the "
         "operation (`jnp.matmul(a, b, out_sharding=P())` for a result replicated on every "
         "device), or move an input first with `jax.sharding.reshard(x, P(...))`.",
         _kind("ShardingTypeError"),
         keys=("out_sharding", "reshard")),
    Hint("bare-spec-without-mesh",
         "A bare `P(...)` names the current mesh, and none is set here. Call the code inside "
         "`with jax.set_mesh(mesh):` (jit traces it there too), or pass "
         "`NamedSharding(mesh, P(...))` instead of the bare spec.",
         _any(_says("Using PartitionSpec when you are not under a mesh context"),
              _says("Please set a mesh via `jax.set_mesh` if a PartitionSpec"))),
    Hint("out-specs-replication",
         "`out_specs=P()` declares that every device returned the same value, but this value "
         "differs between devices: it was computed from a block of an input split over a mesh "
         "axis, and no `psum`/`pmean` made it equal everywhere (`all_gather`'s result still "
         "counts as differing). Return it split, `out_specs=P(\"data\")`, or combine it with a "
         "collective first.",
         _says("out_specs which require replication")),
    Hint("shard-map-mesh-context",
         "Wrap the step in `jax.jit` (or set the mesh with `jax.set_mesh`) before taking "
         "gradients through `shard_map`.",
         _says("enter your `jit` into a mesh context")),
]


def _match(exc: BaseException) -> Hint | None:
    for hint in _HINTS:
        try:
            if hint.matches(exc):
                return hint
        except Exception:  # noqa: BLE001 - a matcher must never hide the learner's error
            continue
    return None


def hint_for(exc: BaseException) -> str | None:
    """The generic course hint for an error, or None when there is nothing specific to say.

    Args:
        exc: the exception a check or the learner's code raised.
    """
    hint = _match(exc)
    return hint.say(exc) if hint else None


def hint_name(exc: BaseException) -> str | None:
    """The :class:`Hint` ``name`` matching ``exc`` (None when no hint matches).

    Args:
        exc: the exception a check or the learner's code raised.
    """
    hint = _match(exc)
    return hint.name if hint else None


# --- a test's own advice ----------------------------------------------------------------------


def attach_advice(exc: BaseException, text: str) -> None:
    """Record a test's own advice on ``exc``; :func:`feedback` shows it before any generic hint.

    Args:
        exc: the exception to annotate.
        text: the advice, a sentence or two.
    """
    existing = list(getattr(exc, _ADVICE, ()))
    if text not in existing:
        existing.append(text)
    try:
        setattr(exc, _ADVICE, tuple(existing))
    except AttributeError:  # an exception type without a __dict__: show the advice as a note
        exc.add_note(f"Hint: {text}")


@contextlib.contextmanager
def advice(text: str, *, on: type[BaseException] | tuple[type[BaseException], ...] = Exception,
           match: str | None = None) -> Iterator[None]:
    """Attach the test's own advice to an error of type ``on`` raised inside the block.

    Use it where a check can fail with JAX's generic error but the test knows what the mistake
    must be::

        with advice("Every epoch used the same key: derive the epoch's key with "
                    "jax.random.fold_in(key, epoch).", on=jax.errors.KeyReuseError):
            check_no_key_reuse(several_epochs, key, [0, 1], 10, 3)

    The advice replaces the generic hint for that error (see the module docstring). Errors of
    other types, or whose message lacks ``match``, pass through untouched.

    Args:
        text: the advice to show.
        on: the exception type(s) it applies to.
        match: when given, only errors whose message contains this text get the advice.
    """
    try:
        yield
    except on as exc:
        if match is None or match in str(exc):
            attach_advice(exc, text)
        raise


# --- the case a check covers -------------------------------------------------------------------

_CASE = "_autograder_case"


def case_of(exc: BaseException) -> str | None:
    """The description of the test case ``exc`` was raised in (see :func:`case`), or None."""
    found = getattr(exc, _CASE, None)
    return found if isinstance(found, str) else None


@contextlib.contextmanager
def case(description: str) -> Iterator[None]:
    """Name the case the checks inside the block cover, in words that reveal no input or
    expected value: every hidden test is written as one::

        with feedback("Question 6 (hidden tests)"):
            with case("an example whose gradient is all zeros"):
                q6_case(4, n=4, d=2, max_norm=0.5, zero_first=True)

    Each check made inside records the description (the grader's verdict names it when the
    check fails, :func:`autograder.core.decide.decide`), and an error raised inside (the
    learner's code failing on that case) carries it, so :func:`feedback` says which case
    failed.

    Args:
        description: the case in a few words, e.g. ``"an empty batch"``.
    """
    from autograder.kernel.reporter import current_case

    with current_case(description):
        try:
            yield
        except Exception as exc:
            if case_of(exc) is None:
                with contextlib.suppress(AttributeError):
                    setattr(exc, _CASE, description)
            raise


# --- what the learner sees --------------------------------------------------------------------


@dataclass(frozen=True)
class Explanation:
    """What :func:`feedback` says about one failure.

    Attributes:
        error: ``"ClassName: first line of the message"``.
        own: True when the course wrote the message (an ``AssertionError`` raised by a test or
            by a check in ``autograder``, not by JAX).
        advice: the test's own advice attached with :func:`advice`, innermost first.
        hint: the generic course hint, when one matches and adds something (None otherwise).
    """

    error: str
    own: bool
    advice: tuple[str, ...]
    hint: str | None
    case: str | None = None

    @property
    def hints(self) -> list[str]:
        """The ``Hint: ...`` lines, the test's own advice first."""
        return [f"Hint: {text}" for text in (*self.advice, *([self.hint] if self.hint else []))]

    @property
    def message(self) -> str:
        """The course's words about this failure, the same on every supported JAX version.

        A test's own message is kept; JAX's error text (which can change between JAX
        versions) is replaced by the advice or hint that explains it, and kept only when the
        course has nothing to say about the error.
        """
        lines = self.hints
        if self.own or not lines:
            lines = [self.error, *lines]
        if self.case_line:
            lines = [self.case_line, *lines]
        return "\n".join(lines)

    @property
    def case_line(self) -> str | None:
        """``Case: ...``: the test case that failed, when the error's text does not name it."""
        if self.case is None or self.case in self.error:
            return None
        return f"Case: {self.case}."


def explain(exc: BaseException) -> Explanation:
    """Decide what to show for ``exc``: its first line, the test's advice, a generic hint.

    The generic hint is dropped when the test attached its own advice, and when the test's own
    message (an ``AssertionError`` written by the course) already contains one of the hint's
    ``keys``.

    Args:
        exc: the exception raised inside a :func:`feedback` block.
    """
    own = isinstance(exc, AssertionError) and not _raised_by_library(exc)
    attached = tuple(getattr(exc, _ADVICE, ()))
    hint = None
    if not attached:
        found = _match(exc)
        if found is not None:
            text = str(exc).lower()
            redundant = own and any(key.lower() in text for key in found.keys)
            hint = None if redundant else found.say(exc)
    return Explanation(first_line(exc), own, attached, hint, case_of(exc))


def _caller_file() -> str | None:
    """The code name of the cell that entered :func:`feedback` (the test cell), skipping the
    frames of ``contextlib`` and of this module."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename in (__file__, contextlib.__file__):
        frame = frame.f_back
    return frame.f_code.co_filename if frame is not None else None


@contextlib.contextmanager
def feedback(question: str) -> Iterator[None]:
    """Run a question's checks; on success print a pass line, on failure say what and why.

    When grading, the checks only publish what they saw and the grader decides
    (:mod:`autograder.kernel.reporter`): no pass line is printed then, the verdict being the
    grader's.

    Used in every test cell::

        with feedback("Q2 (jit a loss)"):
            check_array(loss(params, x, y), 0.25, name="loss(params, x, y)")

    The checks run with JAX's default settings: a setting an earlier cell changed that would
    change what they measure (``jax_disable_jit``, x64, debug flags; see
    :func:`autograder.kernel.jax_checks.restore_default_config`) is put back first, and a line
    says so.
    Their matrix products run at full float32 precision (``jax.default_matmul_precision``):
    on GPUs and TPUs the default is lower (TF32, bfloat16 passes), and a correct answer that
    batches its products differently from the reference would then differ by about 1e-3 from
    the expected values, which were recorded on a CPU.
    On failure it prints ``Question: not yet. Error: summary``, the test case that failed (when
    the check was made inside :func:`case`), then the test's own advice and a generic hint when
    one adds something (see :func:`explain`). The exception still propagates (nbgrader counts
    the cell as failed) and carries the same lines as notes, for a full traceback. In IPython
    it is shown short: the test cell's frames and the course's are left out, only the
    learner's own frames and the summary stay
    (:func:`autograder.kernel.tracebacks.failure_lines`); ``%tb`` shows everything.
    ``NotImplementedError`` from an untouched stub is reported as not attempted.

    Args:
        question: how to name the question in the printed lines, e.g. ``"Question 2"``.
    """
    import jax

    from autograder.kernel.jax_checks import restore_default_config
    from autograder.kernel.tracebacks import ensure_short_tracebacks, mark_course_code

    ensure_short_tracebacks()
    caller = _caller_file()
    changed = restore_default_config()
    if changed:
        print(f"{question}: the tests run with JAX's defaults, so they set "
              f"{', '.join(changed)} back.")
    try:
        with jax.default_matmul_precision("float32"):
            yield
    except NotImplementedError as exc:
        print(f"{question}: not attempted yet.")
        print(f"Hint: {hint_for(exc)}")
        exc.add_note(f"Hint: {hint_for(exc)}")
        if caller:
            mark_course_code(exc, caller)
        raise
    except Exception as exc:
        said = explain(exc)
        print(f"{question}: not yet. {said.error}")
        for line in filter(None, [said.case_line, *said.hints]):
            print(line)
            exc.add_note(line)  # under a full traceback (%tb, full_tracebacks()) too
        if caller:
            mark_course_code(exc, caller)
        raise
    else:
        from autograder.kernel.reporter import publishing

        if not publishing():  # when grading, the verdict is the grader's, not the kernel's
            print(f"{question}: passed.")
