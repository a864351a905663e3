"""A notebook executed and saved does not contain its MCP server's token (as Jupyter never writes
its own token into a notebook): the status and the client snippets name ``$MCP_TOKEN``, and
``%mcp token`` shows the token only until the next cell runs, and ``%config NanohubMCP`` never does. Whether
the token is generated, set with ``%config NanohubMCP.token`` or taken from ``$MCP_TOKEN``.
"""

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

from nanohubmcp.jupyter.token_view import HIDDEN

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext nanohubmcp\n%config NanohubMCP.port = 0{config}",
    # Every setting's current value, and the token's alone as the cell's value (a fresh-user trial: both
    # showed a configured token).
    "%config NanohubMCP",
    "%config NanohubMCP.token",
    "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b",
    "%mcp status",
    "%mcp token",
    '%mcp call add {"a": 1, "b": 2}',
    "%mcp status",
    # The test reads the token the kernel serves with from a file (the notebook must not hold it).
    "session = get_ipython().magics_manager.registry['MCPMagics'].session\n"
    "open({path!r}, 'w').write(session.token)\n%mcp stop",
]


@pytest.mark.timeout(180)
@pytest.mark.parametrize("source", ["generated", "config", "environment"])
def test_the_saved_notebook_holds_no_token(source: str, kernel_specs: Path, ipython_dir: Path,
                                           tmp_path: Path) -> None:
    secret = tmp_path / "token"
    config = "\n%config NanohubMCP.token = 'nb-config-TOKEN-abc123'" if source == "config" else ""
    env = {"MCP_TOKEN": "nb-env-TOKEN-xyz789"} if source == "environment" else {}
    cells = [text.replace("{config}", config).replace("{path!r}", repr(str(secret))) for text in CELLS]
    if source != "environment":  # the test session sets MCP_TOKEN="" (authorization off)
        cells.insert(0, "import os\nos.environ.pop('MCP_TOKEN', None)")
    notebook = new_notebook(cells=[new_code_cell(text) for text in cells])
    specs = KernelSpecManager(kernel_dirs=[str(kernel_specs)], ensure_native_kernel=False)
    manager = AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
    client = NotebookClient(notebook, km=manager, timeout=120, startup_timeout=60,
                            resources={"metadata": {"path": str(tmp_path)}})
    try:
        with client.setup_kernel(env=kernel_environment(ipython_dir, **env)):
            for index, cell in enumerate(notebook.cells):
                client.execute_cell(cell, index)
    finally:  # nbclient shuts down only a kernel manager it made itself
        if manager.has_kernel:
            run_sync(manager.shutdown_kernel)(now=True)
    saved = tmp_path / "executed.ipynb"
    nbformat.write(notebook, saved)
    token = secret.read_text()
    assert len(token) >= 12
    saved_notebook = nbformat.read(saved, as_version=4)
    text = json.dumps([cell.get("outputs") for cell in saved_notebook.cells])  # (a %config cell's source has it)
    assert token not in text
    assert "Client configuration" in text  # the status was shown ...
    assert "MCP_TOKEN" in text  # ... naming the variable the clients read
    assert HIDDEN in text  # %mcp token's output, replaced when the next cell ran
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
