"""A job started over MCP whose tool returns a list mixing blocks with data (``[fig, "cap", {"n": 1}]``)
answered ``get_job_result`` with the data alone, ``{"n": 1}``: its stored result held the blocks, then the
data, and no longer said where each block sat in the list, so the poll could not name them in place as it
does for the same job started over REST (``["<image: content[0]>", "cap", {"n": 1}]``; trial38 T7, left
over). A lone data item that is the dict ``{"result": 5}`` even read back as ``5``.

The job record now keeps where each item sat (``item_places``), and the poll answers the REST shape, over
the official ``mcp`` client, from every job store (memory, SQLite, a real redis-server), after the server
restarted on the same store, and for a session of a version without structured content (read from the
result's JSON text). A record of an earlier version (an SQLite file without the column, a Redis hash
without the field) reads as before; the SQLite file gains the column. The poll names each block by its
index in its own answer, after the JSON text (``content[1]``: trial44 T44-10), where the direct call names it
by its index in the call's (``content[0]``).
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import redis
from redis_server import RedisServer
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.jobs import DB_FILE

pytestmark = pytest.mark.timeout(120)

DIRECT = {  # a direct REST call's answer: the figure is content[0] of the call's own answer
    "plotted": ["<image: content[0]>", "cap", {"n": 1}],
    "nested": [{"plot": "<image: content[0]>"}, "cap", {"n": 1}],
    "lone_dict": ["<image: content[0]>", {"result": 5}],
    "several": [{"n": 1}, "<image: content[0]>", [2, 3], "note"],
}
EXPECTED = {  # a job's poll, over MCP or REST: content[1] of get_job_result's answer, after its JSON text
    "plotted": ["<image: content[1]>", "cap", {"n": 1}],
    "nested": [{"plot": "<image: content[1]>"}, "cap", {"n": 1}],
    "lone_dict": ["<image: content[1]>", {"result": 5}],
    "several": [{"n": 1}, "<image: content[1]>", [2, 3], "note"],
}


def figure() -> object:
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])
    return fig


RETURNS = {
    "plotted": lambda: [figure(), "cap", {"n": 1}],
    "nested": lambda: [{"plot": figure()}, "cap", {"n": 1}],
    "lone_dict": lambda: [figure(), {"result": 5}],
    "several": lambda: ({"n": 1}, figure(), [2, 3], "note"),
}


def build(state: Path, store: str, redis_url: str | None = None) -> MCPServer:
    options: dict[str, Any] = {"state_url": redis_url} if redis_url else {"job_store": store}
    server = MCPServer("in-place", state_dir=str(state), **options)
    for name, returns in RETURNS.items():
        server.async_tool(name=name, description=f"{name}, as a job")(returns)
        server.tool(name=f"direct_{name}", description=f"{name}, at once")(returns)
    return server


async def polled(client: Any, job_id: str) -> Any:
    with anyio.fail_after(30):
        while (answer := await client.call_tool("get_job_result", {"job_id": job_id})
               ).structured_content["status"] == "running":
            await anyio.sleep(0.02)
    return answer


def rest(url: str, tool: str, arguments: dict[str, Any]) -> Any:
    response = httpx.post(f"{url}tools/{tool}", json=arguments, timeout=30)
    assert response.status_code in (200, 202), response.text
    return response.json()


def rest_job(url: str, tool: str) -> Any:
    job_id = rest(url, tool, {})["job_id"]
    deadline = time.monotonic() + 30
    while (answer := rest(url, "get_job_result", {"job_id": job_id}))["status"] == "running":
        assert time.monotonic() < deadline, answer
        time.sleep(0.02)
    return answer["result"]


@pytest.mark.anyio
@pytest.mark.parametrize("store", ["memory", "sqlite", "redis"])
async def test_a_polled_mcp_job_answers_what_rest_answers(store: str, tmp_path: Path,
                                                          request: pytest.FixtureRequest) -> None:
    served: RedisServer | None = request.getfixturevalue("redis_server") if store == "redis" else None
    redis_url = served.url if served is not None else None
    ids: dict[str, str] = {}
    with serve(build(tmp_path, store, redis_url)) as url:
        async with mcp_client(url + "mcp") as client:
            for name, expected in EXPECTED.items():
                ids[name] = (await client.call_tool(name, {})).structured_content["job_id"]
                answer = await polled(client, ids[name])
                assert answer.structured_content["result"] == expected, name
                assert json.loads(answer.content[0].text) == answer.structured_content
                assert [block.type for block in answer.content] == ["text", "image"]  # the figure, carried
                assert rest(url, f"direct_{name}", {}) == {"result": DIRECT[name]}, name
                assert rest_job(url, name) == expected, name
    if store == "memory":
        return
    with serve(build(tmp_path, store, redis_url)) as url:  # a new start: the record, read by its id
        async with mcp_client(url + "mcp") as client:
            for name, expected in EXPECTED.items():
                assert (await polled(client, ids[name])).structured_content["result"] == expected, name


def test_a_session_without_structured_content_gets_the_same_list(tmp_path: Path) -> None:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}

    def post(url: str, session: str | None, method: str, params: dict[str, Any]) -> httpx.Response:
        sent = {**headers, **({"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-03-26"} if session else {})}
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return httpx.post(url + "mcp", json=body, headers=sent, timeout=30)

    def call(url: str, session: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        reply = post(url, session, "tools/call", {"name": name, "arguments": arguments})
        assert reply.status_code == 200, reply.text
        result: dict[str, Any] = reply.json()["result"]
        return result

    with serve(build(tmp_path, "memory")) as url:
        opened = post(url, None, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                                "clientInfo": {"name": "old", "version": "1"}})
        session = opened.headers["Mcp-Session-Id"]
        post(url, session, "notifications/initialized", {})
        for name, expected in EXPECTED.items():
            started = call(url, session, name, {})
            assert "structuredContent" not in started
            job_id = json.loads(started["content"][0]["text"])["job_id"]
            deadline = time.monotonic() + 30
            while (status := json.loads(call(url, session, "get_job_result", {"job_id": job_id})["content"][0]["text"])
                   )["status"] == "running":
                assert time.monotonic() < deadline, status
                time.sleep(0.02)
            assert status["result"] == expected, name


EARLIER_SCHEMA = """
CREATE TABLE jobs (
    id TEXT PRIMARY KEY, tool TEXT NOT NULL, owner TEXT, principal TEXT, owner_key TEXT NOT NULL,
    status TEXT NOT NULL, status_message TEXT, arguments TEXT, result TEXT, error TEXT, meta TEXT,
    created REAL NOT NULL, updated REAL NOT NULL, finished_at REAL, ttl REAL NOT NULL,
    as_task INTEGER NOT NULL DEFAULT 0, executor TEXT, executor_ref TEXT, runner TEXT,
    progress REAL, progress_total REAL, progress_message TEXT,
    progress_updates INTEGER NOT NULL DEFAULT 0, expires REAL, provenance_id TEXT,
    json_text INTEGER NOT NULL DEFAULT 0, session_ended INTEGER NOT NULL DEFAULT 0, input_requests TEXT);
"""
"""The jobs table as the version before ``item_places`` made it."""
EARLIER_RESULT = {
    "content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "text", "text": "cap"}, {"type": "text", "text": '{"n":1}'}],
    "structuredContent": {"n": 1}, "isError": False,
}
"""What a job of ``plotted`` started over MCP stored then."""
EARLIER_JOB_ID = "earlier-job-0123456789abcdef-XYZ"


def test_an_earlier_versions_sqlite_file_gains_the_column_and_reads_as_before(tmp_path: Path) -> None:
    now = time.time()
    with sqlite3.connect(tmp_path / DB_FILE) as db:
        db.executescript(EARLIER_SCHEMA)
        db.execute("INSERT INTO jobs (id, tool, owner_key, status, result, created, updated, finished_at, ttl, "
                   "expires, runner) VALUES (?, 'plotted', 'anonymous', 'completed', ?, ?, ?, ?, 3600, ?, 'gone.1')",
                   (EARLIER_JOB_ID, json.dumps(EARLIER_RESULT), now, now, now, now + 3600))
    db.close()
    with serve(build(tmp_path, "sqlite")) as url:
        earlier = rest(url, "get_job_result", {"job_id": EARLIER_JOB_ID})
        assert (earlier["status"], earlier["result"]) == ("done", {"n": 1})  # as that version answered it

        async def new_job() -> Any:
            async with mcp_client(url + "mcp") as client:
                started = await client.call_tool("plotted", {})
                return (await polled(client, started.structured_content["job_id"])).structured_content["result"]

        assert anyio.run(new_job) == EXPECTED["plotted"]
    with sqlite3.connect(tmp_path / DB_FILE) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(jobs)")}
        kept = db.execute("SELECT item_places FROM jobs WHERE tool = 'plotted' ORDER BY created").fetchall()
    db.close()
    assert "item_places" in columns
    assert kept == [(None,), ('[0,1,""]',)]


def test_an_earlier_versions_redis_record_reads_as_before(tmp_path: Path, redis_server: RedisServer) -> None:
    async def started_and_polled(url: str) -> tuple[list[str], Any]:
        async with mcp_client(url + "mcp") as client:
            ids = [(await client.call_tool("plotted", {})).structured_content["job_id"] for _ in range(2)]
            return ids, [(await polled(client, job_id)).structured_content["result"] for job_id in ids]

    with serve(build(tmp_path, "redis", redis_server.url)) as url:
        (earlier, current), _ = anyio.run(started_and_polled, url)
    stored = redis.Redis.from_url(redis_server.url)
    try:
        [key] = stored.keys(f"*job:{earlier}")
        assert json.loads(stored.hget(key, "item_places")) == [0, 1, ""]
        stored.hdel(key, "item_places")  # as a record an earlier version wrote
    finally:
        stored.close()

    async def polled_again(url: str) -> list[Any]:
        async with mcp_client(url + "mcp") as client:
            return [(await polled(client, job_id)).structured_content["result"] for job_id in (earlier, current)]

    with serve(build(tmp_path, "redis", redis_server.url)) as url:
        assert anyio.run(polled_again, url) == [{"n": 1}, EXPECTED["plotted"]]
