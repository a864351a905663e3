"""A notebook shown as a Voilà app draws the progress bar of a call its cells make; the same notebook run headless
(nbclient, as ``jupyter execute``) saves no bar.

A real ``voila`` server (:mod:`voila_app`) renders a notebook that loads nanohubmcp, says what the batch-run check
decides in that kernel, defines a ``%%mcp_tool`` reporting progress with ``ctx.report_progress`` and calls it from
the next cell with ``%mcp call``. Voilà runs the cells with nbclient (``allow_stdin`` false) and its page shows only
what the cell it runs outputs: the bar, drawn in the cell that defined the tool, was dropped (measured with voila
0.5.13: no widget view in the page, though the kernel held the bar at 5/5), as were the tool's prints. Now, in
Voilà's kernel, a call's output goes to the cell Voilà runs: the page shows the bar under the calling cell, and
the kernel's widget states, which the live page draws it with, hold it at 5 of 5.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from kernels import KERNEL_NAME, kernel_environment
from nbclient import NotebookClient
from voila_app import WIDGET_VIEW, cells_of, voila_notebook, voila_serving

pytestmark = pytest.mark.slow
pytest.importorskip("ipywidgets")

CELLS = [
    "%load_ext nanohubmcp\n%config NanohubMCP.port = 0",
    "import time\nfrom nanohubmcp import Context\nfrom nanohubmcp.sources.batch_run import batch_run\n"
    'print("batch run:", batch_run())',
    '%%mcp_tool\ndef fit(ctx: Context, steps: int = 5) -> str:\n    """Fit in steps."""\n'
    '    print("fitting", steps, "steps")\n    for i in range(1, steps + 1):\n        time.sleep(0.02)\n'
    '        ctx.report_progress(i, steps, f"epoch {i}")\n    return "fitted"',
    'r = %mcp call fit {"steps": 5}\nprint("fit:", r.text)',
]
CALLING_CELL = 4
"""Voilà's ``cell-index`` of the ``%mcp call`` cell (it counts from 1)."""
LAST_LABEL = f"[{'#' * 30}] 5/5 epoch 5"


@pytest.mark.timeout(120)
def test_the_voila_page_shows_the_bar_of_a_call_under_the_calling_cell(tmp_path: Path) -> None:
    notebook = voila_notebook(tmp_path / "app.ipynb", CELLS)
    with voila_serving(notebook, tmp_path / "home") as app:
        page = app.page()
        cells = cells_of(page)
        assert "batch run: False" in cells[2], cells.get(2)  # Voilà's kernel: a live page, no batch run
        calling = cells[CALLING_CELL]
        assert "fit: fitted" in calling, calling
        views = re.findall(re.escape(WIDGET_VIEW) + r'": \{"model_id": "([0-9a-f]+)"', calling)
        assert len(views) == 1, f"no bar (one widget view) under the calling cell: {calling}"
        assert "fitting 5 steps" in calling, f"the tool's print is not under the calling cell: {calling}"
        kernel_id = re.search(r'"kernelId": "([0-9a-f-]+)"', page)
        assert kernel_id is not None, page[:2000]
        states = app.widget_states(kernel_id[1])
    box = states[views[0]]
    assert box["model_name"] == "HBoxModel", box
    bar, label = (states[child.removeprefix("IPY_MODEL_")]["state"] for child in box["state"]["children"])
    assert (bar["_model_name"], bar["value"], bar["max"]) == ("FloatProgressModel", 5.0, 5.0), bar
    assert label["value"] == LAST_LABEL, label


@pytest.mark.timeout(120)
def test_the_same_notebook_run_headless_saves_no_bar(kernel_specs: Path, ipython_dir: Path, tmp_path: Path) -> None:
    """nbclient as ``jupyter execute`` runs it (``allow_stdin`` false, no ``VOILA_*`` variable): a batch run, and
    the saved notebook keeps no bar frozen at its start."""
    notebook = nbformat.read(voila_notebook(tmp_path / "app.ipynb", CELLS), as_version=4)
    specs = KernelSpecManager(kernel_dirs=[str(kernel_specs)], ensure_native_kernel=False)
    manager = AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
    client = NotebookClient(notebook, km=manager, timeout=60, startup_timeout=60,
                            resources={"metadata": {"path": str(tmp_path)}})
    own = {name: value for name, value in kernel_environment(ipython_dir).items() if not name.startswith("VOILA_")}
    try:
        client.execute(env=own)
    finally:  # nbclient shuts down only a kernel manager it made itself: this one is the test's to stop
        if manager.has_kernel:
            run_sync(manager.shutdown_kernel)(now=True)
    outputs = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
    assert "batch run: True" in outputs, outputs
    assert "fit: fitted" in outputs, outputs
    for frozen in ("FloatProgress", WIDGET_VIEW, "<progress", "epoch"):
        assert frozen not in outputs, f"{frozen!r} saved in the outputs: {outputs}"
