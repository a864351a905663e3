"""A cancel reaches a job whichever process of the server receives it, and stays a cancel.

MCP 2025-11-25, Basic § Utilities § Tasks § Task Cancellation: the receiver "MUST transition the
task to cancelled status before sending the response", and "once a task is cancelled, it MUST
remain in cancelled status even if execution continues to completion or fails". Found by a
fresh-user trial (trial 5, F15): with ``--workers 3`` a ``tasks/cancel`` that landed on a worker
other than the job's answered ``cancelled``, but the job ran on (``ctx.is_cancelled()`` stayed
false; on Slurm no ``scancel``), its task went back to ``working`` and ended ``completed``.

Three ``nanohubmcp run`` processes share a real redis-server (tests/scaleout/cluster.py); each
request goes to one process's own port, so the cancel lands where the job does not run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import wire
from cluster import Cluster

pytestmark = pytest.mark.timeout(90)


def rpc(url: str, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = wire.httpx.post(url, headers={**wire.headers(session), "Accept": "application/json"}, timeout=20,
                            json={"jsonrpc": "2.0", "id": 9, "method": method, "params": params})
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def wait_for(check: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


def test_tasks_cancel_on_another_process_stops_the_job_and_stays_cancelled(cluster: Cluster, tmp_path: Path) -> None:
    owner, other = cluster.servers[0].url, cluster.servers[1].url
    session = wire.initialize(owner)
    started = rpc(owner, session, "tools/call", {"name": "spin", "task": {"ttl": 60000}, "arguments": {
        "seconds": 40, "folder": str(tmp_path), "tag": "t"}})
    task_id = started["result"]["task"]["taskId"]
    wait_for((tmp_path / "t.started").exists)

    answer = rpc(other, session, "tasks/cancel", {"taskId": task_id})
    assert answer["result"]["status"] == "cancelled", answer

    wait_for((tmp_path / "t.cancelled").exists)  # the function saw it, in the process that runs it
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
    wait_for((tmp_path / "u.started").exists)
    assert rpc(other, session, "tasks/cancel", {"taskId": task_id})["result"]["status"] == "cancelled"
    deadline = time.monotonic() + 4  # past the function's own end
    while time.monotonic() < deadline:
        for url in (owner, other):
            status = rpc(url, session, "tasks/get", {"taskId": task_id})["result"]["status"]
            assert status == "cancelled", json.dumps(status)
        time.sleep(0.2)
