"""What the machine itself gives two processes at once: the ceiling on any parallel grading.

A CPU's cores may share more than the guest sees (a host's hyperthreads, caches, memory
bandwidth, a hypervisor's scheduling). :func:`two_at_once` runs one fixed, CPU-bound workload
alone on one CPU, then on two CPUs at the same moment, each process pinned to its own, and says
how much longer each copy took side by side. Two workloads stand for what grading is made of:
``python``, the interpreter (dicts, small allocations, string formatting: the grader, nbgrader,
tracing) and ``jax``, tracing and compiling small jitted functions with XLA on one thread (the
kernels). ``grade --jobs 2`` cannot take less than its CPU work times that slowdown, over two.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import time
from typing import Any


def _work_python(rounds: int) -> int:
    """A fixed amount of interpreter work: dict and list churn, string formatting."""
    table: dict[int, int] = {}
    total = 0
    for i in range(rounds):
        key = i % 4099
        table[key] = table.get(key, 0) + i
        if i % 64 == 0:
            total += len(f"{i}:{table[key]}")
            table = table if len(table) < 4000 else {}
    return total


def _work_jax(rounds: int) -> int:
    """Trace and compile ``rounds`` distinct small jitted functions (no compilation cache),
    running each once."""
    import jax
    import jax.numpy as jnp

    x = jnp.ones((64, 64))
    for i in range(rounds):
        f = jax.jit(lambda a, i=i: jnp.tanh(a @ a.T + i).sum() * (i + 1))
        f(x).block_until_ready()
    return rounds


WORKLOADS = {"python": _work_python, "jax": _work_jax}


def _prepare(workload: str) -> None:
    """Load what ``workload`` needs before timing: JAX on one thread, no compilation cache."""
    if workload == "jax":
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                                   + " --xla_cpu_multi_thread_eigen=false").strip()
        os.environ["JAX_ENABLE_COMPILATION_CACHE"] = "false"
        os.environ["JAX_PLATFORMS"] = "cpu"
        WORKLOADS[workload](1)


def _timed_work(workload: str, cpu: int | None, rounds: int, start: Any, out: Any) -> None:
    """In a child: pin to ``cpu``, load the workload, wait for the common start, time it."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
    _prepare(workload)
    start.wait()
    begin = time.perf_counter()
    WORKLOADS[workload](rounds)
    out.put(time.perf_counter() - begin)


def _sized(workload: str, cpu: int | None, out: Any) -> None:
    """In a child: pin to ``cpu``, load the workload, and find how many rounds of it take at
    least 0.2 s (four times more each try, from 4); put (rounds, seconds)."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
    _prepare(workload)
    rounds = 4
    while True:
        begin = time.perf_counter()
        WORKLOADS[workload](rounds)
        once = time.perf_counter() - begin
        if once >= 0.2:
            out.put((rounds, once))
            return
        rounds *= 4


def _size(workload: str, cpu: int | None) -> tuple[int, float]:
    """Rounds of ``workload`` that take at least 0.2 s alone on ``cpu``, and their seconds:
    found in one child process (each new process imports what the workload needs again)."""
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    proc = context.Process(target=_sized, args=(workload, cpu, out))
    proc.start()
    found = out.get(timeout=600)
    proc.join()
    return found


def _run(workload: str, cpus: list[int | None], rounds: int) -> list[float]:
    """Seconds each of ``len(cpus)`` processes took for the work, started together."""
    context = multiprocessing.get_context("spawn")
    start, out = context.Barrier(len(cpus)), context.Queue()
    procs = [context.Process(target=_timed_work, args=(workload, cpu, rounds, start, out))
             for cpu in cpus]
    for p in procs:
        p.start()
    seconds = [out.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    return seconds


def two_at_once(workload: str = "python", seconds: float = 2.0,
                repeats: int = 3) -> dict[str, Any]:
    """Time ``workload`` (sized to about ``seconds`` alone) alone and two at once, ``repeats``
    times each, alternating; the slowdown is the median side-by-side time over the median time
    alone (1.0: two CPUs give twice the work of one)."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0, 1]
    if len(cpus) < 2:
        return {"cpus": len(cpus), "slowdown": None}
    probe, once = _size(workload, cpus[0])  # long enough to size the workload from
    rounds = max(probe, int(probe * seconds / once))
    alone: list[float] = []
    together: list[float] = []
    for _ in range(repeats):
        alone += _run(workload, [cpus[0]], rounds)
        together += _run(workload, cpus[:2], rounds)
    return {"rounds": rounds, "repeats": repeats,
            "alone_seconds": [round(s, 3) for s in alone],
            "together_seconds": [round(s, 3) for s in together],
            "slowdown": round(statistics.median(together) / statistics.median(alone), 3)}


def run(seconds: float = 2.0, repeats: int = 3) -> dict[str, Any]:
    """:func:`two_at_once` for every workload."""
    return {name: two_at_once(name, seconds, repeats) for name in WORKLOADS}


if __name__ == "__main__":
    print(run())
