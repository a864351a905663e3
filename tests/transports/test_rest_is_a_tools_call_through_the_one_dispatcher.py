"""REST ``POST /tools/<name>`` is a ``tools/call`` served through the same connection as every
other route (issue 12): its answers follow the live call path, not a second one.

- a tool returning ``ToolResult(is_error=True)`` is 422 with the tool's text, from the live call path
  (as the earlier package answered it; a removed dead helper once answered 422 while live REST answered 500);
- invalid arguments stay 400 with the violations even on a server whose ``argument_errors``
  option reports them as tool errors over MCP;
- call observers see REST calls like any other (they pass the dispatcher);
- a name that is no tool is refused by the call pipeline, as on ``/mcp``: the application's middleware sees the
  call and may answer it itself, call observers see the refusal, and REST answers it 404 (R42-2).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from json_posts import post_json
from support import serve

from nanohubmcp import MCPServer, ToolResult


def build() -> MCPServer:
    server = MCPServer("rest-one-path", argument_errors="tool")

    @server.tool()
    def refuse(reason: str) -> ToolResult:
        """Report a failure as a result."""
        return ToolResult(reason, is_error=True)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return server


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[MCPServer, str]]:
    server = build()
    with serve(server) as base:
        yield server, base


def post(base: str, name: str, body: Any) -> tuple[int, Any]:
    return post_json(f"{base}tools/{name}", body, 10)


def test_a_tool_result_marked_as_error_is_422_with_its_text(served: tuple[MCPServer, str]) -> None:
    assert post(served[1], "refuse", {"reason": "Cannot divide by zero"}) == (422, {"error": "Cannot divide by zero"})


def test_invalid_arguments_are_400_with_details_whatever_argument_errors_says(served: tuple[MCPServer, str]) -> None:
    status, body = post(served[1], "add", {"a": "one", "b": 2})
    assert status == 400
    assert "a" in body["error"]
    assert isinstance(body["details"], list)
    assert body["details"]


def test_an_unknown_tool_is_404_and_a_good_call_is_its_value(served: tuple[MCPServer, str]) -> None:
    assert post(served[1], "nope", {}) == (404, {"error": "Unknown tool: nope"})
    assert post(served[1], "add", {"a": 2, "b": 3}) == (200, {"result": "5"})


def test_rest_calls_reach_call_observers(served: tuple[MCPServer, str]) -> None:
    server, base = served
    seen: list[Any] = []
    unsubscribe = server.core.bus.subscribe(lambda event, data: seen.append(data), ["call_finished"])
    try:
        post(base, "add", {"a": 1, "b": 1})
    finally:
        unsubscribe()
    assert seen, "a REST call finished without telling call observers"


def test_an_unknown_tool_passes_the_middleware_and_call_observers_as_on_mcp() -> None:
    server = build()
    names: list[str | None] = []

    @server.middleware
    async def routes_aliases(request: Any, call_next: Any) -> Any:
        names.append(request.tool_name)
        if request.tool_name == "plus":  # a name no tool has, answered by the application's own layer
            return await call_next(request.replace(params={**request.params, "name": "add"}))
        return await call_next(request)

    refused: list[Any] = []
    unsubscribe = server.core.bus.subscribe(lambda event, data: refused.append(data), ["call_finished"])
    try:
        with serve(server) as base:
            assert post(base, "plus", {"a": 2, "b": 3}) == (200, {"result": "5"})
            assert post(base, "nope", {}) == (404, {"error": "Unknown tool: nope"})
    finally:
        unsubscribe()
    assert names == ["plus", "nope"]
    assert [(data["name"], data["ok"]) for data in refused] == [("add", True), ("nope", False)]
