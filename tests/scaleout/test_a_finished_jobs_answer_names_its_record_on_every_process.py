"""A job that ended on one process answers the same on every other process of the server (three
``nanohubmcp run`` processes sharing a real redis-server): ``get_job_result``'s
``_meta["io.nanohub/provenance"]``, REST polling's ``Link`` header and ``tasks/result``'s ``_meta`` name
the job's provenance record, the one the job handle named (the process that ran the job reads it:
the records live in its state directory).

Found by a fresh-user trial (trial 18, F1): no route named the record of a finished job.
"""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
import pytest
from cluster import Cluster
from jobs.job_server import wait_until
from wire import headers, initialize

pytestmark = pytest.mark.timeout(120)
META = "io.nanohub/provenance"
RELATED_TASK = "io.modelcontextprotocol/related-task"


def rpc(url: str, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = httpx.post(
        url,
        headers={**headers(session), "Accept": "application/json"},
        timeout=30,
        json={"jsonrpc": "2.0", "id": 7, "method": method, "params": params},
    )
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body["result"]


def test_every_process_names_the_record_of_a_job_another_ran(cluster: Cluster) -> None:
    first, second, third = cluster.servers
    session = initialize(first.url)
    handle = rpc(first.url, session, "tools/call", {"name": "slow_square", "arguments": {"x": 7}})
    uri = handle["_meta"][META]
    job_id = handle["structuredContent"]["job_id"]

    def polled(url: str) -> dict[str, Any]:
        return rpc(url, session, "tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}})

    done = wait_until(lambda: (r := polled(second.url))["structuredContent"]["status"] == "done" and r, "the end")
    assert done["_meta"][META] == uri
    assert polled(third.url)["_meta"][META] == uri
    # The records stay in the state directory of the process that made them (each has its own here).
    read = rpc(first.url, session, "resources/read", {"uri": uri})
    assert '"status": "completed"' in read["contents"][0]["text"]

    created = rpc(
        first.url, session, "tools/call", {"name": "slow_square", "arguments": {"x": 8}, "task": {"ttl": 60000}}
    )
    task_id = created["task"]["taskId"]
    result = rpc(third.url, session, "tasks/result", {"taskId": task_id})  # (it waits there for the end)
    assert result["content"] == [{"type": "text", "text": "64"}]
    assert result["_meta"] == {META: created["_meta"][META], RELATED_TASK: {"taskId": task_id}}

    base = [f"http://127.0.0.1:{s.port}/tools/" for s in (first, second, third)]
    started = httpx.post(base[0] + "slow_square", json={"x": 9}, timeout=30)
    assert started.status_code == 202, started.text
    link = started.headers["Link"]
    rest_id = started.json()["job_id"]
    ended = wait_until(
        lambda: (
            (r := httpx.post(base[1] + "get_job_result", json={"job_id": rest_id}, timeout=30)).json()["status"]
            == "done"
            and r
        ),
        "the REST job's end",
    )
    assert ended.json()["result"] == 81
    assert ended.headers["Link"] == link
