"""A static screen of answer cells for code that could tamper with grading.

Test cells run in the same Python process as the answers, so an answer could hook IPython
(input transformers, event callbacks, exception handlers), patch the clock, ``jax.jit``,
builtins or the course's check helpers, or end the kernel. The sandbox cannot prevent that;
this screen, run by the grader outside the kernel, finds such code in the source (AST-based,
after IPython magics are turned into calls) so that the cell is not run at all. It is a
deny-list: a determined attacker may find a construct it misses (see ``SECURITY.md``).
"""

from __future__ import annotations

import ast
import re

_NAMES = {
    "get_ipython": "IPython internals (get_ipython)", "__builtins__": "__builtins__",
    "__import__": "__import__", "exec": "exec", "eval": "eval", "compile": "compile",
    "globals": "globals()", "breakpoint": "breakpoint", "exit": "exit", "quit": "quit",
    "setattr": "setattr", "delattr": "delattr", "vars": "vars()",
}
_MODULES = {
    "builtins", "ctypes", "cffi", "signal", "importlib", "gc", "inspect", "IPython",
    "ipykernel", "subprocess", "multiprocessing", "socket", "pty", "resource", "threading",
    "_thread", "atexit", "faulthandler", "sys", "os", "shutil", "pathlib", "io", "time",
    "autograder", "nbformat", "nbclient", "jupyter_client", "zmq", "traitlets", "code",
    "codeop", "runpy", "pickle", "marshal", "types", "weakref", "urllib", "http", "requests",
}
# Modules whose attributes an answer may read but not replace.
_ATTRS = {
    "input_transformers_cleanup", "input_transformers_post", "set_custom_exc",
    "showtraceback", "showsyntaxerror", "excepthook", "displayhook", "settrace",
    "setprofile", "_exit", "kill", "killpg", "fork", "system", "popen", "execv", "execve",
    "spawn", "abort", "run_cell", "events", "register_magic_function", "__dict__",
    "__class__", "__subclasses__", "__globals__", "__code__", "__builtins__", "modules",
    "stdout", "stderr", "f_back", "f_globals", "tb_frame", "gi_frame", "__closure__",
}
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
                    "warnings", "textwrap", "re", "json", "__future__", "jaxtyping"}
_RESULT_FILE = re.compile(r"(result|grades?|gradebook|feedback)[^/\\]*\.(json|csv|db|html)",
                          re.I)


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def screen(source: str) -> list[str]:
    """What in ``source`` graded answers may not use (empty when nothing).

    Flags: imports outside an allow-list of numerical libraries (``os``, ``sys``,
    ``signal``, ``ctypes``, ``IPython``, ``autograder``...), dynamic code (``exec``,
    ``eval``, ``__import__``), reflection that reaches other code's internals
    (``__globals__``, ``__subclasses__``, frames), assignments to attributes of anything
    but ``self``, item assignments to names not defined in the answer, hooks
    (``excepthook``, ``settrace``), and strings naming result files. Code that does not
    parse is not flagged: it fails on its own.
    """
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        code = TransformerManager().transform_cell(source)
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    if "get_ipython()" in code and "get_ipython" not in source:
        return ["IPython magics (%, !)"]
    found: list[str] = []
    defined: set[str] = set()
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module or "."])
            for mod in mods:
                top = mod.split(".")[0]
                if top in _MODULES or top not in _ALLOWED_IMPORTS:
                    found.append(f"import {mod}")
            for alias in node.names:
                imported.add((alias.asname or alias.name).split(".")[0])
                if isinstance(node, ast.ImportFrom) and alias.name in _REEXPORTED:
                    found.append(f"from {node.module or '.'} import {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr in _REEXPORTED:
            found.append(f".{node.attr}")
        elif isinstance(node, ast.Name) and node.id in _NAMES:
            found.append(_NAMES[node.id])
        elif isinstance(node, ast.Attribute) and node.attr in _ATTRS:
            found.append(f".{node.attr}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__") and \
                node.attr not in ("__name__", "__doc__", "__init__", "__call__", "__len__"):
            found.append(f".{node.attr}")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete))
                       else [node.target])
            for target in targets:
                root = _root_name(target)
                if isinstance(target, ast.Attribute) and root != "self" or \
                        isinstance(target, ast.Subscript) and (root in imported
                                                               or root not in defined):
                    found.append(f"assigning to {ast.unparse(target)}")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names = [n for n in node.names if n not in defined]
            if names:
                found.append(f"global {', '.join(names)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                _RESULT_FILE.search(node.value):
            found.append(f"the file name {node.value[:40]!r}")
    return sorted(dict.fromkeys(found))


def message(found: list[str]) -> str:
    """The message a student sees for a screened cell."""
    return (f"this answer was not run: it uses {', '.join(found[:5])}, which graded answers "
            "may not use")
