"""A Sim2L served as a job tool (``background=True``, ``--async``) runs on the ``processes`` executor
(a process of its own) and on Slurm (a batch job on the node of a real single-node cluster): its
function pickles as the notebook's declarations and settings. Its result comes back, and the files of
the run, stored by the job, are readable from the server. A cancelled job on ``processes`` kills the
run's kernel with what its cell started. On the ``submit`` executor, which runs the command a tool
returns, a Sim2L job tool is refused at registration, saying what to use.

Found by a fresh-user trial (trial 28, T4): every call of such a tool failed, "cannot run on the
'processes' executor: its function or arguments cannot be pickled (... import of module
'.../cool2.ipynb' failed). Define the function at module level" — advice a Sim2L cannot follow —
and on Slurm "cannot be sent to Slurm: ... cannot pickle '_thread.lock' object".
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import anyio
import pytest
from jobs.job_server import wait_until
from sim2l.cooling_variant import COOLING, cooling_variant
from support import ended_job, mcp_client, running, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError


def _job_server(tmp_path: Path, executor: str) -> tuple[MCPServer, Path]:
    """A server of the cooling Sim2L as the job tool ``cool_job`` on ``executor``, its computing cell,
    for 17 points, starting ``sleep 600``, writing the kernel's and the sleep's process ids to a file
    and waiting for it; and that file."""
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    pids = tmp_path / "pids"
    code = (
        "import os, subprocess\n"
        "if points == 17:\n"
        "    child = subprocess.Popen(['sleep', '600'])\n"
        f"    open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "    child.wait()\n"
    )
    server = MCPServer(f"sim2l-{executor}", state_dir=str(tmp_path / "state"), job_executor=executor)
    # (simtool imported after the code: the 17 points' run reaches its sleep without it)
    server.add_sim2l(str(cooling_variant(tmp_path, code, simtool_late=True)), name="cool_job", background=True)
    return server, pids


async def _run_and_read(client: Any) -> dict[str, Any]:
    """Call the job tool, wait for its end, read the plot the run saved; where it ran (its
    provenance record's ``where``)."""
    started = await client.call_tool("cool_job", {"points": 5, "rate": 0.02})
    answer, record = await ended_job(client, started, 150)
    assert answer["status"] == "done", answer
    result = answer["result"]
    assert result["cached"] is False
    assert result["outputs"]["final_temperature"] == pytest.approx(293 + 77 * 2.718281828 ** -12, rel=1e-6)
    plot = await client.read_resource(result["files"]["plot"])  # stored where the server finds it
    assert plot.contents[0].mime_type == "image/png"
    return dict(record["where"])


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.timeout(300)
async def test_a_sim2l_job_runs_in_a_process_of_its_own_and_its_cancel_kills_the_kernel(tmp_path: Path) -> None:
    server, pids = _job_server(tmp_path, "processes")

    with serve(server) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            where = await _run_and_read(client)
            assert where["pid"] != os.getpid(), where  # in a process of its own

            started = await client.call_tool("cool_job", {"points": 17})
            job_id = started.structured_content["job_id"]
            while not (pids.exists() and pids.read_text()):  # the cell started its sleep
                await anyio.sleep(0.1)
            kernel, sleeper = (int(n) for n in pids.read_text().split())
            assert running(kernel)
            assert running(sleeper)
            try:
                cancelled = await client.call_tool("cancel_job", {"job_id": job_id})
                assert not cancelled.is_error, cancelled.content
                # the kernel's process group: the kernel and what its cell started
                wait_until(lambda: not running(kernel) and not running(sleeper), "the kernel and its sleep to end", 30)
            finally:
                for pid in (kernel, sleeper):  # the test failed: leave nothing sleeping behind it
                    if running(pid):
                        os.kill(pid, signal.SIGKILL)
            polled = (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content
            assert polled["status"] == "cancelled", polled


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.timeout(300)
async def test_a_sim2l_job_runs_as_a_slurm_job(slurm_cluster: str, tmp_path: Path) -> None:
    server, _ = _job_server(tmp_path, "slurm")

    with serve(server) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            where = await _run_and_read(client)
    assert where["node"] == slurm_cluster, where  # ran on the node, as a Slurm job
    assert where["slurm_job_id"], where


def test_a_sim2l_job_tool_is_refused_on_the_submit_executor(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    server = MCPServer("sim2l-submit", state_dir=str(tmp_path), job_executor="submit")
    with pytest.raises(RegistrationError) as refused:
        server.add_sim2l(str(COOLING), name="cool_job", background=True)
    assert str(refused.value) == (
        "Sim2L tool 'cool_job': a job tool (background=True, --async) cannot run on the server's 'submit' executor, "
        "whose tools return the command that submit runs; serve it with job_executor 'threads', 'processes', "
        "'dask' or 'slurm', or without background=True"
    )
    assert server.add_sim2l(str(COOLING), name="cool_now").name == "cool_now"  # answered in the server: fine
