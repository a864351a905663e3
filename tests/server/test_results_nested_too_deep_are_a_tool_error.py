"""One nesting limit for results too: a tool whose value nested 5000 levels deep answered the raw
text "maximum recursion depth exceeded in __instancecheck__" and logged a triple chained
RecursionError traceback (the encoder, then ``first_bad`` naming the bad part, each past Python's
limit); one nested 129 to ~990 levels deep was sent as it was, though a client's JSON is refused past
``MAX_JSON_DEPTH`` (128). Now a result (a dict, a list, a ``ToolResult``'s structured content, a job's
value) nested more than 128 levels deep is the tool's error, saying the limit and what to do, logged
as one line; 128 levels are served. A real server, the official ``mcp`` client, REST and a job."""

from __future__ import annotations

import logging
import time
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer, ToolResult
from nanohubmcp.protocol.jsonrpc import MAX_JSON_DEPTH

TOO_DEEP = f"nested more than {MAX_JSON_DEPTH} levels deep (arrays and objects); flatten it"
MESSAGE = f"the tool's result is {TOO_DEEP}, or return it as a file or resource"


def nested(levels: int, kind: str) -> Any:
    """A list or dict ``levels`` levels deep (``[]`` and ``{}`` are one level)."""
    value: Any = [] if kind == "list" else {}
    for _ in range(levels - 1):
        value = [value] if kind == "list" else {"a": value}
    return value


def build() -> MCPServer:
    server = MCPServer("deep-results", job_store="memory")

    @server.tool()
    def deep(levels: int, kind: str) -> Any:
        """A list or dict nested ``levels`` deep."""
        return nested(levels, kind)

    @server.tool()
    def deep_structured(levels: int) -> ToolResult:
        """Structured content nested ``levels`` deep."""
        return ToolResult(structured_content=nested(levels, "dict"))

    @server.tool()
    def ok() -> str:
        """Answers."""
        return "ok"

    @server.async_tool()
    def deep_job(levels: int) -> Any:
        """A list nested ``levels`` deep, as a job."""
        return nested(levels, "list")

    return server


def one_line_each(caplog: pytest.LogCaptureFixture, calls: int) -> None:
    """Each refused call logged once, as one line: no traceback, no RecursionError anywhere."""
    failed = [r for r in caplog.records if r.name == "nanohubmcp.tool" and "failed" in r.getMessage()]
    assert len(failed) == calls, [r.getMessage() for r in failed]
    assert all(r.exc_info is None and r.levelno == logging.ERROR and TOO_DEEP in r.getMessage() for r in failed)
    assert "RecursionError" not in caplog.text
    assert "recursion depth" not in caplog.text


@pytest.mark.anyio
async def test_a_result_nested_too_deep_is_the_tools_error_through_the_official_client(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp")
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            refused = 0
            for kind in ("list", "dict"):
                for levels in (MAX_JSON_DEPTH + 1, 5000):
                    answer = await client.call_tool("deep", {"levels": levels, "kind": kind})
                    assert answer.is_error, (kind, levels)
                    assert answer.content[0].text == MESSAGE
                    refused += 1
                    assert (await client.call_tool("ok", {})).content[0].text == "ok"  # still serving
                served = await client.call_tool("deep", {"levels": MAX_JSON_DEPTH, "kind": kind})
                assert not served.is_error, served.content[0].text[:200]
                assert served.content[0].text.count("[" if kind == "list" else "{") == MAX_JSON_DEPTH
                if kind == "dict":
                    assert served.structured_content == nested(MAX_JSON_DEPTH, "dict")
            for levels in (MAX_JSON_DEPTH + 1, 5000):
                answer = await client.call_tool("deep_structured", {"levels": levels})
                assert answer.is_error
                assert answer.content[0].text.startswith("structured_content is " + TOO_DEEP)
                refused += 1
            served = await client.call_tool("deep_structured", {"levels": MAX_JSON_DEPTH})
            assert served.structured_content == nested(MAX_JSON_DEPTH, "dict")
    one_line_each(caplog, refused)


def test_rest_answers_a_result_nested_too_deep_as_a_tool_error() -> None:
    with serve(build()) as url:
        for levels in (MAX_JSON_DEPTH + 1, 5000):
            reply = httpx.post(f"{url}tools/deep", json={"levels": levels, "kind": "dict"}, timeout=20)
            assert reply.status_code == 500, reply.text  # a tool that failed (docs/api/http.md)
            assert reply.json() == {"error": MESSAGE}
        reply = httpx.post(f"{url}tools/deep", json={"levels": MAX_JSON_DEPTH, "kind": "dict"}, timeout=20)
        assert reply.status_code == 200
        assert reply.json() == nested(MAX_JSON_DEPTH, "dict")


def job_end(url: str, levels: int) -> dict[str, Any]:
    started = httpx.post(f"{url}tools/deep_job", json={"levels": levels}, timeout=20)
    assert started.status_code == 202, started.text
    job_id = started.json()["job_id"]
    deadline = time.monotonic() + 30
    while True:
        reply: dict[str, Any] = httpx.post(f"{url}tools/get_job_result", json={"job_id": job_id}, timeout=20).json()
        if reply["status"] != "running" or time.monotonic() > deadline:
            return reply
        time.sleep(0.05)


def test_a_jobs_result_nested_too_deep_ends_the_job_failed(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp")
    with serve(build()) as url:
        for levels in (MAX_JSON_DEPTH + 1, 5000):
            ended = job_end(url, levels)
            assert ended["status"] == "error", ended  # a failed job, as REST spells it
            assert ended["error"] == MESSAGE, ended
        done = job_end(url, MAX_JSON_DEPTH)
        assert done["status"] == "done"
        assert done["result"] == nested(MAX_JSON_DEPTH, "list")
    one_line_each(caplog, 2)
