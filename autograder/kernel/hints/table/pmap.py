"""``pmap`` and its collectives: what is split over the devices (chapter 12, Question 2).

``pmap`` splits every argument's leading axis over the devices unless ``in_axes`` says
``None``: shared parameters and settings mapped by mistake, mapped axes that do not match the
devices, and a collective naming an axis nothing declared (under ``pmap`` or ``shard_map``:
the old ``pmap`` axis name kept in code ported to a mesh). Shardings and ``shard_map`` are in
:mod:`.sharding`; this group comes first because a scalar mapped by ``pmap`` can raise the
error that :mod:`.sharding`'s ``scalar-split`` matches too.
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import (
    Hint,
    all_of,
    any_of,
    axis_named,
    collective_on_line,
    kind,
    mesh_axis_names,
    raised_in,
    says,
    unknown_axis_name,
    user_line_re,
)

_PMAP_SHARED = (
    "`pmap` split a value over the devices that has no device axis: with `in_axes=0` (the "
    "default) every argument's leading axis is divided among the devices, and a scalar (such "
    "as the bias `b`, or a Python float like a learning rate or scale) has no axis to divide. "
    "Parameters and settings shared by every device are not split: give them `None` in "
    "`in_axes`, e.g. `jax.pmap(step, axis_name=..., in_axes=(None, 0, 0, None))` for shared "
    "parameters, a batch `x`, `y` and a learning rate (parameters split over the devices, as "
    "in FSDP, keep `0`)."
)



def unknown_axis(exc: BaseException) -> str:
    """The hint for a collective naming an axis nothing declared, with the names it could use."""
    collective = collective_on_line(exc) or "psum"
    name = axis_named(exc)
    asked = f"the axis {name!r}" if name else "an axis"
    names = mesh_axis_names(exc)
    if names:
        use = " or ".join(repr(n) for n in names)
        call = f"jax.lax.{collective}(..., {names[0]!r})"
        return (f"`{collective}` names {asked}, and the mesh's axes are {use}: inside "
                "`jax.shard_map` a collective names an axis of the mesh, e.g. `" + call + "`. "
                "Code ported from `pmap` must use the mesh's name, not the `axis_name=` it "
                "gave `pmap`.")
    return (f"`{collective}` names {asked} that nothing around it declares. Inside "
            "`jax.shard_map` a collective names an axis of the mesh (one of the names the mesh "
            "was made with, such as \"data\"), and under `jax.pmap` the `axis_name=` it was "
            "given: code ported from `pmap` must use the mesh's name.")


HINTS: list[Hint] = [
    # pmap with shared values mapped over the devices (JAX 0.10: IndexError from inside pmap;
    # JAX 0.7: ValueError that names the rank; a pjit rank error for Python scalars; JAX 0.10
    # and 0.12 under jit, where pmap is a shard_map: its "in_specs entry which is too long",
    # which :mod:`.sharding`'s in-specs-too-long matches too).
    Hint("pmap-shared-mapped", _PMAP_SHARED,
         any_of(says("pmap was requested to map its argument along axis"),
                all_of(says("in_specs entry which is too long"),
                       any_of(raised_in("pmap"), user_line_re(r"\bpmap\("))),
                all_of(kind("IndexError"), says("tuple index out of range"),
                       any_of(raised_in("pmap", "_mapped_axis_size"),
                              user_line_re(r"\bpmap\("))),
                all_of(says("only valid for values of rank at least 1"),
                       any_of(raised_in("pmap"), user_line_re(r"\bpmap\(")))),
         keys=("in_axes",)),
    # Mapped axes that differ or do not match the devices (JAX 0.7: "pmap got inconsistent
    # sizes"; JAX 0.10 and 0.12, where pmap is a shard_map: an IndivisibleError, or under jit
    # each device's block of more than one slice failing pmap's squeeze of its device axis).
    Hint("pmap-sizes",
         "The mapped axes of `pmap`'s arguments have different sizes, or do not match the "
         "number of devices: `pmap` gives each device one slice of every mapped argument's "
         "leading axis, so that axis must be exactly the number of devices. Reshape what is "
         "split, e.g. `w.reshape(n_devices, -1)`, `x.reshape(n_devices, -1, d)`, and give "
         "values every device shares whole (parameters, settings) `None` in `in_axes`.",
         any_of(says("pmap got inconsistent sizes"),
                all_of(kind("IndivisibleError"), raised_in("pmap")),
                all_of(says("cannot select an axis to squeeze out"),
                       any_of(raised_in("pmap"), user_line_re(r"\bpmap\("))))),
    # JAX 0.10 to 0.12 raise an empty AssertionError, and 0.7 a bare KeyError: 'i', when a
    # collective inside shard_map names an axis its mesh lacks: the hint is all there is to read.
    Hint("unbound-axis", unknown_axis, unknown_axis_name, keys=("axis name",)),
]
