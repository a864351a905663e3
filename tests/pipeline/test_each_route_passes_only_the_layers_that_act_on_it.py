"""The call pipeline composes one chain per route (method, era, authenticated caller, session)
with the layers that act on it: a layer left out of a route's chain never sees its requests, and
every guard still refuses what it refused (the version gate, the session limit, per-tool scopes,
the result cache once a tool caches — also a tool registered after serving started)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from nanohubmcp import MCPServer, Request
from nanohubmcp.server import layers
from nanohubmcp.server.middleware import CallNext, Route
from nanohubmcp.server.pipeline import Pipeline
from nanohubmcp.server.wire.principal import Principal
from nanohubmcp.testing import MemoryClient, RpcError

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def add_server() -> MCPServer:
    server = MCPServer("routes", job_store="memory", provenance=False)

    @server.tool()
    def add(a: float, b: float) -> float:
        """Sum."""
        return a + b

    return server


async def test_a_layer_acts_only_on_the_routes_it_names_and_refresh_recomposes() -> None:
    seen: list[str] = []
    wanted = {"tools/list"}

    async def endpoint(request: Request) -> dict[str, Any]:
        return {"method": request.method}

    async def watch(request: Request, call_next: CallNext) -> dict[str, Any]:
        seen.append(request.method)
        return await call_next(request)

    pipeline = Pipeline(endpoint, methods={"tools/list", "tools/call"})
    pipeline.add(watch, acts=lambda route: route.method in wanted)
    context: Any = SimpleNamespace(slots={})  # what the steps around the application's layers mark
    for method in ("tools/list", "tools/call"):
        route = (method, False, False, True)
        assert await pipeline.chain(route)(Request(context, method, {})) == {"method": method}
    assert seen == ["tools/list"]
    wanted.add("tools/call")  # what the predicate reads changed: the chains are composed again
    pipeline.refresh()
    await pipeline.chain(("tools/call", False, False, True))(Request(context, "tools/call", {}))
    assert seen == ["tools/list", "tools/call"]
    # A method the server has no handler for passes every layer, and gets no chain of its own.
    await pipeline.chain(("no/such", False, False, True))(Request(context, "no/such", {}))
    assert seen[-1] == "no/such"
    assert ("no/such", False, False, True) not in pipeline.chains


def test_the_built_in_layers_name_where_they_act() -> None:
    gate = layers.version_gate({"initialize": 1, "tools/call": 1}, {"server/discover": 1, "tools/call": 1})
    assert gate.acts is not None
    assert not gate.acts(Route("tools/call", False, False, True))
    assert not gate.acts(Route("tools/call", True, False, False))
    assert gate.acts(Route("initialize", True, False, False))  # the stateless era has no initialize
    assert gate.acts(Route("server/discover", False, False, True))
    limit = layers.session_limit()
    assert limit.acts is not None
    assert limit.acts(Route("tools/call", False, False, True))
    assert not limit.acts(Route("tools/call", False, False, False))
    scopes = layers.tool_scopes()
    assert scopes.acts is not None
    assert scopes.acts(Route("tools/call", False, True, True))
    assert not scopes.acts(Route("tools/call", False, False, True))  # no authorization: nothing to check
    assert not scopes.acts(Route("tools/list", False, True, True))


async def test_the_gate_still_refuses_a_method_of_the_other_era() -> None:
    async with MemoryClient(add_server(), version="2026-07-28") as client:
        with pytest.raises(RpcError) as refused:
            await client.request(
                "initialize",
                {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
            )
        assert refused.value.code == -32601
        with pytest.raises(RpcError) as unknown:
            await client.request("no/such/method")
        assert unknown.value.code == -32601


async def test_a_scoped_tool_registered_while_serving_is_still_refused_without_its_scope() -> None:
    server = add_server()
    async with MemoryClient(server, principal=Principal("ada", frozenset({"read"}))) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2}))["content"][0]["text"] == "3.0"

        @server.tool(scopes=["admin"])
        def wipe() -> str:
            """Needs admin."""
            return "wiped"

        with pytest.raises(RpcError) as refused:
            await client.call_tool("wipe")
        assert refused.value.code == -32003
        assert "admin" in refused.value.message


async def test_a_cached_tool_registered_while_serving_is_answered_from_the_cache() -> None:
    server = add_server()
    runs: list[int] = []
    async with MemoryClient(server) as client:
        await client.call_tool("add", {"a": 1, "b": 2})  # the tools/call chain is composed without the cache

        @server.tool(cache=True)
        def square(x: int) -> int:
            """Square, counted."""
            runs.append(x)
            return x * x

        first = await client.call_tool("square", {"x": 3})
        second = await client.call_tool("square", {"x": 3})
    assert runs == [3]
    assert first["_meta"]["io.nanohub/cache"] == {"hit": False}
    assert second["_meta"]["io.nanohub/cache"] == {"hit": True}


async def test_user_middleware_sees_every_request_of_every_served_route() -> None:
    server = add_server()
    seen: list[str] = []

    @server.middleware
    async def watch(request: Request, call_next: CallNext) -> dict[str, Any]:
        seen.append(request.method)
        return await call_next(request)

    async with MemoryClient(server) as client:
        await client.call_tool("add", {"a": 1, "b": 2})
        await client.list_tools()
        with pytest.raises(RpcError):
            await client.request("no/such/method")
    async with MemoryClient(server, version="2026-07-28") as client:
        await client.call_tool("add", {"a": 1, "b": 2})
    # The version gate, outermost, answers a method the era lacks before any middleware runs.
    assert seen == ["initialize", "tools/call", "tools/list", "tools/call"]
