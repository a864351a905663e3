"""``server.add_middleware`` / ``@server.middleware``: every request of every transport and both eras
passes the layers in the order they were added (outermost first); a layer sees ``method``,
``params``, ``principal``, ``session_id`` and ``protocol_version``, may change the request on its
way in, sees the wire result on its way out, may answer itself, or refuse with a
``ProtocolError`` of its own code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from layers_app import REFUSED_CODE, seen, server
from support import mcp_client, serve

from nanohubmcp import MCPServer, ProtocolError, Request
from nanohubmcp.testing import MemoryClient, RpcError

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

APP = Path(__file__).resolve().parent / "layers_app.py"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(server) as base:
        yield base


@pytest.fixture(autouse=True)
def _fresh_record() -> None:
    seen.clear()


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def assert_seen(entries: list[dict[str, Any]], *, version: str, session: bool) -> None:
    """What the outer layer recorded of: echo, shortcut, refused (in that order)."""
    calls = [e for e in entries if e["method"] == "tools/call"]
    assert [e["tool"] for e in calls] == ["echo", "shortcut", "refused"]
    for entry in calls:
        assert entry["order"] == ["outer", "inner"]  # the first added runs first
        assert entry["version"] == version
        assert (entry["session"] is not None) is session
    assert "content" in calls[0]["result_keys"]  # the wire result came back through the layer
    assert calls[2]["error"] == REFUSED_CODE


# -- in memory, both eras -----------------------------------------------------------------------
async def test_in_memory_handshake_era() -> None:
    async with MemoryClient(server) as client:
        assert text(await client.call_tool("echo", {"text": "hi"})) == "hi!"
        assert text(await client.call_tool("shortcut")) == "answered by a layer"
        with pytest.raises(RpcError) as refused:
            await client.call_tool("refused")
        assert (refused.value.code, refused.value.message) == (REFUSED_CODE, "refused by a layer")
        assert_seen(seen, version="2025-11-25", session=True)
        assert [e["method"] for e in seen][:1] == ["initialize"]  # every request, initialize too


async def test_in_memory_stateless_era_results_are_stamped_after_a_layers_own_answer() -> None:
    client = MemoryClient(server, version="2026-07-28")
    echoed = await client.call_tool("echo", {"text": "hi"})
    assert text(echoed) == "hi!"
    shortcut = await client.call_tool("shortcut")
    # call_next's result is the wire result: resultType and the server's identity are on it.
    assert echoed["resultType"] == shortcut["resultType"] == "complete"
    assert shortcut["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "layers"
    with pytest.raises(RpcError) as refused:
        await client.call_tool("refused")
    assert refused.value.code == REFUSED_CODE
    assert_seen(seen, version="2026-07-28", session=False)
    assert "resultType" in seen[0]["result_keys"]


# -- over HTTP ---------------------------------------------------------------------------------
async def test_streamable_http_with_the_official_client(url: str) -> None:
    from mcp.shared.exceptions import MCPError

    async with mcp_client(url + "mcp") as session:
        assert (await session.call_tool("echo", {"text": "hi"})).content[0].text == "hi!"
        assert (await session.call_tool("shortcut", {})).content[0].text == "answered by a layer"
        with pytest.raises(MCPError) as refused:
            await session.call_tool("refused", {})
        assert refused.value.error.code == REFUSED_CODE
        report = await session.call_tool("report", {})
    assert_seen(json.loads(report.content[0].text), version="2025-11-25", session=True)


def modern_post(url: str, name: str, arguments: dict[str, Any] | None = None) -> httpx2.Response:
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": name, "arguments": arguments or {}, "_meta": MODERN_META}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name,
               "Accept": "application/json"}
    return httpx2.post(url + "mcp", json=body, headers=headers, timeout=10)


def test_streamable_http_stateless_era(url: str) -> None:
    assert text(modern_post(url, "echo", {"text": "hi"}).json()["result"]) == "hi!"
    assert text(modern_post(url, "shortcut").json()["result"]) == "answered by a layer"
    refused = modern_post(url, "refused")
    assert refused.status_code == 200  # a handler-level JSON-RPC error: 200, like a handler's own
    assert refused.json() == {"jsonrpc": "2.0", "id": 7, "error": {"code": REFUSED_CODE,
                                                                   "message": "refused by a layer"}}
    assert_seen(seen, version="2026-07-28", session=False)


def root_post(url: str, name: str, arguments: dict[str, Any] | None = None) -> httpx2.Response:
    body = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": arguments or {}}}
    return httpx2.post(url, json=body, timeout=10)


def test_post_root_sessionless(url: str) -> None:
    assert text(root_post(url, "echo", {"text": "hi"}).json()["result"]) == "hi!"
    assert text(root_post(url, "shortcut").json()["result"]) == "answered by a layer"
    assert root_post(url, "refused").json()["error"]["code"] == REFUSED_CODE
    assert_seen(seen, version="2025-03-26", session=False)


async def test_legacy_sse_with_the_official_client(url: str) -> None:
    from mcp.shared.exceptions import MCPError

    async with mcp_client(url + "sse", transport="sse") as session:
        assert (await session.call_tool("echo", {"text": "hi"})).content[0].text == "hi!"
        assert (await session.call_tool("shortcut", {})).content[0].text == "answered by a layer"
        with pytest.raises(MCPError) as refused:
            await session.call_tool("refused", {})
        assert refused.value.error.code == REFUSED_CODE
    assert_seen(seen, version="2025-11-25", session=True)


def test_rest(url: str) -> None:
    echoed = httpx2.post(url + "tools/echo", json={"text": "hi"}, timeout=10)
    assert (echoed.status_code, echoed.json()) == (200, {"result": "hi!"})
    refused = httpx2.post(url + "tools/refused", json={}, timeout=10)
    # No tool has the name: the call pipeline decides, as on /mcp (R42-2), so the layer's refusal is the answer
    # (its own code: REST's 403); it was REST's 404 before any layer ran.
    assert (refused.status_code, refused.json()) == (403, {"error": "refused by a layer"})
    entries = [e for e in seen if e["method"] == "tools/call"]
    assert [(e["tool"], e["session"], e["version"], e["order"]) for e in entries] == [
        ("echo", None, "2025-11-25", ["outer", "inner"]), ("refused", None, "2025-11-25", ["outer", "inner"])]


# -- stdio -------------------------------------------------------------------------------------
async def test_stdio_both_eras() -> None:
    from support import fastmcp_client, official_client, run_command

    async with official_client(run_command(APP)) as session:
        assert (await session.call_tool("echo", {"text": "hi"})).content[0].text == "hi!"
        assert (await session.call_tool("shortcut", {})).content[0].text == "answered by a layer"
        report = json.loads((await session.call_tool("report", {})).content[0].text)
    assert [e["tool"] for e in report if e["method"] == "tools/call"] == ["echo", "shortcut"]
    assert {e["version"] for e in report if e["method"] == "tools/call"} == {"2025-11-25"}
    async with fastmcp_client(run_command(APP)) as client:
        assert (await client.call_tool("echo", {"text": "hi"})).content[0].text == "hi!"
        report = json.loads((await client.call_tool("report", {})).content[0].text)
    calls = [e for e in report if e["method"] == "tools/call"]
    assert [(e["tool"], e["version"], e["session"]) for e in calls] == [("echo", "2026-07-28", None)]


# -- the interface -----------------------------------------------------------------------------
async def test_a_layer_sees_the_principal_and_a_refusal_keeps_its_data() -> None:
    from nanohubmcp import Principal

    local = MCPServer("principals")

    @local.tool()
    def ping_tool() -> str:
        """Answer pong."""
        return "pong"

    principals: list[Any] = []

    @local.middleware
    async def quota(request: Request, call_next: Any) -> dict[str, Any]:
        principals.append(request.principal)
        raise ProtocolError("quota exhausted", {"retryAfter": 5}, code=-32000)

    ada = Principal("ada", scopes=frozenset({"read"}))
    client = MemoryClient(local, principal=ada)
    with pytest.raises(RpcError) as refused:
        await client.request("tools/list")
    assert (refused.value.code, refused.value.data) == (-32000, {"retryAfter": 5})
    assert principals == [ada]


async def test_a_layer_added_later_runs_inside_the_earlier_ones_and_applies_at_once() -> None:
    local = MCPServer("order")
    order: list[str] = []

    def layer(name: str) -> Any:
        async def fn(request: Request, call_next: Any) -> dict[str, Any]:
            order.append(f"{name} in")
            result = await call_next(request)
            order.append(f"{name} out")
            return result

        return fn

    async with MemoryClient(local) as client:
        local.add_middleware(layer("a"))
        await client.request("ping")
        local.add_middleware(layer("b"))
        await client.request("ping")
    assert order == ["a in", "a out", "a in", "b in", "b out", "a out"]


def test_what_cannot_be_a_layer_is_refused_when_added() -> None:
    local = MCPServer("bad")

    def not_async(request: Any, call_next: Any) -> Any:
        return call_next(request)

    async def one_argument(request: Any) -> Any:
        return {}

    with pytest.raises(TypeError, match="async def"):
        local.add_middleware(not_async)
    with pytest.raises(TypeError, match="two arguments"):
        local.add_middleware(one_argument)


async def test_an_unexpected_exception_in_a_layer_is_an_internal_error_not_a_crash() -> None:
    local = MCPServer("broken")

    @local.middleware
    async def broken(request: Request, call_next: Any) -> dict[str, Any]:
        raise RuntimeError("secret detail")

    client = MemoryClient(local)
    response = await client.send(client.envelope("ping"))
    assert response is not None
    assert response["error"]["code"] == -32603
    assert "secret" not in response["error"]["message"]


async def test_notifications_do_not_pass_the_layers() -> None:
    local = MCPServer("quiet")
    methods: list[str] = []

    @local.middleware
    async def record(request: Request, call_next: Any) -> dict[str, Any]:
        methods.append(request.method)
        return await call_next(request)

    async with MemoryClient(local) as client:
        await client.notify("notifications/cancelled", {"requestId": 99})
        await client.request("ping")
    assert methods == ["initialize", "ping"]


# -- the how-to page's examples ----------------------------------------------------------------
def how_to_example(marker: str) -> dict[str, Any]:
    """Run the code block of docs/how-to/middleware.md that contains ``marker``; its namespace."""
    import re

    page = (Path(__file__).resolve().parents[2] / "docs" / "how-to" / "middleware.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S) if marker in b)
    namespace: dict[str, Any] = {"__name__": "how_to_example"}
    exec(compile(block, "middleware.md", "exec"), namespace)
    return namespace


async def test_the_documented_rate_limit_refuses_the_sixth_call_with_a_retry_time() -> None:
    example = how_to_example("async def rate_limit")
    async with MemoryClient(example["server"]) as client:
        for n in range(5):
            assert text(await client.call_tool("expensive", {"n": n})) == str(n * n)
        with pytest.raises(RpcError) as refused:
            await client.call_tool("expensive", {"n": 9})
    assert refused.value.code == -32000
    assert 0 < refused.value.data["retryAfter"] <= 60
    assert "retry in" in str(refused.value.message)


def test_the_documented_rate_limit_is_http_503_with_retry_after() -> None:
    example = how_to_example("async def rate_limit")
    with serve(example["server"]) as base:
        answers = [httpx2.post(base + "tools/expensive", json={"n": 2}, timeout=10) for _ in range(6)]
        params = {"name": "expensive", "arguments": {"n": 2}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        over_mcp = httpx2.post(base + "mcp", json=body, headers={"Accept": "application/json"}, timeout=10)
    assert [a.status_code for a in answers] == [200] * 5 + [503]
    assert int(answers[5].headers["Retry-After"]) > 0
    assert "Rate limit" in answers[5].json()["error"]
    assert over_mcp.status_code == 503
    assert over_mcp.json()["error"]["code"] == -32000


async def test_the_documented_order_example_runs_as_described() -> None:
    example = how_to_example("async def second")
    async with MemoryClient(example["server"]) as client:
        example["seen"].clear()
        await client.request("ping")
    assert example["seen"] == ["first in", "second in", "second out", "first out"]


# -- the built-in layers -----------------------------------------------------------------------
async def test_a_session_with_too_many_requests_in_flight_is_told_to_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from nanohubmcp.server import layers

    monkeypatch.setattr(layers, "MAX_IN_FLIGHT_PER_SESSION", 2)
    local = MCPServer("bounded")
    release = asyncio.Event()

    @local.tool()
    async def hold() -> str:
        """Wait for the test."""
        await release.wait()
        return "done"

    async with MemoryClient(local) as client:
        held = [asyncio.ensure_future(client.call_tool("hold")) for _ in range(2)]
        while len(client.peer.session.in_flight) < 2:
            await asyncio.sleep(0.01)
        with pytest.raises(RpcError) as refused:
            await client.call_tool("hold")
        release.set()
        assert [text(await call) for call in held] == ["done", "done"]
        assert text(await client.call_tool("hold")) == "done"  # room again
    assert refused.value.code == -32000
    assert refused.value.data == {"retryAfter": 1}
    assert "at most 2" in str(refused.value.message)


async def test_a_layer_reads_the_requests_meta() -> None:
    local = MCPServer("traced")
    seen: list[Any] = []

    @local.middleware
    async def trace(request: Request, call_next: Any) -> dict[str, Any]:
        seen.append(request.meta.get("traceparent"))
        return await call_next(request)

    async with MemoryClient(local) as client:
        await client.request("tools/list", {"_meta": {"traceparent": "00-abc-def-01"}})
        await client.request("ping")
    assert seen == [None, "00-abc-def-01", None]  # initialize, tools/list, ping


async def test_a_layer_answering_with_no_dict_is_an_internal_error_named_in_the_log(
        caplog: pytest.LogCaptureFixture) -> None:
    local = MCPServer("forgetful")

    @local.middleware
    async def forgets_to_return(request: Request, call_next: Any) -> Any:
        await call_next(request)

    client = MemoryClient(local)
    response = await client.send(client.envelope("ping"))
    assert response is not None
    assert response["error"]["code"] == -32603
    assert "not a result dict" in caplog.text


def test_a_layers_deliberate_refusal_is_a_4xx_over_rest_and_its_bug_a_500() -> None:
    # trial11 F10: ProtocolError(code=-32001) raised on purpose was HTTP 500 over REST, like a server fault.
    local = MCPServer("policy", provenance=False)

    @local.tool()
    def add(a: float, b: float) -> float:
        """Sum."""
        return a + b

    @local.middleware
    async def policy(request: Request, call_next: Any) -> dict[str, Any]:
        a = (request.params.get("arguments") or {}).get("a")
        if a == 14:
            raise ProtocolError("forbidden by policy", code=-32001)
        if a == 15:
            raise RuntimeError("a bug in the layer")
        if a == 16:
            raise ProtocolError("not like that", code=-32602)
        if a == 17:  # trial19 F9: the natural way, without a code, was -32603 and a 500
            raise ProtocolError("quota exceeded")
        return await call_next(request)

    with serve(local) as base:
        plain = httpx2.post(base + "tools/add", json={"a": 17, "b": 1}, timeout=10)
        plain_rpc = root_post(base, "add", {"a": 17, "b": 1})
        refused = httpx2.post(base + "tools/add", json={"a": 14, "b": 1}, timeout=10)
        broken = httpx2.post(base + "tools/add", json={"a": 15, "b": 1}, timeout=10)
        invalid = httpx2.post(base + "tools/add", json={"a": 16, "b": 1}, timeout=10)
        fine = httpx2.post(base + "tools/add", json={"a": 1, "b": 1}, timeout=10)
        over_rpc = root_post(base, "add", {"a": 14, "b": 1})
        described = httpx2.get(base + "openapi.json", timeout=10).json()["paths"]["/tools/add"]["post"]["responses"]
    assert described["403"]["description"] == "Refused by a middleware of the server"
    assert (refused.status_code, refused.json()) == (403, {"error": "forbidden by policy"})
    assert (broken.status_code, broken.json()) == (500, {"error": "Internal error; see the server log"})
    assert invalid.status_code == 400
    assert (fine.status_code, fine.json()) == (200, {"result": "2.0"})
    # JSON-RPC routes keep 200 with the error object, as for a handler's own error.
    assert over_rpc.status_code == 200
    assert over_rpc.json()["error"] == {"code": -32001, "message": "forbidden by policy"}
    assert (plain.status_code, plain.json()) == (403, {"error": "quota exceeded"})
    assert (plain_rpc.status_code, plain_rpc.json()["error"]) == (200, {"code": -32004, "message": "quota exceeded"})


@pytest.mark.parametrize("method", ["tools/call", "ping"])
async def test_a_layer_returning_no_dict_is_named_in_one_log_line(
        method: str, caplog: pytest.LogCaptureFixture) -> None:
    # trial11 F10: the provenance layer read the answer first and the log said only
    # "AttributeError: 'Request' object has no attribute 'get'".
    local = MCPServer("returns-request")

    @local.tool()
    def add(a: float, b: float) -> float:
        """Sum."""
        return a + b

    @local.middleware
    async def passes_through(request: Request, call_next: Any) -> dict[str, Any]:
        return await call_next(request)

    @local.middleware
    async def returns_the_request(request: Request, call_next: Any) -> Any:
        return request

    client = MemoryClient(local)
    params = {"name": "add", "arguments": {"a": 1, "b": 2}} if method == "tools/call" else None
    response = await client.send(client.envelope(method, params))
    assert response is not None
    assert response["error"]["code"] == -32603
    logged = [r for r in caplog.records if r.name == "nanohubmcp" and r.levelname == "ERROR"]
    assert len(logged) == 1
    message = logged[0].getMessage()
    assert f"middleware 'returns_the_request' answered {method} with Request, not a result dict" in message
    assert logged[0].exc_info is None  # one line: the application's mistake, not a traceback of ours
    assert "AttributeError" not in caplog.text


async def test_a_single_layer_returning_no_dict_is_named_alone(caplog: pytest.LogCaptureFixture) -> None:
    local = MCPServer("forgets")

    @local.tool()
    def add(a: float, b: float) -> float:
        """Sum."""
        return a + b

    @local.middleware
    async def forgets_to_return(request: Request, call_next: Any) -> Any:
        await call_next(request)

    client = MemoryClient(local)
    response = await client.send(client.envelope("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}))
    assert response is not None
    assert response["error"]["code"] == -32603
    assert "middleware 'forgets_to_return' answered tools/call with NoneType, not a result dict" in caplog.text


@pytest.mark.parametrize("mistake", ["none", "unawaited"])
async def test_the_inner_layer_at_fault_is_named_before_an_outer_one_reads_its_answer(
        mistake: str, caplog: pytest.LogCaptureFixture) -> None:
    # trial69 T69-3: with several layers the log named them all ("one of the middleware 'outer', 'audit'"), and an
    # outer layer reading the answer (result.get(...)) hid it behind its own AttributeError.
    local = MCPServer("inner-fault")

    @local.tool()
    def echo(mode: str) -> str:
        """Echo."""
        return mode

    @local.middleware
    async def outer(request: Request, call_next: Any) -> dict[str, Any]:
        result = await call_next(request)
        result.get("isError")
        return result  # type: ignore[no-any-return]

    @local.middleware
    async def audit(request: Request, call_next: Any) -> Any:
        if request.tool_name != "echo":
            return await call_next(request)
        if mistake == "unawaited":
            return call_next(request)
        await call_next(request)
        return None

    async with MemoryClient(local) as client:
        with pytest.raises(RpcError) as refused:
            await client.call_tool("echo", {"mode": "x"})
    assert refused.value.code == -32603
    logged = [r.getMessage() for r in caplog.records if r.name == "nanohubmcp" and r.levelname == "ERROR"]
    kind = "coroutine" if mistake == "unawaited" else "NoneType"
    assert logged == [f"internal error while serving tools/call: middleware 'audit' answered tools/call with {kind}, "
                      "not a result dict: a middleware must return 'await call_next(request)' or a dict of its own"]
    assert "AttributeError" not in caplog.text
