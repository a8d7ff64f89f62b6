"""Python looking at a traced value: tracing and concrete values (chapter 06).

Inside ``jit`` (and ``grad``, ``vmap``, ``lax.scan``) values are tracers, known only by their
shape and dtype: a Python ``if``/``while``/``max``, ``int(...)``, NumPy, a data-dependent
shape cannot use them. The specific hints (a ``while`` loop, ``max``/``min``, ``bincount``)
come before the general ones for the same error classes (``TracerBoolConversionError`` is a
``ConcretizationTypeError``, whose message says "Abstract tracer value encountered"). The
``if`` hint names the transformation in play (:func:`~autograder.kernel.hints.transformation`);
the hint for a traced loop count suggests what the failing chapter has taught
(:func:`~autograder.kernel.hints.where.where_of`): a static count before chapter 09, where
``lax.fori_loop`` is taught, and ``fori_loop`` from there on.
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import (
    Hint,
    all_of,
    kind,
    says,
    transformation,
    user_line_re,
)
from autograder.kernel.hints.syllabus import TAUGHT, chapter_number
from autograder.kernel.hints.where import where_of


def if_on_tracer(exc: BaseException) -> str:
    """The hint for a Python ``if`` on a traced value, worded for the transformation; before
    chapter 09 (``lax.cond``) it leads with ``jnp.where``, which chapter 06 teaches."""
    where = transformation(exc)
    if where == "vmap":
        return ("A Python `if`/`while`/`and`/`or` looked at a traced value inside vmap: there "
                "each value stands for a whole batch, so Python cannot pick one branch. Select "
                "elementwise with `jnp.where(condition, a, b)` (or `jnp.minimum`/`jnp.maximum`); "
                "`jax.lax.cond` works too, but under vmap it computes both branches.")
    chapter = chapter_number(where_of(exc).chapter)
    if chapter is not None and chapter < TAUGHT["lax.cond"]:
        return (f"A Python `if`/`while`/`and`/`or` looked at a traced value inside {where}. "
                "Select with `jnp.where(condition, a, b)` (both sides are computed, then one is "
                "picked elementwise), or branch with `jax.lax.cond`; or mark the argument static "
                "(`static_argnames`) if it is a configuration value, not data.")
    return (f"A Python `if`/`while`/`and`/`or` looked at a traced value inside {where}. Branch "
            "with `jax.lax.cond` or select with `jnp.where` (loop with `jax.lax.while_loop`); "
            "`lax.cond` runs and differentiates only the branch it picks, `jnp.where` computes "
            "both. Or mark the argument static (`static_argnames`) if it is a configuration "
            "value, not data.")


def traced_count(exc: BaseException) -> str:
    """The hint for a traced value used as a Python int: a loop count (``range(n)``), or an
    index or a shape. Before chapter 09 (``lax.fori_loop``) a loop count is made static; from
    there on the loop is written with ``fori_loop``, which takes a traced count."""
    if not user_line_re(r"\brange\(")(exc):
        return ("A traced value was used where Python needs a concrete int (an index, a range, "
                "a shape). Make the argument static with `static_argnames` when it is a "
                "setting, or keep it an array: index with it inside `jnp` operations, or loop "
                "with `lax.fori_loop`.")
    head = ("A Python loop `for ... in range(n)` needs `n` as a Python int while tracing, and "
            "here `n` is traced. ")
    chapter = chapter_number(where_of(exc).chapter)
    if chapter is not None and chapter < TAUGHT["lax.fori_loop"]:
        return head + ("A count that says how much work to do is a setting: mark it static, "
                       "`jax.jit(f, static_argnames=\"n\")` (each new count compiles once; the "
                       "name must match the parameter's). `lax.fori_loop` takes a traced count.")
    return head + ("Loop with `lax.fori_loop(0, n, body, init)`, which takes a traced count "
                   "(`body(i, carry)` returns the next carry). Mark `n` static "
                   "(`static_argnames`) only for a fixed setting: each new value compiles again, "
                   "and the loop is unrolled into the program.")


def numpy_on_tracer(exc: BaseException) -> str:
    """The hint for NumPy called on a traced value, worded for the transformation in play."""
    return (f"NumPy (`np.…`, `np.asarray`, `float(...)`) was called on a traced value inside "
            f"{transformation(exc)}: there the values are not known yet, only their shapes and "
            "dtypes. Use `jax.numpy` (`jnp.…`) for computations on traced arrays.")


_ON_TRACER = kind("TracerBoolConversionError", "ConcretizationTypeError")

HINTS: list[Hint] = [
    Hint("python-while-on-tracer",
         "A Python `while` loop tested a traced value: inside `jit` (and `grad`, `vmap`, "
         "`scan`) the loop condition is not known until the compiled program runs, so Python "
         "cannot decide whether to go round again. Write the loop with "
         "`jax.lax.while_loop(cond_fun, body_fun, init_state)`, carrying everything the loop "
         "updates (e.g. `(x, steps)`) in the state.",
         all_of(_ON_TRACER, user_line_re(r"^while\b")),
         keys=("while_loop",)),
    Hint("python-max-on-tracer",
         "Python's `max`/`min` decide with an `if` on a traced value. Use `jnp.maximum(a, b)` / "
         "`jnp.minimum(a, b)`, elementwise and traceable; to update one entry, "
         "`y = y.at[-1].max(0.0)` (the `.at[]` updates of chapter 01).",
         all_of(_ON_TRACER, user_line_re(r"(?<![\w.])(max|min)\(")),
         keys=("jnp.maximum", "jnp.minimum")),
    Hint("bincount-length",
         "`jnp.bincount` under `jit` must know its output's size: pass a static `length`, e.g. "
         "`jnp.bincount(labels, length=num_classes)` (`minlength` is only a lower bound). "
         "With `length`, labels at or above it are dropped, not counted.",
         says("of jnp.bincount")),
    Hint("python-if-on-tracer", if_on_tracer,
         kind("TracerBoolConversionError"),
         keys=("lax.cond", "jnp.where")),
    Hint("traced-index", traced_count,
         kind("TracerIntegerConversionError"),
         keys=("fori_loop", "static")),
    Hint("boolean-mask",
         "Boolean-mask indexing gives a shape that depends on the data, which jit cannot "
         "compile. Keep the shape fixed: `jnp.where(mask, x, 0)` or `jnp.sum(x, where=mask)`.",
         kind("NonConcreteBooleanIndexError")),
    Hint("numpy-on-tracer", numpy_on_tracer,
         kind("TracerArrayConversionError"),
         keys=("jax.numpy", "jnp.")),
    Hint("concrete-value",
         "Code needed a concrete (known-at-trace-time) value from a traced array: a shape, a "
         "Python `if`, `int(...)`, `float(...)`. Compute shapes from static values, keep "
         "values as arrays (`jnp` functions), or mark the argument static with "
         "`static_argnames`.",
         kind("ConcretizationTypeError")),
]
