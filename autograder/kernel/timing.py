"""Timing JAX code the right way, and the timing tests the exercises use.

JAX dispatches work asynchronously and compiles on the first call, so a naive
``time.time()`` around a call measures either dispatch alone or compilation. Every timing in
the course goes through this module, which:

- warms up first (the first call traces and compiles; it is never counted),
- waits for results with ``block_until_ready`` on every leaf of the output,
- repeats short calls enough times that each measurement is well above timer noise,
- interleaves the candidates round by round, so a burst of load hits all of them alike,
- reports medians (robust to the odd slow round), and
- measures compile time apart, with ``jax.jit(f).lower(...).compile()``.

Timing *tests* (:func:`check_speedup`) on the CPU backend compare process CPU time rather
than wall time: other processes on a busy machine then cannot swing the ratio, while the work
JAX does on its own threads (and Python's per-op dispatch) still counts. On GPU and TPU the
work happens off the CPU, so wall time is used there. A timing test times the answer on fresh
random inputs it cannot foresee, compares its timed outputs with the reference's on the same
inputs, and looks into the answer's traced program for callbacks into Python. The reference is
measured first in each round, under conditions the answer cannot touch: the work outstanding
on every device drained (:func:`drain`) and JAX's settings verified before each of its timed
calls, against the snapshot taken when the test cell's checks began.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# A correct answer is at least 2.5x faster than the reference on a 2-core CPU (the exercises
# choose workloads where it is usually 10x or more); requiring far less keeps busy machines
# from failing correct work. bench/ measures the false-fail and false-pass rates.
REQUIRED_SPEEDUP: dict[str, float] = {"cpu": 1.5, "gpu": 1.5, "tpu": 1.5}
# A timing test measures again only a near miss: a first speedup of at least this fraction
# of the required one (1.2x of 1.5x). Slow answers measure 0.9x to 1.2x (bench/ records them);
# correct ones, 20x or more.
NEAR_MISS = 0.8

Clock = Callable[[], float]
_last_intruders: set[str] = set()  # foreign threads seen by the last compare(fresh=True)
# JAX settings a function changed during the last compare(): name -> {setting: (before,
# after)}. Each change is undone before the next call, outside the timed part, so that no
# function's timing runs under a setting another one left behind.
_last_config_changes: dict[str, dict[str, tuple[Any, Any]]] = {}
WALL: Clock = time.perf_counter
CPU: Clock = time.process_time


def block(tree: Any) -> Any:
    """Wait until every array in ``tree`` is computed; return ``tree`` unchanged."""
    import jax

    for leaf in jax.tree.leaves(tree):
        wait = getattr(leaf, "block_until_ready", None)
        if wait is not None:
            wait()
    return tree


@dataclass
class Timing:
    """Seconds per call of one function, one entry per measured round."""

    name: str
    seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        """Median seconds per call."""
        return statistics.median(self.seconds)

    @property
    def best(self) -> float:
        """Fastest seconds per call."""
        return min(self.seconds)

    def __str__(self) -> str:
        rounds = len(self.seconds)
        return f"{self.name}: {format_seconds(self.median)} per call (median of {rounds})"


@dataclass
class Speedup:
    """How much faster ``fast`` ran than ``slow`` on the same inputs."""

    ratio: float
    ratios: list[float]
    fast: Timing
    slow: Timing

    def __str__(self) -> str:
        return (
            f"{self.ratio:.1f}x faster ({self.fast.name} {format_seconds(self.fast.median)} vs "
            f"{self.slow.name} {format_seconds(self.slow.median)}, median of "
            f"{len(self.ratios)} interleaved rounds)"
        )


def format_seconds(seconds: float) -> str:
    """Human units: ``'312 µs'``, ``'4.1 ms'``, ``'2.30 s'``."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


Inputs = Callable[[Any], Any]  # numpy Generator -> one call's positional arguments


class FreshInputs:
    """Arguments drawn afresh for every timed call, from a random generator seeded from the
    operating system's entropy when the test starts, so no answer can know them in advance.

    ``make(rng)`` (a test cell's ``inputs=``) returns one call's positional arguments (a tuple,
    or a single argument) drawn from ``rng``, a ``numpy.random.Generator``, with the shapes,
    dtypes and ranges its question needs; the keyword arguments stay as given. Without
    ``make``, every floating-point array of the example arguments is drawn uniformly between
    its own smallest and largest entry (same shape and dtype; a constant array stays as it
    is), and integers, keys and Python numbers are passed as given (changing a static
    argument would recompile). NumPy arrays are placed on the device, every array is ready
    before the call: none of this is timed.
    """

    def __init__(self, args: tuple, kwargs: dict, make: Inputs | None = None,
                 seed: int | None = None) -> None:
        import numpy as np

        self.args, self.kwargs, self.make, self.calls = args, kwargs, make, 0
        self.rng = np.random.default_rng(seed)  # None: fresh entropy from the OS
        self.intruders: set[str] = set()  # other threads seen running notebook code

    def draw(self) -> tuple[tuple, dict]:
        """A new call's ``(args, kwargs)``, on the device and ready (nothing is timed)."""
        import jax

        self.calls += 1
        if self.make is None:
            args, kwargs = jax.tree.map(lambda leaf: _redrawn(leaf, self.rng),
                                        (self.args, self.kwargs))
        else:
            made = self.make(self.rng)
            args, kwargs = (made if isinstance(made, tuple) else (made,)), self.kwargs
        args, kwargs = jax.tree.map(_on_device, (args, kwargs))
        return block(args), block(kwargs)

    def look(self) -> None:
        """Note other threads running notebook code (untimed, before every timed call)."""
        self.intruders.update(foreign_threads())

    def next(self) -> tuple[tuple, dict]:
        """The next call's ``(args, kwargs)``, after looking for other threads."""
        self.look()
        return self.draw()


# The course package (``autograder/``), this module's grandparent folder.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _trusted_dirs() -> tuple[str, ...]:
    """Where the code of Python, the installed packages and the course's helpers lives."""
    import sys

    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, _PACKAGE}
    return tuple(os.path.join(os.path.realpath(d), "") for d in dirs)


@functools.lru_cache(maxsize=4096)
def _installed(filename: str) -> bool:
    """True for code of Python itself, installed packages or the course's helpers (not their
    tests); False for a notebook cell's code."""
    if filename.startswith("<frozen"):
        return True
    path = os.path.realpath(filename)
    tests = os.path.join(_PACKAGE, "tests", "")
    return path.startswith(_trusted_dirs()) and not path.startswith(tests)


def foreign_threads() -> list[str]:
    """Threads other than this one that are running code from elsewhere: a notebook's cells.

    A timing test measures the answer alone. A thread an answer started could burn CPU only
    while the reference runs and so pass slow code; every thread that runs Python code shows
    its frames here, and one that would act while the reference runs is alive just before
    the reference's call, where :class:`FreshInputs` looks. The kernel's own threads and the
    native threads of XLA are not counted.
    """
    import sys
    import threading

    me = threading.get_ident()
    found = []
    for ident, frame in sys._current_frames().items():
        if ident == me:
            continue
        while frame is not None:
            name = frame.f_code.co_filename
            if not _installed(name):
                found.append(f"{frame.f_code.co_name} ({os.path.basename(name)})")
                break
            frame = frame.f_back
    return found


def _redrawn(leaf: Any, rng: Any) -> Any:
    """A floating-point array drawn uniformly between ``leaf``'s smallest and largest entry
    (same shape and dtype); ``leaf`` itself when it is anything else, or constant."""
    import numpy as np

    dtype = getattr(leaf, "dtype", None)
    if dtype is None or getattr(leaf, "ndim", None) is None or not getattr(leaf, "size", 0):
        return leaf
    try:
        floating = np.issubdtype(dtype, np.floating)
    except TypeError:  # extended dtypes such as PRNG keys
        return leaf
    if not floating:
        return leaf
    values = np.asarray(leaf, dtype=np.float64)
    low, high = float(values.min()), float(values.max())
    if not (np.isfinite(low) and np.isfinite(high)) or low == high:
        return leaf
    drawn = rng.uniform(low, high, size=values.shape).astype(dtype)
    sharding = getattr(leaf, "sharding", None)
    if sharding is None:
        return drawn
    import jax

    return jax.device_put(drawn, sharding)


def _on_device(leaf: Any) -> Any:
    """A NumPy array as a JAX array (as the tests' example inputs are); anything else as is."""
    import numpy as np

    if isinstance(leaf, np.ndarray) and leaf.dtype != object:
        import jax

        return jax.device_put(leaf)
    return leaf


_TINY: dict[Any, Callable] = {}  # device -> a jitted function of a scalar placed on it


def drain() -> None:
    """Wait for all outstanding work of every device: callbacks' effects, then a tiny
    computation on each device, which runs after everything queued on it before (on CPU, GPU
    and TPU alike a device runs what it was given in order). Work an earlier call queued
    without waiting for it (an answer that dispatches heavy work and returns) so finishes
    here, untimed, instead of on whatever clock starts next."""
    import jax
    import numpy as np

    jax.effects_barrier()
    for device in jax.local_devices():
        tiny = _TINY.get(device)
        if tiny is None:
            tiny = _TINY[device] = jax.jit(lambda x: x + 1)
        tiny(jax.device_put(np.float32(0), device)).block_until_ready()


def _undo_config(before: dict[str, Any], who: str) -> None:
    """Undo changes to JAX's settings since ``before`` and note them under ``who``."""
    from autograder.kernel.config_watch import restore_config

    changed = restore_config(before)
    if changed:
        _last_config_changes.setdefault(who, {}).update(changed)


def _run(fn: Callable, args: tuple, kwargs: dict, number: int, clock: Clock = WALL,
         fresh: FreshInputs | None = None, who: str = "",
         given: dict[int, tuple[tuple, dict]] | None = None,
         kept: dict[int, Any] | None = None, guard: bool = False) -> float:
    """Seconds per call of ``fn``, over ``number`` calls (fresh inputs, untimed, if given).

    With fresh inputs, the calls numbered in ``given`` use the inputs it holds instead of new
    ones, and their outputs are put in ``kept`` (the timing test compares them with the
    reference's). JAX's configuration is compared before and after (and, with fresh inputs,
    its settings that change what is measured after every call), outside the timed part: a
    change is undone and noted in :data:`_last_config_changes` under ``who``. Outstanding
    work of every device is drained (:func:`drain`) before the first clock starts; with
    ``guard`` (the reference of a timing test), before every call, and every JAX setting is
    verified unchanged before every call too: nothing the function timed before it left
    behind lands on its clock."""
    from autograder.kernel.config_watch import DEFAULT_CONFIG, config_snapshot

    config = config_snapshot()
    drain()
    if fresh is None:
        start = clock()
        for _ in range(number):
            block(fn(*args, **kwargs))
        elapsed = (clock() - start) / number
        _undo_config(config, who)
        return elapsed
    given = given or {}
    watched = {name: config[name] for name in DEFAULT_CONFIG if name in config}
    total = 0.0
    for i in range(number):
        if i in given:
            fresh.look()
            call_args, call_kwargs = given[i]
        else:
            call_args, call_kwargs = fresh.next()
        if guard and i:
            drain()
            if config_snapshot() != config:
                _undo_config(config, who)
        start = clock()
        out = block(fn(*call_args, **call_kwargs))
        total += clock() - start
        if kept is not None and i in given:
            kept[i] = out
        del out
        if config_snapshot(watched) != watched:
            _undo_config(config, who)
    _undo_config(config, who)
    return total / number


def _loops_for(fn: Callable, args: tuple, kwargs: dict, target: float,
               fresh: FreshInputs | None = None, who: str = "") -> int:
    """How many back-to-back calls make one measurement last at least ``target`` seconds."""
    single = _run(fn, args, kwargs, 1, fresh=fresh, who=who)
    if single >= target:
        return 1
    return min(1000, max(1, int(target / max(single, 1e-7)) + 1))


# At most this many of the answer's timed calls per round share their inputs with the
# reference's timed calls, and are compared with them (the rest are timed only).
CHECKED_PER_ROUND = 8
# Outputs of the last compare(..., pair=...): (answer's output, reference's output) on the
# same inputs.
_last_pairs: list[tuple[Any, Any]] = []


def compare(
    fns: Mapping[str, Callable],
    *args: Any,
    rounds: int = 7,
    warmup: int = 1,
    target: float = 2e-3,
    clock: Clock = WALL,
    fresh: bool = False,
    inputs: Inputs | None = None,
    pair: tuple[str, str] | None = None,
    **kwargs: Any,
) -> dict[str, Timing]:
    """Time several functions on the same inputs, interleaved round by round.

    Args:
        fns: name -> function; each is called as ``fn(*args, **kwargs)``.
        rounds: measured rounds; each function is measured once per round.
        warmup: calls per function before measuring, on ``args`` (compilation happens here).
        target: seconds one measurement should last at least; short calls are repeated.
        clock: ``WALL`` (default, what a user waits) or ``CPU`` (this process's CPU time).
        fresh: give every measured call new inputs (:class:`FreshInputs`, made outside the
            timed part), so that no call repeats an earlier one or can be foreseen; timing
            tests do.
        inputs: how fresh inputs are drawn (``make`` of :class:`FreshInputs`); implies
            ``fresh``.
        pair: ``(answer, reference)``, two names of ``fns``, with fresh inputs: in every
            round the reference's first calls (up to :data:`CHECKED_PER_ROUND`) get the same
            inputs as as many of the answer's calls, at positions drawn at random among them;
            the two outputs of each such input are left in :data:`_last_pairs`. The
            reference's calls are guarded (``_run``'s ``guard``: outstanding work drained and
            JAX's settings verified before each).

    Returns:
        name -> :class:`Timing` with per-call seconds for each round.
    """
    from autograder.kernel.config_watch import config_snapshot

    fresh = fresh or inputs is not None
    source = FreshInputs(args, kwargs, inputs) if fresh else None
    _last_intruders.clear()
    _last_config_changes.clear()
    _last_pairs.clear()
    for name, fn in fns.items():
        for _ in range(warmup):
            config = config_snapshot()
            block(fn(*args, **kwargs))
            _undo_config(config, name)
    loops = {name: _loops_for(fn, args, kwargs, target, source, name)
             for name, fn in fns.items()}
    timings = {name: Timing(name) for name in fns}
    for _ in range(rounds):
        given: dict[str, dict[int, tuple[tuple, dict]]] = {name: {} for name in fns}
        positions: list[int] = []
        if source is not None and pair is not None:
            answer, reference = pair
            shared = [source.draw() for _ in range(
                min(loops[answer], loops[reference], CHECKED_PER_ROUND))]
            positions = [int(i) for i in source.rng.choice(loops[answer], size=len(shared),
                                                             replace=False)]
            given[answer] = dict(zip(positions, shared, strict=True))
            given[reference] = dict(enumerate(shared))
        kept: dict[str, dict[int, Any]] = {name: {} for name in fns}
        for name, fn in fns.items():
            timings[name].seconds.append(_run(
                fn, args, kwargs, loops[name], clock, source, name, given[name], kept[name],
                guard=pair is not None and name == pair[1]))
        if positions:
            answer, reference = pair  # type: ignore[misc]
            _last_pairs.extend((kept[answer][p], kept[reference][j])
                               for j, p in enumerate(positions))
    if source is not None:
        _last_intruders.update(source.intruders)
    return timings


def time_call(fn: Callable, *args: Any, rounds: int = 7, warmup: int = 1, name: str = "",
              **kwargs: Any) -> Timing:
    """Median-friendly timing of one function (see :func:`compare`)."""
    label = name or getattr(fn, "__name__", "function")
    return compare({label: fn}, *args, rounds=rounds, warmup=warmup, **kwargs)[label]


def compile_seconds(fn: Callable, *args: Any, **kwargs: Any) -> float:
    """Seconds to trace, lower and compile ``fn`` for these arguments (nothing is run).

    ``fn`` may be a plain function (it is wrapped in ``jax.jit``) or already jitted. JAX
    caches compilations: timing the same function and shapes a second time measures a cache
    hit, so time a fresh function object when the first compile is what you want to see.
    """
    import jax

    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    start = WALL()
    jitted.lower(*args, **kwargs).compile()
    return WALL() - start


def speedup(
    fast: Callable,
    slow: Callable,
    *args: Any,
    rounds: int = 15,
    warmup: int = 2,
    target: float = 5e-3,
    names: tuple[str, str] = ("fast", "slow"),
    clock: Clock = WALL,
    **kwargs: Any,
) -> Speedup:
    """Median over interleaved rounds of ``slow_time / fast_time`` on the same inputs.

    Compilation and warm-up are excluded; each round measures both functions back to back,
    so load on the machine affects both sides of each ratio alike, ``slow`` (the reference)
    first: warmed up, calibrated and measured in each round before ``fast``, with the work
    ``fast`` left queued drained and JAX's settings verified before each of its calls (see
    :func:`compare`'s ``pair``). With fresh inputs (``fresh=True`` or ``inputs=``), the
    outputs of calls the two shared inputs with are left in :data:`_last_pairs`.
    """
    timings = compare({names[1]: slow, names[0]: fast}, *args, rounds=rounds, warmup=warmup,
                      target=target, clock=clock, pair=names, **kwargs)
    fast_t, slow_t = timings[names[0]], timings[names[1]]
    ratios = [s / f for s, f in zip(slow_t.seconds, fast_t.seconds, strict=True)]
    return Speedup(statistics.median(ratios), ratios, fast_t, slow_t)


def timing_test_clock(backend: str | None = None) -> Clock:
    """The clock timing tests use: process CPU time on the CPU backend, else wall time."""
    from autograder.kernel.runtime import backend as current

    return CPU if (backend or current()) == "cpu" else WALL


def required_speedup(backend: str | None = None) -> float:
    """The speedup a timing test requires on ``backend`` (default: the one in use)."""
    from autograder.kernel.runtime import backend as current

    return REQUIRED_SPEEDUP.get(backend or current(), REQUIRED_SPEEDUP["cpu"])


def check_speedup(
    fast: Callable,
    slow: Callable,
    *args: Any,
    required: float | None = None,
    what: str = "your function",
    reference: str = "the reference",
    attempts: int = 2,
    rounds: int = 7,
    warmup: int = 1,
    inputs: Inputs | None = None,
    rtol: float = 1e-4,
    atol: float = 1e-5,
    **kwargs: Any,
) -> Speedup:
    """A timing test: ``fast`` must beat ``slow`` by ``required`` (default: per backend), on
    inputs it cannot foresee, returning what ``slow`` returns on them, as compiled code.

    ``args`` and ``kwargs`` are the example inputs: the warm-up runs on them (compilation is
    never timed). Every timed call then gets new inputs (:class:`FreshInputs`): drawn by
    ``inputs(rng)`` (a function of a ``numpy.random.Generator`` returning one call's positional
    arguments; the test cell says how its question's inputs are made), or by default redrawn
    from the example's floating-point arrays. The generator is seeded from the operating
    system when the test starts, so no answer can know an input before it is called with it,
    and a remembered result is never asked for again. In each round some of the answer's calls
    (at random positions) share their inputs with the reference's timed calls, and the two
    outputs are compared with ``rtol``/``atol`` (the question's tolerance): an answer that
    returns anything but its inputs' result (a remembered one, say) fails, however fast.
    One disagreement among five or more compared calls is forgiven (a float32 tie, such as an
    argmax of two equal logits, can round either way); the usual wrong answer disagrees on
    every call.

    Three results are reported, in this order: that ``fast`` traces to a program with no host
    callback (:func:`autograder.kernel.jax_checks.host_callbacks`: a jitted
    ``jax.pure_callback`` into eager code is eager work, and a ``jax.debug.callback`` runs the
    notebook's Python on every call), that its timed outputs matched the reference's, and the
    speedup (the grader applies the bar to it). An answer whose outputs
    are not arrays in plain containers (an object of a pytree class of its own, whose
    unflatten code JAX runs in Python after every call: :func:`autograder.kernel.programs.
    output_problem`, read from its traced program) is refused before it is called: all three
    fail and nothing is timed.

    Prints the measured speedup for the learner. A near miss (a first measurement below the
    bar but at least :data:`NEAR_MISS` of it) is measured again (``attempts``) before
    failing, so a momentary load spike cannot fail an answer that is fast enough. A clear
    miss is not: an answer that ran no faster than the reference (the usual slow answer,
    about 1.0x) stays that slow when measured again, and the learner hears sooner. Seven
    interleaved rounds are plenty when the workloads give a correct answer ten times the
    required margin, and keep a slow answer's test (which runs the slow code on both sides)
    to about half a second.

    The reference cannot be moved by the answer: it is measured first in every round, with
    the work the answer left queued drained and JAX's settings verified before each of its
    timed calls (:func:`speedup`); a setting changed since the test cell's checks began
    (:func:`autograder.kernel.config_watch.baseline_changes`: by the answer's builder, say)
    is put back before anything is timed and fails the test, named, as a change made during a
    call does. A setting the cell's checks could not put back as they began
    (:func:`autograder.kernel.config_watch.baseline_held`) fails it too.

    Raises:
        AssertionError: with the measured numbers, when the speedup stays below ``required``;
            naming the callback, or the wrong output, for those failures.
    """
    from autograder.core.evidence import Entry
    from autograder.kernel.config_watch import (
        baseline_changes,
        baseline_held,
        config_snapshot,
        describe_changes,
        restore_config,
    )
    from autograder.kernel.programs import callback_message, host_callbacks, output_problem
    from autograder.kernel.reporter import observe, recording, submit

    bar = required_speedup() if required is None else required
    options = {"required": bar, "reference": reference}
    compiled = f"{what} runs as compiled code (no callback into Python)"
    values = f"{what} returns {reference}'s values on the timed inputs"
    if recording():  # the grader's trusted run: the rule is recorded, nothing is timed
        observe(compiled, None)
        observe(values, None)
        submit(Entry("speedup", what, {}, options))
        return Speedup(float("nan"), [], Timing(what), Timing(reference))
    clock = kwargs.pop("clock", None) or timing_test_clock()
    timed = {"target": kwargs.pop("target")} if "target" in kwargs else {}
    # A setting changed since the test cell's checks began (by the answer's builder, say)
    # is put back before anything is timed, and fails the test: the reference runs only under
    # the configuration the cell started with.
    moved = baseline_changes()
    held = baseline_held()  # set before the tests, and not undone by their reset
    if moved:
        restore_config({name: before for name, (before, _) in moved.items()})
    config = config_snapshot()  # tracing runs the answer's Python: watched as every call is
    refused = output_problem(fast, *args, name=what, **kwargs)
    traced_changes = {**moved, **restore_config(config)}
    if refused:  # read from the traced program: the answer is never called, nor timed
        observe(compiled, refused)
        observe(values, f"{what} was not timed: {refused}")
        got = {"config": describe_changes(traced_changes)} if traced_changes else {}
        submit(Entry("speedup", what, got, options), Entry("speedup", what, {}, options))
        return Speedup(float("nan"), [], Timing(what), Timing(reference))
    result = None
    intruders: set[str] = set()
    changed: dict[str, tuple[Any, Any]] = dict(traced_changes)
    pairs: list[tuple[Any, Any]] = []
    for _ in range(max(1, attempts)):
        result = speedup(fast, slow, *args, names=(what, reference), clock=clock,
                         rounds=rounds, warmup=warmup, fresh=True, inputs=inputs, **timed,
                         **kwargs)
        intruders |= _last_intruders
        pairs += _last_pairs
        for found in _last_config_changes.values():
            changed.update(found)
        if changed or result.ratio >= bar or result.ratio < NEAR_MISS * bar:
            break
    assert result is not None
    # Traced after the timing (the warm-up already ran the answer on these arguments), under
    # the same watch of JAX's configuration as every timed call.
    config = config_snapshot()
    callbacks = host_callbacks(fast, *args, **kwargs)
    changed.update(restore_config(config))
    print(f"Timing: {what} ran {result} ; required at least {bar:.1f}x.")
    got: dict[str, Any] = {"ratio": result.ratio}
    if intruders:
        got["threads"] = sorted(intruders)[:5]
    if changed:  # the answer's change was undone before the reference ran; it fails the test
        got["config"] = describe_changes(changed)
    if held:  # the reference ran under a setting the tests could not put back: no verdict
        got["held"] = describe_changes(held)
    observe(compiled, callback_message(what, callbacks))
    observe(values, wrong_outputs(pairs, what, reference, rtol, atol))
    submit(Entry("speedup", what, got, options), Entry("speedup", what, {}, options))
    return result


def wrong_outputs(pairs: list[tuple[Any, Any]], what: str, reference: str, rtol: float,
                  atol: float) -> str | None:
    """The failure when the answer's outputs in ``pairs`` (answer's, reference's, on the same
    inputs) disagree more than once (or at all, among fewer than five), else None."""
    wrong = [found for got, want in pairs
             if (found := _difference(got, want, rtol, atol)) is not None]
    if len(wrong) <= (1 if len(pairs) >= 5 else 0):
        return None
    return (f"{what} returned wrong values on {len(wrong)} of the {len(pairs)} timed calls "
            f"compared with {reference} on the same inputs ({wrong[0]}). Every timed call "
            "gets new random inputs: the result must be computed from them; a result "
            "remembered from an earlier call, or one that ignores its inputs, is wrong.")


def _difference(got: Any, want: Any, rtol: float, atol: float) -> str | None:
    """How ``got`` differs from ``want`` (trees of arrays), or None within tolerance."""
    import jax

    from autograder.core.compare import assert_array_close

    got_leaves, got_tree = jax.tree.flatten(got)
    want_leaves, want_tree = jax.tree.flatten(want)
    if got_tree != want_tree:
        return f"it returned {got_tree} where the reference returned {want_tree}"
    for i, (a, b) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        label = "the result" if len(want_leaves) == 1 else f"leaf {i} of the result"
        try:
            assert_array_close(a, b, label, rtol, atol, check_dtype=False)
        except AssertionError as exc:
            return str(exc)
    return None


def cell_digest(source: str) -> str:
    """A short fingerprint of a notebook cell's source (how records name their cell)."""
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def _running_cell() -> str | None:
    """The fingerprint of the IPython cell running now, or None outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    return cell_digest(history[-1]) if history else None


def record_timings(title: str, seconds: Mapping[str, float]) -> None:
    """Append the numbers of one chart as a JSON line to ``$LEARN_JAX_TIMINGS``, if set.

    The line holds ``title``, ``seconds``, the backend, device count and kind, and ``cell``:
    the :func:`cell_digest` of the notebook cell that drew the chart (None outside IPython),
    so the benchmarks can tell which chapter a chart came from when a whole book build
    appends to one file.
    """
    target = os.environ.get("LEARN_JAX_TIMINGS")
    if not target:
        return
    import jax

    line = {"title": title, "seconds": dict(seconds), "backend": jax.default_backend(),
            "devices": jax.device_count(), "device_kind": jax.devices()[0].device_kind,
            "cell": _running_cell()}
    with open(target, "a") as fh:
        fh.write(json.dumps(line) + "\n")


def plot_timings(timings: Mapping[str, Timing | float], title: str = "", ax: Any = None) -> Any:
    """Bar chart of median seconds per call, labelled with each bar's time and speedup.

    The slowest entry is the baseline for the ``N.Nx`` labels. Returns the matplotlib Axes.
    When the environment variable ``LEARN_JAX_TIMINGS`` names a file, the plotted numbers are
    also appended to it as one JSON line (the benchmarks collect the chapters' speedups so).
    """
    import matplotlib.pyplot as plt

    names = list(timings)
    values = [t.median if isinstance(t, Timing) else float(t) for t in timings.values()]
    record_timings(title, dict(zip(names, values, strict=True)))
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 0.6 + 0.5 * len(names)))
    scale, unit = (1e3, "ms") if max(values) < 1 else (1.0, "s")
    bars = ax.barh(names, [v * scale for v in values], color="tab:blue")
    slowest = max(values)
    for bar, value in zip(bars, values, strict=True):
        ax.annotate(f" {format_seconds(value)}  ({slowest / value:.1f}x)",
                    (bar.get_width(), bar.get_y() + bar.get_height() / 2), va="center")
    ax.invert_yaxis()
    ax.set_xlabel(f"median time per call ({unit}), lower is better")
    ax.set_xlim(0, max(values) * scale * 1.45)
    if title:
        ax.set_title(title)
    return ax
