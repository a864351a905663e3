"""A Slurm job shorter than the watcher's look interval still moves as the how-to promises —
queued, running on its node, ended — on a real single-node Slurm (scripts/slurm-single-node).

The watcher looks with ``squeue`` every ``poll_interval`` seconds; a job that starts and ends
between two looks was never seen running, and its end (its result file) came without a node.
Slurm knows where it ran: the end asks it once (``squeue``, else ``sacct``), so the client hears
"running on node N" before "ended: COMPLETED", and the job's provenance record names the node.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import cloudpickle
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the tool travels to the node by value

LOOK_EVERY_SECONDS = 120.0
"""Far longer than the job: the watcher's looks cannot see it running (one look at its submission)."""


def quick() -> dict:
    """Answer at once with the Slurm job's id."""
    return {"slurm_job_id": os.environ.get("SLURM_JOB_ID")}


@pytest.mark.anyio
async def test_a_job_between_two_looks_is_reported_running_on_its_node_then_ended(
    slurm_cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nanohubmcp.server.executors import slurm_watch

    monkeypatch.setattr(slurm_watch, "_watcher", None)  # this test's own watcher, with its long interval
    server = MCPServer("short-slurm-job", state_dir=str(tmp_path), job_executor="slurm",
                       executor_options={"poll_interval": LOOK_EVERY_SECONDS})
    server.async_tool()(quick)
    texts: list[str] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/message":
            data = root.params.data
            texts.append(data if isinstance(data, str) else data["message"])

    with serve(server) as url:
        async with mcp_client(url + "mcp", message_handler=on_message) as client:
            await client.set_logging_level("info")
            handle = await client.call_tool("quick", {})
            job_id = handle.structured_content["job_id"]
            deadline = time.monotonic() + 90
            while (answer := (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content)[
                "status"
            ] == "running":
                assert time.monotonic() < deadline, answer
                time.sleep(0.1)
            read = await client.read_resource(handle.meta["io.nanohub/provenance"])
            record = json.loads(read.contents[0].text)

    assert answer["status"] == "done", answer
    slurm_id = answer["result"]["slurm_job_id"]
    # A shared Slurm may keep the job waiting for a reason of its own (Priority, Resources): that is
    # news of its wait, not a move (seen by a fresh-user trial with other jobs on the cluster).
    moves = [t for t in texts if f" job {slurm_id} " in f"{t} " and "(reason:" not in t]
    assert moves == [
        f"queued at Slurm as job {slurm_id}",
        f"Slurm job {slurm_id} is running on node {slurm_cluster}",
        f"Slurm job {slurm_id} ended: COMPLETED",
    ], moves
    assert record["status"] == "completed", record
    assert (record["where"]["slurm_job_id"], record["where"]["node"]) == (slurm_id, slurm_cluster), record
