"""A result larger than the whole kept-results store (``max_kept_bytes``) fails its call naming the size
and the limit, logged as one WARNING line as ``max_result_bytes`` refusals are: it was an ERROR with a
full traceback per call, client-triggerable log noise (trial31 NIT). A real server over HTTP."""

from __future__ import annotations

import logging

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer


def test_the_refusal_names_the_limit_and_logs_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer("too-large", max_inline_bytes=1000, max_kept_bytes=10_000, job_store="memory")

    @server.tool()
    def blob(n: int) -> list[int]:
        """``n`` numbers."""
        return list(range(n))

    with serve(server) as url:
        reply = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                      "params": {"name": "blob", "arguments": {"n": 5000}}}, timeout=10)
    result = reply.json()["result"]
    assert result["isError"] is True
    assert "more than the server keeps for large results (10000)" in result["content"][0]["text"]
    logged = [r for r in caplog.records if r.name == "nanohubmcp.tool"]
    assert [(r.levelno, r.exc_info) for r in logged] == [(logging.WARNING, None)]
