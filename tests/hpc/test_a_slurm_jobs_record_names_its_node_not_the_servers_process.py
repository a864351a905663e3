"""A Slurm job's provenance record names where the function ran — the Slurm job id and its node,
and the host, pid and thread of the job's process there, as the function itself saw them — and not
the server's, which only submitted it; its RO-Crate says the same. A job whose function raised names
its place too. On a real single-node Slurm (scripts/slurm-single-node). Found by trial17 (F6): the
record gave the ``nanohubmcp run`` server's own pid and ``MainThread`` beside the compute node; the
node's pid and thread were then left null. A result file of an earlier version (the value without
the place) still reads."""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

import cloudpickle
import pytest
from support import crate_action, ended_job, mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.crate import export

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the tool travels to the node by value


def on_node() -> dict:
    """Answer with the Slurm job's id and the host, pid and thread that ran the function."""
    return {
        "slurm_job_id": os.environ.get("SLURM_JOB_ID"),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "thread": threading.current_thread().name,
    }


def refuses_on_node() -> dict:
    """Raise in the Slurm job."""
    raise ValueError("refused on the node")


@pytest.mark.anyio
async def test_a_slurm_jobs_record_names_the_job_node_and_process_there(slurm_cluster: str, tmp_path: Path) -> None:
    server = MCPServer(
        "slurm-where", state_dir=str(tmp_path), job_executor="slurm", executor_options={"poll_interval": 1}
    )
    server.async_tool()(on_node)
    server.async_tool()(refuses_on_node)
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            answer, record = await ended_job(client, await client.call_tool("on_node", {}), 120)
            failed_answer, failed = await ended_job(client, await client.call_tool("refuses_on_node", {}), 120)
        folder = export(server.core.provenance, record["uri"], tmp_path / "crate")
    assert answer["status"] == "done", answer
    seen = answer["result"]
    assert seen["pid"] != os.getpid()
    where = record["where"]
    assert (where["slurm_job_id"], where["node"]) == (seen["slurm_job_id"], slurm_cluster), record
    assert (where["host"], where["pid"], where["thread"]) == (seen["host"], seen["pid"], seen["thread"]), record
    assert record["server"]["pid"] == os.getpid()  # the process that took the call and submitted the job
    assert crate_action(folder)["description"] == (
        f"Ran on executor slurm at host {seen['host']}, node {slurm_cluster}, pid {seen['pid']}, "
        f"slurm_job_id {where['slurm_job_id']}, thread {seen['thread']}"
    )

    assert failed_answer["status"] == "error", failed_answer
    assert "refused on the node" in failed_answer["error"], failed_answer
    failed_where = failed["where"]
    assert failed_where["node"] == slurm_cluster, failed
    assert failed_where["pid"] not in (None, os.getpid(), seen["pid"]), failed  # its own job's process
    assert failed_where["host"] == seen["host"], failed


def test_an_earlier_versions_result_file_still_reads(tmp_path: Path) -> None:
    from nanohubmcp.server.executors.slurm import _place_of, _value_of

    earlier = ("success", ("returned", {"n": 3}))  # what run_in_job answered before it sent the place
    assert _value_of(earlier, "4711", tmp_path) == {"n": 3}
    assert _place_of(earlier) is None
    now = ("success", ("returned", {"n": 3}, ("node1", 4242, "MainThread")))
    assert (_value_of(now, "4711", tmp_path), _place_of(now)) == ({"n": 3}, ("node1", 4242, "MainThread"))
