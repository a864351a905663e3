"""A job or task id of a form the server never makes — a lone UTF-16 surrogate (``"\\ud800"``, valid
JSON, which no store can encode), text of another alphabet or length — is not found on every
route taking one, in every job store: REST 404 with the ``not_found`` object, the job tools'
``not_found`` result, -32602 on ``tasks/get``, ``tasks/cancel`` and ``tasks/result``. On main a
Redis store answered REST 500 with the codec's message and the tasks -32603 (trial31 S1).

A real server (over HTTP, the bodies sent as written: a JSON encoder would refuse the surrogate)
on each store: memory, SQLite in a state directory, a real redis-server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis_server import RedisServer
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server.jobs.visibility import NOT_READ

pytestmark = pytest.mark.timeout(120)

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
IDS = ['"\\ud800"', '"\\udfffx"', '"' + "é" * 32 + '"', '"' + "a" * 31 + '"', '"' + "a" * 32 + '"']
"""Ids as JSON text: lone surrogates, 32 characters of another alphabet, one too short, and one of
the server's own form that it never made (read from the store: not found there)."""


def build(store: str, tmp_path: Path, request: pytest.FixtureRequest) -> MCPServer:
    if store == "redis":
        redis: RedisServer = request.getfixturevalue("redis_server")
        server = MCPServer("never-made", state_url=redis.url)
    else:
        server = MCPServer("never-made", job_store=store, state_dir=tmp_path / "state")

    @server.async_tool()
    def work(n: int) -> int:
        """Double ``n`` in the background."""
        return 2 * n

    return server


def post(url: str, body: str, session: str | None = None) -> httpx.Response:
    headers = {**HEADERS, "Mcp-Session-Id": session} if session else HEADERS
    return httpx.post(url, content=body.encode(), headers=headers, timeout=30)


def rpc(url: str, session: str, method: str, params: str) -> dict[str, Any]:
    reply = post(url, f'{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}', session)
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer


@pytest.mark.parametrize("store", ["memory", "sqlite", "redis"])
def test_every_route_answers_not_found(store: str, tmp_path: Path, request: pytest.FixtureRequest,
                                       caplog: pytest.LogCaptureFixture) -> None:
    with serve(build(store, tmp_path, request)) as url:
        started = post(url + "mcp", '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
                       '"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}')
        session = started.headers["Mcp-Session-Id"]
        for job_id in IDS:
            sent = json.loads(job_id)
            for tool in ("get_job_result", "cancel_job"):
                reply = post(f"{url}tools/{tool}", f'{{"job_id":{job_id}}}')
                assert reply.status_code == 404, reply.text
                assert reply.json()["status"] == "not_found"
                # the tool's answer names it with U+FFFD for a lone surrogate (readable by every client: trial33 W20)
                assert reply.json()["job_id"] == "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in sent)
                call = f'{{"name":"{tool}","arguments":{{"job_id":{job_id}}}}}'
                result = rpc(url + "mcp", session, "tools/call", call)
                assert result["result"]["isError"] is True
                assert result["result"]["structuredContent"]["status"] == "not_found"
            for method in ("tasks/get", "tasks/cancel", "tasks/result"):
                error = rpc(url + "mcp", session, method, f'{{"taskId":{job_id}}}')["error"]
                assert error["code"] == -32602
                assert error["message"] == f"Unknown job or task id: {json.dumps(sent)} ({NOT_READ})"
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
