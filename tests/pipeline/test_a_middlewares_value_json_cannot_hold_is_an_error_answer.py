"""A middleware that puts a numpy value into a result has it written as the number it holds; one that puts
in a value JSON has no form for (a set, an object) gets its request answered -32603, on every transport.

Found by a fresh-user trial (trial35 Y1): ``result["structuredContent"]["count"] = np.int64(7)`` made the
transport's writing fail: HTTP 500 with no JSON-RPC body (the official client saw "Server returned an
error response"), a Tornado traceback in the log; stdio wrote nothing for the request. The handlers convert
the numpy values a tool returns; a middleware's own went unconverted.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import httpx2
import numpy as np
import pytest
from support import serve, stdio_in_process

from nanohubmcp import MCPServer, Request
from nanohubmcp.server.middleware import CallNext

HANDSHAKE = "2025-11-25"
ADDED: dict[int, Any] = {7: np.int64(7), 8: {1, 2}, 9: np.array([1.5, np.nan])}


def build() -> MCPServer:
    server = MCPServer("odd-values", provenance=False)

    @server.tool()
    def arr(n: int) -> Any:
        """n floats."""
        return np.arange(float(n))

    async def summary(request: Request, call_next: CallNext) -> dict[str, Any]:
        result = await call_next(request)
        if request.method == "tools/call":
            result["structuredContent"]["added"] = ADDED[request.params["arguments"]["n"]]
        return result

    server.add_middleware(summary)
    return server


def call(n: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "arr", "arguments": {"n": n}}}


def check(n: int, answer: dict[str, Any]) -> None:
    assert answer["id"] == n
    if n == 8:  # a set: no JSON form
        assert answer["error"]["code"] == -32603, answer
        assert "could not be written as JSON" in answer["error"]["message"]
    else:
        assert answer["result"]["structuredContent"]["added"] == {7: 7, 9: [1.5, None]}[n], answer


@pytest.mark.parametrize("n", [7, 8, 9])
def test_over_streamable_http(n: int, caplog: pytest.LogCaptureFixture) -> None:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": HANDSHAKE}
    with caplog.at_level(logging.ERROR), serve(build()) as url:
        answer = httpx2.post(url + "mcp", json=call(n), headers=headers, timeout=30)
        assert answer.status_code == 200, answer.text
        check(n, answer.json())
        assert httpx2.post(url + "mcp", json=call(7), headers=headers, timeout=30).status_code == 200  # still serving
    if n == 8:
        assert any("cannot be written as JSON" in r.getMessage() and "set" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("n", [7, 8, 9])
def test_over_stdio(n: int) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    with stdio_in_process(build()) as (in_w, written):
        os.write(in_w, json.dumps(hello).encode() + b"\n")
        assert written.get(timeout=30)["result"]["protocolVersion"] == HANDSHAKE
        os.write(in_w, json.dumps(call(n)).encode() + b"\n")
        check(n, written.get(timeout=30))
