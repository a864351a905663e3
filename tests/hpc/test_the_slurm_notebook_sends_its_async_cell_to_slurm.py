"""``notebooks/hpc_slurm.ipynb`` runs in a real kernel, and its ``%%mcp_tool --async --executor slurm``
cell's calls run as Slurm jobs: the official client starts one and reads its result, computed on
the node by the job ``sacct`` records; the job's progress reaches the server and is kept with the job
(no notification names the call's token after its job handle: trial 18, F4).

Issue 25, "Done when": ``notebooks/`` gains a notebook that sends a ``%%mcp_tool --async`` cell to
Slurm (executed here, where the single-node cluster runs).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jobs.job_server import wait_until
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from kernel_launch import KERNEL_NAME, execute_notebook, kernel_environment, write_kernel_spec
from nbclient import NotebookClient
from support import mcp_client

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "hpc_slurm.ipynb"


@pytest.mark.anyio
async def test_the_notebooks_async_cell_runs_as_a_slurm_job(slurm_cluster: str, tmp_path: Path) -> None:
    ipython_dir = tmp_path / "ipython"
    ipython_dir.mkdir()
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    specs = KernelSpecManager(kernel_dirs=[str(write_kernel_spec(tmp_path / "kernels"))], ensure_native_kernel=False)
    manager = AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
    client = NotebookClient(
        notebook, km=manager, timeout=60, startup_timeout=60, resources={"metadata": {"path": str(tmp_path)}}
    )
    progress: list[Any] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/progress":
            progress.append(root.params.progress)

    try:
        async with client.async_setup_kernel(env=kernel_environment(ipython_dir)):
            url = await _run(client)
            async with mcp_client(url, message_handler=on_message) as session:
                handle = await session.call_tool("relax_lattice", {"steps": 4}, progress_callback=lambda *a: None)
                job_id = handle.structured_content["job_id"]
                deadline = time.monotonic() + 90
                answer = handle.structured_content
                while answer["status"] == "running":
                    assert time.monotonic() < deadline, answer
                    time.sleep(0.2)
                    answer = (await session.call_tool("get_job_result", {"job_id": job_id})).structured_content
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
        await manager.shutdown_kernel(now=False)
    assert answer["status"] == "done", answer
    result = answer["result"]
    assert result["steps"] == 4
    assert result["residual"] == pytest.approx(0.4 / 16)
    assert result["node"] == slurm_cluster
    assert result["in_slurm_job"] is True
    assert progress == []  # the call answered with its job handle
    state = Path(os.environ["NANOHUBMCP_STATE_DIR"])
    with sqlite3.connect(state / "jobs.sqlite3") as db:
        query = "SELECT progress, progress_updates FROM jobs WHERE id = ?"
        assert db.execute(query, (job_id,)).fetchone() == (4, 4)  # every step reached the server
    # (submitit's script stays with the job's logs; its pickled call goes once the result is stored)
    [submitted] = (state / "slurm-jobs" / job_id).glob("*_submission.sh")
    command = ["sacct", "-X", "-n", "-P", "-j", submitted.name.split("_")[0], "-o", "JobName,State"]
    wait_until(  # the accounting database learns of the job's end a moment after squeue does
        lambda: (
            subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.split()
            == ["mcp-relax_lattice|COMPLETED"]
        ),
        "sacct to record the job",
        30,
    )
    errors = [
        o
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert errors == []


async def _run(client: NotebookClient) -> str:
    import asyncio

    return await asyncio.get_running_loop().run_in_executor(None, execute_notebook, client)
