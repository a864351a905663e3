"""Text holding a lone UTF-16 surrogate (``"\\ud800"``: valid JSON a client may send, which strict UTF-8
has no form for) goes through every store and comes back (what a tool returned with U+FFFD in its place,
which every client reads, trial33 W20; the request id and progress token the protocol echoes as sent), in
each job store (memory, SQLite,
a real redis-server): a job's arguments and result (SQLite: the job was -32603; Redis: its end was never
stored, so every other process said ``running`` forever, trial31 S11), a text result large enough to be
kept as a resource (the call failed with the codec's message), a subscription to a URI holding one
(Redis: 500), and an SSE-answered call whose request id is one (the response writer crashed, S12).
A real server over HTTP; the bodies are sent as written (a JSON encoder refuses the surrogate)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import Context, MCPServer
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(120)

HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
INIT = ('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}')


def build(store: str, tmp_path: Path, redis_url: str | None) -> MCPServer:
    options: dict[str, Any] = {"state_url": redis_url} if redis_url else {"job_store": store}
    server = MCPServer("lone", state_dir=str(tmp_path / "state"), max_inline_bytes=1000, **options)

    @server.async_tool()
    def later(s: str, ctx: Context) -> str:
        """Answer ``s`` in the background, reporting it as progress."""
        ctx.report_progress(1, 2, s)
        return s

    @server.tool()
    def long(s: str) -> str:
        """``s`` 2000 times (kept as a resource)."""
        return s * 2000

    @server.tool()
    def told(s: str, ctx: Context) -> str:
        """Report progress, then answer ``s``."""
        ctx.report_progress(1, 1)
        return s

    @server.resource("data://{name}")
    def named(name: str) -> str:
        """A resource per name."""
        return name

    return server


def post(url: str, body: str, session: str | None = None, accept: str = "application/json") -> httpx.Response:
    headers = {**HEADERS, "Accept": accept, **({"Mcp-Session-Id": session} if session else {})}
    return httpx.post(url, content=body.encode(), headers=headers, timeout=30)


def rpc(url: str, session: str, method: str, params: str) -> dict[str, Any]:
    reply = post(url + "mcp", f'{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}', session)
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer["result"]


@pytest.mark.parametrize("store", ["memory", "sqlite", "redis"])
def test_each_store_keeps_it_and_answers_it(store: str, tmp_path: Path, request: pytest.FixtureRequest,
                                            caplog: pytest.LogCaptureFixture) -> None:
    redis: RedisServer | None = request.getfixturevalue("redis_server") if store == "redis" else None
    with serve(build(store, tmp_path, redis.url if redis else None)) as url:
        session = post(url + "mcp", INIT).headers["Mcp-Session-Id"]
        job_id = post(url + "tools/later", '{"s":"\\ud800a"}').json()["job_id"]
        poll = json.dumps({"job_id": job_id})
        wait_until(lambda: post(url + "tools/get_job_result", poll).json()["status"] == "done", "the job is done")
        assert post(url + "tools/get_job_result", poll).json()["result"] == "\ufffda"  # (sent as U+FFFD)
        if redis is not None:  # another process of the server reads the job's end from Redis
            other = jobmod.JobStore(name="lone", shared=parse(redis.url))
            try:
                assert other.get(job_id, None).status == jobmod.COMPLETED
            finally:
                other.backend.close()
        task = rpc(url, session, "tools/call", '{"name":"later","arguments":{"s":"\\udc00b"},"task":{}}')["task"]
        answer = rpc(url, session, "tasks/result", json.dumps({"taskId": task["taskId"]}))
        assert answer["content"][0]["text"] == "\ufffdb"
        kept = rpc(url, session, "tools/call", '{"name":"long","arguments":{"s":"\\ud800c"}}')
        assert not kept.get("isError"), kept
        link = next(block["uri"] for block in kept["content"] if block["type"] == "resource_link")
        assert rpc(url, session, "resources/read", json.dumps({"uri": link}))["contents"][0]["text"] == "\ufffdc" * 2000
        assert rpc(url, session, "resources/subscribe", '{"uri":"data://\\ud800"}') == {}
        assert rpc(url, session, "resources/unsubscribe", '{"uri":"data://\\ud800"}') == {}
        streamed = post(url + "mcp", '{"jsonrpc":"2.0","id":"\\udc00","method":"tools/call","params":{"name":"told",'
                        '"arguments":{"s":"x"},"_meta":{"progressToken":"\\ud800"}}}', session,
                        accept="application/json, text/event-stream")
        assert streamed.status_code == 200
        data = [line[5:] for line in streamed.text.splitlines() if line.startswith("data:")]
        events = [json.loads(text) for text in data if text.strip()]
        assert events[0]["params"]["progressToken"] == "\ud800"
        assert (events[-1]["id"], events[-1]["result"]["content"][0]["text"]) == ("\udc00", "x")
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
