"""A Slurm job with a short ``time`` is warned of its limit only near the limit, not at its start.

Found by a fresh-user trial (trial 5, F17): with ``executor_options={"time": 1}`` the client got
"the batch job is close to its time limit" within seconds of the job starting, for a 5-s job too:
the warning signal was asked 60 s before a 1-minute limit, and Slurm may send it up to a minute
early anyway (its event resolution). Now the signal is asked at most a fifth of the limit before
it, and the job holds the warning back until that time into the run.

The repo's single-node Slurm, the official ``mcp`` client.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import cloudpickle
import pytest
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def brief(seconds: float, ctx: Context) -> str:
    """Run a few seconds, logging as it goes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ctx.info("working")
        time.sleep(0.5)
    return "done"


@pytest.mark.anyio
async def test_a_short_job_under_a_one_minute_limit_hears_no_warning(slurm_cluster: str, tmp_path: Path) -> None:
    server = MCPServer("slurm-warning", state_dir=str(tmp_path), job_executor="slurm",
                       executor_options={"time": 1})
    server.async_tool()(brief)
    texts: list[str] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/message":
            data = root.params.data
            texts.append(data if isinstance(data, str) else str(data.get("message")))

    with serve(server) as url:
        async with mcp_client(url + "mcp", message_handler=on_message) as client:
            await client.set_logging_level("info")
            handle = await client.call_tool("brief", {"seconds": 6})
            job_id = handle.structured_content["job_id"]
            deadline = time.monotonic() + 120
            while (answer := (await client.call_tool("get_job_result", {"job_id": job_id})).structured_content
                   )["status"] == "running":
                assert time.monotonic() < deadline, answer
                time.sleep(0.2)
    assert answer["status"] == "done", answer
    assert "working" in texts, texts  # the job's log reached the client
    assert not [t for t in texts if "close to its time limit" in t], texts
