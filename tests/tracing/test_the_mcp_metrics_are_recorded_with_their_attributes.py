"""``mcp.server.operation.duration`` (one measurement per request, with the method, the tool or
prompt, the protocol version, the transport and ``error.type``) and ``mcp.server.session.duration``
(one when a session ends) are histograms in seconds, read with the SDK's in-memory metric reader."""

from __future__ import annotations

from typing import Any

import otel_sdk
import pytest
from support import mcp_client, serve
from traced_app import server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

OPERATION = "mcp.server.operation.duration"
SESSION = "mcp.server.session.duration"
HANDSHAKE = {"mcp.protocol.version": "2025-11-25", "network.transport": "tcp", "network.protocol.name": "http"}


def counts(name: str) -> dict[frozenset[tuple[str, Any]], int]:
    """Measurements per attribute set, summed: the same attribute set can come in more than one point (one per
    meter scope that recorded it in this process), and a dict built from the points kept only the last."""
    found: dict[frozenset[tuple[str, Any]], int] = {}
    for attributes, count, _ in otel_sdk.points(name):
        key = frozenset(attributes.items())
        found[key] = found.get(key, 0) + count
    return found


def grew(
    before: dict[frozenset[tuple[str, Any]], int], after: dict[frozenset[tuple[str, Any]], int]
) -> dict[frozenset[tuple[str, Any]], int]:
    return {key: count - before.get(key, 0) for key, count in after.items() if count != before.get(key, 0)}


async def test_operation_and_session_durations() -> None:
    from mcp.shared.exceptions import MCPError

    operations, sessions = counts(OPERATION), counts(SESSION)
    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            await session.call_tool("add", {"a": 1, "b": 2})
            await session.call_tool("add", {"a": 3, "b": 4})
            await session.call_tool("fails", {})
            await session.get_prompt("greet", {"name": "Ada"})
            await session.read_resource("data://greeting")
            with pytest.raises(MCPError):
                await session.call_tool("nope", {})
    tool = {"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", **HANDSHAKE}
    measured = grew(operations, counts(OPERATION))
    assert {key: count for key, count in measured.items() if ("mcp.method.name", "tools/list") not in key} == {
        frozenset({**HANDSHAKE, "mcp.method.name": "initialize"}.items()): 1,
        frozenset({**tool, "gen_ai.tool.name": "add"}.items()): 2,
        frozenset({**tool, "gen_ai.tool.name": "fails", "error.type": "tool_error"}.items()): 1,
        frozenset(
            {**tool, "error.type": "-32602", "rpc.response.status_code": "-32602"}.items()  # an unknown name: not kept
        ): 1,
        frozenset({**HANDSHAKE, "mcp.method.name": "prompts/get", "gen_ai.prompt.name": "greet"}.items()): 1,
        # No resource URI on the metric: the conventions make it opt-in (high cardinality).
        frozenset({**HANDSHAKE, "mcp.method.name": "resources/read"}.items()): 1,
    }
    # The client ended its session (DELETE) when it closed, or the server closed it on stop.
    assert grew(sessions, counts(SESSION)) == {frozenset(HANDSHAKE.items()): 1}
    durations = [total for attributes, _, total in otel_sdk.points(SESSION)]
    assert all(0 < total < 60 for total in durations)
    assert (otel_sdk.unit_of(OPERATION), otel_sdk.unit_of(SESSION)) == ("s", "s")
