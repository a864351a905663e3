"""A done job's data larger than the kept-results store (``max_kept_bytes``) fails each MCP poll of it, and was
logged at every poll as ``tool 'get_job_result' (request id 16) answered too much: the tool's result is ...``:
the operator was pointed at the built-in poll tool, never at the job's tool nor its id, once per poll (trial47 NIT).
Now it is one line per job naming the job's tool and id, and the client reads "the job's result". A real server
over HTTP."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from support import serve, wait_until

from nanohubmcp import MCPServer


def _call(url: str, name: str, arguments: dict[str, Any], rid: int) -> dict[str, Any]:
    reply = httpx.post(url, json={"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                  "params": {"name": name, "arguments": arguments}}, timeout=10)
    result: dict[str, Any] = reply.json()["result"]
    return result


def test_each_poll_fails_but_the_log_says_it_once_naming_the_job(caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("too-large-job", max_inline_bytes=1000, max_kept_bytes=10_000, job_store="memory")

    @server.async_tool()
    def big(n: int) -> str:
        """``n`` characters."""
        return "x" * n

    caplog.set_level(logging.WARNING, "nanohubmcp.tool")
    with serve(server) as url:
        job_ids = [json.loads(_call(url, "big", {"n": 20_000}, rid)["content"][0]["text"])["job_id"] for rid in (1, 2)]
        texts = []
        for job_id in job_ids:
            first = wait_until(lambda job_id=job_id: (lambda r: r if r.get("isError") else None)(
                _call(url, "get_job_result", {"job_id": job_id}, 3)), "the job's refused poll", 30)
            texts.append(first["content"][0]["text"])
            for rid in (4, 5):  # polled again: refused again, not logged again
                again = _call(url, "get_job_result", {"job_id": job_id}, rid)
                assert again["isError"] is True
                texts.append(again["content"][0]["text"])
    for text in texts:
        assert text.startswith("the job's result is 20000 bytes of JSON, more than the server keeps for large "
                               "results (10000)"), text
    logged = [r.getMessage() for r in caplog.records if r.name == "nanohubmcp.tool"]
    assert len(logged) == 2, logged
    for job_id, line in zip(job_ids, logged, strict=True):
        assert line.startswith(f"job {job_id} of tool 'big' answered too much: the job's result is 20000 bytes"), line
    assert not any("get_job_result" in line for line in logged), logged
