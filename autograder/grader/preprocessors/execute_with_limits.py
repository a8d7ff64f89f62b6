"""ExecuteWithLimits: nbgrader's Execute with a notebook deadline and an output budget.

nbgrader's ``Execute`` limits each cell's time but not the notebook's, stops the whole
autograde when the kernel dies (``sys.exit``, ``os._exit``, a killed kernel, out of memory),
and keeps every byte a cell prints until ``LimitOutput`` trims lines (one 200 MB line stays
200 MB). This subclass gives each cell at most the time left before the notebook's deadline,
and once the deadline has passed or the kernel has died it executes nothing more: the
remaining code cells get an error output, so questions answered before keep their points.
Everything a cell writes into the notebook counts against one budget as it arrives, before
nbclient applies it (:meth:`ExecuteWithLimits.process_message`): every field of every output
(text, every mimetype's data, metadata, transient data, an error's name, value and traceback),
display updates (once for every output they rewrite) and ``clear_output``. Each cell keeps
at most ``max_output_bytes`` and the notebook ``max_notebook_output_bytes`` (markdown cells'
attachments included); check results have budgets of their own. What does not fit is dropped
as it arrives, so it never accumulates in the grader's memory, the graded notebook or the
feedback page; comm messages (widgets) are not applied at all.

With ``prestart_kernel``, the kernel for the next notebook this process executes is started
as soon as the current one has stopped, so that it boots, and imports JAX
(:attr:`ExecuteWithLimits.prestart_code`), while the grader finishes the submission (saving
grades, deciding checks, writing feedback) instead of while the next one waits. Each notebook
still gets a kernel nobody used before: a fresh process that ran nothing but that import.

Each run's stage timings (``stage_log``) also give ``kernel_cpu``: the CPU seconds (user and
system) the kernel's processes used, read from ``/proc`` just before the kernel is stopped
(its start, the import ahead and the notebook; on Linux only).
"""

from __future__ import annotations

import atexit
import json
import math
from pathlib import Path
from time import monotonic, perf_counter
from typing import Any

from jupyter_core.utils import run_sync
from nbclient.client import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, Unicode, default

from autograder.core.evidence import MIME as EVIDENCE
from autograder.grader.judging.proof import MIME

NOTEBOOK_TIMEOUT_NAME = "NotebookTimeoutError"
KERNEL_DIED_NAME = "KernelDiedError"
PROOFS_KEPT_PAST_BUDGET = 2  # short proof-typed outputs per cell kept past the budget
ERRORS_KEPT_PAST_BUDGET = 2  # errors per cell kept past the budget, cut short
ERROR_VALUE_KEPT = 1_000  # characters of such an error's value kept
MIN_MESSAGE_COST = 32  # bytes every budgeted message costs, however small (clear_output storms)
# Cell metadata the grader reads: how many check results (evidence) the cell's budget
# dropped. Set here, outside the kernel (which writes outputs only, never metadata).
EVIDENCE_CUT = "learn_jax_evidence_dropped"
# Notebook metadata the grader writes: the kernel of the runtime that grades it
# (autograder.grader.runtime_choice); absent, the course's configured kernel runs it.
KERNEL_KEY = "learn_jax_kernel"
# kernel name -> a kernel started for the next notebook: its manager, runtime directory, and
# the client that sent it the code to run ahead with that request's id (or None)
_SPARE: dict[str, tuple[Any, Path | None, Any]] = {}
AHEAD_WAIT = 120  # seconds a notebook waits for its kernel's import ahead to finish
AHEAD_POLL = 0.25  # seconds between checks that the kernel started ahead is still alive
# What a kernel started ahead runs before its notebook arrives: the imports every notebook of
# the course begins with. It leaves no variable in the user's namespace, and no history.
PRESTART_CODE = "import jax as _jax, jax.numpy as _jnp\ndel _jax, _jnp\n"
# What every kernel runs before the notebook's first cell: it reads every JAX setting before
# any answer can change one (autograder.kernel.config_watch.mark_start), the configuration each
# test cell's checks put back. Like the code sent ahead, it leaves nothing in the user's
# namespace. A reading taken inside the kernel is a courtesy, as all of the kernel's checks
# are: it stops an answer's settings from moving a timing test's reference.
START_CODE = ("import autograder.kernel.config_watch as _watch\n_watch.mark_start()\n"
              "del _watch\n")
START_WAIT = 120  # seconds the start code may take (it imports JAX when nothing did yet)


def process_tree_cpu(pid: int) -> float | None:
    """CPU seconds (user and system, with reaped children's) used so far by process ``pid``
    and every process below it, from ``/proc``; None where that cannot be read."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    total, todo, seen = 0.0, [pid], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        proc = Path(f"/proc/{current}")
        try:
            # fields after the command name (which may hold spaces): utime is the 12th
            fields = proc.joinpath("stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / tick
            for task in proc.joinpath("task").iterdir():
                todo += [int(c) for c in task.joinpath("children").read_text().split()]
        except (OSError, ValueError, IndexError):
            if current == pid:
                return None
    return total


def _close(sent: Any) -> None:
    """Close the client that sent a kernel started ahead its code (if there is one)."""
    if sent is not None:
        try:
            sent[0].stop_channels()
        except Exception:  # noqa: BLE001 - closed already
            pass


def _wait_for(km: Any, sent: Any, seconds: float) -> None:
    """Wait until the kernel has run the code sent ahead (its reply), at most ``seconds``, and
    no longer than the kernel lives.

    A kernel may still be starting when the code is sent; closing the client before the
    kernel took the request would drop it. A kernel that died meanwhile never replies: its
    death ends the wait at once (checked between short polls), so the next submission does
    not stall for the whole ``seconds``. Whatever happens, the notebook goes on.
    """
    from queue import Empty

    from jupyter_core.utils import ensure_async

    kc, msg_id = sent
    deadline = monotonic() + seconds

    async def reply() -> None:
        while (left := deadline - monotonic()) > 0:
            try:
                msg = await ensure_async(kc.get_shell_msg(timeout=min(left, AHEAD_POLL)))
            except Empty:
                if not await ensure_async(km.is_alive()):
                    return
                continue
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                return

    try:
        run_sync(reply)()
    except Exception:  # noqa: BLE001 - no reply (a dead kernel): the alive check decides
        pass


def _stop(km: Any, home: Path | None, kc: Any = None) -> None:
    """Stop a kernel started ahead, and remove its runtime directory."""
    from autograder.grader.sandbox import remove_runtime_dir

    _close(kc)

    try:
        run_sync(km.shutdown_kernel)(now=True)
    except Exception:  # noqa: BLE001 - already gone: nothing left to stop
        pass
    if home is not None:
        remove_runtime_dir(home)


_SPARE_WANTED = [True]  # whether the next notebook's kernel is started ahead after this one


def want_spare(wanted: bool) -> None:
    """Say whether the notebook executed next is followed by another in this process: when it
    is not (the last of a grading job's queue), no kernel is started ahead of it, where it
    would only be started, load JAX, and be stopped unused."""
    _SPARE_WANTED[0] = wanted


def stop_spare_kernels() -> None:
    """Stop every kernel started ahead and not used (when this process ends)."""
    while _SPARE:
        _stop(*_SPARE.popitem()[1])


atexit.register(stop_spare_kernels)


def error_output(ename: str, evalue: str) -> NotebookNode:
    """An nbformat error output."""
    return NotebookNode(output_type="error", ename=ename, evalue=evalue,
                        traceback=[f"{ename}: {evalue}"])


class ExecuteWithLimits(Execute):
    """Execute cells within a per-notebook deadline and a per-cell output budget."""

    notebook_timeout = Integer(
        600, help="seconds the whole notebook may run; later cells are not run").tag(config=True)
    max_output_bytes = Integer(
        100_000, help="bytes of output kept per cell; the rest is dropped").tag(config=True)
    max_evidence_bytes = Integer(
        4_000_000, help="bytes of check results (evidence) kept per cell, apart from other "
        "output: a chatty answer cannot push its test cell's results out").tag(config=True)
    max_notebook_output_bytes = Integer(
        2_000_000, help="bytes of output (evidence apart) kept in the whole notebook, "
        "attachments of its markdown cells included").tag(config=True)
    max_notebook_evidence_bytes = Integer(
        40_000_000, help="bytes of check results kept in the whole notebook").tag(config=True)

    stage_log = Unicode(
        "", help="folder for each run's stage timings, <student>/<assignment>.json (kernel "
        "start and execution, in seconds); empty: not written").tag(config=True)

    prestart_kernel = Bool(
        False, help="start the next notebook's kernel as soon as this one's has stopped; only "
        "for kernels that start alike whatever the notebook (the sandbox's start in an empty "
        "folder of their own)").tag(config=True)

    prestart_code = Unicode(
        PRESTART_CODE, help="code a kernel started ahead runs before its notebook arrives "
        "(silently: no output, no history); empty: nothing").tag(config=True)

    start_code = Unicode(
        START_CODE, help="code every kernel runs before the notebook's first cell (silently: no "
        "output, no history); empty: nothing").tag(config=True)

    _runtime_home: Path | None = None  # this kernel's fresh IPC directory: sealed, then removed
    _configured_kernel: str | None = None  # the course's kernel, for notebooks naming none

    @default("shutdown_kernel")
    def _stop_at_once(self) -> str:
        """A graded kernel is used once: stopped at once, not asked to shut down and awaited
        (which took about a second per submission)."""
        return "immediate"

    def create_kernel_manager(self) -> Any:
        """nbclient's kernel manager; for IPC, with its files in a fresh directory of its own.

        The sandboxed kernel (:mod:`autograder.grader.sandbox`) sees only that directory, and
        writes its sockets there.
        """
        km = super().create_kernel_manager()
        if km.transport == "ipc":
            from jupyter_core.paths import jupyter_runtime_dir

            from autograder.grader.sandbox import new_kernel_dir

            home = new_kernel_dir(Path(jupyter_runtime_dir()))
            km.connection_file = str(home / "kernel.json")
            km.ip = str(home / "ipc")
            self._runtime_home = home
        return km

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None
                   ) -> tuple[NotebookNode, dict]:
        """Execute ``nb`` like nbconvert's ExecutePreprocessor, within the limits."""
        # The grader names the kernel of the submission's runtime in the notebook it wrote
        # (a learner's own metadata never reaches here: the rebuilt notebook has the
        # released notebook's); taken out, so that it reaches no page.
        chosen = nb.metadata.pop(KERNEL_KEY, None)
        if self._configured_kernel is None:
            self._configured_kernel = self.kernel_name
        NotebookClient.__init__(self, nb, km)
        self.kernel_name = chosen if isinstance(chosen, str) and chosen else (
            self._configured_kernel)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self._output_bytes: dict[int, int] = {}
        self._proofs_kept: dict[int, int] = {}
        self._errors_kept: dict[int, int] = {}
        self._noted: set[int] = set()
        self._evidence_bytes: dict[int, int] = {}
        self._notebook_output = self._notebook_evidence = 0
        deadline = monotonic() + self.notebook_timeout
        self._runtime_home = None
        if km is None:
            self._adopt_spare()
        self._stages: dict[str, float] = {}
        self._cpu: float | None = None
        began = perf_counter()
        try:
            self._execute_within_limits(resources, deadline)
        finally:
            if self._runtime_home is not None:
                from autograder.grader.sandbox import remove_runtime_dir

                remove_runtime_dir(self._runtime_home)
            self._stages["kernel_stop"] = perf_counter() - began - sum(self._stages.values())
            self._write_stages(resources)
            if self.prestart_kernel and km is None and _SPARE_WANTED[0]:
                self._start_spare()
        self.set_widgets_metadata()
        return self.nb, self.resources

    def _adopt_spare(self) -> None:
        """Use the kernel started ahead for this kernel name, if one is there and alive.

        The manager is set after ``NotebookClient.__init__``, so this client still owns it
        and stops it after the notebook, like a kernel it started itself.
        """
        spare = _SPARE.pop(self.kernel_name, None) if self.kernel_name else None
        if spare is None:
            return
        km, home, sent = spare
        if sent is not None:
            _wait_for(km, sent, AHEAD_WAIT)
            _close(sent)
        try:
            alive = run_sync(km.is_alive)()
        except Exception:  # noqa: BLE001 - a broken manager counts as a dead kernel
            alive = False
        if alive:
            self.km, self._runtime_home = km, home
        else:
            _stop(km, home)  # and start one the usual way

    def _start_spare(self) -> None:
        """Start the kernel for the next notebook this process executes (never fails the
        current one: without a spare, the next notebook starts its kernel itself)."""
        if not self.kernel_name or self.kernel_name in _SPARE:
            return
        self.km = self.kc = None
        self._runtime_home = None
        try:
            km = self.create_kernel_manager()
            home = self._runtime_home
            self.start_new_kernel(cwd=str(home) if home is not None else None)
            sent = self._send_ahead(km, self.prestart_code) if self.prestart_code else None
        except Exception:  # noqa: BLE001
            self.log.warning("could not start the next notebook's kernel ahead", exc_info=True)
            if self.km is not None:
                _stop(self.km, self._runtime_home)
        else:
            _SPARE[self.kernel_name] = (km, home, sent)
        finally:
            self.km, self._runtime_home = None, None

    def _send_ahead(self, km: Any, code: str) -> tuple[Any, str]:
        """Send ``code`` to the kernel started ahead, silently, without waiting for it: the
        kernel runs it while the grader finishes the last submission. Returns the client that
        sent it and the request's id: the next notebook waits for the reply, then closes it."""
        kc = km.client()
        kc.start_channels(iopub=False, stdin=False, hb=False, control=False)
        try:
            msg_id = kc.execute(code, silent=True, store_history=False, allow_stdin=False)
        except Exception:
            _close((kc, ""))
            raise
        return kc, msg_id

    def _kernel_cpu(self) -> float | None:
        """CPU seconds the running kernel's processes have used (None if unknown)."""
        pid = getattr(getattr(self.km, "provisioner", None), "pid", None)
        return process_tree_cpu(pid) if isinstance(pid, int) else None

    def _write_stages(self, resources: Any) -> None:
        """Write this run's stage timings where :attr:`stage_log` says, if it says."""
        names = (resources or {}).get("nbgrader", {})
        if not self.stage_log or not names.get("student") or not names.get("assignment"):
            return
        path = Path(self.stage_log) / names["student"] / f"{names['assignment']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        found = {k: round(v, 4) for k, v in self._stages.items()}
        if self._cpu is not None:
            found["kernel_cpu"] = round(self._cpu, 3)
        path.write_text(json.dumps(found))

    def _execute_within_limits(self, resources: Any, deadline: float) -> None:
        """Start the kernel, seal its runtime directory, and run the cells until the deadline."""
        stopped: NotebookNode | None = None
        began = perf_counter()
        with self.setup_kernel():
            assert self.kc
            info_msg = self.wait_for_reply(self.kc.kernel_info())
            assert info_msg
            if self._runtime_home is not None:
                from autograder.grader.sandbox import seal_runtime_dir

                seal_runtime_dir(self._runtime_home)  # sockets are bound: no answer writes there
            self.nb.metadata["language_info"] = info_msg["content"]["language_info"]
            self._run_start_code()
            self._stages["kernel_start"] = perf_counter() - began
            began = perf_counter()
            for index, cell in enumerate(self.nb.cells):
                if cell.cell_type != "code":
                    self._bound_attachments(cell)
                    continue
                if not cell.source.strip():
                    continue
                left = deadline - monotonic()
                if stopped is None and left <= 0:
                    stopped = error_output(NOTEBOOK_TIMEOUT_NAME, "the notebook ran out of time "
                                           f"({self.notebook_timeout} s); this cell was not run")
                if stopped is not None:
                    cell.outputs = [stopped]
                    continue
                cell_timeout = max(1, min(self.timeout or math.inf, math.ceil(left)))
                self.timeout_func = lambda _cell, t=cell_timeout: t
                try:
                    self.preprocess_cell(cell, resources, index)
                except DeadKernelError:
                    cell.outputs.append(error_output(
                        KERNEL_DIED_NAME, "the kernel stopped while running this cell (it "
                        "exited, was killed, or ran out of memory)"))
                    stopped = error_output(KERNEL_DIED_NAME, "the kernel had stopped; this "
                                           "cell was not run")
                except CellTimeoutError as exc:
                    cell.outputs.append(error_output("CellTimeoutError", str(exc)[:300]))
            self._stages["execute"] = perf_counter() - began
            self._cpu = self._kernel_cpu()

    def _run_start_code(self) -> None:
        """Run :attr:`start_code` in the kernel before the notebook's first cell, silently, and
        wait for it (at most :data:`START_WAIT` seconds). A kernel that dies or fails here is
        left to the first cell, which reports it as usual."""
        if not self.start_code or self.kc is None:
            return
        self.timeout_func = lambda _cell: START_WAIT
        try:
            msg_id = self.kc.execute(self.start_code, silent=True, store_history=False,
                                     allow_stdin=False)
            self.wait_for_reply(msg_id)
        except Exception:  # noqa: BLE001 - the first cell finds a dead or stuck kernel
            self.log.warning("the kernel's start code did not finish", exc_info=True)

    def preprocess_cell(self, cell: NotebookNode, resources: Any, index: int
                        ) -> tuple[NotebookNode, dict]:
        """Execute one cell; a test cell without entering IPython's history.

        ``In``, ``_ih``, ``_i`` and ``Out`` then never hold a test cell's source (its hidden
        tests) or value, so an answer that prints them shows nothing of the tests.
        """
        from autograder.core.notebook import is_test

        self._check_assign_resources(resources)
        cell = self.execute_cell(cell, index, store_history=not is_test(cell))
        return cell, self.resources

    def process_message(self, msg: dict, cell: NotebookNode, cell_index: int
                        ) -> NotebookNode | None:
        """Apply a kernel message to the notebook only within the output budgets.

        Every message nbclient would keep something of passes here first, before nbclient
        applies it: outputs of every type, ``update_display_data`` and outputs that update an
        earlier display (their size counted once for every output they rewrite),
        ``clear_output``. Each counts all of its content (every field, nested, and binary
        buffers; at least :data:`MIN_MESSAGE_COST`) against its cell's budget and the
        notebook's (:meth:`_within_budget`). Comm messages (widget state, an output widget's
        capture) are not applied at all: a graded notebook needs no widget, and their outputs
        then land in the cell, budgeted. Only ``status`` and ``execute_input``, which keep
        nothing but an execution count (an integer, or it is removed), pass unbudgeted.
        """
        msg_type = msg.get("msg_type")
        content = msg.get("content")
        if not isinstance(msg_type, str) or not isinstance(content, dict):
            return None
        if "execution_count" in content and not (
                content["execution_count"] is None or type(content["execution_count"]) is int):
            content = {k: v for k, v in content.items() if k != "execution_count"}
            msg = {**msg, "content": content}
        if msg_type in ("status", "execute_input"):
            return super().process_message(msg, cell, cell_index)
        if msg_type.startswith("comm"):
            return None
        kept: NotebookNode | None = None
        for part in self._within_budget(msg, cell_index):
            kept = super().process_message(part, cell, cell_index)
        return kept

    def _within_budget(self, msg: dict, cell_index: int) -> list[dict]:
        """What of ``msg`` to apply: itself, nothing, or, past the budget, a note that output
        was dropped (once per cell) and an error cut short (the first
        :data:`ERRORS_KEPT_PAST_BUDGET` of a cell), so a question's status still shows its
        exception.

        Check results (evidence) have budgets of their own (:attr:`max_evidence_bytes` per
        cell, :attr:`max_notebook_evidence_bytes` in all); everything else shares
        :attr:`max_output_bytes` per cell and :attr:`max_notebook_output_bytes` in all. The
        first two short outputs of the proof's type in a cell are kept even past the budget
        (a chatty but honest answer must not lose the test cell's proof); any more are
        budgeted like the rest.
        """
        content = msg["content"]
        data = content.get("data") if isinstance(content.get("data"), dict) else {}
        msg_type = msg["msg_type"]
        size = max(MIN_MESSAGE_COST, message_size(msg))
        if EVIDENCE in data:
            return self._evidence(msg, cell_index, size, len(data) == 1)
        transient = content.get("transient")
        display_id = transient.get("display_id") if isinstance(transient, dict) else None
        if display_id and msg_type in ("display_data", "execute_result", "update_display_data"):
            rewritten = sum(len(v) for v in self._display_id_map.get(display_id, {}).values())
            size *= max(1, rewritten + (msg_type != "update_display_data"))
        used, total = self._output_bytes.get(cell_index, 0), self._notebook_output
        self._output_bytes[cell_index] = used + size  # a cell pays for all it sent
        if msg_type == "display_data" and MIME in data and size < 1_000 and not display_id:
            self._proofs_kept[cell_index] = self._proofs_kept.get(cell_index, 0) + 1
            if self._proofs_kept[cell_index] <= PROOFS_KEPT_PAST_BUDGET:
                self._notebook_output += size
                return [msg]
        room = min(self.max_output_bytes - used, self.max_notebook_output_bytes - total)
        if size <= room:
            self._notebook_output += size  # the notebook, for what it keeps
            return [msg]
        kept = []
        if cell_index not in self._noted:  # the first output over budget: a note (and a head)
            self._noted.add(cell_index)
            whole = self.max_notebook_output_bytes - total < self.max_output_bytes - used
            limit = (f"a notebook may print at most {self.max_notebook_output_bytes}" if whole
                     else f"cells may print at most {self.max_output_bytes}")
            note = f"\n... output truncated: {limit} bytes ...\n"
            text = content.get("text") if msg_type == "stream" else None
            head = text[: max(0, room)] if isinstance(text, str) else ""
            kept.append({**msg, "msg_type": "stream",
                         "header": {**msg.get("header", {}), "msg_type": "stream"},
                         "content": {"name": "stderr", "text": head + note}})
        if msg_type == "error":
            self._errors_kept[cell_index] = self._errors_kept.get(cell_index, 0) + 1
            if self._errors_kept[cell_index] <= ERRORS_KEPT_PAST_BUDGET:
                kept.append({**msg, "content": {
                    "ename": _cut(content.get("ename"), 200),
                    "evalue": _cut(content.get("evalue"), ERROR_VALUE_KEPT), "traceback": []}})
        self._notebook_output += sum(message_size(part) for part in kept)
        return kept

    def _evidence(self, msg: dict, cell_index: int, size: int, alone: bool) -> list[dict]:
        """Check results within their budgets, applied as plain outputs (a display id, which
        would let one rewrite others, is removed); the rest dropped and counted on the cell
        (metadata, which the kernel cannot write): the grader says so in the result."""
        spent = self._evidence_bytes.get(cell_index, 0) + size
        self._evidence_bytes[cell_index] = spent
        self._notebook_evidence += size
        if (alone and msg["msg_type"] == "display_data" and spent <= self.max_evidence_bytes
                and self._notebook_evidence <= self.max_notebook_evidence_bytes):
            return [{**msg, "content": {**msg["content"], "transient": {}}}]
        try:
            meta = self.nb.cells[cell_index].setdefault("metadata", {})
            meta[EVIDENCE_CUT] = int(meta.get(EVIDENCE_CUT, 0)) + 1
        except (AttributeError, IndexError, TypeError, ValueError):
            pass
        return []

    def _bound_attachments(self, cell: NotebookNode) -> None:
        """Count a markdown or raw cell's attachments (a submission's own cells may carry
        them) against the cell's budget and the notebook's; drop them all when they do not
        fit, with a note in the cell."""
        found = cell.get("attachments")
        if not found:
            return
        size = max(MIN_MESSAGE_COST, message_size({"content": found}))
        if size <= min(self.max_output_bytes,
                       self.max_notebook_output_bytes - self._notebook_output):
            self._notebook_output += size
            return
        del cell["attachments"]
        cell.source = (f"{cell.source}\n\n(This cell's attachments, {size} bytes, were "
                       "removed: they do not fit the output budget.)")


def message_size(msg: dict) -> int:
    """How much a kernel message's content holds: the characters of every string (keys
    included) and the bytes of every binary buffer, however deeply nested, plus a little for
    every container and other value (walked without recursion)."""
    total = 0
    todo: list[Any] = [msg.get("content")]
    for buffer in msg.get("buffers") or []:
        total += memoryview(buffer).nbytes if isinstance(
            buffer, (bytes, bytearray, memoryview)) else 8
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, (bytes, bytearray)):
            total += len(item)
        elif isinstance(item, dict):
            total += 2 + len(item)
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += 2 + len(item)
            todo.extend(item)
        else:
            total += 8
    return total


def _cut(value: Any, limit: int) -> str:
    """``value`` as text for an error kept past the budget: at most ``limit`` characters (a
    value that is not text is named by its type)."""
    text = value if isinstance(value, str) else f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "... (cut: output budget)"
