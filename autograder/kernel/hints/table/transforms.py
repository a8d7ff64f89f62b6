"""A transformation given something other than the function it transforms (chapters 03, 08).

``jax.grad``, ``jax.jit`` and ``jax.vmap`` take a *function* and return a new one (chapter 03):
``jax.grad(f(x))`` hands them the value ``f(x)`` instead. ``jax.export.export`` takes a
function that is already jitted (chapter 08), and says so in terms of its input spec
otherwise.
"""

from __future__ import annotations

import re

from autograder.kernel.hints.matchers import Hint, says


def value_not_function(exc: BaseException) -> str:
    """The hint for a transformation applied to a value, naming the value's kind (not its
    repr, which differs between JAX versions: ``JitTracer(float32[])``, ``JitTracer<...>``)."""
    got = re.search(r"Expected a callable value, got (.{0,40})", str(exc))
    traced = got is not None and "Tracer" in got.group(1)
    what = ("a traced value (inside a jitted or transformed function)" if traced
            else "an array or a number")
    return ("A transformation was given " + what + " instead of a function. `jax.grad`, "
            "`jax.jit` and `jax.vmap` take the function itself and return a new function, "
            "which you then call: `jax.grad(loss)(w, x, y)`, not `jax.grad(loss(w, x, y))` "
            "(that calls `loss` first and hands its result over).")


HINTS: list[Hint] = [
    Hint("transformation-on-value", value_not_function,
         says("Expected a callable value, got"),
         keys=("the function itself",)),
    Hint("export-not-jitted",
         "`jax.export.export` exports a jitted function: the function given to it was not "
         "jitted. Wrap it first: `jax.export.export(jax.jit(f))(spec)`.",
         says("Function to be exported must be the result of `jit`"),
         keys=("jax.jit(f)",)),
]
