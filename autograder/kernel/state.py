"""What a call can change outside itself: a bounded fingerprint of the state a function reaches.

:func:`autograder.kernel.jax_checks.check_pure` decides purity from behaviour: it fingerprints
the state a function can reach (:func:`reachable_roots`: the globals of every notebook function
it leads to, through ``functools.partial``, ``__wrapped__``, bound methods, closures, default
arguments and the helpers it names), calls it, and compares (:func:`changes`). A fingerprint
(:class:`Fingerprint`) maps a path (``CONFIG['scale']``, ``history[3]``, ``state.n``) to a token
of what was there: scalars by value, NumPy arrays by a digest of their bytes, JAX arrays and
other objects by identity (the objects are kept alive until the comparison, so an identity is
never reused), containers (dicts, lists, tuples, sets, deques, objects' attributes) by identity
and size, recursively. A JAX tracer anywhere is marked as one: a tracer left in reachable state
after a jitted call is a leak.

The walk is bounded (depth, entries and bytes hashed), so a notebook holding a large data set
costs milliseconds; past a bound the container's own token (identity and size) still shows an
item added or removed.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import inspect
import itertools
import re
import types
from collections.abc import Iterator
from typing import Any

MAX_DEPTH = 6
MAX_ENTRIES = 20_000
MAX_HASHED_BYTES = 64 * 2**20
# Names IPython keeps in a notebook's namespace for its own history and output cache.
_IPYTHON_NAMES = re.compile(r"^(In|Out|_ih|_oh|_dh|_|__|___|_i+|_i\d+|_\d+|exit|quit|"
                            r"get_ipython|__builtins__|__builtin__)$")
_OPAQUE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           type, functools.partial, types.CodeType)


def _tracer_type() -> type | None:
    """JAX's tracer class, where this JAX exposes it."""
    try:
        import jax
    except ImportError:
        return None
    found = getattr(jax.core, "Tracer", None)
    if found is None:  # pragma: no cover - a JAX that hides it
        from jax._src.core import Tracer as found
    return found


def _notebook_code(fn: types.FunctionType) -> bool:
    """True for a function written in a notebook (or a test), not in Python, an installed
    package or the course's helpers."""
    from autograder.kernel.timing import _installed

    return not _installed(fn.__code__.co_filename)


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def global_writes(fn: types.FunctionType) -> list[str]:
    """The global names ``fn``'s own code (nested functions included) assigns or deletes."""
    import dis

    return [ins.argval for code in _code_objects(fn.__code__)
            for ins in dis.get_instructions(code)
            if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL")]


class Roots:
    """The state a function reaches, and the functions of the notebook it leads to."""

    def __init__(self) -> None:
        self.namespaces: dict[int, dict[str, Any]] = {}  # id -> a globals dict
        self.extra: list[tuple[str, Any]] = []  # (label, object): closures, partial's arguments
        self.functions: list[types.FunctionType] = []  # notebook functions found


def reachable_roots(fn: Any, limit: int = 64) -> Roots:
    """Follow ``fn`` to the notebook functions it is made of or names (at most ``limit``
    objects): through ``__wrapped__`` (``jax.jit``, ``functools.wraps``), ``functools.partial``
    (its function and arguments), bound methods and callable objects, closures, default
    arguments, and the global names its code reads that hold functions (its helpers)."""
    roots, seen, stack = Roots(), set(), [fn]
    while stack and len(seen) < limit:
        obj = stack.pop()
        if id(obj) in seen or obj is None:
            continue
        seen.add(id(obj))
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is not None and not isinstance(obj, type):
            stack.append(wrapped)
        if isinstance(obj, functools.partial):
            stack.append(obj.func)
            roots.extra += [(f"argument #{i} of a functools.partial", v)
                            for i, v in enumerate(obj.args)]
            roots.extra += [(f"keyword argument {k}= of a functools.partial", v)
                            for k, v in obj.keywords.items()]
            stack.extend(v for v in (*obj.args, *obj.keywords.values()) if callable(v))
        elif isinstance(obj, types.MethodType):
            stack.append(obj.__func__)
            roots.extra.append(("the object of a bound method", obj.__self__))
        elif isinstance(obj, types.FunctionType):
            if not _notebook_code(obj):
                continue
            roots.functions.append(obj)
            roots.namespaces[id(obj.__globals__)] = obj.__globals__
            cells = {}
            for var, cell in zip(obj.__code__.co_freevars, obj.__closure__ or (), strict=False):
                try:
                    cells[var] = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
            roots.extra += [(f"`{var}`", v)
                            for var, v in cells.items()]
            stack.extend(v for v in cells.values() if callable(v))
            roots.extra += [(f"default argument #{i} of `{obj.__name__}`", v)
                            for i, v in enumerate(obj.__defaults__ or ())]
            roots.extra += [(f"default argument {k}= of `{obj.__name__}`", v)
                            for k, v in (obj.__kwdefaults__ or {}).items()]
            names = {n for code in _code_objects(obj.__code__) for n in code.co_names}
            stack.extend(obj.__globals__[n] for n in sorted(names)
                         if callable(obj.__globals__.get(n)))
        elif callable(obj) and not isinstance(obj, type) and hasattr(obj, "__dict__"):
            roots.extra.append((f"the {type(obj).__name__} object called", obj))
            call = inspect.getattr_static(type(obj), "__call__", None)
            if isinstance(call, types.FunctionType):
                stack.append(call)
    return roots


class Fingerprint:
    """A bounded map from path to token of the state under some roots (see the module
    docstring); :attr:`kept` holds every object whose identity a token uses."""

    def __init__(self) -> None:
        self.tokens: dict[str, Any] = {}
        self.tracers: list[str] = []
        self.kept: list[Any] = []
        self._hashed = 0
        self._tracer = _tracer_type()
        self._on_path: set[int] = set()

    def add(self, path: str, value: Any, depth: int = 0) -> None:
        """Record ``value`` at ``path`` and what it contains (within the bounds)."""
        if len(self.tokens) >= MAX_ENTRIES:
            return
        token = self._token(value)
        self.tokens[path] = token
        if token[0] == "tracer":
            self.tracers.append(path)
            return
        if depth >= MAX_DEPTH or id(value) in self._on_path:
            return
        children = self._children(value, path)
        if children is None:
            return
        self._on_path.add(id(value))
        try:
            for child_path, child in children:
                self.add(child_path, child, depth + 1)
        finally:
            self._on_path.discard(id(value))

    def _token(self, value: Any) -> tuple:
        if value is None or isinstance(value, bool | int | float | complex):
            return ("value", type(value).__name__, value)
        if isinstance(value, str | bytes):
            if len(value) <= 200:
                return ("value", type(value).__name__, value)
            return ("text", type(value).__name__, hashlib.blake2b(
                value.encode() if isinstance(value, str) else value).hexdigest())
        if self._tracer is not None and isinstance(value, self._tracer):
            return ("tracer", id(value))
        self.kept.append(value)
        import numpy as np

        if isinstance(value, np.ndarray):
            digest = None
            if value.dtype != object and self._hashed + value.nbytes <= MAX_HASHED_BYTES:
                self._hashed += value.nbytes
                digest = hashlib.blake2b(np.ascontiguousarray(value).view(np.uint8)).hexdigest()
            return ("ndarray", id(value), value.shape, str(value.dtype), digest)
        if isinstance(value, dict | list | tuple | set | frozenset | collections.deque):
            return (type(value).__name__, id(value), len(value))
        return ("object", type(value).__name__, id(value))

    def _children(self, value: Any, path: str) -> Iterator[tuple[str, Any]] | None:
        room = max(0, MAX_ENTRIES - len(self.tokens))
        if isinstance(value, dict):
            items = itertools.islice(list(value.items()), room)
            return ((f"{path}[{_key(k)}]", v) for k, v in items)
        if isinstance(value, list | tuple | collections.deque):
            return ((f"{path}[{i}]", v) for i, v in enumerate(itertools.islice(value, room)))
        if isinstance(value, set | frozenset):
            if len(value) > room:
                return None
            members = sorted(value, key=lambda m: (type(m).__name__, repr(m)[:80]))
            return ((f"{path} (a member)", m) for m in members)
        if not _own_class(value):
            return None
        try:
            attributes = dict(vars(value))
        except TypeError:
            return None
        return ((f"{path}.{k}", v) for k, v in itertools.islice(attributes.items(), room))


def _own_class(value: Any) -> bool:
    """True for an object of a class written in a notebook (or a test), or a
    ``types.SimpleNamespace``: its attributes are walked. Objects of installed libraries' classes
    (which may fill caches of their own when used) count by identity only."""
    import sys

    if isinstance(value, _OPAQUE) or not hasattr(value, "__dict__"):
        return False
    if type(value) is types.SimpleNamespace:
        return True
    module_name = type(value).__module__
    if module_name == "__main__":
        return True
    filename = getattr(sys.modules.get(module_name), "__file__", None)
    if filename is None:
        return False
    from autograder.kernel.timing import _installed

    return not _installed(filename)


def _key(key: Any) -> str:
    text = repr(key)
    return text if len(text) <= 60 else text[:57] + "..."


def fingerprint(roots: Roots) -> Fingerprint:
    """The state under ``roots`` now: each namespace's variables (modules, functions, classes,
    other callables and IPython's own history names left out: they are code, not state) and
    each extra root."""
    found = Fingerprint()
    for i, namespace in enumerate(roots.namespaces.values()):
        names = tuple(sorted(n for n, v in list(namespace.items()) if _is_state(n, v)))
        found.tokens[f"(global names {i})"] = ("names", names)
        for name in names:
            found.add(f"`{name}`", namespace.get(name))
    for label, value in roots.extra:
        found.add(label, value)
    return found


def fingerprint_arguments(args: tuple, kwargs: dict) -> Fingerprint:
    """The state of a call's arguments (argument #i, and keyword arguments by name)."""
    found = Fingerprint()
    for i, arg in enumerate(args):
        found.add(f"argument #{i}", arg)
    for name, arg in kwargs.items():
        found.add(f"argument {name}=", arg)
    return found


def _is_state(name: str, value: Any) -> bool:
    return not _IPYTHON_NAMES.match(name) and not isinstance(value, _OPAQUE) and not callable(
        value)


def changes(before: Fingerprint, after: Fingerprint) -> list[str]:
    """What differs between two fingerprints, as phrases (``the global `X` was created``,
    ```CONFIG`['scale'] was added``), in the order the walk met them."""
    found = []
    for path, token in after.tokens.items():
        if path.startswith("(global names"):
            old = set(before.tokens.get(path, ("names", ()))[1])
            found += [f"the global `{n}` was created" for n in token[1] if n not in old]
            found += [f"the global `{n}` was deleted" for n in sorted(old - set(token[1]))]
        elif path not in before.tokens:
            if not path.startswith("`") or "[" in path or "." in path:
                found.append(f"{path} was added")
        elif before.tokens[path] != token:
            found.append(f"{path} changed")
    found += [f"{path} was removed" for path in before.tokens
              if path not in after.tokens and ("[" in path or "." in path)]
    return found
