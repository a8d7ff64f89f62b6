"""Tests of autograder.grader.preprocessors.execute_with_limits: deadlines, dead kernels, output."""

import nbformat

from autograder.grader.preprocessors.execute_with_limits import (
    KERNEL_DIED_NAME,
    NOTEBOOK_TIMEOUT_NAME,
    START_CODE,
    ExecuteWithLimits,
)


def _run(*sources: str, **limits) -> list:
    """Run a notebook of ``sources``; without the start code (which imports JAX, 1.2 s a
    kernel, for these JAX-free notebooks) unless ``start_code`` is given."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    limits.setdefault("start_code", "")
    ExecuteWithLimits(kernel_name="python3", **limits).preprocess(nb, {"metadata": {}})
    return [cell.outputs for cell in nb.cells]


def _errors(outputs: list) -> list[str]:
    return [o["ename"] for o in outputs if o["output_type"] == "error"]


def test_a_dead_kernel_stops_the_run_but_keeps_earlier_cells() -> None:
    """After os._exit, is the dying cell and every later one an error, and the first intact?"""
    first, dying, later = _run("print('answered')", "import os\nos._exit(3)", "print('never')",
                               timeout=60)
    assert first[0]["text"] == "answered\n" and not _errors(first)
    assert _errors(dying) == [KERNEL_DIED_NAME]
    assert _errors(later) == [KERNEL_DIED_NAME]
    assert "not run" in later[0]["evalue"]


def test_stage_timings_are_written_where_asked(tmp_path) -> None:
    """With a stage log, does a run write its kernel start, execution and kernel stop seconds,
    and the kernel's CPU seconds, to <student>/<assignment>.json (both covering a cell that
    computes for 1 s of CPU time)?"""
    import json

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 1:\n    pass")])
    resources = {"metadata": {}, "nbgrader": {"student": "ada", "assignment": "06_jit"}}
    ExecuteWithLimits(kernel_name="python3", timeout=60, start_code="",
                      stage_log=str(tmp_path)).preprocess(nb, resources)
    stages = json.loads((tmp_path / "ada" / "06_jit.json").read_text())
    assert set(stages) == {"kernel_start", "execute", "kernel_stop", "kernel_cpu"}
    assert stages["execute"] >= 1.0 and stages["kernel_start"] > 0 and stages["kernel_stop"] >= 0
    assert stages["kernel_cpu"] >= 1.0


def test_cells_after_the_notebook_deadline_are_not_run() -> None:
    """With a 4 s notebook limit, does a 10 s cell time out and the next one not run?"""
    first, slow, later = _run("print('quick')", "import time\ntime.sleep(10)", "print('late')",
                              timeout=60, notebook_timeout=4)
    assert not _errors(first)
    assert "CellTimeoutError" in _errors(slow)  # after the interrupt's KeyboardInterrupt
    assert _errors(later) == [NOTEBOOK_TIMEOUT_NAME]


def test_a_huge_print_keeps_only_the_budget() -> None:
    """Does a 20 MB print leave at most the byte budget (plus a note) in the cell?"""
    (outputs,) = _run("for _ in range(200):\n    print('x' * 100_000)", timeout=60,
                      max_output_bytes=50_000)
    text = "".join(o.get("text", "") for o in outputs)
    assert 50_000 <= len(text) < 51_000 and "output truncated" in text


def test_rich_outputs_and_proof_typed_floods_count_against_the_budget() -> None:
    """Do 5,000 small proof-typed outputs (once exempt) and an over-budget image leave only
    two proofs, the budget and a note, without breaking the run?"""
    from autograder.grader.judging.proof import MIME

    flood, images = _run(
        f"for i in range(5_000):\n    display({{{MIME!r}: 'q f' + 'f' * 200}}, raw=True)",
        "for _ in range(20):\n    display({'image/png': 'A' * 10_000}, raw=True)",
        timeout=60, max_output_bytes=50_000)
    assert sum(MIME in o.get("data", {}) for o in flood) < 260
    assert sum(len(str(o.get("data", ""))) for o in flood) < 60_000
    assert any("output truncated" in o.get("text", "") for o in flood)
    # 10 kB of data each, plus its keys and metadata (every field counts): four fit in 50 kB
    assert sum("image/png" in o.get("data", {}) for o in images) == 4
    assert "output truncated" in images[-1]["text"]


def _ahead(tmp_path, monkeypatch):
    """A runner of one-cell notebooks with kernels started ahead, over IPC in ``tmp_path``
    (as the sandboxed course runs them)."""
    from traitlets.config import Config

    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path))
    config = Config()
    config.KernelManager.transport = "ipc"

    def run(source: str) -> list:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
        ExecuteWithLimits(config=config, kernel_name="python3", timeout=60,
                          prestart_kernel=True).preprocess(nb, {"metadata": {}})
        return nb.cells[0].outputs
    return run


def test_the_next_kernel_is_started_ahead_and_is_fresh(tmp_path, monkeypatch) -> None:
    """With prestart_kernel, is a kernel running for the next notebook once the first is done,
    does the next notebook run in that very kernel, with nothing the first defined, and is
    each used kernel's runtime directory removed (the last spare's when stopped)?"""
    from jupyter_core.utils import run_sync

    from autograder.grader.preprocessors import execute_with_limits as ewl

    run = _ahead(tmp_path, monkeypatch)
    try:
        run("secret = 42")
        ((km, home, _),) = ewl._SPARE.values()
        assert run_sync(km.is_alive)() and home.is_dir()
        pid = km.provisioner.pid
        outputs = run("import os\nprint(os.getpid(), 'secret' in dir())")
        assert outputs[0]["text"].split() == [str(pid), "False"]
        assert not home.exists()
        ((_, following, _),) = ewl._SPARE.values()
        assert following != home and following.is_dir()
    finally:
        ewl.stop_spare_kernels()
    assert not ewl._SPARE and not list(tmp_path.glob("kernel-*"))


def test_no_kernel_is_started_ahead_of_the_last_notebook(tmp_path, monkeypatch) -> None:
    """Told that the next notebook is the last (``want_spare(False)``, as a grading job's
    last submission is), does it run in the kernel started ahead and leave none running
    after it, and does the next one told otherwise start one again?"""
    from autograder.grader.preprocessors import execute_with_limits as ewl

    run = _ahead(tmp_path, monkeypatch)
    try:
        run("pass")
        ((km, _, _),) = ewl._SPARE.values()
        pid = km.provisioner.pid
        ewl.want_spare(False)
        outputs = run("import os\nprint(os.getpid())")
        assert outputs[0]["text"].split() == [str(pid)] and not ewl._SPARE
        ewl.want_spare(True)
        run("pass")
        assert len(ewl._SPARE) == 1
    finally:
        ewl.want_spare(True)
        ewl.stop_spare_kernels()
    assert not ewl._SPARE and not list(tmp_path.glob("kernel-*"))


def test_a_spare_kernel_that_died_is_replaced(tmp_path, monkeypatch) -> None:
    """When the kernel started ahead has died meanwhile, does the next notebook start one of
    its own and run as usual, without first waiting out the import ahead's whole allowance
    (AHEAD_WAIT: a dead kernel never replies)?"""
    import time

    from jupyter_core.utils import run_sync

    from autograder.grader.preprocessors import execute_with_limits as ewl

    run = _ahead(tmp_path, monkeypatch)
    try:
        run("pass")
        ((km, _, _),) = ewl._SPARE.values()
        run_sync(km.shutdown_kernel)(now=True)
        began = time.monotonic()
        outputs = run("print('ran')")
        assert outputs[0]["text"] == "ran\n"
        assert time.monotonic() - began < ewl.AHEAD_WAIT / 2
    finally:
        ewl.stop_spare_kernels()
    assert not list(tmp_path.glob("kernel-*"))


def test_the_kernel_started_ahead_has_imported_jax_and_kept_nothing_else(tmp_path, monkeypatch
                                                                         ) -> None:
    """Has the kernel started ahead imported JAX before its notebook arrived, leaving no name
    in the notebook's namespace, nothing in its history and no execution count?"""
    from autograder.grader.preprocessors import execute_with_limits as ewl

    run = _ahead(tmp_path, monkeypatch)
    try:
        run("pass")
        outputs = run("import sys\nprint('jax' in sys.modules, 'jax.numpy' in sys.modules, "
                      "[n for n in dir() if 'jax' in n or 'jnp' in n], len(In))")
        assert outputs[0]["text"].split() == ["True", "True", "[]", "2"], outputs
    finally:
        ewl.stop_spare_kernels()


def test_process_tree_cpu_counts_children(tmp_path) -> None:
    """Does process_tree_cpu count the CPU time of a process's children, and answer None for
    a process that does not exist?"""
    import subprocess
    import sys
    import time

    from autograder.grader.preprocessors.execute_with_limits import process_tree_cpu

    code = ("import subprocess, sys, time\n"
            "subprocess.Popen([sys.executable, '-c', 'import time\\nt = time.process_time()\\n"
            "while time.process_time() - t < 0.6: pass\\ntime.sleep(30)'])\n"
            "time.sleep(30)\n")
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 30
        while (process_tree_cpu(parent.pid) or 0) < 0.6 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert process_tree_cpu(parent.pid) >= 0.6
    finally:
        subprocess.run(["pkill", "-P", str(parent.pid)])
        parent.kill()
        parent.wait()
    assert process_tree_cpu(2**22 + 12345) is None


def test_evidence_cut_by_its_budget_is_flagged_on_the_cell() -> None:
    """Does a cell whose check results overflow the evidence budget get flagged (how many were
    dropped, in metadata the kernel cannot write), while a cell within it (its honest twin)
    keeps all of its results and no flag?"""
    from autograder.core.evidence import MIME as EVIDENCE
    from autograder.grader.preprocessors.execute_with_limits import EVIDENCE_CUT

    publish = ("for i in range({n}):\n    display({{{mime!r}: {{'check': 'array', 'name': "
               "str(i), 'got': {{'none': True}}, 'pad': 'y' * 1_000}}}}, raw=True)")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(publish.format(n=50, mime=EVIDENCE)),
        nbformat.v4.new_code_cell(publish.format(n=5, mime=EVIDENCE))])
    ExecuteWithLimits(kernel_name="python3", timeout=60, start_code="",
                      max_evidence_bytes=20_000).preprocess(nb, {"metadata": {}})
    flooded, honest = nb.cells
    assert 0 < len(flooded.outputs) < 50 and flooded.metadata[EVIDENCE_CUT] == \
        50 - len(flooded.outputs)
    assert len(honest.outputs) == 5 and EVIDENCE_CUT not in honest.metadata


# ------------------------------------------------ every field counts (issue 38, item 5)
# Each attack writes 30 MB through a field once left out of the budget; its honest twin in
# the same notebook writes a modest amount through the same field and keeps all of it.

MB30 = 30_000_000
PEAK_RSS = """
import json, resource, sys
import nbformat
from autograder.grader.preprocessors.execute_with_limits import ExecuteWithLimits
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in json.loads(sys.argv[1])])
ExecuteWithLimits(kernel_name="python3", timeout=120,
                  start_code="").preprocess(nb, {"metadata": {}})
print(json.dumps({"rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "notebook": len(nbformat.writes(nb))}))
"""


def _size(outputs: list) -> int:
    return len(nbformat.writes(nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(outputs=outputs)])))


def test_every_field_of_every_output_counts_against_the_budget() -> None:
    """Do a 30 MB error value, 30 MB of display metadata, a 30 MB display update, an update
    that rewrites 500 earlier outputs, and a 20,000-message clear_output storm (last: the
    messages it queues delay what follows) each leave their cell within the budget (plus a
    note, and the error's name and the head of its value), while the honest twins (a short
    error, small metadata, a small update, a progress display that clears itself) keep
    everything they wrote?"""
    budget = 100_000
    cells = _run(
        f"raise ValueError('v' * {MB30})",
        "raise ValueError('a short message')",
        f"display({{'text/plain': 'ok'}}, metadata={{'m': 'x' * {MB30}}}, raw=True)",
        "display({'text/plain': 'ok'}, metadata={'width': 30}, raw=True)",
        f"h = display('small', display_id=True)\nh.update({{'text/plain': 'u' * {MB30}}}, "
        "raw=True)",
        "h = display('small', display_id=True)\nh.update({'text/plain': 'updated'}, raw=True)",
        "for _ in range(500):\n    display({'text/plain': 's'}, display_id='d', raw=True)\n"
        "from IPython.display import update_display\n"
        "update_display({'text/plain': 'w' * 90_000}, display_id='d', raw=True)",
        "from IPython.display import clear_output\nfor i in range(5):\n"
        "    clear_output(wait=True)\n    print(f'step {i}')",
        "from IPython.display import clear_output\nfor _ in range(20_000):\n"
        "    clear_output()\nprint('after the storm')",
        timeout=120)
    (big_error, short_error, big_meta, small_meta, big_update, small_update, rewrites, progress,
     storm) = cells
    for outputs in (big_error, big_meta, big_update, rewrites, storm):
        assert _size(outputs) < budget + 5_000, [str(o)[:200] for o in outputs]
    error = next(o for o in big_error if o["output_type"] == "error")
    assert error["ename"] == "ValueError" and 1_000 <= len(error["evalue"]) < 1_100
    assert any("output truncated" in o.get("text", "") for o in big_error)
    (short,) = short_error
    assert short["evalue"] == "a short message" and short["traceback"]
    assert not [o for o in big_meta if o["output_type"] == "display_data"]
    assert small_meta[0]["metadata"] == {"width": 30}
    assert big_update[0]["data"]["text/plain"] == "'small'"
    assert small_update[0]["data"]["text/plain"] == "updated"
    assert sum(o.get("data", {}).get("text/plain", "").count("w") for o in rewrites) < budget
    assert any("output truncated" in o.get("text", "") for o in storm)
    assert [o["text"] for o in progress] == ["step 4\n"]


def test_the_notebook_has_one_bound_over_all_its_cells() -> None:
    """With 40 cells each printing just under their 100 kB budget, does the notebook keep at
    most its own bound (here 1 MB) and say so, while a cell within both keeps its output?"""
    cells = _run("print('first and honest')",
                 *["print('p' * 99_000)"] * 40, timeout=120,
                 max_notebook_output_bytes=1_000_000)
    assert cells[0][0]["text"] == "first and honest\n"
    kept = sum(len(o.get("text", "")) for outputs in cells for o in outputs)
    assert kept <= 1_000_000 + 5_000
    assert any("a notebook may print at most" in o.get("text", "") for c in cells for o in c)


def test_markdown_attachments_count_against_the_notebook() -> None:
    """Is a submission's markdown cell with a 3 MB attachment stripped of it (with a note)
    while one with a small attachment keeps it?"""
    big = nbformat.v4.new_markdown_cell("![a](attachment:a.png)", attachments={
        "a.png": {"image/png": "A" * 3_000_000}})
    small = nbformat.v4.new_markdown_cell("![b](attachment:b.png)", attachments={
        "b.png": {"image/png": "B" * 1_000}})
    nb = nbformat.v4.new_notebook(cells=[big, small, nbformat.v4.new_code_cell("1")])
    ExecuteWithLimits(kernel_name="python3", timeout=60,
                      start_code="").preprocess(nb, {"metadata": {}})
    assert "attachments" not in nb.cells[0] and "were removed" in nb.cells[0].source
    assert nb.cells[1].attachments["b.png"]["image/png"] == "B" * 1_000


def test_comm_messages_are_not_applied() -> None:
    """Does a comm (a widget) that sends 5 MB of state leave no widget state in the notebook,
    while what the cell prints is kept?"""
    from autograder.grader.preprocessors import execute_with_limits as ewl

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from comm import create_comm\n"
        "c = create_comm(target_name='jupyter.widget', data={'state': {'_model_name': 'M', "
        "'big': 's' * 5_000_000}, 'buffer_paths': []})\nprint('printed')")])
    ExecuteWithLimits(kernel_name="python3", timeout=60,
                      start_code="").preprocess(nb, {"metadata": {}})
    assert "widgets" not in nb.metadata
    assert nb.cells[0].outputs[0]["text"] == "printed\n"
    assert ewl.message_size({"content": {"a": ["bc", {"d": b"ef"}]}, "buffers": [b"xyz"]}) > 9


def _peak(sources: list[str]) -> dict:
    """Peak RSS (kB) of a fresh process that executes ``sources``, and the notebook's size."""
    import json
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", PEAK_RSS, json.dumps(sources)],
                          capture_output=True, text=True, timeout=300, env=os.environ)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_many_large_errors_keep_the_graders_memory_bounded() -> None:
    """Do ten cells each raising a 12 MB error leave the executing process's peak RSS within
    150 MB of its honest twin's (ten short errors) and the notebook under 1.2 MB? (Before,
    each error was kept whole: about 1.5 GB of grading process.)"""
    attack = _peak([f"raise ValueError('e' * {12_000_000})"] * 10)
    honest = _peak(["raise ValueError('short')"] * 10)
    assert attack["notebook"] < 1_200_000, attack
    assert attack["rss_kb"] - honest["rss_kb"] < 150_000, (attack, honest)


def test_every_jax_setting_is_read_before_the_first_cell() -> None:
    """Does the start code read JAX's settings before the notebook's first cell runs, so a
    setting the first cell changes is not taken for how the notebook started; and, its twin,
    without the start code does the reading come from the notebook's own import of the
    course's checks, after that cell (what a learner's kernel gets)? Nothing of it is left in
    the user's namespace."""
    cells = ('import jax\njax.config.update("jax_traceback_filtering", "off")',
             "import autograder.kernel.config_watch as w\n"
             "print(w.start_values()['jax_traceback_filtering'], '_watch' in globals())")
    started = _run(*cells, timeout=60, start_code=START_CODE)
    assert started[1][0]["text"] == "auto False\n", started
    unstarted = _run(*cells, timeout=60, start_code="")
    assert unstarted[1][0]["text"] == "off False\n", unstarted
