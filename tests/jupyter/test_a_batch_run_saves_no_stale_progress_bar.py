"""A notebook run by a batch client (nbclient: ``jupyter nbconvert --execute``, ``jupyter execute``, papermill)
saves no progress bar frozen at its start (trial55 F9: ``r = %mcp call fermi {...}`` and
``r = %mcp call cooling {...}`` were saved with ``HBox(children=(FloatProgress(value=0.0), Label(value='')))``
and ``Executing: 0%| | 0/10`` as their output although both calls finished). Under a front end the bars
are drawn as before (tests/jupyter/test_a_tqdm_loop_in_a_notebook_tool_reaches_the_client_and_its_cell.py), and
under Voilà, which runs the notebook with nbclient too but draws its widgets live (review r30 F1: before, a
Voilà app showed no bar), but not in a notebook a Voilà kernel runs with papermill or nbclient (a Sim2L's run), which
inherits Voilà's variables and is a batch run (review r31 F1: any ``VOILA_*`` variable counted)."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from kernels import KERNEL_NAME, LiveKernel, kernel_environment
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FERMI = ROOT / "examples" / "rappture" / "fermi" / "tool.xml"
COOLING = ROOT / "examples" / "sim2l" / "cooling" / "cooling.ipynb"

CELLS = [
    "%load_ext nanohubmcp\n%config NanohubMCP.port = 0",
    f"%mcp rappture {FERMI}",
    'r = %mcp call fermi {"temperature": "300K"}\nprint("fermi:", r.is_error)',
    f"%mcp sim2l {COOLING}",
    'r = %mcp call cooling {}\nprint("cooling:", r.is_error)',
]


# What Voilà puts in the environment of a kernel it starts for a page (voila's handler: the server's URLs and port,
# no preheat) and, in its first request, VOILA_KERNEL_ID (voila's notebook_renderer, before the notebook's cells):
# the kernel's id, which names its connection file (kernel-<id>.json, as the Jupyter server's kernel manager does).
VOILA_KERNEL = {"VOILA_PREHEAT": "False", "VOILA_BASE_URL": "/", "VOILA_SERVER_URL": "/",
                "VOILA_REQUEST_URL": "http://localhost:8866/", "VOILA_APP_PORT": "8866"}
VOILA_KERNEL_ID = "0c9d6e1f-5a7b-4c1d-9e2f-3a4b5c6d7e8f"
VOILA_FIRST_CELL = f'import os\nos.environ["VOILA_KERNEL_ID"] = "{VOILA_KERNEL_ID}"'


def run_by_nbclient(kernel_specs: Path, ipython_dir: Path, tmp_path: Path, cells: list[str],
                    env: dict[str, str], kernel_id: str | None = None) -> str:
    """Run ``cells`` as nbclient does (``allow_stdin`` false), the kernel started with ``env`` added to the test's
    own (no ``VOILA_*`` of it), and, with ``kernel_id``, that id and its connection file named by it, as the Jupyter
    server Voilà runs in starts kernels; the saved notebook's outputs, as JSON text."""
    notebook = new_notebook(cells=[new_code_cell(text) for text in cells])
    specs = KernelSpecManager(kernel_dirs=[str(kernel_specs)], ensure_native_kernel=False)
    manager = AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
    if kernel_id is not None:
        manager.kernel_id = kernel_id
        manager.connection_file = str(tmp_path / f"kernel-{kernel_id}.json")
    client = NotebookClient(notebook, km=manager, timeout=150, startup_timeout=60,
                            resources={"metadata": {"path": str(tmp_path)}})
    own = {name: value for name, value in kernel_environment(ipython_dir).items() if not name.startswith("VOILA_")}
    try:
        client.execute(env={**own, **env})
    finally:  # nbclient shuts down only a kernel manager it made itself: this one is the test's to stop
        if manager.has_kernel:
            run_sync(manager.shutdown_kernel)(now=True)
    saved = tmp_path / "executed.ipynb"
    nbformat.write(notebook, saved)
    text = json.dumps([cell.get("outputs", []) for cell in nbformat.read(saved, as_version=4).cells])
    assert "fermi: False" in text, text
    assert "cooling: False" in text, text
    return text


RUNS: dict[str, tuple[list[str], dict[str, str], str | None]] = {
    # a batch client's run: the test's own environment, no VOILA_* in it
    "batch": (CELLS, {}, None),
    # Voilà executes the notebook with nbclient (allow_stdin false) in a kernel it started with its VOILA_*
    # variables, VOILA_KERNEL_ID naming it
    "voila": ([VOILA_FIRST_CELL, *CELLS], VOILA_KERNEL, VOILA_KERNEL_ID),
    # a notebook a Voilà kernel runs with papermill or nbclient: Voilà's variables inherited, VOILA_KERNEL_ID
    # naming the Voilà kernel, not this one
    "from voila": (CELLS, {**VOILA_KERNEL, "VOILA_KERNEL_ID": VOILA_KERNEL_ID}, None),
}
"""The nbclient runs the tests below judge: cells, environment added, the kernel's id."""


@pytest.fixture(scope="module")
def saved(kernel_specs: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], str]:
    """``saved(run)``: the saved outputs (JSON text) of one of :data:`RUNS`. The three runs go at once, each in a
    kernel, folder, IPython directory and state directory of its own (one after another they took 40 s: two of
    those seconds in three are simtool's and papermill's imports, on one core of two); a run that failed raises
    in the tests judging it."""

    def run(name: str) -> str:
        folder = tmp_path_factory.mktemp(name.replace(" ", "_"))
        (folder / "ipython").mkdir()
        cells, env, kernel_id = RUNS[name]
        env = {**env, "NANOHUBMCP_STATE_DIR": str(folder / "state")}
        return run_by_nbclient(kernel_specs, folder / "ipython", folder, cells, env, kernel_id=kernel_id)

    with ThreadPoolExecutor(len(RUNS)) as pool:
        runs = {name: pool.submit(run, name) for name in RUNS}
        texts = {name: future.exception() or future.result() for name, future in runs.items()}

    def judged(name: str) -> str:
        text = texts[name]
        if isinstance(text, BaseException):
            raise text
        return text

    return judged


@pytest.mark.timeout(240)
def test_the_saved_calls_have_no_progress_bar(saved: Callable[[str], str]) -> None:
    text = saved("batch")
    for frozen in ("FloatProgress", "Executing", "widget-view", "<progress"):
        assert frozen not in text, f"{frozen!r} saved in the calls' outputs: {text}"


@pytest.mark.timeout(240)
def test_under_voila_the_bars_are_drawn(saved: Callable[[str], str]) -> None:
    """Voilà executes the notebook with nbclient (``allow_stdin`` false) in a kernel it started with its
    ``VOILA_*`` variables, ``VOILA_KERNEL_ID`` naming it: a live page, so the call's ``ctx.report_progress`` bar
    and the Sim2L's bar are shown."""
    text = saved("voila")
    assert "FloatProgress" in text or "<progress" in text, f"no progress bar for the fermi call: {text}"
    assert "Executing" in text, f"no papermill bar for the cooling call: {text}"


@pytest.mark.timeout(240)
def test_a_notebook_run_from_a_voila_kernel_is_a_batch_run(saved: Callable[[str], str]) -> None:
    """A Voilà app running a notebook with papermill or nbclient (a Sim2L's run): the kernel it starts inherits
    Voilà's variables, ``VOILA_KERNEL_ID`` naming the Voilà kernel, not this one. No bar is saved."""
    text = saved("from voila")
    for frozen in ("FloatProgress", "Executing", "widget-view", "<progress"):
        assert frozen not in text, f"{frozen!r} saved in the calls' outputs: {text}"


@pytest.mark.timeout(180)
def test_under_a_front_end_the_sim2ls_bar_is_still_drawn(kernel: LiveKernel) -> None:
    """A front end (``allow_stdin`` true, as JupyterLab sends it) still gets papermill's cell-by-cell bar."""
    kernel.run_ok(f"%mcp sim2l {COOLING}")
    cell = kernel.run_ok('r = %mcp call cooling {}\nprint("cooling:", r.is_error)')
    assert "cooling: False" in cell.text, cell.text
    shown = [m["content"]["data"] for m in kernel.messages(cell.msg_id) if m["msg_type"] == "display_data"]
    assert any(bundle.get("text/plain", "").startswith("Executing") for bundle in shown), shown
