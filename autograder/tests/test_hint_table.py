"""Tests of the hint table's layout (autograder.kernel.hints.table): small groups, unique names,
the precedence between hints that can match the same error (the first match wins), and the
syllabus (autograder.kernel.hints.syllabus): every API a hint names is taught where it says, and
a hint shown in an earlier chapter says where."""

from __future__ import annotations

import ast
import inspect
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from autograder.kernel import hints
from autograder.kernel.hints import hint_name, syllabus, table
from autograder.tests.test_hints import _error_of

MAX_ENTRY_LINES = 80  # the lines of a group's HINTS list: one screen, scanned at a glance


def _matching(exc: BaseException) -> list[str]:
    """The names of every hint whose matcher accepts ``exc``, in table order."""
    return [hint.name for hint in table.HINTS if hint.matches(exc)]


def test_every_group_module_is_in_the_table_once() -> None:
    """Is every module of the table package one of its GROUPS, and no group listed twice (a
    group left out of GROUPS would silently never match)?"""
    modules = {info.name for info in pkgutil.iter_modules(table.__path__)}
    assert sorted(group.__name__.rsplit(".", 1)[1] for group in table.GROUPS) == sorted(modules)


@pytest.mark.parametrize("group", table.GROUPS, ids=lambda g: g.__name__.rsplit(".", 1)[1])
def test_each_group_is_small_and_says_what_it_covers(group) -> None:
    """Is each group's list of hints under MAX_ENTRY_LINES lines, and does its docstring say
    what it covers and which chapter teaches it?"""
    tree = ast.parse(inspect.getsource(group))
    lists = [node for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
             and "HINTS" in ast.unparse(node.targets[0] if isinstance(node, ast.Assign)
                                        else node.target)]
    assert len(lists) == 1 and group.HINTS
    assert lists[0].end_lineno - lists[0].lineno + 1 <= MAX_ENTRY_LINES
    assert "chapter" in (ast.get_docstring(tree) or "")


def test_hint_names_are_unique_across_groups() -> None:
    """Does every hint have its own name (tests and feedback refer to hints by name)?"""
    names = [hint.name for group in table.GROUPS for hint in group.HINTS]
    assert len(names) == len(set(names))


def test_the_lookup_tries_the_groups_in_order() -> None:
    """Is the table the package looks hints up in every group's hints, group after group, each
    group's in its own order?"""
    assert hints._HINTS is table.HINTS
    assert table.HINTS == [hint for group in table.GROUPS for hint in group.HINTS]


def _while_loop(x):
    while x > 0:
        x = x - 1
    return x


def _python_max(x):
    return max(x, 0.0)


# (what, the error, the hint it gets, other hints that match it too): each case is an error that
# more than one hint matches, so it fails if the table's order changes which one comes first.
_TRACING_CASES = [
    ("a Python while on a tracer", lambda: jax.jit(_while_loop)(3.0),
     "python-while-on-tracer", {"python-if-on-tracer", "concrete-value"}),
    ("Python's max on a tracer", lambda: jax.jit(_python_max)(3.0),
     "python-max-on-tracer", {"python-if-on-tracer", "concrete-value"}),
    ("a Python if on a tracer", lambda: jax.jit(lambda x: 1 if x > 0 else 2)(1.0),
     "python-if-on-tracer", {"concrete-value"}),
    ("bincount without a length", lambda: jax.jit(jnp.bincount)(jnp.arange(3)),
     "bincount-length", {"concrete-value"}),
]


@pytest.mark.parametrize("what, raise_it, first, also", _TRACING_CASES,
                         ids=[case[0] for case in _TRACING_CASES])
def test_specific_tracing_hints_come_before_general_ones(what, raise_it, first, also) -> None:
    """When a tracer error matches several hints (a `while` line, `max`, `bincount`, then the
    general `if` and concrete-value hints), does the most specific one win?"""
    exc = _error_of(raise_it)
    matching = _matching(exc)
    assert matching[0] == first and hint_name(exc) == first, (what, matching)
    assert also <= set(matching), (what, matching)


def _rank_error_on_a_pmap_line() -> BaseException:
    """JAX 0.7's and jit's rank error, raised from a learner's line that calls pmap (test files
    play the learner's part, :func:`autograder.kernel.tracebacks.is_library_file`)."""
    error = ValueError("One of pjit arguments is incompatible with its sharding annotation: "
                       "PartitionSpec('i',) is only valid for values of rank at least 1")
    try:
        raise error  # the learner's line: jax.pmap(step)(params, xs)
    except ValueError as exc:
        return exc


def test_pmap_hints_come_before_sharding_hints() -> None:
    """Does a scalar mapped by pmap (a rank error on a pmap line) get the pmap hint, though the
    same words from device_put or jit's shardings mean the sharding hint (scalar-split)?"""
    exc = _rank_error_on_a_pmap_line()
    assert _matching(exc)[:2] == ["pmap-shared-mapped", "scalar-split"]
    elsewhere = ValueError("PartitionSpec('data',) is only valid for values of rank at least 1")
    assert _matching(elsewhere) == ["scalar-split"]


def _too_long_error_on_a_pmap_line() -> BaseException:
    """JAX 0.10's and 0.12's error for a scalar mapped by a pmap called under jit (a shard_map
    there), raised from a learner's line that calls pmap."""
    error = ValueError("shard_map applied to the function '_fun' was given an in_specs entry "
                       "which is too long to be compatible with the corresponding input value")
    try:
        raise error  # the learner's line: jax.pmap(step, axis_name="data")(w, x, y, lr)
    except ValueError as exc:
        return exc


def test_pmap_under_jit_gets_the_pmap_hint_not_the_in_specs_one() -> None:
    """Does a scalar mapped by a pmap under jit (shard_map's too-long in_specs error, on a pmap
    line) get the pmap hint (in_axes), though the same words from a learner's own shard_map
    mean the in_specs hint?"""
    exc = _too_long_error_on_a_pmap_line()
    assert _matching(exc)[:2] == ["pmap-shared-mapped", "in-specs-too-long"]
    elsewhere = ValueError("shard_map applied to the function 'per_device' was given an "
                           "in_specs entry which is too long to be compatible")
    assert _matching(elsewhere) == ["in-specs-too-long"]


def test_old_module_name_still_imports_the_package() -> None:
    """Does a notebook saved before the split (``from autograder.hints import feedback``) still
    import the hints, now a package, getting the very same module?"""
    code = ("import warnings\nwarnings.simplefilter('ignore')\n"
            "import autograder.hints as old, autograder.kernel.hints as new\n"
            "from autograder.hints import feedback, case, advice, hint_for\n"
            "print(old is new, feedback is new.feedback, len(old._HINTS) > 30)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.split() == ["True", "True", "True"]


# --- the syllabus: hints say where an API the chapter has not taught yet is taught -------------

CHAPTERS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _notebook_text(path: Path) -> str:
    return "\n".join("".join(cell.get("source", [])) for cell in json.loads(path.read_text())
                     ["cells"])


def test_every_api_is_taught_in_the_chapter_the_syllabus_names() -> None:
    """Is each chapter the syllabus names one of notebooks/ (by its two-digit prefix), and
    does that chapter's notebook name the API (in backticks or code)?"""
    by_number = {path.stem[:2]: path for path in CHAPTERS}
    missing = {api: chapter for api, chapter in syllabus.TAUGHT.items()
               if chapter not in by_number
               or not syllabus._PATTERNS[api].search(_notebook_text(by_number[chapter])
                                                    .replace("jax.lax.", "lax."))}
    assert missing == {}


def _hint_strings() -> list[str]:
    """Every string a hint group's source holds (hint texts, and the parts of the functions
    that word a hint after the error)."""
    found = []
    for group in table.GROUPS:
        tree = ast.parse(inspect.getsource(group))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        found += [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                  and isinstance(node.value, str) and id(node) not in docstrings]
    return found


def test_every_jax_name_a_hint_writes_is_in_the_syllabus() -> None:
    """Does every ``jax.``, ``lax.`` or ``jnp.`` name inside backticks in a hint group's source
    appear in the syllabus, so the hints can say where it is taught?"""
    unknown = set()
    for text in _hint_strings():
        for span in re.findall(r"`([^`]+)`", text):
            for name in re.findall(r"(?<![\w.])(?:jax|lax|jnp)\.[\w.]+", span):
                if not syllabus.apis_in(f"`{name}`"):
                    unknown.add(name)
    assert unknown == set()


@pytest.mark.parametrize("chapter", [path.stem for path in CHAPTERS])
def test_fixed_hints_say_where_later_apis_are_taught(chapter: str) -> None:
    """Shown in each chapter, does every hint with a fixed text say which chapter teaches each
    API that chapter has not taught yet, and leave the APIs it has taught unannotated?"""
    for hint in table.HINTS:
        if callable(hint.text):
            continue
        shown = syllabus.annotate(hint.text, chapter)
        later = syllabus.later_apis(hint.text, chapter)
        assert all(f"chapter {taught}" in shown for _, taught in later), (hint.name, shown)
        if not later:
            assert shown == hint.text, hint.name


def test_annotate_marks_each_later_chapter_once_after_its_first_mention() -> None:
    """Does annotate put ``(chapter NN)`` after the first span naming an API of a later chapter
    (``jax.lax.fori_loop`` counting as ``lax.fori_loop``), once per chapter, nothing for a
    chapter already taught, and everything after chapter 01 when the chapter is unknown?"""
    text = "Use `static_argnames`, or `jax.lax.fori_loop` or `lax.while_loop`; `jnp.where`."
    assert syllabus.annotate(text, "06_jit") == (
        "Use `static_argnames`, or `jax.lax.fori_loop` (chapter 09) or `lax.while_loop`; "
        "`jnp.where`.")
    assert syllabus.annotate(text, "09_control_flow") == text
    assert syllabus.annotate(text, None).startswith("Use `static_argnames` (chapter 06), or "
                                                    "`jax.lax.fori_loop` (chapter 09)")
    assert syllabus.annotate("`vmap` is taught in chapter 10", "03") == (
        "`vmap` is taught in chapter 10")


def test_reading_order_is_the_table_of_contents() -> None:
    """Does the syllabus compare chapters in the order ``_toc.yml`` lists them (the order of
    their numbers since the renumbering), so a hint shown in chapter 02 marks what 03 and 06
    teach as later and a hint shown in chapter 08 does not mark what 06 teaches?"""
    toc = (Path(__file__).resolve().parents[2] / "_toc.yml").read_text()
    listed = re.findall(r"file: notebooks/(\d\d)_", toc)
    assert tuple(listed) == syllabus.READING_ORDER
    assert syllabus.later_apis("`static_argnames`, `jax.grad`", "02_key_concepts") == [
        ("static_argnames", "06"), ("jax.grad", "03")]
    assert syllabus.later_apis("`static_argnames`", "08_performance") == []
    assert syllabus.later_apis("`lax.fori_loop`", "08_performance") == [("lax.fori_loop", "09")]
