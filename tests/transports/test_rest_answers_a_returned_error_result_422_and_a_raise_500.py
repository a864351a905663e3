"""REST's answer to a tool's error, as the earlier package (0.4.x) answered it.

``POST /tools/<name>`` answers 500 ``{"error": "<message>"}`` when the tool raises — ``ToolError``,
``ValueError`` or anything else — as the 0.4.x README says, and 422 with the result's text when the
tool returns an error result, ``ToolResult(..., is_error=True)``, as the earlier package did. Over MCP
both are an ``isError: true`` result with the same text. No body carries a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from support import serve

from nanohubmcp import MCPServer, ToolError, ToolResult


def build() -> MCPServer:
    server = MCPServer("rest-errors", provenance=False)

    @server.tool()
    def divide(a: float, b: float) -> float:
        """a / b; b must be positive."""
        if b == 0:
            raise ToolError("b must not be zero")
        if b < 0:
            raise ValueError("b must be positive")
        return a / b

    @server.tool()
    def refuse(reason: str) -> ToolResult:
        """Report a failure as a result."""
        return ToolResult(reason, is_error=True)

    @server.tool()
    def buggy() -> float:
        """A bug in the tool."""
        return {}["missing"]  # type: ignore[no-any-return]

    return server


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve(build()) as url:
        yield url


def rest(base: str, name: str, arguments: dict[str, Any]) -> tuple[int, Any]:
    reply = httpx2.post(f"{base}tools/{name}", json=arguments, timeout=10)
    assert "Traceback" not in reply.text
    return reply.status_code, reply.json()


def over_mcp(base: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    reply = httpx2.post(base, json=message, headers={"MCP-Protocol-Version": "2025-11-25"}, timeout=10)
    result: dict[str, Any] = reply.json()["result"]
    return result


@pytest.mark.parametrize(
    ("name", "arguments", "status", "message"),
    [
        ("divide", {"a": 1, "b": 0}, 500, "b must not be zero"),
        ("divide", {"a": 1, "b": -1}, 500, "b must be positive"),
        ("buggy", {}, 500, "KeyError: 'missing'"),
        ("refuse", {"reason": "no data for that date"}, 422, "no data for that date"),
    ],
    ids=["ToolError", "ValueError", "KeyError", "ToolResult-is_error"],
)
def test_a_raise_is_500_and_a_returned_error_result_422(
        base: str, name: str, arguments: dict[str, Any], status: int, message: str) -> None:
    assert rest(base, name, arguments) == (status, {"error": message})
    result = over_mcp(base, name, arguments)
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": message}]


def test_a_good_call_after_the_errors_is_answered(base: str) -> None:
    assert rest(base, "divide", {"a": 6, "b": 3}) == (200, {"result": "2.0"})


def test_openapi_describes_both(base: str) -> None:
    responses = httpx2.get(base + "openapi.json", timeout=10).json()["paths"]["/tools/refuse"]["post"]["responses"]
    assert {"422", "500"} <= set(responses)
