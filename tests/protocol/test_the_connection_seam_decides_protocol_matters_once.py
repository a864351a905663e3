"""The connection seam decides the protocol matters every transport shares — the era of a request,
the version in force, the 2026-07-28 envelope checks, a stateless request withdrawn by its one
peer — so HTTP, stdio and the in-memory client cannot disagree."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import HeaderMismatch, InvalidEnvelope, InvalidRequest, UnsupportedProtocolVersion
from nanohubmcp.protocol import jsonrpc
from nanohubmcp.server.connection import handshake_version, is_modern, modern_version, spoken_version
from nanohubmcp.testing import MemoryClient

pytestmark = pytest.mark.anyio

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def message(params: dict[str, Any] | None = None, method: str = "tools/list") -> jsonrpc.Message:
    return jsonrpc.classify({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}})


def test_the_era_comes_from_the_meta_or_a_header_naming_2026_or_later() -> None:
    assert is_modern(message({"_meta": META}))
    assert is_modern(message(), "2026-07-28")
    assert is_modern(None, " 2027-01-01 ")  # a later date is modern (then refused by name)
    assert not is_modern(message(), "2025-11-25")
    assert not is_modern(message())


def test_the_handshake_version_falls_back_from_session_to_header_to_2025_03_26() -> None:
    assert handshake_version(None) == "2025-03-26"
    assert handshake_version(None, "2025-06-18") == "2025-06-18"
    assert handshake_version(None, "2025-06-18").structured_content
    with pytest.raises(InvalidRequest, match="Unsupported MCP-Protocol-Version") as refused:
        spoken_version("1999-01-01")
    assert refused.value.data == {"supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
                                  "requested": "1999-01-01"}
    assert spoken_version(None) is None


def test_the_2026_checks_run_in_the_spec_order() -> None:
    with pytest.raises(InvalidEnvelope):
        modern_version(message({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}))
    with pytest.raises(HeaderMismatch):
        modern_version(message({"_meta": META}), "2025-11-25", check_header=True)
    later = {**META, "io.modelcontextprotocol/protocolVersion": "2027-01-01"}
    with pytest.raises(UnsupportedProtocolVersion):
        modern_version(message({"_meta": later}), "2027-01-01", check_header=True)
    version, caps = modern_version(message({"_meta": META}), "2026-07-28", check_header=True)
    assert (version, caps, version.modern) == ("2026-07-28", {}, True)


async def test_one_peer_withdraws_a_stateless_request_by_id_and_it_gets_no_answer() -> None:
    server = MCPServer("withdraw")
    started, seen = asyncio.Event(), []

    @server.tool()
    async def wait(ctx: Context) -> str:
        """Wait until cancelled."""
        started.set()
        try:
            while not ctx.is_cancelled():
                await asyncio.sleep(0.01)
        except asyncio.CancelledError:  # the client's cancel cancels the coroutine too (trial73 F7)
            seen.append("cancelled")
            raise
        return "late"

    client = MemoryClient(server, version="2026-07-28")
    call = asyncio.ensure_future(client.send(client.envelope("tools/call", {"name": "wait", "arguments": {}})))
    await asyncio.wait_for(started.wait(), 10)
    await client.notify("notifications/cancelled", {"requestId": 1, "reason": "changed my mind"})
    assert await asyncio.wait_for(call, 10) is None  # a withdrawn request gets no response
    assert seen == ["cancelled"]


async def test_one_peers_stateless_requests_in_flight_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from nanohubmcp.server import sessionless

    monkeypatch.setattr(sessionless, "MAX_IN_FLIGHT_PER_SESSION", 2)
    server = MCPServer("bounded-peer")
    release = asyncio.Event()
    running: list[int] = []

    @server.tool()
    async def hold() -> str:
        """Wait for the test."""
        running.append(1)
        await release.wait()
        return "done"

    client = MemoryClient(server, version="2026-07-28")
    held = [asyncio.ensure_future(client.call_tool("hold")) for _ in range(2)]
    while len(running) < 2:
        await asyncio.sleep(0.01)
    refused = await client.send(client.envelope("tools/call", {"name": "hold", "arguments": {}}))
    release.set()
    assert [(await call)["content"][0]["text"] for call in held] == ["done", "done"]
    assert refused is not None
    assert refused["error"]["code"] == -32000
    assert refused["error"]["data"] == {"retryAfter": 1}
