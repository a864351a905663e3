"""In a batch run (nbclient: ``jupyter nbconvert --execute``, ``jupyter execute``, papermill) ``r = %mcp call`` of an
``async def`` tool, which runs on the kernel's loop the calling cell holds, is a clear error naming
``await current().server.call_async(...)`` (trial58 F12: before, the cell saved a "calling wait..." placeholder that
never resolved and ``r`` was None); that call, as the error says, gives the result."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from kernels import KERNEL_NAME, kernel_environment
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext nanohubmcp\n%config NanohubMCP.port = 0",
    '%%mcp_tool\nimport asyncio\n\nasync def wait(s: float) -> str:\n'
    '    await asyncio.sleep(s)\n    return f"waited {s}"',
    'r = %mcp call wait {"s": 0.1}\nprint("r is", r)',
    'from nanohubmcp.jupyter.extension import current\nr = await current().server.call_async("wait", {"s": 0.1})\n'
    'print("awaited:", r.text)',
]


@pytest.mark.timeout(180)
def test_the_call_says_to_await_and_that_works(kernel_specs: Path, ipython_dir: Path, tmp_path: Path) -> None:
    notebook = new_notebook(cells=[new_code_cell(text) for text in CELLS])
    specs = KernelSpecManager(kernel_dirs=[str(kernel_specs)], ensure_native_kernel=False)
    manager = AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
    client = NotebookClient(notebook, km=manager, timeout=120, startup_timeout=60, allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}})
    own = {name: value for name, value in kernel_environment(ipython_dir).items() if not name.startswith("VOILA_")}
    try:
        client.execute(env=own)
    finally:  # nbclient shuts down only a kernel manager it made itself
        if manager.has_kernel:
            run_sync(manager.shutdown_kernel)(now=True)
    saved = tmp_path / "executed.ipynb"
    nbformat.write(notebook, saved)
    outputs = [json.dumps(cell.get("outputs", [])) for cell in nbformat.read(saved, as_version=4).cells]
    call = outputs[2]
    assert "calling wait..." not in call, call
    assert "r is None" not in call, call
    assert "UsageError" in call, call
    assert "batch run" in call, call
    assert 'await current().server.call_async(\\"wait\\"' in call, call
    assert "awaited: waited 0.1" in outputs[3], outputs[3]
