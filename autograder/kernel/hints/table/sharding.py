"""Meshes, shardings and ``shard_map`` (chapter 08).

Placing values on a mesh (parameters replicated with ``P()``, only the batch split), specs
that split more axes than a value has, ``Explicit`` mesh axes whose result layout JAX cannot
decide, bare ``P(...)`` outside a mesh, and ``shard_map``'s ``out_specs``. ``pmap`` is in
:mod:`.pmap`.
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
]
