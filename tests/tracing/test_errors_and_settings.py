"""An exception that escapes the pipeline (a layer's bug) is the span's ``error.type`` — its qualified
type name — with an ERROR status and the exception recorded, and the client still gets -32603; the
tracing layer is outermost, so it times the user's layers too. The setting's precedence: the
argument, then ``NANOHUBMCP_TRACING``, then ``c.NanohubMCP.tracing``, then ``"auto"``."""

from __future__ import annotations

import re
from typing import Any

import otel_sdk
import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.server.wire.trace_context import ENV_VAR, resolve
from nanohubmcp.testing import MemoryClient, RpcError

pytestmark = pytest.mark.anyio


async def test_the_attributes_kept_per_kind_of_request_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tracing layer keeps each kind of request's span name and attributes; past MAX_SHAPES
    kinds (a server of many tools, versions, transports) it computes them per request instead of
    keeping them. An unknown tool's name (client input) makes no kind of its own."""
    from nanohubmcp.server import telemetry

    monkeypatch.setattr(telemetry, "MAX_SHAPES", 2)
    server = MCPServer("bounded", tracing=True)
    for n in range(6):
        server.add_tool(lambda: "failed", name=f"t{n}", description="fails")
    otel_sdk.clear()
    async with MemoryClient(server) as client:
        for n in range(6):
            assert (await client.call_tool(f"t{n}", {}))["content"][0]["text"] == "failed"
            with pytest.raises(RpcError):
                await client.call_tool(f"nope{n}", {})
        assert server.core.telemetry is not None
        assert len(server.core.telemetry.shapes) <= 4  # 2 kinds, 2 failures
    names = [s["name"] for s in otel_sdk.finished() if s["kind"] == "SERVER"]
    assert [n for n in names if n.startswith("tools/call")] == [
        name for n in range(6) for name in (f"tools/call t{n}", "tools/call")
    ]
    assert [s["attributes"]["gen_ai.tool.name"] for s in otel_sdk.finished() if s["name"] == "tools/call t5"] == ["t5"]
    failed = [s["attributes"] for s in otel_sdk.finished() if s["name"] == "tools/call"]
    assert [a.get("gen_ai.tool.name") for a in failed] == [None] * 6
    assert failed[0]["error.type"] == "-32602"


async def test_an_exception_in_a_layer_is_the_spans_error_type() -> None:
    server = MCPServer("broken-layer", tracing=True)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    @server.middleware
    async def broken(request: Any, call_next: Any) -> Any:
        if request.tool_name == "add":
            raise LookupError("a bug in a layer")
        return await call_next(request)

    otel_sdk.clear()
    async with MemoryClient(server) as client:
        with pytest.raises(RpcError) as failed:
            await client.call_tool("add", {"a": 1, "b": 2})
    assert failed.value.code == -32603
    [span] = [s for s in otel_sdk.finished() if s["name"] == "tools/call add"]
    assert (span["attributes"]["error.type"], span["status"], span["description"]) == (
        "LookupError",
        "ERROR",
        "a bug in a layer",
    )
    assert "rpc.response.status_code" not in span["attributes"]
    measured = [
        attributes
        for attributes, _, _ in otel_sdk.points("mcp.server.operation.duration")
        if attributes.get("gen_ai.tool.name") == "add" and attributes.get("error.type") == "LookupError"
    ]
    assert measured == [
        {
            "mcp.method.name": "tools/call",
            "gen_ai.tool.name": "add",
            "gen_ai.operation.name": "execute_tool",
            "mcp.protocol.version": "2025-11-25",
            "error.type": "LookupError",
        }
    ]
    server.core.close()


def test_the_setting_goes_argument_environment_configuration_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert resolve(None) == resolve(None, None) == "auto"
    assert resolve(None, False) is False  # c.NanohubMCP.tracing
    monkeypatch.setenv(ENV_VAR, "on")
    assert resolve(None, False) is True  # the environment wins over the configuration
    assert resolve(False, True) is False  # the argument wins over both
    monkeypatch.setenv(ENV_VAR, "AUTO")
    assert resolve(None, True) == "auto"
    monkeypatch.setenv(ENV_VAR, "")
    assert resolve(None, True) is False  # set but empty: off, as for other switches
    words = "1, true, on, yes (on), 0, false, off, no (off) or auto"
    with pytest.raises(ConfigurationError, match=re.escape(f"tracing must be True, False or one of {words}, not 2")):
        resolve(2)  # type: ignore[arg-type]


def test_the_notebook_configuration_names_the_setting() -> None:
    from nanohubmcp.jupyter.config import NanohubMCP
    from nanohubmcp.jupyter.trait_groups import REBUILD_TRAITS

    assert NanohubMCP().tracing == "auto"
    assert "tracing" in REBUILD_TRAITS  # a change rebuilds the server (tools kept)


async def test_a_call_the_result_cache_answered_says_so_on_its_span(tmp_path: Any) -> None:
    # A trial finding: a hit's SERVER span looked like a fast miss.
    server = MCPServer("cached", tracing=True, state_dir=str(tmp_path))

    @server.tool(cache=True)
    def square(x: int) -> int:
        """Square."""
        return x * x

    otel_sdk.clear()
    async with MemoryClient(server) as client:
        await client.call_tool("square", {"x": 3})
        await client.call_tool("square", {"x": 3})
    spans = [s for s in otel_sdk.finished() if s["name"] == "tools/call square"]
    assert [s["attributes"].get("nanohub.cache.hit") for s in spans] == [None, True]
