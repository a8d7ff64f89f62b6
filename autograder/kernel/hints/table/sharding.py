"""Meshes, shardings and ``shard_map`` (chapter 11).

Placing values on a mesh (parameters replicated with ``P()``, only the batch split), specs
that split more axes than a value has, ``Explicit`` mesh axes whose result layout JAX cannot
decide, bare ``P(...)`` outside a mesh, ``shard_map``'s ``out_specs``, ``jax.jit``'s
``in_shardings`` of the wrong length (JAX's message says "pjit", a name the course never
teaches: the hint translates it), and a collective called by the name it has on another JAX
version (the hint names the spelling that works on the learner's JAX, read from
``jax.lax`` when the hint is shown). ``pmap`` is in :mod:`.pmap`.
"""

from __future__ import annotations

import re

from autograder.kernel.hints.matchers import Hint, all_of, any_of, kind, says, says_re

_SCALAR_SPLIT = (
    "A sharding that splits an axis, such as `P(\"data\")`, was given to a scalar (a rank-0 "
    "value, such as the bias `b`), which has no axis to split. This usually means a whole "
    "parameter dict was placed with the batch's `PartitionSpec`. Parameters are replicated, "
    "a full copy on every device: `NamedSharding(mesh, P())`; only the batch's rows get "
    "`P(\"data\")`."
)



def ambiguous_layout(exc: BaseException) -> str:
    """The hint for a result layout JAX could not decide on ``Explicit`` axes: name the layout
    the question asks for, never one layout for every question (``P()`` copies the result)."""
    summed = re.search(r"contracting_spec=\((['\"]\w+['\"])", str(exc))
    why = (f"this product sums over an axis split over {summed.group(1)}, so each device holds "
           "a partial sum, and JAX will not guess where the result lives" if summed else
           "it cannot decide where this result lives")
    return ("On mesh axes of type `Explicit` JAX works out every result's layout while it "
            f"traces; {why}. Give the layout the question asks for with `out_sharding=` on the "
            "operation: `jnp.matmul(a, b, out_sharding=P(\"data\", None))` keeps the rows "
            "split over \"data\", `out_sharding=P()` puts the whole result on every device. "
            "Or move an input first with `jax.sharding.reshard(x, P(...))`.")


def shardings_length(exc: BaseException) -> str:
    """The hint for ``in_shardings`` whose length is not the number of arguments, with the
    numbers JAX gave, and "pjit" translated."""
    counts = re.search(r"length (\d+) for an args tuple of length (\d+)", str(exc))
    got = (f": it lists {counts.group(1)} shardings for {counts.group(2)} arguments"
           if counts else "")
    return ("`jax.jit`'s `in_shardings` gives one sharding per positional argument, in "
            f"order{got} (JAX's message says \"pjit\": that is `jax.jit`'s internal name, "
            "not another function). Give every argument its entry, a value that every device "
            "holds whole (a learning rate, replicated parameters) `NamedSharding(mesh, P())`, "
            "e.g. `in_shardings=(rows, rows, rows, NamedSharding(mesh, P()))`; or leave "
            "`in_shardings` out and pass arguments already placed with `jax.device_put`.")


# A collective's name on one JAX version -> (its spelling on another, how to call it there).
RENAMED: dict[str, tuple[str, str]] = {
    "pvary": ("pcast", "jax.lax.pcast(x, axis_name, to=\"varying\")"),
    "pcast": ("pvary", "jax.lax.pvary(x, axis_name)"),
    "all_gather_invariant": ("all_gather", "jax.lax.all_gather(x, axis_name, to=\"invariant\")"),
}
_MISSING = re.compile(r"(?:module 'jax\.lax'|jax\.lax\.(\w+) was deprecated).*?"
                      r"(?:has no attribute '(\w+)'|removed)")


def missing_collective(exc: BaseException) -> str | None:
    """The ``jax.lax`` collective that ``exc`` (an ``AttributeError``) says is missing, when
    the course knows its name on another JAX version (:data:`RENAMED`); else None."""
    if not isinstance(exc, AttributeError):
        return None
    found = _MISSING.search(str(exc))
    name = found and (found.group(1) or found.group(2))
    return name if name in RENAMED else None


def renamed_collective(exc: BaseException) -> str:
    """The hint for a collective missing on this JAX: the spelling that works on it."""
    import jax

    name = missing_collective(exc) or "pvary"
    call = RENAMED[name][1]
    return (f"`jax.lax.{name}` does not exist on this JAX ({jax.__version__}): it is a name "
            f"from another JAX version (code or documentation written for it). Here write "
            f"`{call}`, which does the same. The course's notebooks say which spelling each "
            "runtime takes where they differ.")


HINTS: list[Hint] = [
    # A scalar given P("data") by device_put (JAX 0.10: a bare AssertionError "(0, P('data',))";
    # JAX 0.12: a ValueError "Length of sharding.spec (1) must be equal to aval's ndim (0)";
    # JAX 0.7 and jit's shardings: "only valid for values of rank at least 1").
    Hint("scalar-split", _SCALAR_SPLIT,
         any_of(all_of(kind("AssertionError"), says_re(r"^\(0, (P|PartitionSpec)\(")),
                says("only valid for values of rank at least 1"),
                says("must be equal to aval's ndim (0)")),
         keys=("P()",)),
    # A spec for more axes than an argument has: a scalar (a bias, a learning rate) under the
    # batch's spec, often one spec such as in_specs=P("data") applied to every argument.
    Hint("in-specs-too-long",
         "An `in_specs` entry splits more axes than its argument has, e.g. `P(\"data\")` for a "
         "scalar (a bias `b`, a learning rate): a single spec, `in_specs=P(\"data\")`, is given "
         "to every argument. Give each argument its own spec in a tuple: `P(\"data\")` for what "
         "is split by rows, `P()` for a value every device shares whole (a scalar such as the "
         "learning rate, replicated parameters), e.g. `in_specs=(P(\"data\"), P())`; or leave "
         "a setting out of the arguments and use it from the enclosing function.",
         says("in_specs entry which is too long")),
    # Explicit mesh axes: JAX could not work out a result's layout while tracing.
    Hint("sharding-type-error", ambiguous_layout,
         kind("ShardingTypeError"),
         keys=("out_sharding", "reshard")),
    Hint("bare-spec-without-mesh",
         "A bare `P(...)` names the current mesh, and none is set here. Call the code inside "
         "`with jax.set_mesh(mesh):` (jit traces it there too), or pass "
         "`NamedSharding(mesh, P(...))` instead of the bare spec.",
         any_of(says("Using PartitionSpec when you are not under a mesh context"),
                says("Please set a mesh via `jax.set_mesh` if a PartitionSpec"))),
    Hint("out-specs-replication",
         "`out_specs=P()` declares that every device returned the same value, but this value "
         "differs between devices: it was computed from a block of an input split over a mesh "
         "axis, and no `psum`/`pmean` made it equal everywhere (`all_gather`'s result still "
         "counts as differing). Return it split, `out_specs=P(\"data\")`, or combine it with a "
         "collective first.",
         says("out_specs which require replication")),
    # A jitted function's result lives on an explicit mesh, but its inputs do not (NumPy, one
    # device), so jit assigned it one device (JAX 0.7 to 0.12: "Length of device assignment 1
    # is not equal to the size of the mesh ... enter your `jit` into a mesh context").
    Hint("shard-map-mesh-context",
         "This jitted function returns a value laid out over a mesh, but none of its inputs "
         "was on that mesh (NumPy arrays, or arrays on one device), so `jit` compiled it for "
         "one device. Place values with `jax.device_put(x, NamedSharding(mesh, P(...)))` "
         "outside `jit` (placing needs no `jit`), or pass inputs already placed on the mesh, "
         "or call the function inside `with jax.set_mesh(mesh):`.",
         says("enter your `jit` into a mesh context")),
    # jit's in_shardings: one entry per positional argument (JAX names jit "pjit" here).
    Hint("in-shardings-length", shardings_length,
         says("pjit in_shardings is the wrong length"),
         keys=("in_shardings",)),
    # A collective called by its name on another JAX (pvary up to 0.9, pcast from 0.8.2).
    Hint("renamed-collective", renamed_collective,
         lambda exc: missing_collective(exc) is not None),
]
