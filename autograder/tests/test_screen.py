"""Tests of autograder.grader.judging.screen: the static screen of answer cells."""

from __future__ import annotations

import re

import nbformat
import pytest

from autograder.core.notebook import is_answer, is_test, nbgrader_meta
from autograder.grader.judging.screen import Judged, judged_names, message, own_names, screen
from autograder.grader.release import ROOT

SOURCES = sorted((ROOT / "solutions").glob("*.ipynb"))


def _course(stem: str) -> tuple[nbformat.NotebookNode, Judged, dict[str, set[str]]]:
    nb = nbformat.read(ROOT / "solutions" / f"{stem}.ipynb", as_version=4)
    judged = judged_names(c.source for c in nb.cells if is_test(c))
    own = {nbgrader_meta(c)["grade_id"]: own_names(c.source) for c in nb.cells if is_answer(c)}
    return nb, judged, own


JIT, JIT_JUDGED, JIT_OWN = _course("06_jit")
Q2 = JIT_OWN["q2_static_mode"]  # {"build_normalise"}


def test_no_solution_answer_trips_the_screen() -> None:
    """Do all answer cells of every solution (one per chapter of the table of contents) pass
    the screen untouched, alone and with their course's names (their question's own, and every
    name their tests use)?"""
    toc = (ROOT / "_toc.yml").read_text()
    assert [p.stem for p in SOURCES] == sorted(re.findall(r"file: exercises/(\w+)", toc))
    flagged = {}
    for path in SOURCES:
        nb, judged, own = _course(path.stem)
        for cell in nb.cells:
            if not is_answer(cell):
                continue
            gid = nbgrader_meta(cell)["grade_id"]
            found = screen(cell.source) + screen(cell.source, own[gid], judged)
            if found:
                flagged[(path.stem, gid)] = found
    assert flagged == {}


def test_the_tests_names_come_from_every_test_cell_hidden_ones_too() -> None:
    """Are the names 06_jit's tests read before binding them the answers' names and the
    builtins they call (the checks they import first are not), while every name they use,
    hidden tests' included, counts as used?"""
    assert {"clip_by_norm", "build_normalise", "mean_above", "build_sgd_step",
            "build_fast_smooth", "range", "str"} <= JIT_JUDGED.free
    assert "check_jitted" not in JIT_JUDGED.free and "x" not in JIT_JUDGED.free
    assert {"check_jitted", "check_no_retrace", "check_speedup", "cache_size"} <= \
        JIT_JUDGED.touched
    assert "case" in JIT_JUDGED.touched  # imported by the hidden tests only
    assert Q2 == {"build_normalise"}
    # a name read before the cell binds it is free, in order, compound statements included
    order = judged_names(["y = x + 1\nx = 2\nwith f():\n    z = 1\n    print(z)\n"])
    assert order.free == {"x", "f", "print"}


@pytest.mark.parametrize("source", [
    "import sys\nsys.exit(0)", "import os\nos._exit(1)", "get_ipython().events.register",
    "time.perf_counter = lambda: 0", "jax.jit = lambda f: f", "x = jax\nx.jit = None",
    "setattr(jax, 'jit', None)", "__builtins__['print'] = None", "%xmode Minimal",
    "exec('1')", "f.__code__ = g.__code__", "open('result.json', 'w')",
    "from autograder import compare", "import ctypes", "import socket",
    # modules an allowed one re-exports, by import, by attribute or by getattr
    "from warnings import sys\nsys.modules['jax'] = None", "import warnings\nwarnings.sys.exit(0)",
    "from functools import builtins", "import warnings\ns = getattr(warnings, 'sys')",
    "import warnings\nname = 'sy' + 's'\ns = getattr(warnings, name)",
    "import functools, warnings\nf = functools.partial(getattr, warnings)",
    "import operator, warnings\ns = operator.attrgetter('sys')(warnings)",
    # a module imported by name, or a compiler, through an allowed library's public API
    "from matplotlib.backends import backend_registry as r\n"
    "os = r.load_backend_module('module://os')",
    "import numpy as np\nnp.testing.extbuild.build_and_import_extension('m', [])",
    # private attributes and modules, pickles, code from strings
    "import jax\nx = jax._src", "from jax import _src", "import jax._src.core",
    "import numpy as np\nnp.load('x.npy', allow_pickle=True)",
    "import numpy as np\nnp.load('x.npy', None, True)",
    "import numpy as np\nnp.load('x.npy', **{'allow' + '_pickle': True})",
    "import typing\ndef f(x: 'globals()'):\n    pass\ntyping.get_type_hints(f)",
    # singledispatch's register evaluates a string annotation in the notebook's globals
    "import functools\n@functools.singledispatch\ndef f(x):\n    pass\n@f.register\n"
    "def _(x: 'globals().update(check_jitted=print) or int'):\n    pass\n",
    "def f(x: 'warnings.sys') -> 'jax._src':\n    pass\n",
])
def test_tampering_is_flagged(source: str) -> None:
    """Is each kind of tampering code flagged?"""
    assert screen(source)


# The class of the attack: answer code that changes what a test cell calls or reads
# (here 06_jit's question 2, whose test calls build_normalise() after importing its checks).
REBINDING = {
    "global in the answer": "def build_normalise():\n    global check_jitted\n"
                            "    check_jitted = lambda f, name: None\n",
    "global, the name also set in the cell": "check_jitted = 0\ndef build_normalise():\n"
                                             "    global check_jitted\n    check_jitted = 1\n",
    "global in a nested function": "def build_normalise():\n    def inner():\n"
                                   "        global check_jitted\n        check_jitted = 1\n"
                                   "    inner()\n",
    "global in a class body": "class A:\n    global check_jitted\n    check_jitted = 1\n",
    "global in a decorator": "def deco(f):\n    global check_no_retrace\n"
                             "    check_no_retrace = f\n    return f\n",
    "import as a check, global": "def build_normalise():\n    global check_array\n"
                                 "    import jax.numpy as check_array\n",
    "del": "def build_normalise():\n    global check_jitted\n    del check_jitted\n",
    "walrus in a generator": "g = ((check_jitted := 1) for _ in range(1))\n"
                             "def build_normalise():\n    next(g)\n",
    "for-loop target, global": "def build_normalise():\n    global x\n    for x in [0]:\n"
                                "        pass\n",
    "another question's answer": "clip_by_norm = jax.jit(lambda x, m: x)\n",
    "a builtin the tests call": "str = lambda x: 'float32'\n",
    "the answer's own name, later": "def build_normalise():\n    global build_normalise\n"
                                    "    build_normalise = None\n",
    "a global the cell does not create": "def build_normalise():\n    global helper\n"
                                         "    helper = 1\n",
    "globals()": "def build_normalise():\n    globals()['check_jitted'] = None\n",
    "vars()": "def build_normalise():\n    vars()['x'] = 1\n",
    "locals() at the top level": "locals()['check_jitted'] = 1\n",
    "an attribute of a module passed in": "import jax\ndef f(self):\n    self.jit = None\n"
                                          "f(jax)\n",
    "an attribute in __init__": "class A:\n    def __init__(self):\n        self.x = 1\n",
    "__init__ reached as an attribute": "class A:\n    pass\nA.__init__(jax)\n",
    "super() with arguments": "import jax\nsuper(type(jax), jax).__init__('x')\n",
    "star import": "from jax.numpy import *\n",
    "__builtins__": "b = __builtins__\n",
}


@pytest.mark.parametrize("case", REBINDING)
def test_binding_a_name_the_tests_use_is_flagged(case: str) -> None:
    """With 06_jit's names, is each way of binding a name a test cell calls or reads (or a
    global the cell did not create, or a namespace by reflection) flagged?"""
    assert screen(REBINDING[case], Q2, JIT_JUDGED), case


HONEST = {
    "a global counter of its own": "CALLS = 0\ndef build_normalise():\n    global CALLS\n"
                                   "    CALLS += 1\n    return jax.jit(lambda x, mode: x, "
                                   "static_argnames='mode')\n",
    "a helper function": "def _zscore(x):\n    return (x - x.mean()) / x.std()\n"
                         "def build_normalise():\n    return jax.jit(lambda x, mode: "
                         "_zscore(x), static_argnames='mode')\n",
    "functools.partial": "from functools import partial\ndef _norm(x, mode, eps):\n"
                         "    return x\ndef build_normalise():\n    return jax.jit(partial("
                         "_norm, eps=1e-6), static_argnames='mode')\n",
    "trying it out at the top level": "import jax.numpy as jnp\nx = jnp.ones(3)\n"
                                      "normalise = build_normalise()\nprint(normalise(x, 'l2'))\n",
    "a dataclass and a named tuple": "import dataclasses, typing\n@dataclasses.dataclass("
                                     "frozen=True)\nclass P:\n    a: 'int' = 0\n"
                                     "    b: 'jax.Array' = None\n"
                                     "class S(typing.NamedTuple):\n    n: int\n"
                                     "def bump(s):\n    return s._replace(n=s.n + 1)._asdict()\n",
    "getattr with a literal name": "def f(x):\n    return getattr(x, 'shape', None), "
                                   "hasattr(x, 'dtype')\n",
    "a parameter named like a builtin": "def f(getattr):\n    return getattr(1)\n",
    "nonlocal": "def build_normalise():\n    n = 0\n    def g(x, mode):\n        nonlocal n\n"
                "        n += 1\n        return x\n    return g\n",
    "a walrus at the top level": "if (n := 3) > 2:\n    y = [v := i for i in range(3)]\n",
    "its own name at the top level": "def build_normalise():\n    return None\n"
                                     "build_normalise = jax.jit(build_normalise)\n",
    "mutating its argument": "def update(state, batch):\n    state['total'] = 0\n"
                             "    return state\n",
}


@pytest.mark.parametrize("case", HONEST)
def test_honest_globals_helpers_and_partials_pass(case: str) -> None:
    """The twins: does honest code that binds its own names (a global counter no test reads,
    helpers, ``functools.partial``, dataclasses and named tuples, trying the answer out) pass?"""
    assert screen(HONEST[case], Q2, JIT_JUDGED) == [], case


def test_ordinary_jax_code_passes_and_message_names_the_reason() -> None:
    """Does ordinary JAX code pass, and does the message name what was found (with advice
    for a binding)?"""
    code = ("import jax\nimport jax.numpy as jnp\nfrom functools import partial\n"
            "@jax.jit\ndef f(x):\n    d = {}\n    d['a'] = x\n    return jnp.sum(x ** 2)\n")
    assert screen(code) == []
    assert "import sys" in message(screen("import sys"))
    # the honest twin of the re-export attacks: submodules of allowed libraries stay allowed
    assert screen("import scipy.signal\nfrom scipy import io, signal\nfrom jax import numpy, "
                  "tree_util\nimport warnings\nwarnings.warn('x')\ny = scipy.signal.lfilter") == []
    text = message(screen(REBINDING["global in the answer"], Q2, JIT_JUDGED))
    assert text.startswith("this answer was not run: it uses global check_jitted (a name the "
                           "tests use)") and "names the tests do not use" in text


def test_screen_answers_uses_the_course_names_for_answers_and_the_learners_cells() -> None:
    """Does grading's screen refuse an answer, and a learner's own cell after it, that rebind
    a check (with the course's names), while the same learner cell trying the answer out
    runs?"""
    from autograder.grader.grading import screen_answers
    from autograder.grader.rebuild import EXTRA_KEY

    nb = nbformat.from_dict(JIT)
    at = next(i for i, c in enumerate(nb.cells) if is_answer(c)
              and nbgrader_meta(c)["grade_id"] == "q2_static_mode")
    nb.cells[at].source = REBINDING["global in the answer"]
    after = [nbformat.v4.new_code_cell(src, metadata={EXTRA_KEY: "q3_mean_above"})
             for src in (HONEST["trying it out at the top level"],
                         "def mean_above(x, t):\n    global observe\n    observe = print\n")]
    nb.cells[at + 2:at + 2] = after
    flagged = screen_answers(nb, JIT)
    assert set(flagged) == {"q2_static_mode", "q3_mean_above"}
    assert "global check_jitted" in flagged["q2_static_mode"]
    assert "global observe" in flagged["q3_mean_above"]
    assert nb.cells[at].source.startswith("raise RuntimeError(")
    assert after[0].source == HONEST["trying it out at the top level"]
