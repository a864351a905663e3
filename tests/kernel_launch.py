"""Starting real test kernels: a kernelspec running this very interpreter (the venv's), an
environment isolated from the user's IPython profile and any hub session, and a manager for it.
Shared by tests/jupyter (LiveKernel), tests/lab (CommKernel) and tests/export."""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

KERNEL_NAME = "nanohubmcp-test"
HUB_VARS = ("SESSION", "SESSION_ID", "SESSIONDIR", "SESSION_DIR", "JPY_SESSION_NAME")


def write_kernel_spec(directory: Path) -> Path:
    """A kernelspec running this interpreter, in ``directory/<KERNEL_NAME>/``; returns ``directory``."""
    spec_dir = directory / KERNEL_NAME
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "nanohubmcp tests",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    return directory


def kernel_environment(ipython_dir: Path, **extra: str) -> dict[str, str]:
    """The test process's environment, isolated from the user's IPython profile and any hub session."""
    env = {k: v for k, v in os.environ.items() if k not in HUB_VARS}
    env["IPYTHONDIR"] = str(ipython_dir)
    env.update(extra)
    return env


def make_manager(spec_dirs: Path) -> KernelManager:
    """A KernelManager for the test kernelspec in ``spec_dirs``, its channels on Unix sockets there.

    Over TCP, jupyter_client picks five free ports by binding and releasing them, and the kernel binds them a
    moment later: a server of a test on another xdist worker listening on port 0 can take one in between, and the
    kernel dies before its first reply (``ZMQError: Address already in use``; seen in CI). IPC sockets are files
    under a prefix of this manager's own."""
    specs = KernelSpecManager(kernel_dirs=[str(spec_dirs)], ensure_native_kernel=False)
    prefix = spec_dirs / f"ipc-{uuid.uuid4().hex[:12]}"
    return KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs, transport="ipc", ip=str(prefix))


def execute_notebook(client: Any) -> str:
    """Run every cell of an nbclient ``client`` whose kernel is set up, then ``%mcp url``: the server's URL."""
    from nbformat.v4 import new_code_cell

    notebook = client.nb
    for index, cell in enumerate(notebook.cells):
        client.execute_cell(cell, index)
    probe = new_code_cell("%mcp url")
    notebook.cells.append(probe)
    client.execute_cell(probe, len(notebook.cells) - 1)
    return str(probe.outputs[0]["data"]["text/plain"]).strip("'\"")
