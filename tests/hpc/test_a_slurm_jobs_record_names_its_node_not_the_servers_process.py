"""A Slurm job's provenance record names where the function ran — the Slurm job id and its node —
and not the server's host, pid and thread, which only submitted it; its RO-Crate says the same.
On a real single-node Slurm (scripts/slurm-single-node). Found by trial17 (F6): the record gave
the ``nanohubmcp run`` server's own pid and ``MainThread`` beside the compute node."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import anyio
import cloudpickle
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.crate import export

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the tool travels to the node by value


def on_node() -> dict:
    """Answer with the Slurm job's id and the pid that ran the function."""
    return {"slurm_job_id": os.environ.get("SLURM_JOB_ID"), "pid": os.getpid()}


@pytest.mark.anyio
async def test_a_slurm_jobs_record_names_the_job_and_node_only(slurm_cluster: str, tmp_path: Path) -> None:
    server = MCPServer(
        "slurm-where", state_dir=str(tmp_path), job_executor="slurm", executor_options={"poll_interval": 0.5}
    )
    server.async_tool()(on_node)
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            handle = await client.call_tool("on_node", {})
            job_id = handle.structured_content["job_id"]
            uri = handle.meta["io.nanohub/provenance"]
            deadline = time.monotonic() + 120
            while (answer := (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content)[
                "status"
            ] == "running":
                assert time.monotonic() < deadline, answer
                await anyio.sleep(0.1)
            while (record := json.loads((await client.read_resource(uri)).contents[0].text))["status"] == "working":
                assert time.monotonic() < deadline, record
                await anyio.sleep(0.05)
        folder = export(server.core.provenance, uri, tmp_path / "crate")
    assert answer["status"] == "done", answer
    assert answer["result"]["pid"] != os.getpid()
    where = record["where"]
    assert (where["slurm_job_id"], where["node"]) == (answer["result"]["slurm_job_id"], slurm_cluster), record
    assert (where["host"], where["pid"], where["thread"]) == (None, None, None), record
    metadata = json.loads((folder / "ro-crate-metadata.json").read_text())
    [action] = [item for item in metadata["@graph"] if item.get("@type") == "CreateAction"]
    assert action["description"] == (
        f"Ran on executor slurm at node {slurm_cluster}, slurm_job_id {where['slurm_job_id']}"
    ), action
