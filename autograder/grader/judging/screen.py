"""A static screen of answer cells: a closed world for the code a student submits.

Test cells run in the same Python process as the answers, and they call the answer while they
run (``normalise = build_normalise()``), so an answer could change what the rest of the test
cell calls or reads: rebind the check it imported (``global check_jitted``), hook IPython,
patch the clock, ``jax.jit``, builtins or the course's modules, or end the kernel. The sandbox
cannot prevent that; this screen, run by the grader outside the kernel, reads the source
(AST-based, after IPython magics are turned into calls) so that such a cell is not run at all.

The names an answer may bind are a closed world, decided from the course source's test cells
(visible and hidden, :func:`judged_names`): at the top level of its cell an answer binds its
question's names (:func:`own_names`) and names of its own, never a name a test cell reads
without binding it first (a check, a builtin, another question's answer); code that runs
later (a function, a class body, a generator) binds no global at all except one its own cell
created at the top level and no test cell uses (an honest counter). Every other way to reach
a namespace is refused: ``globals()``, ``vars()``, ``locals()``, ``getattr``/``setattr``/
``delattr`` (``getattr(obj, "name")`` with a literal name is read as ``obj.name``), dunder
and private (``_``) attributes, assigning to any attribute, star imports. Imports and
builtins are allow-lists; attribute names beyond the private ones are a deny-list (modules
that allowed ones re-export, hooks, frames, pickles). See ``SECURITY.md``.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_NAMES = {
    "get_ipython": "IPython internals (get_ipython)", "exec": "exec", "eval": "eval",
    "compile": "compile", "globals": "globals()", "locals": "locals()", "vars": "vars()",
    "breakpoint": "breakpoint", "exit": "exit", "quit": "quit", "setattr": "setattr",
    "delattr": "delattr", "getattr": "getattr", "hasattr": "hasattr", "input": "input",
    "help": "help", "memoryview": "memoryview",
}
# The builtins an answer may use (exception classes too); any other is refused where it is
# read from the builtins (a function's own local of that name is the answer's).
_BUILTINS = {
    "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "bytearray", "bytes",
    "callable", "chr", "classmethod", "complex", "dict", "dir", "divmod", "enumerate",
    "filter", "float", "format", "frozenset", "hash", "hex", "id", "int", "isinstance",
    "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct", "ord",
    "pow", "print", "property", "range", "repr", "reversed", "round", "set", "slice",
    "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "zip", "open",
    "Ellipsis", "NotImplemented", "True", "False", "None",
} | {name for name, value in vars(builtins).items()
     if isinstance(value, type) and issubclass(value, BaseException)}
_MODULES = {
    "builtins", "ctypes", "cffi", "signal", "importlib", "gc", "inspect", "IPython",
    "ipykernel", "subprocess", "multiprocessing", "socket", "pty", "resource", "threading",
    "_thread", "atexit", "faulthandler", "sys", "os", "shutil", "pathlib", "io", "time",
    "autograder", "nbformat", "nbclient", "jupyter_client", "zmq", "traitlets", "code",
    "codeop", "runpy", "pickle", "marshal", "types", "weakref", "urllib", "http", "requests",
}
# Attributes an answer may not read (nor call): hooks, frames, functions that turn a string
# into an attribute lookup or code (operator.attrgetter, typing.get_type_hints...), and the
# public ways allowed libraries offer to import a module by name (matplotlib's backend
# loader) or run a process or compiler (numpy.testing.extbuild, f2py).
_ATTRS = {
    "input_transformers_cleanup", "input_transformers_post", "set_custom_exc",
    "showtraceback", "showsyntaxerror", "excepthook", "displayhook", "settrace",
    "setprofile", "kill", "killpg", "fork", "system", "popen", "execv", "execve",
    "spawn", "abort", "run_cell", "events", "register_magic_function", "modules",
    "stdout", "stderr", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
    "tb_frame", "tb_next", "gi_frame", "cr_frame", "ag_frame", "user_ns", "user_global_ns",
    "attrgetter", "methodcaller", "get_field", "get_type_hints", "ForwardRef", "ctypeslib",
    "f2py", "distutils", "serialize_executable", "deserialize_and_load", "import_module",
    "load_backend_module", "backend_registry", "subprocess_run_for_testing",
    "subprocess_run_helper", "extbuild", "build_and_import_extension",
}
# Dunder attributes an honest answer reads (``super().__init__`` is allowed apart).
_DUNDERS_READ = {"__name__", "__doc__", "__call__", "__len__"}
# Public methods of named tuples (optax's states are named tuples) despite their underscore.
_NAMEDTUPLE = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}
# Modules an allowed one re-exports (``warnings.sys``, ``from warnings import sys``): reached
# through an allowed module, they are flagged by name. ``scipy.signal`` and ``scipy.io`` stay
# allowed, so the names of harmless submodules of numerical libraries are not on this list.
_REEXPORTED = {
    "sys", "os", "builtins", "subprocess", "importlib", "ctypes", "_thread", "threading",
    "socket", "shutil", "pathlib", "IPython", "ipykernel", "autograder", "gc", "inspect",
    "runpy", "marshal", "pickle", "multiprocessing", "pty", "resource", "atexit",
    "faulthandler", "zmq", "nbformat", "nbclient", "jupyter_client", "traitlets", "weakref",
    "codeop",
}
_ALLOWED_IMPORTS = {"jax", "numpy", "math", "functools", "itertools", "collections",
                    "dataclasses", "typing", "operator", "string", "random", "statistics",
                    "optax", "flax", "einops", "chex", "scipy", "matplotlib", "enum",
                    "abc", "copy", "heapq", "bisect", "fractions", "decimal", "numbers",
                    "warnings", "textwrap", "re", "json", "__future__"}
_RESULT_FILE = re.compile(r"(result|grades?|gradebook|feedback)[^/\\]*\.(json|csv|db|html)",
                          re.I)
_DUNDER = re.compile(r"__\w+__")
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
BINDING_ADVICE = ("Give your helpers and variables names the tests do not use, and keep "
                  "state inside your functions or in values they return.")


@dataclass(frozen=True)
class Judged:
    """The names an assignment's test cells use (from the course source, hidden tests too).

    ``free``: names a test cell reads before, or without, binding them itself (its checks'
    names are not among them when it imports them first; the answers' names and the builtins
    it calls are). ``touched``: every name a test cell reads or binds, at any depth.
    """

    free: frozenset[str] = frozenset()
    touched: frozenset[str] = frozenset()


@dataclass
class _Scope:
    kind: str  # module, function, class, comprehension, generator
    parent: _Scope | None = None
    bound: set[str] = field(default_factory=set)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)


@dataclass
class _Binding:
    name: str
    scope: _Scope
    node: ast.AST
    in_generator: bool = False  # a walrus in a generator expression (which runs later)


class _Walk:
    """Every binding and every read of a cell, each with the scope it happens in."""

    def __init__(self, tree: ast.AST) -> None:
        self.module = _Scope("module")
        self.bindings: list[_Binding] = []
        self.loads: list[tuple[str, _Scope, ast.Name]] = []
        self.star_imports: list[str] = []
        self.params: set[str] = set()  # every function's parameters
        self._visit(tree, self.module)

    def _bind(self, name: str, scope: _Scope, node: ast.AST, comp: bool = False) -> None:
        scope.bound.add(name)
        self.bindings.append(_Binding(name, scope, node, comp))

    def _visit_all(self, nodes: Iterable[ast.AST | None], scope: _Scope) -> None:
        for node in nodes:
            if node is not None:
                self._visit(node, scope)

    def _arguments(self, args: ast.arguments) -> tuple[list[ast.AST], list[str]]:
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs,
                 *([args.vararg] if args.vararg else []), *([args.kwarg] if args.kwarg else [])]
        outer = [*args.defaults, *(d for d in args.kw_defaults if d is not None),
                 *(a.annotation for a in every if a.annotation is not None)]
        return outer, [a.arg for a in every]

    def _visit(self, node: ast.AST, scope: _Scope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            outer, params = self._arguments(node.args)
            if not isinstance(node, ast.Lambda):
                self._bind(node.name, scope, node)
                outer += [*node.decorator_list, *([node.returns] if node.returns else [])]
            self._visit_all(outer, scope)
            inner = _Scope("function", scope, set(params))
            self.params.update(params)
            body = [node.body] if isinstance(node, ast.Lambda) else node.body
            self._visit_all(body, inner)
        elif isinstance(node, ast.ClassDef):
            self._bind(node.name, scope, node)
            self._visit_all([*node.decorator_list, *node.bases, *node.keywords], scope)
            self._visit_all(node.body, _Scope("class", scope))
        elif isinstance(node, _COMPREHENSIONS):
            self._visit(node.generators[0].iter, scope)
            inner = _Scope("generator" if isinstance(node, ast.GeneratorExp)
                           else "comprehension", scope)
            for i, gen in enumerate(node.generators):
                self._visit(gen.target, inner)
                if i:
                    self._visit(gen.iter, inner)
                self._visit_all(gen.ifs, inner)
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            self._visit_all(parts, inner)
        elif isinstance(node, ast.NamedExpr):
            target, lazy = scope, False
            while target.kind in ("comprehension", "generator") and target.parent is not None:
                lazy = lazy or target.kind == "generator"
                target = target.parent
            self._bind(node.target.id, target, node, lazy)
            self._visit(node.value, scope)
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                self.loads.append((node.id, scope, node))
            else:
                self._bind(node.id, scope, node)
        elif isinstance(node, ast.Global):
            scope.declared_global.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.declared_nonlocal.update(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    self.star_imports.append(getattr(node, "module", None) or ".")
                else:
                    self._bind((alias.asname or alias.name).split(".")[0], scope, node)
        else:
            name = getattr(node, "name", None) if isinstance(
                node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) else getattr(
                node, "rest", None) if isinstance(node, ast.MatchMapping) else None
            if isinstance(name, str):
                self._bind(name, scope, node)
            for child in ast.iter_child_nodes(node):
                self._visit(child, scope)

    @staticmethod
    def is_global(name: str, scope: _Scope) -> bool:
        """Does ``name``, read in ``scope``, come from the notebook's globals or builtins?"""
        s: _Scope | None = scope
        first = True
        while s is not None and s.kind != "module":
            if name in s.declared_global:
                return True
            if s.kind != "class" or first:
                if name in s.bound or name in s.declared_nonlocal:
                    return False
            s, first = s.parent, False
        return True

    def global_bindings(self) -> tuple[list[_Binding], list[_Binding]]:
        """(bindings made when the cell runs, bindings made later by code it defined)."""
        now, later = [], []
        for b in self.bindings:
            if b.scope.kind == "module":
                (later if b.in_generator else now).append(b)
            elif b.name in b.scope.declared_global:
                later.append(b)
        return now, later


def _parse(source: str) -> tuple[ast.Module | None, str]:
    """The cell's syntax tree (None when it does not parse) and its code, magics turned into
    calls."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        code = TransformerManager().transform_cell(source)
        return ast.parse(code), code
    except (SyntaxError, ValueError):
        return None, source


def own_names(source: str) -> set[str]:
    """The names an answer cell of the course source binds when it runs (its question's)."""
    tree, _ = _parse(source)
    return set() if tree is None else {b.name for b in _Walk(tree).global_bindings()[0]}


_COMPOUND = ("items", "test", "iter", "target")  # a compound statement's parts read first
_BODIES = ("body", "orelse", "finalbody")


def _free_reads(tree: ast.Module) -> set[str]:
    """The global names a test cell reads before a statement of its own bound them."""
    walk = _Walk(tree)
    reads: dict[int, set[str]] = {}
    for name, scope, node in walk.loads:
        if walk.is_global(name, scope):
            reads.setdefault(id(node), set()).add(name)
    binds: dict[int, set[str]] = {}
    now, later = walk.global_bindings()
    for b in now + later:
        binds.setdefault(id(b.node), set()).add(b.name)
    free: set[str] = set()
    bound: set[str] = set()
    todo: list[ast.stmt] = list(reversed(tree.body))
    while todo:
        stmt = todo.pop()
        bodies = [getattr(stmt, f) for f in _BODIES if getattr(stmt, f, None)]
        bodies += [h.body for h in getattr(stmt, "handlers", [])]
        header: list[ast.AST] = [stmt]
        if bodies and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                            ast.ClassDef)):
            header = []
            for f in _COMPOUND:
                part = getattr(stmt, f, None)
                header += part if isinstance(part, list) else [part] if part else []
        for part in header:
            nodes = list(ast.walk(part))
            free.update(*(reads.get(id(n), set()) - bound for n in nodes))
            bound.update(*(binds.get(id(n), set()) for n in nodes))
        bound.update(h.name for h in getattr(stmt, "handlers", []) if h.name)
        todo += [s for body in reversed(bodies) for s in reversed(body)] \
            if header != [stmt] else []
    return free


def judged_names(test_sources: Iterable[str]) -> Judged:
    """What the test cells whose sources are given use (see :class:`Judged`).

    A test cell's statements are read in order, compound ones (``with``, ``if``, ``for``...)
    part by part: a name counts as read *free* when a statement reads it (a function the cell
    defines reads it at its definition) before any statement of the cell bound it.
    """
    free: set[str] = set()
    touched: set[str] = set()
    for source in test_sources:
        tree, _ = _parse(source)
        if tree is None:
            continue
        walk = _Walk(tree)
        touched |= {b.name for b in walk.bindings} | {n for n, _, _ in walk.loads}
        free |= _free_reads(tree)
    return Judged(frozenset(free), frozenset(touched))


def _attribute_name(call: ast.Call) -> str | None:
    """The literal name ``getattr(obj, "name"[, default])``/``hasattr(obj, "name")`` reads."""
    if len(call.args) in (2, 3) and not call.keywords and isinstance(call.args[1], ast.Constant) \
            and isinstance(call.args[1].value, str):
        if call.func.id == "getattr" or len(call.args) == 2:  # type: ignore[union-attr]
            return call.args[1].value
    return None


def _attribute_problem(attr: str, value: ast.AST) -> str | None:
    if attr == "__init__" and isinstance(value, ast.Call) and isinstance(
            value.func, ast.Name) and value.func.id == "super" and not value.args:
        return None  # super().__init__(): only ever the object being made
    if attr in _ATTRS or attr in _REEXPORTED or attr.startswith("_") and \
            attr not in _DUNDERS_READ and attr not in _NAMEDTUPLE:
        return f".{attr}"
    return None


def _annotations(tree: ast.AST) -> list[ast.AST]:
    """Every annotation in ``tree``: library code (``functools.singledispatch``'s
    ``register``) evaluates string annotations as code in the notebook's namespace."""
    found: list[ast.AST | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            found.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
    return [a for a in found if a is not None]


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _bindings(walk: _Walk, own: set[str], judged: Judged) -> list[str]:
    found = []
    now, later = walk.global_bindings()
    created = {b.name for b in now}
    for b in now:
        if b.name in judged.free and b.name not in own:
            found.append(f"{b.name} (a name the tests use)")
    for b in later:
        if b.name in judged.touched or b.name in judged.free or b.name in own:
            why = "a name the tests use"
        elif hasattr(builtins, b.name):
            why = "a builtin's name"
        elif b.name not in created:
            why = "a global this cell does not create"
        else:
            continue
        found.append(f"global {b.name} ({why})" if b.name in b.scope.declared_global else
                     f"{b.name} set from a generator ({why})")
    return found


def screen(source: str, own: Iterable[str] = (), judged: Judged | None = None) -> list[str]:
    """What in ``source`` graded answers may not use (empty when nothing).

    ``own`` are the names the cell's question binds (:func:`own_names` of its answer in the
    course source); ``judged`` what the assignment's tests use (:func:`judged_names`). Flags:
    imports outside an allow-list of numerical libraries (``os``, ``sys``, ``signal``,
    ``ctypes``, ``IPython``, ``autograder``...) and star imports; builtins outside an
    allow-list (``exec``, ``eval``, ``globals``, ``vars``, ``setattr``, ``getattr`` but with a
    literal name...); private, dunder and re-exported-module attributes, hooks and frames;
    assignments to attributes and to items of names the answer did not define; binding a
    name the tests use, and binding any global from code that runs later (``global`` in a
    function or class, a walrus in a generator) but one the cell creates that no test uses;
    strings naming result files or dunders, string annotations other than a (dotted) name;
    pickles. Code that does not parse is not flagged: it fails on its own; code nested too
    deeply to be read is.
    """
    try:
        return _screen(source, set(own), judged or Judged())
    except RecursionError:
        return ["code nested too deeply for the screen to read"]


def _screen(source: str, own: set[str], judged: Judged) -> list[str]:
    tree, code = _parse(source)
    if tree is None:
        return []
    if "get_ipython()" in code and "get_ipython" not in source:
        return ["IPython magics (%, !)"]
    walk = _Walk(tree)
    found = _bindings(walk, own, judged)
    found += [f"from {m} import *" for m in walk.star_imports]
    defined = {b.name for b in walk.bindings} | walk.params
    imported = {b.name for b in walk.bindings if isinstance(b.node, (ast.Import, ast.ImportFrom))}
    literal_calls: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("getattr", "hasattr") and _attribute_name(node) is not None:
            literal_calls.add(id(node.func))
            problem = _attribute_problem(_attribute_name(node) or "", node.args[0])
            if problem:
                found.append(f"{node.func.id}(..., {_attribute_name(node)!r})")
    for name, scope, node in walk.loads:
        if name.startswith("__") and name.endswith("__") and name not in _DUNDERS_READ:
            found.append(name)
        elif id(node) in literal_calls or not walk.is_global(name, scope):
            continue
        elif name in _NAMES:
            found.append(_NAMES[name])
        elif hasattr(builtins, name) and name not in _BUILTINS:
            found.append(f"the builtin {name}")
    for b in walk.bindings:  # a class's own methods (__init__...) are its business
        if b.name.startswith("__") and b.name.endswith("__") and b.scope.kind != "class":
            found.append(f"binding {b.name}")
    for annotation in _annotations(tree):  # what typing.get_type_hints would evaluate
        for node in ast.walk(annotation):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and not (
                    all(part.isidentifier() for part in node.value.split(".")) and not any(
                        _attribute_problem(part, node) for part in node.value.split("."))):
                found.append(f"the annotation {node.value[:40]!r} (a string that is not a name)")
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module or "."])
            for mod in mods:
                top = mod.split(".")[0]
                if top in _MODULES or top not in _ALLOWED_IMPORTS or any(
                        part.startswith("_") for part in mod.split(".")[1:]):
                    found.append(f"import {mod}")
            for alias in node.names:
                if isinstance(node, ast.ImportFrom) and (alias.name in _REEXPORTED or (
                        alias.name.startswith("_") and alias.name != "*")):
                    found.append(f"from {node.module or '.'} import {alias.name}")
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.append(f"assigning to {ast.unparse(node)}")
        elif isinstance(node, ast.Attribute):
            problem = _attribute_problem(node.attr, node.value)
            if problem:
                found.append(problem)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = _root_name(node)
            if root in imported or root not in defined:
                found.append(f"assigning to {ast.unparse(node)}")
        elif isinstance(node, ast.keyword) and node.arg == "allow_pickle" and not (
                isinstance(node.value, ast.Constant) and node.value.value is False) or \
                isinstance(node, ast.Constant) and node.value == "allow_pickle" or \
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "load" and (len(node.args) > 2 or any(
                    k.arg is None for k in node.keywords)):
            found.append("allow_pickle (loading pickles)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                _RESULT_FILE.search(node.value):
            found.append(f"the file name {node.value[:40]!r}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                _DUNDER.fullmatch(node.value) and node.value != "__main__":
            found.append(f"the string {node.value!r}")
    return sorted(dict.fromkeys(found))


def message(found: list[str]) -> str:
    """The message a student sees for a screened cell."""
    text = (f"this answer was not run: it uses {', '.join(found[:5])}, which graded answers "
            "may not use")
    if any("a name the tests use" in f or "does not create" in f for f in found):
        text += f". {BINDING_ADVICE}"
    return text
