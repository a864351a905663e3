"""A cancel reaches a job whichever process of the server receives it, and stays a cancel.

MCP 2025-11-25, Basic § Utilities § Tasks § Task Cancellation: the receiver "MUST transition the
task to cancelled status before sending the response", and "once a task is cancelled, it MUST
remain in cancelled status even if execution continues to completion or fails". Found by a
fresh-user trial (trial 5, F15): with ``--workers 3`` a ``tasks/cancel`` that landed on a worker
other than the job's answered ``cancelled``, but the job ran on (``ctx.is_cancelled()`` stayed
false; on Slurm no ``scancel``), its task went back to ``working`` and ended ``completed``.

Three ``nanohubmcp run`` processes share a real redis-server (tests/scaleout/cluster.py); each
request goes to one process's own port, so the cancel lands where the job does not run. For Slurm,
two servers in this process share the Redis (each with its own job store, as a worker has) and the
repo's single-node Slurm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import cloudpickle
import pytest
import wire
from cluster import Cluster
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import Context, MCPServer

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the Slurm job's function travels by value

pytestmark = pytest.mark.timeout(90)


def rpc(url: str, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = wire.httpx.post(url, headers={**wire.headers(session), "Accept": "application/json"}, timeout=20,
                            json={"jsonrpc": "2.0", "id": 9, "method": method, "params": params})
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_tasks_cancel_on_another_process_stops_the_job_and_stays_cancelled(cluster: Cluster, tmp_path: Path) -> None:
    owner, other = cluster.servers[0].url, cluster.servers[1].url
    session = wire.initialize(owner)
    started = rpc(owner, session, "tools/call", {"name": "spin", "task": {"ttl": 60000}, "arguments": {
        "seconds": 40, "folder": str(tmp_path), "tag": "t"}})
    task_id = started["result"]["task"]["taskId"]
    wait_until((tmp_path / "t.started").exists, "the task started", 20)

    answer = rpc(other, session, "tasks/cancel", {"taskId": task_id})
    assert answer["result"]["status"] == "cancelled", answer

    wait_until((tmp_path / "t.cancelled").exists, "the function saw the cancel, in the process that runs it", 20)
    for url in (owner, other, cluster.servers[2].url):
        assert rpc(url, session, "tasks/get", {"taskId": task_id})["result"]["status"] == "cancelled"
    result = rpc(owner, session, "tasks/result", {"taskId": task_id})["result"]
    assert result["isError"] is True, result
    assert "cancelled" in result["content"][0]["text"], result
    again = rpc(owner, session, "tasks/cancel", {"taskId": task_id})
    assert again["error"]["code"] == -32602, again  # a terminal task


def test_a_job_that_ends_after_a_cancel_elsewhere_stays_cancelled(cluster: Cluster, tmp_path: Path) -> None:
    """The function ignores nothing here, but ends on its own right after the cancel: its end
    never replaces the stored cancel, on any process."""
    owner, other = cluster.servers[0].url, cluster.servers[2].url
    session = wire.initialize(owner)
    started = rpc(owner, session, "tools/call", {"name": "spin", "task": {"ttl": 60000}, "arguments": {
        "seconds": 1.5, "folder": str(tmp_path), "tag": "u"}})
    task_id = started["result"]["task"]["taskId"]
    wait_until((tmp_path / "u.started").exists, "the task started", 20)
    assert rpc(other, session, "tasks/cancel", {"taskId": task_id})["result"]["status"] == "cancelled"
    deadline = time.monotonic() + 4  # past the function's own end
    while time.monotonic() < deadline:
        for url in (owner, other):
            status = rpc(url, session, "tasks/get", {"taskId": task_id})["result"]["status"]
            assert status == "cancelled", json.dumps(status)
        time.sleep(0.2)


def until_cancelled(marker: str, ctx: Context) -> str:
    """Write this job's Slurm id to ``marker``, then run until cancelled (at most a minute)."""
    Path(marker).write_text(os.environ.get("SLURM_JOB_ID", "?"))
    deadline = time.monotonic() + 60
    while not ctx.is_cancelled() and time.monotonic() < deadline:
        time.sleep(0.05)
    return "stopped" if ctx.is_cancelled() else "not cancelled"


def test_a_slurm_job_is_scancelled_by_a_cancel_on_another_process(
    slurm_cluster: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    servers = []
    for i in range(2):
        server = MCPServer("slurm-cancel", state_url=redis_server.url, state_dir=str(tmp_path / f"s{i}"),
                           job_executor="slurm")
        server.async_tool()(until_cancelled)
        servers.append(server)
    marker = tmp_path / "started"
    with ExitStack() as stack:
        owner, other = (stack.enter_context(serve(s)) + "mcp" for s in servers)
        session = wire.initialize(owner)
        started = rpc(owner, session, "tools/call", {"name": "until_cancelled", "task": {"ttl": 60000},
                                                     "arguments": {"marker": str(marker)}})
        task_id = started["result"]["task"]["taskId"]
        wait_until(lambda: marker.exists() and marker.read_text() != "", "the Slurm job wrote its id", 90)
        slurm_id = marker.read_text()
        assert rpc(other, session, "tasks/cancel", {"taskId": task_id})["result"]["status"] == "cancelled"

        def state() -> str:
            out = subprocess.run(["sacct", "-X", "-n", "-P", "-j", slurm_id, "-o", "State"],
                                 capture_output=True, text=True, timeout=30).stdout.split()
            return out[0] if out else ""

        wait_until(lambda: state() == "CANCELLED", "Slurm says CANCELLED", 60)  # scancelled by the process following it

        def task_state(url: str) -> str:
            task = rpc(url, session, "tasks/get", {"taskId": task_id})["result"]
            assert task["status"] == "cancelled"
            return str(task.get("_meta", {}).get("org.nanohub/slurm", {}).get("state"))

        wait_until(lambda: task_state(other) == "CANCELLED", "the owner's last look, seen everywhere", 30)
