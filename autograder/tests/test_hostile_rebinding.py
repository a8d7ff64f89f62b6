"""Hostile answers that change what a test cell calls or reads, graded on real exercises.

A test cell imports its checks and then calls the answer (``normalise = build_normalise()``),
so an answer that rebinds a name while it runs (``global check_jitted``), or replaces a check
in its module (reached through a module that re-exports ``sys``), chooses what the rest of the
test cell calls. Each attack below is the course's solution with one answer replaced; each
honest twin uses the same forms for its own purposes (a ``global`` counter of its own, helper
functions, ``functools.partial``) and keeps every point.

The attacks are graded twice: with the screen (they are not run, and say why) and with the
screen switched off (they score the question's points: the attack is real, and the screen,
outside the kernel, is what stops it).

In the same screened batch, the answers of issue 47 (``PROGRAM_ATTACKS``) pass the screen and
are stopped by the checks, which judge the program JAX traced rather than the Python around
it or its text: outputs of a class of the answer's own, vmap only when traced, the product
as a convolution at the default precision, a callback with no result (the notebook's Python on
every call), params deleted by the answer's own output class instead of donated, and a
setting switched on by the builder after the tests' reset to slow the eager reference. Each
fails its question with a message saying what to do (``REFUSED``); their twins in ``TWINS``
keep every point.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from autograder.__main__ import main
from autograder.core.notebook import is_answer, nbgrader_meta
from autograder.grader.release import ROOT

# 06_jit q2: an eager normalise whose builder rebinds the test's checks to stand-ins that run
# the real checks on a decoy jitted function, so "is jitted" and "compiles once" publish "ok".
JIT_STAND_IN = '''\
_real_jitted, _real_no_retrace = check_jitted, check_no_retrace
_decoy = jax.jit(lambda x, mode=None: x, static_argnames="mode")


def _jitted(fn, name="the function"):
    _real_jitted(_decoy, name)


def _no_retrace(fn, *args, name="the function", **kwargs):
    _real_no_retrace(_decoy, *args, name=name, **kwargs)


def build_normalise():
    global check_jitted, check_no_retrace
    check_jitted, check_no_retrace = _jitted, _no_retrace

    def normalise(x, mode):  # eager: never compiled
        if mode == "zscore":
            return (x - x.mean()) / x.std()
        if mode == "minmax":
            return (x - x.min()) / (x.max() - x.min())
        if mode == "l2":
            return x / jnp.sqrt(jnp.sum(x**2))
        raise ValueError(f"unknown mode {mode!r}")

    return normalise
'''
# 06_jit q1: an eager clip_by_norm, with the check replaced in its module, reached through
# warnings' own reference to sys: the test cell's import then takes the stand-in.
SYS_THROUGH_WARNINGS = '''\
import warnings

_checks = getattr(warnings, "sys").modules["autograder.kernel.jax_checks"]
_real = _checks.check_jitted
_checks.check_jitted = lambda fn, name="the function": _real(jax.jit(lambda x: x), name)


def clip_by_norm(x, max_norm):  # eager
    norm = jnp.sqrt(jnp.sum(x**2))
    return jnp.where(norm > max_norm, x * (max_norm / norm), x)
'''
# 03_pure_functions q2: an update that changes the state it is given, and rebinds the test's
# observe and check_pure so that both report "ok".
PURE_STAND_IN = '''\
_real = {}  # the test's own observe and check_pure, taken when the test first calls update


def _observe(name, failure):
    _real["observe"](name, None)


def _pure(state, batch):
    return {"total": state["total"], "count": state["count"]}, jnp.sum(batch)


def _check_pure(fn, *args, name="the function", **kwargs):
    _real["check_pure"](_pure, *args, name=name, **kwargs)


def update(state, batch):
    global observe, check_pure
    if not _real:
        _real["observe"], _real["check_pure"] = observe, check_pure
        observe, check_pure = _observe, _check_pure
    state["total"] = state["total"] + jnp.sum(batch)  # changes the caller's dict
    state["count"] = state["count"] + batch.size
    return state, state["total"] / state["count"]
'''
# The honest twins: the same forms, used on the answer's own names.
HONEST_HELPER = '''\
def _norm(x):
    return jnp.sqrt(jnp.sum(x**2))


@jax.jit
def clip_by_norm(x, max_norm):
    norm = _norm(x)
    return jnp.where(norm > max_norm, x * (max_norm / norm), x)
'''
HONEST_COUNTER = '''\
BUILDS = 0  # how often the learner built it: a global of this cell's own


def build_normalise():
    global BUILDS
    BUILDS += 1

    def normalise(x, mode):
        if mode == "zscore":
            return (x - x.mean()) / x.std()
        if mode == "minmax":
            return (x - x.min()) / (x.max() - x.min())
        if mode == "l2":
            return x / jnp.sqrt(jnp.sum(x**2))
        raise ValueError(f"unknown mode {mode!r}")

    return jax.jit(normalise, static_argnames="mode")
'''
HONEST_PARTIAL = '''\
import functools


def _step(w, x, y, lr, loss):
    return w - lr * jax.grad(loss)(w, x, y)


def build_sgd_step():
    def loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    return jax.jit(functools.partial(_step, loss=loss))
'''
HONEST_PURE_HELPER = '''\
def _added(state, batch):
    return state["total"] + jnp.sum(batch), state["count"] + batch.size


def update(state, batch):
    total, count = _added(state, batch)
    return {"total": total, "count": count}, total / count
'''
# Issue 47: answers that pass checks reading the Python around a program, or its text, and
# fail those reading the program JAX compiled and how it runs. Not screened: the checks stop
# them, each with a message that says what to do.
# 06_jit q5: a jitted identity whose outputs are an object of the answer's own pytree class:
# after every call JAX runs its unflatten in Python, which computes the eager result there and
# queues heavy work, not waited for, onto whatever is timed next (the reference).
OWN_OUTPUT_CLASS = '''\
import numpy as np


class _Smoothed(tuple):  # (value, steps): an output class of the answer's own
    def __array__(self, dtype=None, copy=None):
        return np.asarray(self[0], dtype)


_burn = jax.jit(lambda m: jnp.tanh(m @ m) @ m)
_BIG = jnp.ones((400, 400))


def _rebuild(aux, children):
    value, steps = children
    if not isinstance(value, jax.Array) or isinstance(value, jax.core.Tracer):
        return _Smoothed(children)
    _burn(_BIG)  # queued, not waited for: it lands on the next timed call
    return _Smoothed((smooth(value, int(steps)), steps))  # eager, after the call returned


jax.tree_util.register_pytree_node(_Smoothed, lambda s: (tuple(s), None), _rebuild)


def build_fast_smooth():
    return jax.jit(lambda x, steps: _Smoothed((x, steps)), static_argnames="steps")
'''
# 10_vmap q1: vmap when the checks trace it, a Python loop over the batch when it is called
# with arrays (the values are right either way).
SWITCHES_UNDER_TRACING = '''\
def predict(params, x):
    """One example: x of shape (d_in,) -> shape (d_out,)."""
    return jnp.tanh(params["w"] @ x + params["b"])


def predict_batch(params, xs):
    if isinstance(xs, jax.core.Tracer) or len(xs) == 0:
        return jax.vmap(predict, in_axes=(None, 0))(params, xs)
    return jnp.stack([predict(params, x) for x in xs])
'''
# 08_performance q5: the Gram matrix as a convolution at the default precision: the program
# holds no dot, so a check reading its `stablehlo.dot` lines found nothing to fail.
PRECISION_BY_CONVOLUTION = '''\
def precise_gram(x):
    columns = x.T[:, :, None]  # (d, n, 1): d rows of n channels, convolved with themselves
    return jax.lax.conv_general_dilated(columns, columns, (1,), "VALID")[:, :, 0]
'''
# 06_jit q5: a jitted smooth whose program calls back into the notebook's Python on every call
# with no result (jax.debug.callback): nothing it returns comes from Python, yet Python runs
# while the test measures, where it could queue work, delete arrays or change settings.
PYTHON_AT_CALL_TIME = '''\
import numpy as np

_seen = []  # filled on every call, by Python outside the compiled program


def _each_call(value):
    _seen.append(float(np.abs(value).max()))


def build_fast_smooth():
    def fast(x, steps):
        jax.debug.callback(_each_call, x)
        return smooth(x, steps)

    return jax.jit(fast, static_argnames="steps")
'''
# 08_performance q2: a jitted update with no donation, whose output class of its own (rebuilt
# in Python after every call, which jax.debug.print's effect keeps on JAX's Python path) finds
# the caller's params among jax.live_arrays() and deletes them, so is_deleted() holds.
DELETES_INSTEAD_OF_DONATING = '''\
import numpy as np


class _Updated(tuple):  # (new params, old params): an output class of the answer's own
    pass


def _rebuild(aux, children):
    new, old = children
    leaves = jax.tree.leaves(children)
    if not leaves or not all(isinstance(leaf, jax.Array) for leaf in leaves) or any(
            isinstance(leaf, jax.core.Tracer) for leaf in leaves):
        return _Updated(children)
    kept = {id(leaf) for leaf in leaves}
    olds = [np.asarray(leaf) for leaf in jax.tree.leaves(old)]
    for live in jax.live_arrays():  # the caller's params: the arrays equal to the old ones
        if id(live) in kept or live.is_deleted():
            continue
        if any(live.shape == o.shape and live.dtype == o.dtype
               and np.array_equal(np.asarray(live), o) for o in olds):
            live.delete()
    return new  # a plain dict: the caller sees the new parameters only


jax.tree_util.register_pytree_node(_Updated, lambda u: (tuple(u), None), _rebuild)


def build_update():
    def update(params, grads, lr):  # no donation: the old params' copies ride along
        jax.debug.print("update")  # an effect: every call takes JAX's Python path
        new = jax.tree.map(lambda p, g: p - lr * g, params, grads)
        return _Updated((new, params))

    return jax.jit(update)
'''
# 06_jit q5: a compiled smooth that does its work 30 times over (slower than the eager
# reference), whose builder, run after the tests reset JAX's settings, switches on a debugging
# check that slows only eager code: the reference timed beside it.
CONFIG_AFTER_RESET = '''\
def build_fast_smooth():
    jax.config.update("jax_debug_key_reuse", True)  # eager code checks every key it sees

    def slow(x, steps):
        def again(k, total):
            return total + smooth(x + 0.0 * k, steps)

        return jax.lax.fori_loop(0, 30, again, jnp.zeros_like(x)) / 30

    return jax.jit(slow, static_argnames="steps")
'''
# 06_jit q5: a compiled smooth that does its work 150 times over (about 0.3-0.6x of the eager
# reference's speed), whose answer cell, before the tests, pauses a generator inside a `with`
# block of three of JAX's debugging checks, so the block stays entered: thread-local settings,
# which the tests' reset of the global ones left in force, so the eager reference checked every
# key, NaN and Inf it made (measured with the block left entered: 3.4-5.4x on JAX 0.10.2, 5.4x
# on 0.7.2, 4.3x on 0.12, all passing the 1.5x bar). The screen refuses `.__enter__()`.
SETTING_LEFT_OPEN = '''\
def _checking():  # paused inside its with block: the block stays entered for later cells
    with jax.debug_key_reuse(True), jax.debug_nans(True), jax.debug_infs(True):
        yield


_held = _checking()
next(_held)


def build_fast_smooth():
    def slow(x, steps):
        def again(k, total):
            return total + smooth(x + 0.0 * k, steps)

        return jax.lax.fori_loop(0, 150, again, jnp.zeros_like(x)) / 150

    return jax.jit(slow, static_argnames="steps")
'''
# Their honest twins: a pytree class of the answer's own inside a jitted loop (returning an
# array), a Python branch on a shape with vmap on every path, a convolution at full precision,
# donation by name with a jax.debug.print (JAX's own printing, no code of the notebook).
HONEST_OWN_CLASS = '''\
jax.config.update("jax_traceback_filtering", "off")  # while debugging: the tests put it back


class _Signal(tuple):  # (x,): the state the loop carries, a pytree class of the answer's own
    pass


jax.tree_util.register_pytree_node(_Signal, lambda s: (tuple(s), None),
                                   lambda aux, children: _Signal(children))


def build_fast_smooth():
    def fast(x, steps):
        def step(i, state):
            (x,) = state
            return _Signal((0.9 * jnp.tanh(x) + 0.1 * jnp.sin(x + i),))

        return jax.lax.fori_loop(0, steps, step, _Signal((x,)))[0]

    return jax.jit(fast, static_argnames="steps")
'''
HONEST_SHAPE_BRANCH = '''\
def predict(params, x):
    """One example: x of shape (d_in,) -> shape (d_out,)."""
    return jnp.tanh(params["w"] @ x + params["b"])


def predict_batch(params, xs):
    if xs.ndim == 1:  # a single example: a batch of one
        xs = xs[None]
    return jax.vmap(predict, in_axes=(None, 0))(params, xs)
'''
HONEST_DONATION = '''\
def build_update():
    def update(params, grads, lr):
        jax.debug.print("update with lr={lr}", lr=lr)
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)

    return jax.jit(update, donate_argnames="params")
'''
HONEST_CONVOLUTION = '''\
def precise_gram(x):
    columns = x.T[:, :, None]
    return jax.lax.conv_general_dilated(columns, columns, (1,), "VALID",
                                        precision=jax.lax.Precision.HIGHEST)[:, :, 0]
'''
# student -> (assignment, {answer id: source}); the other answers are the solution's
ATTACKS = {
    "jit-stand-in": ("06_jit", {"q2_static_mode": JIT_STAND_IN}),
    "sys-through-warnings": ("06_jit", {"q1_clip_by_norm": SYS_THROUGH_WARNINGS}),
    "pure-stand-in": ("03_pure_functions", {"q2_update": PURE_STAND_IN}),
}
PROGRAM_ATTACKS = {
    "own-output-class": ("06_jit", {"q5_fast_smooth": OWN_OUTPUT_CLASS}),
    "switches-under-tracing": ("10_vmap", {"q1_predict_batch": SWITCHES_UNDER_TRACING}),
    "precision-by-convolution": ("08_performance", {"q5_precise_gram":
                                                    PRECISION_BY_CONVOLUTION}),
    "python-at-call-time": ("06_jit", {"q5_fast_smooth": PYTHON_AT_CALL_TIME}),
    "deletes-instead-of-donating": ("08_performance", {"q2_donated_update":
                                                       DELETES_INSTEAD_OF_DONATING}),
    "config-after-reset": ("06_jit", {"q5_fast_smooth": CONFIG_AFTER_RESET}),
    "setting-left-open": ("06_jit", {"q5_fast_smooth": SETTING_LEFT_OPEN}),
}
TWINS = {
    "jit-honest": ("06_jit", {"q1_clip_by_norm": HONEST_HELPER,
                              "q2_static_mode": HONEST_COUNTER,
                              "q4_sgd_step": HONEST_PARTIAL,
                              "q5_fast_smooth": HONEST_OWN_CLASS}),
    "pure-honest": ("03_pure_functions", {"q2_update": HONEST_PURE_HELPER}),
    "vmap-honest": ("10_vmap", {"q1_predict_batch": HONEST_SHAPE_BRANCH}),
    "gram-honest": ("08_performance", {"q5_precise_gram": HONEST_CONVOLUTION,
                                       "q2_donated_update": HONEST_DONATION}),
}
# what the screen's message must name, per attack
NAMED = {"jit-stand-in": "global check_jitted", "sys-through-warnings": "getattr(..., 'sys')",
         "pure-stand-in": "global check_pure"}
# what the failed question's message must say, per attack judged by its program
REFUSED = {"own-output-class": "return arrays, not an object of your own class",
           "switches-under-tracing": "use `jax.vmap` on every path",
           "precision-by-convolution": "conv_general_dilated at precision = [DEFAULT, DEFAULT]",
           "python-at-call-time": "calls back into Python from its compiled program "
                                  "(debug_callback of `_each_call`)",
           "deletes-instead-of-donating": "compiled program does not donate params",
           "config-after-reset": "changed JAX's global configuration while it was timed "
                                 "(jax_debug_key_reuse False -> True)",
           "setting-left-open": "as fast as eager smooth(x, 50); at least 1.5x is expected"}


def _write(root: Path, cases: dict[str, tuple[str, dict[str, str]]]) -> None:
    for student, (assignment, answers) in cases.items():
        nb = nbformat.read(ROOT / "solutions" / f"{assignment}.ipynb", as_version=4)
        for cell in nb.cells:
            gid = nbgrader_meta(cell).get("grade_id")
            if is_answer(cell) and gid in answers:
                cell.source = answers[gid]
        (root / student).mkdir(parents=True)
        nbformat.write(nb, root / student / f"{assignment}.ipynb")


def _results(out: Path) -> dict[str, dict]:
    return {p.parent.parent.name: json.loads(p.read_text()) for p in out.glob("*/*/result.json")}


def _question(result: dict, qid: str) -> dict:
    return next(q for q in result["questions"] if q["id"] == qid)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict[str, dict]]:
    """Grade the attacks, those judged by their program and the twins with the screen (two
    jobs), then the screened attacks without it (one job, in this process; the trusted runs
    are those of the run's reference cache, ``$LEARN_JAX_REFERENCE_CACHE``, which release
    --check made)."""
    from autograder.grader import grading

    root = tmp_path_factory.mktemp("rebinding")
    _write(root / "screened", {**ATTACKS, **PROGRAM_ATTACKS, **TWINS})
    _write(root / "unscreened", ATTACKS)
    common = ["--no-feedback"]  # trusted runs: the run's reference cache, made once
    assert main(["grade", str(root / "screened"), "--out", str(root / "out"), "--jobs", "2",
                 *common]) == 0
    with pytest.MonkeyPatch.context() as patch:  # one job: graded in this process
        patch.setattr(grading, "screen_answers", lambda nb, source=None: {})
        assert main(["grade", str(root / "unscreened"), "--out", str(root / "bare"),
                     *common]) == 0
    return {"screened": _results(root / "out"), "unscreened": _results(root / "bare")}


@pytest.mark.slow
@pytest.mark.parametrize("student", ATTACKS)
def test_an_answer_that_rebinds_what_the_tests_call_is_not_run(graded: dict, student: str
                                                              ) -> None:
    """Is each attack on what a test cell calls (a check rebound with ``global``, a check
    replaced in its module through ``getattr(warnings, "sys")``) not run, its question
    failed with a message naming what it used, while without the screen the same answer
    scores the question (the attack is armed)?"""
    _, answers = ATTACKS[student]
    (qid,) = answers
    screened = graded["screened"][student]
    assert screened["status"] == "graded", screened["message"]
    q = _question(screened, qid)
    assert q["status"] == "failed" and q["score"] == 0, q
    assert "this answer was not run" in q["message"] and NAMED[student] in q["message"], q
    bare = graded["unscreened"][student]
    assert _question(bare, qid)["status"] == "passed", _question(bare, qid)


@pytest.mark.slow
@pytest.mark.parametrize("student", TWINS)
def test_honest_globals_helpers_and_partials_keep_their_points(graded: dict, student: str
                                                               ) -> None:
    """Does each honest twin (a ``global`` counter of the answer's own, helper functions,
    ``functools.partial``) keep every point of the questions it answers?"""
    _, answers = TWINS[student]
    result = graded["screened"][student]
    assert result["status"] == "graded", result["message"]
    for qid in answers:
        q = _question(result, qid)
        assert (q["status"], q["score"]) == ("passed", q["max_score"]), q


@pytest.mark.slow
@pytest.mark.parametrize("student", PROGRAM_ATTACKS)
def test_an_answer_judged_by_the_program_it_runs_loses_the_question(graded: dict,
                                                                    student: str) -> None:
    """Does each answer that passed checks reading the Python around its program or the
    program's text (outputs of its own pytree class, whose unflatten runs after every call;
    vmap only when traced; the product as a convolution at default precision) run past the
    screen and fail its question, with a message saying what to do?"""
    _, answers = PROGRAM_ATTACKS[student]
    (qid,) = answers
    result = graded["screened"][student]
    assert result["status"] == "graded", result["message"]
    q = _question(result, qid)
    assert (q["status"], q["score"]) == ("failed", 0), q
    assert "this answer was not run" not in q["message"] and REFUSED[student] in q["message"], q
