"""Whoever may read a job by its id may read what the job kept: its large data (linked by ``get_job_result``,
``tasks/result`` and the 2026 ``tasks/get``) and the files kept at its end. On a server without authorization a
job of an ended session is read by its id, so a client that reconnects in a new session (the quick start, a
``nanohubmcp bridge`` restart) reads the job's links too; while the job's session lives they stay its own, and a
direct call's result stays its session's. With authorization the job, and so what it kept, is its principal's.

Before (trial46 T46-5): the kept data was owned by the job's session, so once that session ended the poller of a
reconnected session got the link but ``resources/read`` of it answered "Resource not found", whichever session
polled first.

A real server, the official ``mcp`` client (sessions A then B, A closed), raw JSON-RPC over HTTP for tasks.
"""

from __future__ import annotations

import base64
import http.client
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from job_server import Routes
from support import done_job, mcp_client, serve

from nanohubmcp import MCPServer, StaticTokenVerifier

LIMIT = 4096
DATA = {"y": list(range(18_000))}  # ~100 KB of JSON: linked when polled over MCP
FILE = bytes(range(256)) * 40  # 10,240 bytes, no picture: kept at the job's end
TOKENS = {"token-of-alice": "alice", "token-of-bob": "bob"}
REFUSED = r"(?i)not found"


def build(store: str, tmp_path: Path, *, auth: bool = False, **options: Any) -> MCPServer:
    where: dict[str, Any] = {"job_store": "memory"} if store == "memory" else {"state_dir": str(tmp_path / "state")}
    server = MCPServer("reconnect", max_inline_bytes=LIMIT, auth=StaticTokenVerifier(TOKENS) if auth else None,
                       **where, **options)
    server.async_tool(name="big_dict", description="About 100 KB of data.")(lambda: DATA)
    server.async_tool(name="big_bytes", description="A 10 KB file.")(lambda: FILE)
    server.tool(name="direct_dict", description="About 100 KB of data, answered at once.")(lambda: DATA)
    return server


def _links(answer: Any) -> list[str]:
    return [str(block.uri) for block in answer.content if block.type == "resource_link"]


async def _reads(client: Any, uri: str) -> Any:
    """What ``resources/read`` of ``uri`` gives: the JSON of a text, else the bytes of a blob."""
    item = (await client.read_resource(uri)).contents[0]
    return json.loads(item.text) if getattr(item, "text", None) is not None else base64.b64decode(item.blob)


async def _refused(client: Any, uri: str) -> None:
    with pytest.raises(Exception, match=REFUSED):
        await client.read_resource(uri)


async def _started(client: Any, tool: str) -> str:
    return str((await client.call_tool(tool, {})).structured_content["job_id"])


@pytest.mark.anyio
@pytest.mark.parametrize("store", ["memory", "sqlite"])
async def test_a_new_session_reads_what_the_jobs_of_an_ended_session_kept(store: str, tmp_path: Path) -> None:
    with serve(build(store, tmp_path)) as url, anyio.fail_after(180):
        async with mcp_client(url + "mcp") as other:
            async with mcp_client(url + "mcp") as a:
                polled, first_by_b = await _started(a, "big_dict"), await _started(a, "big_dict")
                file_job = await _started(a, "big_bytes")
                data_link = _links(await done_job(a, polled))
                file_link = _links(await done_job(a, file_job))
                direct_link = _links(await a.call_tool("direct_dict", {}))
                assert len(data_link) == len(file_link) == len(direct_link) == 1
                assert await _reads(a, data_link[0]) == DATA
                # while A lives, its jobs and what they kept are its own
                for uri in (*data_link, *file_link, *direct_link):
                    await _refused(other, uri)
            # A closed (DELETE): its jobs are read by their ids, what they kept through their links
            async with mcp_client(url + "mcp") as b:
                assert _links(await done_job(b, polled)) == data_link  # the same link, stored with the job
                assert await _reads(b, data_link[0]) == DATA
                assert _links(await done_job(b, file_job)) == file_link
                assert await _reads(b, file_link[0]) == FILE
                assert await _reads(other, file_link[0]) == FILE  # any session: the job is anyone's who holds its id
                b_first = _links(await done_job(b, first_by_b))  # kept at B's first poll, owned as the job is
                assert await _reads(b, b_first[0]) == DATA
                assert await _reads(other, b_first[0]) == DATA
                await _refused(b, direct_link[0])  # a direct call's result stays its ended session's


@pytest.mark.anyio
async def test_a_new_session_is_told_a_link_of_an_ended_sessions_job_was_evicted(tmp_path: Path) -> None:
    with serve(build("sqlite", tmp_path, max_kept_bytes_per_owner=15_000)) as url, anyio.fail_after(180):
        async with mcp_client(url + "mcp") as a:
            first = _links(await done_job(a, await _started(a, "big_bytes")))
            second = _links(await done_job(a, await _started(a, "big_bytes")))  # over A's share: the first goes
        async with mcp_client(url + "mcp") as b:
            with pytest.raises(Exception, match=r"Resource evicted: .* per session"):
                await b.read_resource(first[0])
            assert await _reads(b, second[0]) == FILE


def _delete(routes: Routes, session: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", routes.port, timeout=30)
    try:
        conn.request("DELETE", "/mcp", headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
        assert conn.getresponse().status in (200, 204)
    finally:
        conn.close()


def _task_link(answer: dict[str, Any]) -> str:
    links = [block["uri"] for block in answer["result"]["content"] if block["type"] == "resource_link"]
    assert len(links) == 1, answer
    return str(links[0])


@pytest.mark.anyio
async def test_tasks_of_an_ended_session_link_data_a_new_session_reads(tmp_path: Path) -> None:
    with serve(build("sqlite", tmp_path)) as url, anyio.fail_after(180):
        routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        a = await anyio.to_thread.run_sync(routes.session)
        created = await anyio.to_thread.run_sync(
            routes.rpc, a, "tools/call", {"name": "big_dict", "arguments": {}, "task": {"ttl": 60000}})
        task_id = created["result"]["task"]["taskId"]
        uri = _task_link(await anyio.to_thread.run_sync(routes.rpc, a, "tasks/result", {"taskId": task_id}))
        await anyio.to_thread.run_sync(_delete, routes, a)

        b = await anyio.to_thread.run_sync(routes.session)
        again = await anyio.to_thread.run_sync(routes.rpc, b, "tasks/result", {"taskId": task_id})
        assert _task_link(again) == uri
        async with mcp_client(url + "mcp") as reader:
            assert await _reads(reader, uri) == DATA
        got = await anyio.to_thread.run_sync(routes.modern, "tasks/get", {"taskId": task_id})  # 2026: no session
        assert _task_link({"result": got["result"]["result"]}) == uri
        read = await anyio.to_thread.run_sync(routes.modern, "resources/read", {"uri": uri})
        assert "result" in read, read
        assert json.loads(read["result"]["contents"][0]["text"]) == DATA


@pytest.mark.anyio
async def test_with_authorization_what_a_job_kept_stays_its_principals(tmp_path: Path) -> None:
    with serve(build("sqlite", tmp_path, auth=True)) as url, anyio.fail_after(180):
        async with mcp_client(url + "mcp", token="token-of-alice") as a:
            polled, file_job = await _started(a, "big_dict"), await _started(a, "big_bytes")
            links = _links(await done_job(a, polled)) + _links(await done_job(a, file_job))
        async with mcp_client(url + "mcp", token="token-of-bob") as bob:
            answer = await bob.call_tool("get_job_result", {"job_id": polled})
            assert "Unknown job" in answer.content[0].text or answer.structured_content.get("status") != "done"
            for uri in links:
                await _refused(bob, uri)
        async with mcp_client(url + "mcp", token="token-of-alice") as alice:
            assert _links(await done_job(alice, polled)) == links[:1]
            assert await _reads(alice, links[0]) == DATA
            assert await _reads(alice, links[1]) == FILE
