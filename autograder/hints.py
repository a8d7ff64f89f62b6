"""Turn JAX's typical errors into hints, and wrap test code so learners see them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

# Matched against the exception's class name, then its message; first match wins.
_HINTS: list[tuple[str, str]] = [
    ("TracerBoolConversionError",
     "A Python `if`/`while`/`and`/`or` looked at a traced value inside jit. Branch with "
     "`jax.lax.cond` or select with `jnp.where`; or mark the argument static "
     "(`static_argnames`) if it is a configuration value, not data."),
    ("TracerIntegerConversionError",
     "A traced value was used where Python needs a concrete int (an index, a range, a shape). "
     "Use `jax.lax.dynamic_slice`, `lax.fori_loop`, or make the argument static."),
    ("NonConcreteBooleanIndexError",
     "Boolean-mask indexing gives a shape that depends on the data, which jit cannot compile. "
     "Keep the shape fixed: `jnp.where(mask, x, 0)` or `jnp.sum(x, where=mask)`."),
    ("ConcretizationTypeError",
     "Code needed a concrete (known-at-trace-time) value from a traced array: a shape, a "
     "Python `if`, `int(...)`. Compute shapes from static values, or mark the argument "
     "static with `static_argnames`."),
    ("UnexpectedTracerError",
     "A tracer escaped its transformation, usually by being stored in a global or a list "
     "outside the function. Return values instead of saving them on the side."),
    ("KeyReuseError",
     "A PRNG key was used twice. Split it first: `key, subkey = jax.random.split(key)`, and "
     "use each key once."),
    ("in-place item assignment",
     "JAX arrays are immutable. Instead of `x[i] = v`, write `x = x.at[i].set(v)` (or "
     "`.add`, `.mul`, `.min`, `.max`)."),
    ("Gradient only defined for scalar-output functions",
     "`jax.grad` needs a function that returns one number. Reduce the output (e.g. `.sum()` "
     "or a mean) or use `jax.jacrev`/`jax.vmap(jax.grad(...))`."),
    ("grad requires real- or complex-valued inputs",
     "`jax.grad` differentiates with respect to float inputs; pass floats (e.g. `2.0`, not "
     "`2`) or differentiate with respect to another argument (`argnums`)."),
    ("Abstract tracer value encountered",
     "A traced value was used where a concrete one is needed; see `static_argnames`."),
    ("incompatible shapes",
     "Two arrays' shapes do not broadcast. Check each argument's shape, and `in_axes` if "
     "this runs under `vmap`."),
    ("vmap got inconsistent sizes",
     "The mapped axes of `vmap`'s arguments have different sizes: check `in_axes`, and use "
     "`None` for arguments that are shared rather than batched."),
    ("unbound axis name",
     "A collective (psum, pmean, ...) names an axis that no enclosing pmap/shard_map/vmap "
     "declared: pass `axis_name=` to `jax.pmap`, or use the mesh's axis name."),
    ("enter your `jit` into a mesh context",
     "Wrap the step in `jax.jit` (or set the mesh with `jax.set_mesh`) before taking "
     "gradients through `shard_map`."),
    ("NotImplementedError", "Not attempted yet: replace `raise NotImplementedError()` with "
     "your answer, then run this cell again."),
]


def hint_for(exc: BaseException) -> str | None:
    """A one-paragraph hint for a JAX error, or None when there is nothing specific to say."""
    kinds = [cls.__name__ for cls in type(exc).__mro__]
    text = str(exc)
    for needle, hint in _HINTS:
        if needle in kinds or needle in text:
            return hint
    return None


@contextlib.contextmanager
def feedback(question: str) -> Iterator[None]:
    """Run a question's checks; on success print a pass line, on failure add a hint.

    Used in every test cell::

        with feedback("Q2 (jit a loss)"):
            check_array(loss(params, x, y), 0.25, name="loss(params, x, y)")

    The exception still propagates (nbgrader counts the cell as failed) but carries a note
    with the hint, which IPython shows under the traceback. ``NotImplementedError`` from an
    untouched stub is reported as not attempted.
    """
    try:
        yield
    except NotImplementedError as exc:
        print(f"{question}: not attempted yet.")
        exc.add_note(hint_for(exc) or "")
        raise
    except Exception as exc:
        first_line = str(exc).splitlines()[0] if str(exc) else ""
        print(f"{question}: not yet. {type(exc).__name__}: {first_line}")
        hint = hint_for(exc)
        if hint:
            print(f"Hint: {hint}")
            exc.add_note(f"Hint: {hint}")
        raise
    else:
        print(f"{question}: passed.")
