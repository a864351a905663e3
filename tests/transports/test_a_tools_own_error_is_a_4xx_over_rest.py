"""A tool's own error over REST is the caller's 422, not the server's 500 (trial12 LOW-6).

A tool that raises ``ToolError`` or ``ValueError``, or returns ``ToolResult(is_error=True)``, says
the call as asked cannot be done: ``POST /tools/<name>`` answers 422 ``{"error": "<its message>"}``,
the text ``tools/call`` answers as its ``isError: true`` result. Any other exception of the tool (a
bug in it) and a result breaking the tool's output schema stay 500 ``{"error": "<message>"}``; a fault
of the server itself stays 500 without its message. No body carries a traceback.
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

    @server.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    def broken() -> dict:
        """Breaks its own output schema."""
        return {"n": "one"}

    @server.middleware
    async def faulty(request: Any, call_next: Any) -> Any:
        if (request.params.get("arguments") or {}).get("reason") == "server fault":
            raise RuntimeError("a bug in the server")
        return await call_next(request)

    return server


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve(build()) as url:
        yield url


def rest(base: str, name: str, arguments: dict[str, Any]) -> tuple[int, Any]:
    reply = httpx2.post(f"{base}tools/{name}", json=arguments, timeout=10)
    return reply.status_code, reply.json()


def over_mcp(base: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    reply = httpx2.post(base, json=message, headers={"MCP-Protocol-Version": "2025-11-25"}, timeout=10)
    result: dict[str, Any] = reply.json()["result"]
    return result


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("divide", {"a": 1, "b": 0}, "b must not be zero"),
        ("divide", {"a": 1, "b": -1}, "b must be positive"),
        ("refuse", {"reason": "no data for that date"}, "no data for that date"),
    ],
    ids=["ToolError", "ValueError", "ToolResult-is_error"],
)
def test_a_tools_own_error_is_422_with_the_text_tools_call_gives(
        base: str, name: str, arguments: dict[str, Any], message: str) -> None:
    assert rest(base, name, arguments) == (422, {"error": message})
    result = over_mcp(base, name, arguments)
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": message}]


def test_a_bug_in_the_tool_and_a_broken_output_schema_stay_500_without_a_traceback(base: str) -> None:
    status, body = rest(base, "buggy", {})
    assert (status, body) == (500, {"error": "'missing'"})
    status, body = rest(base, "broken", {})
    assert status == 500
    assert "output schema" in body["error"]
    assert rest(base, "refuse", {"reason": "server fault"}) == (500, {"error": "Internal error; see the server log"})
    for name, arguments in (("buggy", {}), ("broken", {}), ("refuse", {"reason": "server fault"})):
        assert "Traceback" not in httpx2.post(f"{base}tools/{name}", json=arguments, timeout=10).text


def test_a_good_call_after_the_errors_is_answered(base: str) -> None:
    assert rest(base, "divide", {"a": 6, "b": 3})[0] == 200


def test_openapi_describes_the_422(base: str) -> None:
    responses = httpx2.get(base + "openapi.json", timeout=10).json()["paths"]["/tools/divide"]["post"]["responses"]
    assert "422" in responses
    assert "500" in responses
