"""The most bytes of one SSE event is a server setting, ``MCPServer(max_event_bytes=)`` (default 1 MiB, the official
``mcp`` client's cap; None: no bound), not a fixed constant.

Before, the bound held for every client: a 3 MiB resource could not be read at all over the legacy SSE transport
(every answer there is an event), even by a client reading events of any size (the TypeScript SDK, most others),
and a tool's large data over legacy SSE was always linked; the setting did not exist. Now a server for such
clients lifts the bound (None) or raises it, and the official client still gets the readable error by default.
A real server over HTTP; a raw legacy SSE client that has no cap (``stream_wire``), and the official client.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest
from stream_wire import Events, Wire
from support import mcp_client, rpc_message, serve, tool_call_message

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError, ToolError
from nanohubmcp.server.asks.ask_size import refuse_oversized
from nanohubmcp.server.results.options import ResultOptions

pytestmark = pytest.mark.timeout(120)

SIZE = 3 << 20  # a 3 MiB text
MiB = 1 << 20


def build(**options: Any) -> MCPServer:
    server = MCPServer("events", provenance=False, **options)

    @server.resource("data://big")
    def big() -> str:
        """3 MiB of text."""
        return "b" * SIZE

    @server.tool()
    def table(rows: int) -> dict[str, Any]:
        """``rows`` rows of 1,000 characters."""
        return {"rows": ["r" * 1000] * rows}

    return server


@contextmanager
def legacy_session(server: MCPServer) -> Iterator[tuple[Wire, Events, str]]:
    """A raw legacy SSE session (``GET /sse``, initialized) on ``server`` served over HTTP."""
    with serve(server) as url:
        wire = Wire(url, timeout=60)
        events, endpoint = wire.legacy()
        try:
            assert wire.legacy_post(endpoint, rpc_message("initialize", {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "no-cap", "version": "0"}}, 0)).status == 202
            events.until(lambda m: m.get("id") == 0)
            assert wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"}).status == 202
            yield wire, events, endpoint
        finally:
            events.close()


def answer(server: MCPServer, message: dict[str, Any]) -> dict[str, Any]:
    """The answer to ``message`` over legacy SSE (one event on the GET stream), read by a client with no cap."""
    with legacy_session(server) as (wire, events, endpoint):
        assert wire.legacy_post(endpoint, message).status == 202
        return events.until(lambda m: m.get("id") == message["id"], timeout=60)[1]


@pytest.mark.parametrize("bound", [None, 4 * MiB, math.inf])
def test_a_3_mib_resource_reads_whole_over_legacy_sse_under_no_or_a_higher_bound(bound: float | None) -> None:
    got = answer(build(max_event_bytes=bound), rpc_message("resources/read", {"uri": "data://big"}, 1))
    assert "error" not in got, str(got)[:500]
    assert got["result"]["contents"][0]["text"] == "b" * SIZE


def test_a_bound_under_the_answer_names_the_servers_setting() -> None:
    got = answer(build(max_event_bytes=2 * MiB), rpc_message("resources/read", {"uri": "data://big"}, 1))
    error = got["error"]
    assert error["code"] == -32603, error
    assert "(2097152 bytes, the server's max_event_bytes)" in error["message"], error["message"]
    assert error["data"]["limit"] == 2 * MiB
    assert SIZE < error["data"]["bytes"] < SIZE + 1000


def test_with_no_bound_a_tools_large_data_is_inline_over_legacy_sse() -> None:
    """Under the default bound an answer going as an event links data over 256 KiB whatever ``max_inline_bytes``
    is (tests/server/test_a_large_result_answered_as_an_sse_event_goes_as_a_link.py); under none it is inline."""
    call = tool_call_message("table", {"rows": 2000}, 1)
    whole = answer(build(max_inline_bytes=None, max_event_bytes=None), call)["result"]
    assert whole["structuredContent"] == {"rows": ["r" * 1000] * 2000}
    linked = answer(build(max_inline_bytes=None), call)["result"]
    assert [block["type"] for block in linked["content"]][-1] == "resource_link", linked["content"]


def test_by_default_the_official_client_still_reads_the_error_over_legacy_sse() -> None:
    from mcp.shared.exceptions import MCPError

    async def main(url: str) -> Any:
        with anyio.fail_after(60):
            async with mcp_client(url + "sse", transport="sse") as client:
                with pytest.raises(MCPError) as caught:
                    await client.read_resource("data://big")
                return caught.value

    with serve(build()) as url:
        error = anyio.run(main, url)
    assert error.code == -32603, error
    assert "(1048576 bytes, 1 MiB)" in error.message, error.message
    assert error.data["limit"] == MiB


def test_an_ask_over_1_mib_is_refused_only_under_a_bound() -> None:
    ask = {None: {"method": "elicitation/create", "params": {"message": "m" * (2 * MiB)}}}
    refuse_oversized(ask, bound=None)
    refuse_oversized(ask, bound=4 * MiB)
    with pytest.raises(ToolError, match=r"over the 1044480 bytes .* 1048576 bytes, 1 MiB"):
        refuse_oversized(ask, bound=MiB)


@pytest.mark.parametrize(("value", "kept"), [(None, None), (math.inf, None), (MiB, MiB), (1e7, 10_000_000),
                                             (10**400, None)], ids=["None", "inf", "1MiB", "1e7", "10**400"])
def test_the_setting_takes_a_whole_number_of_at_least_1_mib_or_none(value: Any, kept: int | None) -> None:
    assert MCPServer("s", max_event_bytes=value).core.result_options.max_event_bytes == kept


@pytest.mark.parametrize(("value", "said"), [
    (0, "not 0"), (-1, "not -1"), (MiB - 1, "not 1048575"), (2.5e6 + 0.5, "write a whole number: 2500001"),
    ("big", "not 'big'"), (True, "not True"),
])
def test_a_value_the_setting_does_not_take_is_refused_naming_it(value: Any, said: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("s", max_event_bytes=value)
    message = str(refused.value)
    assert message.startswith("max_event_bytes must be a number of bytes >= 1048576 (1 MiB), or None for no bound"), \
        message
    assert said in message, message


def test_the_notebook_setting_takes_and_refuses_as_mcpserver_does() -> None:
    from traitlets import TraitError

    from nanohubmcp.jupyter.config import NanohubMCP
    from nanohubmcp.jupyter.trait_groups import LIMIT_TRAITS, RESULT_TRAITS

    config = NanohubMCP()
    assert config.max_event_bytes == MiB
    config.max_event_bytes = None
    assert config.max_event_bytes is None
    config.max_event_bytes = 4e6
    assert config.max_event_bytes == 4_000_000
    with pytest.raises(TraitError, match=r"NanohubMCP.max_event_bytes must be a number of bytes >= 1048576 \(1 MiB\)"
                                         r", or None for no bound, not 0 \(default 1048576\)"):
        config.max_event_bytes = 0
    # passed to MCPServer(...) when the kernel's server is built, and applied to the next call when changed
    assert "max_event_bytes" in LIMIT_TRAITS
    assert "max_event_bytes" in RESULT_TRAITS
    options = ResultOptions()
    options.update("max_event_bytes", None)
    assert options.max_event_bytes is None
