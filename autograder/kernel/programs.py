"""What a function traces to: its jaxpr, the equations nested in it, and host callbacks.

"Is it jitted" is the real type of the object (:func:`is_jitted`); "is it compiled work" looks
into the program it traces to for callbacks into Python (:func:`host_callbacks`). Structural
questions are read from the primitives of its equations, never from the program's text
(:func:`primitive_names`, :func:`contractions` and :func:`precision_shortfall`), and its
outputs from the traced output tree, before any call (:func:`output_problem`: arrays in plain
containers, no class whose unflatten code is the notebook's). Donation is read from the
lowered module's input/output aliasing (:func:`donated_leaves`). Used by
:mod:`autograder.kernel.jax_checks` and by the timing tests (:mod:`autograder.kernel.timing`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


def jitted_type() -> type:
    """The type of the functions ``jax.jit`` returns (``jaxlib``'s ``PjitFunction`` on JAX
    0.7 and 0.10): a type made in C++, which Python code cannot subclass or imitate."""
    try:
        from jaxlib._jax import PjitFunction

        return PjitFunction
    except ImportError:  # another jaxlib layout: ask JAX's own jit, not the patchable name
        from jax._src import api

        return type(api.jit(lambda x: x))


def is_jitted(fn: Any) -> bool:
    """True when ``fn`` is a function ``jax.jit`` made (directly or as a decorator).

    Decided by its real type (:func:`jitted_type`), never by attributes: an object that
    merely has ``lower`` and ``trace`` attributes is not jitted. ``jax.vmap(jax.jit(f))`` is a
    plain function (write ``jax.jit(jax.vmap(f))`` for one compiled program)."""
    return type(fn) is jitted_type()


def _with_arrays(fn: Callable, args: tuple, kwargs: dict) -> tuple[Callable, list[Any]]:
    """``fn`` as a function of the arrays among ``args`` and ``kwargs`` only (everything else,
    Python numbers, strings, None, held fixed as given), and those arrays."""
    import jax

    leaves, tree = jax.tree.flatten((args, kwargs))
    arrays = [i for i, leaf in enumerate(leaves) if hasattr(leaf, "shape")]

    def with_arrays(*traced: Any) -> Any:
        filled = list(leaves)
        for i, value in zip(arrays, traced, strict=True):
            filled[i] = value
        call_args, call_kwargs = jax.tree.unflatten(tree, filled)
        return fn(*call_args, **call_kwargs)

    return with_arrays, [leaves[i] for i in arrays]


def traced_program(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """What ``fn`` traces to for these arguments: a ``jax.stages.Traced`` (its ``jaxpr``, its
    output tree), made by JAX's own code, never by a method the object itself carries.

    A jitted function is traced by its type's ``trace`` (so its static arguments stay
    static); anything else through the course's own ``jax.jit``, where arguments that are not
    arrays (Python numbers, strings, None) are held fixed rather than traced. Either way the
    Python body runs only while tracing, with tracers.
    """
    import jax

    if is_jitted(fn):
        return jitted_type().trace(fn, *args, **kwargs)
    with_arrays, arrays = _with_arrays(fn, args, kwargs)
    return jax.jit(with_arrays).trace(*arrays)


def traced_jaxpr(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """The jaxpr ``fn`` traces to for these arguments (a ``Jaxpr``, nested ones inside), as
    :func:`traced_program` traces it."""
    return traced_program(fn, *args, **kwargs).jaxpr.jaxpr


def call_compiled(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` run through the course's own ``jax.jit``: its Python body runs
    only while tracing, so the result is what its traced program computes (arguments that are
    not arrays are held fixed, as :func:`traced_program` holds them)."""
    import jax

    with_arrays, arrays = _with_arrays(fn, args, kwargs)
    return jax.jit(with_arrays)(*arrays)


def equations(jaxpr: Any) -> Iterator[Any]:
    """Every equation of ``jaxpr`` and of the jaxprs nested in it (jit, scan, cond, while,
    custom_jvp/vjp bodies...), depth first."""
    from autograder.kernel.compat import jaxprs_in_params

    stack = [jaxpr]
    while stack:
        for eqn in stack.pop().eqns:
            yield eqn
            stack.extend(getattr(sub, "jaxpr", sub) for sub in jaxprs_in_params(eqn.params))


def _notebook_function(func: Any, depth: int = 3) -> Any:
    """The Python function a callback runs: ``func`` itself, or the one JAX's wrapper of it
    (``jax.debug.callback``'s ``_flat_callback``) holds in its closure."""
    inner = getattr(func, "callback_func", func)
    cells = getattr(inner, "__closure__", None) or ()
    if depth and str(getattr(inner, "__module__", "")).startswith("jax"):
        for cell in cells:
            try:
                held = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if callable(held) and not isinstance(held, type):
                found = _notebook_function(held, depth - 1)
                if not str(getattr(found, "__module__", "")).startswith("jax"):
                    return found
    return inner


def _callback_of(eqn: Any) -> str:
    """``jax.pure_callback of `name``` for a callback equation (the Python function's name
    when JAX keeps it)."""
    func = _notebook_function(eqn.params.get("callback"))
    label = getattr(func, "__name__", None)
    where = f" of `{label}`" if isinstance(label, str) else ""
    return f"{eqn.primitive.name}{where}"


# Types a jax.debug.print may format without running code of the notebook.
_PLAIN_STATIC = (str, int, float, bool, complex, type(None))


def _own_printing(eqn: Any) -> bool:
    """Whether a ``debug_print`` equation (``jax.debug.print``) formats with code of the
    notebook: a format that is not a plain ``str``, a NumPy formatter, or static arguments
    other than plain numbers and strings (their ``__format__`` runs on every call)."""
    import jax

    params = eqn.params
    options = dict(params.get("np_printoptions") or ())
    static = params.get("static_args") or ()
    return (type(params.get("fmt", "")) is not str or options.get("formatter") is not None
            or not all(type(arg) in _PLAIN_STATIC for arg in jax.tree.leaves(static)))


def callbacks_in(jaxpr: Any) -> list[str]:
    """The host callbacks in ``jaxpr`` (nested jaxprs included): every ``*callback``
    primitive (``pure_callback``, ``io_callback``, ``jax.debug.callback``), with a result or
    without one, and a ``jax.debug.print`` that formats with code of the notebook.

    A callback runs Python code on every call, outside the compiled program. One that returns
    a result is eager work passed off as compiled; one that returns nothing still runs the
    notebook's Python while the test measures (it can queue work onto whatever is timed next,
    delete arrays so that "donated" seems to hold, change JAX's settings), and it takes JAX's
    slow call path. ``jax.debug.print`` with a plain format runs only JAX's own printing code,
    and stays allowed for logging.
    """
    found = []
    for eqn in equations(jaxpr):
        name = eqn.primitive.name
        if "callback" in name:
            found.append(_callback_of(eqn))
        elif name == "debug_print" and _own_printing(eqn):
            found.append("debug_print formatting with code of its own")
    return found


def host_callbacks(fn: Callable, *args: Any, **kwargs: Any) -> list[str]:
    """The host callbacks (see :func:`callbacks_in`) in the program ``fn`` traces to for these
    arguments; empty when there are none or when ``fn`` cannot be traced (a function that
    cannot be traced is eager code, which the timing and value checks see as such)."""
    try:
        jaxpr = traced_jaxpr(fn, *args, **kwargs)
    except Exception:  # noqa: BLE001 - untraceable: nothing to look into
        return []
    return callbacks_in(jaxpr)


def callback_message(name: str, found: list[str]) -> str | None:
    """The failure for a program with host callbacks ``found`` (None when there are none)."""
    if not found:
        return None
    shown = ", ".join(sorted(set(found))[:3])
    return (f"{name} calls back into Python from its compiled program ({shown}): a host "
            "callback runs Python code on every call, outside the compiled program (one that "
            "returns nothing too: it runs Python while the test measures), so it is eager "
            "work, not compiled work. Write the computation with jax.numpy operations (and "
            "jax.vmap for a batch), and take the callback out of the function the test "
            "checks; to log values, use jax.debug.print.")


def primitive_names(jaxpr: Any) -> frozenset[str]:
    """The primitives ``jaxpr`` calls, nested jaxprs included (the bodies of jit, shard_map,
    scan, while, cond, remat, custom_jvp/vjp...), by the names the checks use
    (:func:`autograder.kernel.compat.canonical_primitive`).

    Read from the equations, never from the program's text: a function of the notebook named
    ``all_gather`` shows in ``str(jaxpr)`` as a ``pjit`` of that name, and is no collective.
    """
    from autograder.kernel.compat import canonical_primitive

    return frozenset(canonical_primitive(eqn.primitive.name) for eqn in equations(jaxpr))


def equations_of(jaxpr: Any, name: str) -> list[Any]:
    """The equations of ``jaxpr`` (nested jaxprs included) whose primitive is ``name`` (as
    :func:`primitive_names` names it)."""
    from autograder.kernel.compat import canonical_primitive

    return [eqn for eqn in equations(jaxpr) if canonical_primitive(eqn.primitive.name) == name]


# The primitives that contract (multiply and sum) their operands, where JAX's precision
# setting chooses how finely; any other equation that carries a ``precision`` parameter counts
# too (:func:`contractions`).
CONTRACTIONS = frozenset({"dot_general", "conv_general_dilated", "ragged_dot_general",
                          "ragged_dot"})
# Dot algorithms that multiply at full float32 precision (or finer).
FULL_ALGORITHMS = frozenset({"F32_F32_F32", "F64_F64_F64"})


def contractions(jaxpr: Any) -> list[Any]:
    """The equations of ``jaxpr`` (nested jaxprs included) that contract floating-point
    operands: :data:`CONTRACTIONS`, and any other primitive with a ``precision`` parameter."""
    import jax.numpy as jnp

    found = []
    for eqn in equations(jaxpr):
        if eqn.primitive.name not in CONTRACTIONS and "precision" not in eqn.params:
            continue
        dtypes = [getattr(getattr(var, "aval", None), "dtype", None) for var in eqn.invars]
        if any(d is not None and jnp.issubdtype(d, jnp.inexact) for d in dtypes):
            found.append(eqn)
    return found


def _full_precision(precision: Any) -> bool:
    """Whether a contraction's ``precision`` parameter multiplies at full float32 precision:
    ``Precision.HIGHEST`` for every operand, a dot algorithm of :data:`FULL_ALGORITHMS`, or a
    ``DotAlgorithm`` whose types are all float32 or float64."""
    import numpy as np

    if precision is None:
        return False
    if isinstance(precision, tuple | list):
        return bool(precision) and all(_full_precision(p) for p in precision)
    name = getattr(precision, "name", None)
    if isinstance(name, str):
        return name == "HIGHEST" or name in FULL_ALGORITHMS
    types = [getattr(precision, f"{part}_type", None)
             for part in ("lhs_precision", "rhs_precision", "accumulation")]
    if any(t is None for t in types) or getattr(precision, "allow_imprecise_accumulation", 0):
        return False
    try:
        return all(np.dtype(t) in (np.float32, np.float64) for t in types)
    except TypeError:
        return False


def precision_shortfall(eqn: Any) -> str | None:
    """How one contraction (see :func:`contractions`) falls short of full float32 precision
    (``"dot_general at default precision"``), or None when it multiplies at full precision
    float32 (or wider) operands."""
    import jax.numpy as jnp

    narrow = [str(d) for var in eqn.invars
              if (d := getattr(getattr(var, "aval", None), "dtype", None)) is not None
              and jnp.issubdtype(d, jnp.floating) and jnp.dtype(d).itemsize < 4]
    if narrow:
        return f"{eqn.primitive.name} of {narrow[0]} operands"
    precision = eqn.params.get("precision")
    if _full_precision(precision):
        return None
    return f"{eqn.primitive.name} at {_shown_precision(precision)}"


def _shown_precision(precision: Any) -> str:
    """A contraction's precision as a message shows it: ``precision = [DEFAULT, DEFAULT]``
    (None: JAX's default), ``algorithm BF16_BF16_F32``, or a dot algorithm's types."""
    if precision is None:
        return "precision = [DEFAULT, DEFAULT]"
    if isinstance(precision, tuple | list):
        return "precision = [" + ", ".join(getattr(p, "name", str(p)) for p in precision) + "]"
    name = getattr(precision, "name", None)
    if isinstance(name, str):
        kind = "precision" if type(precision).__name__ == "Precision" else "algorithm"
        return f"{kind} {name}"
    return f"algorithm {precision}"


# The containers an answer's outputs may come in: JAX flattens and rebuilds these itself,
# running no code of the notebook (named tuples are checked apart: _plain_namedtuple).
PLAIN_CONTAINERS: tuple[type, ...] = (list, tuple, dict, type(None))


def _plain_namedtuple(cls: type, registered: frozenset[type]) -> bool:
    """Whether ``cls`` is a named tuple as ``collections.namedtuple`` or
    ``typing.NamedTuple`` makes it, which JAX rebuilds by calling it: none registered as a
    pytree node of its own, none with a ``__new__``, ``__init__`` or metaclass of the
    notebook's, so rebuilding one runs no code of the notebook."""
    if cls in registered or type(cls) is not type or not issubclass(cls, tuple):
        return False
    if not hasattr(cls, "_fields") or cls.__init__ is not tuple.__init__:
        return False
    new = getattr(cls.__dict__.get("__new__"), "__func__", None)
    code = getattr(new, "__code__", None)
    scope = getattr(new, "__globals__", {})
    return (code is not None and code.co_names == ("_tuple_new",)
            and scope.get("_tuple_new") is tuple.__new__ and scope.get("__builtins__") == {})


def custom_outputs(tree: Any) -> list[str]:
    """The classes in an output tree structure (a ``PyTreeDef``) other than plain containers
    (:data:`PLAIN_CONTAINERS`, ``collections.OrderedDict`` and ``defaultdict``, and named
    tuples): classes whose flatten and unflatten code is the notebook's, which JAX runs in
    Python after every call of a jitted function, outside its compiled program."""
    import collections

    from autograder.kernel.compat import registered_pytree_types

    registered = registered_pytree_types()
    builtin = {collections.OrderedDict, collections.defaultdict}
    found: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        data = node.node_data()
        if data is not None:
            cls = data[0]
            plain = cls in PLAIN_CONTAINERS or cls in builtin
            if not plain and not _plain_namedtuple(cls, registered):
                found.append(getattr(cls, "__qualname__", repr(cls)))
        stack.extend(node.children())
    return found


def output_message(name: str, found: list[str]) -> str | None:
    """The failure for outputs of the classes ``found`` (None when there are none)."""
    if not found:
        return None
    shown = ", ".join(f"`{cls}`" for cls in sorted(set(found))[:3])
    return (f"{name} returns an object of its own class ({shown}): return arrays, not an "
            "object of your own class. A jitted function's outputs come back as arrays in "
            "plain containers (a tuple, list, dict or NamedTuple); a class registered as a "
            "pytree runs its own Python code after every call, outside the compiled program, "
            "where no check can see it.")


def output_problem(fn: Callable, *args: Any, name: str = "the function",
                   **kwargs: Any) -> str | None:
    """The failure when ``fn``'s outputs for these arguments are not arrays in plain
    containers (:func:`custom_outputs`), read from its traced program before any call; None
    when they are, or when ``fn`` cannot be traced (the checks that call it say so)."""
    from autograder.kernel.compat import traced_out_tree

    try:
        tree = traced_out_tree(traced_program(fn, *args, **kwargs))
    except Exception:  # noqa: BLE001 - untraceable: the checks that call it say so
        return None
    return output_message(name, custom_outputs(tree))


# Attributes of the lowered module's arguments that donate them: aliased to an output, or
# given to XLA to reuse (a donated argument with no output of its shape).
DONATING = ("tf.aliasing_output", "jax.buffer_donor")


def _main_arg_attributes(lowered: Any) -> list[set[str]] | None:
    """The attribute names of each argument of the lowered module's ``main`` function, in
    order; None when the module has no such function."""
    module = lowered.compiler_ir("stablehlo")
    for op in module.body.operations:
        attributes = op.attributes
        if "sym_name" not in attributes or str(attributes["sym_name"]).strip('"') != "main":
            continue
        if "arg_attrs" not in attributes:
            return [set() for _ in op.regions[0].blocks[0].arguments]
        return [{named.name for named in entry} for entry in attributes["arg_attrs"]]
    return None


def _dynamic_positions(args: tuple, info_args: tuple) -> list[int | None] | None:
    """For each positional argument, its index among the traced ones (``Lowered.args_info``
    leaves out static arguments), or None for a static one: matched in order by tree
    structure (a static argument is hashable, so never a tree holding arrays). None when the
    two cannot be matched."""
    import jax

    found: list[int | None] = []
    j = 0
    for arg in args:
        if j < len(info_args) and jax.tree.structure(arg) == jax.tree.structure(
                info_args[j], is_leaf=lambda node: type(node).__name__ == "ArgInfo"):
            found.append(j)
            j += 1
        else:
            found.append(None)
    return found if j == len(info_args) else None


def donated_leaves(fn: Callable, *args: Any, **kwargs: Any) -> list[list[bool]] | None:
    """For each positional argument, whether the program ``fn`` compiles to for these
    arguments donates each of its arrays (leaf by leaf, as ``jax.tree.leaves`` orders them; a
    static argument reads ``[False]``): read from the lowered module's input/output aliasing
    (:data:`DONATING`), never from the arrays afterwards. None when ``fn`` is not jitted (no
    program of its own donates) or the module's arguments cannot be matched with the arrays
    (then nothing is taken as donated).
    """
    import jax

    if not is_jitted(fn):
        return None
    lowered = traced_program(fn, *args, **kwargs).lower()
    info_args, _ = lowered.args_info
    positions = _dynamic_positions(args, info_args)
    attributes = _main_arg_attributes(lowered)
    total = len(jax.tree.leaves(lowered.args_info))
    if positions is None or attributes is None:
        return None
    if len(attributes) != total:  # arguments the program does not use were left out
        kept = getattr(getattr(lowered, "_lowering", None), "compile_args", {}).get(
            "kept_var_idx")
        if kept is None or len(kept) != len(attributes):
            return None
        flat = [set() for _ in range(total)]
        for index, attrs in zip(sorted(kept), attributes, strict=True):
            flat[index] = attrs
        attributes = flat
    donated = [bool(attrs & set(DONATING)) for attrs in attributes]
    starts, start = [], 0
    for info in info_args:
        starts.append(start)
        start += len(jax.tree.leaves(info))
    result = []
    for position in positions:
        if position is None:
            result.append([False])
            continue
        count = len(jax.tree.leaves(info_args[position]))
        result.append(donated[starts[position]:starts[position] + count])
    return result
