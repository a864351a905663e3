"""A session keeps at most 16 KiB of its client's ``initialize`` capabilities and, of its ``clientInfo``,
only ``name``, ``title`` and ``version`` (256 characters each), in a process's memory and in Redis alike
(trial40 S6: capabilities and clientInfo of 5,000,000 characters each were kept whole, ~10 MB per session
for an idle hour, and a principal may hold 1,000 sessions).

- Larger capabilities are invalid params (-32602) naming the limit, and no session is opened.
- A lone surrogate (``"\\ud800"``) in the capabilities or the ``clientInfo`` is kept as sent; in the
  bound it counts as its escape.
- A huge ``clientInfo`` is accepted; what the session keeps of it is short.
- The official ``mcp`` client connects as before, and a tool sees the capabilities it sent.
- A session's resource subscriptions hold at most 16 KiB of URIs in all (64 of 8,192 characters each, a
  template's value, were half a megabyte per session): one more is invalid params naming the limit.

Through a real server keeping its sessions in memory, or on a real redis-server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import redis
from redis_server import RedisServer
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer, StaticTokenVerifier

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(90)]
TOKEN = "token-of-finn"
LIMIT = 16 * 1024
HUGE = "C" * 2_000_000


def _post(url: str, method: str, params: dict[str, Any], session: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}
    if session is not None:
        headers.update({"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(url + "mcp", json=body, timeout=30, headers=headers)


def _initialize(url: str, params: dict[str, Any]) -> httpx.Response:
    return _post(url, "initialize", {"protocolVersion": "2025-11-25", **params})


def _session_sizes(store: RedisServer) -> list[int]:
    client = redis.Redis.from_url(store.url)
    try:
        return [client.memory_usage(key) or 0 for key in client.scan_iter(b"*:s:*", count=1000)]
    finally:
        client.close()


@pytest.mark.parametrize("backend", ["memory", "redis"])
async def test_a_session_keeps_little_of_a_huge_initialize(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store: RedisServer | None = request.getfixturevalue("redis_server") if backend == "redis" else None
    options: dict[str, Any] = {"state_url": store.url} if store is not None else {}
    server = MCPServer("bounded-sessions", auth=StaticTokenVerifier({TOKEN: "finn"}), state_dir=str(tmp_path),
                       **options)

    @server.resource("item://{name}")
    def item(name: str) -> str:
        """One item."""
        return name

    @server.tool()
    def capabilities(ctx: Context) -> list:
        """The names of the capabilities this session's client sent."""
        return sorted(ctx.client_capabilities)

    with serve(server) as url:
        refused = _initialize(url, {"capabilities": {"experimental": {"x": {"blob": HUGE}}},
                                    "clientInfo": {"name": "big", "version": "1"}})
        assert "Mcp-Session-Id" not in refused.headers
        error = refused.json()["error"]
        assert error["code"] == -32602, error
        assert f"params.capabilities is over {LIMIT} bytes of JSON" in error["message"]
        assert error["data"] == {"limit": LIMIT}

        info = {"name": "n" * 1_000_000, "version": "1.2", "title": "t", "websiteUrl": HUGE,
                "icons": [{"src": "data:image/png;base64," + HUGE}]}
        opened = _initialize(url, {"capabilities": {"roots": {"listChanged": True}}, "clientInfo": info})
        assert opened.json()["result"]["protocolVersion"] == "2025-11-25", opened.text[:300]
        session_id = opened.headers["Mcp-Session-Id"]
        if store is None:
            session = server.core.sessions.get(session_id)
            assert session is not None
            assert session.client_info == {"name": "n" * 256, "title": "t", "version": "1.2"}
            assert session.client_capabilities == {"roots": {"listChanged": True}}
        else:
            sizes = _session_sizes(store)
            assert sizes
            assert max(sizes) < 4096, sizes

        long_uris = [f"item://{letter * 8000}" for letter in "abc"]
        for uri in long_uris[:2]:
            assert _post(url, "resources/subscribe", {"uri": uri}, session_id).json()["result"] == {}
        error = _post(url, "resources/subscribe", {"uri": long_uris[2]}, session_id).json()["error"]
        assert error["code"] == -32602, error
        assert f"at most {LIMIT} in all" in error["message"]
        assert error["data"] == {"limit": LIMIT}
        assert _post(url, "resources/subscribe", {"uri": "item://short"}, session_id).json()["result"] == {}
        if store is not None:
            assert max(_session_sizes(store)) < 2 * LIMIT

        async with mcp_client(url + "mcp", token=TOKEN, list_roots_callback=_no_roots) as client:
            answer = await client.call_tool("capabilities", {})
            assert not answer.is_error, answer
            assert "roots" in answer.structured_content["result"], answer


async def _no_roots(context: Any) -> Any:
    from mcp import types

    return types.ListRootsResult(roots=[])


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_a_lone_surrogate_in_the_capabilities_opens_a_session(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """``"\\ud800"`` is valid JSON a client may send (review r21 M4: the capabilities' bound measured their
    UTF-8, which has no form for it: -32603 and a traceback, where it opened a session before). It is kept
    as sent, in Redis too, and counts toward the bound as its JSON escape."""
    store: RedisServer | None = request.getfixturevalue("redis_server") if backend == "redis" else None
    options: dict[str, Any] = {"state_url": store.url} if store is not None else {}
    server = MCPServer("surrogate-caps", auth=StaticTokenVerifier({TOKEN: "finn"}), state_dir=str(tmp_path),
                       **options)

    @server.tool()
    def sent(ctx: Context) -> list:
        """What this session's client sent: its capability's text, as code points."""
        return [ord(char) for char in ctx.client_capabilities["experimental"]["x"]]

    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
    body = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
            '"capabilities":{"experimental":{"x":"a\\ud800"}},"clientInfo":{"name":"\\udc00n","version":"1"}}}')
    too_many = '{"experimental":{"x":"%s"}}' % ("\\ud800" * (LIMIT // 6))  # 6 bytes each: over, by the escapes
    with serve(server) as url:
        opened = httpx.post(url + "mcp", content=body.encode(), headers=headers, timeout=30)
        assert opened.json()["result"]["protocolVersion"] == "2025-11-25", opened.text[:300]
        session_id = opened.headers["Mcp-Session-Id"]
        answer = _post(url, "tools/call", {"name": "sent", "arguments": {}}, session_id).json()
        assert answer["result"]["structuredContent"] == {"result": [ord("a"), 0xD800]}, answer
        if store is None:
            session = server.core.sessions.get(session_id)
            assert session is not None
            assert session.client_info["name"] == "\udc00n"

        refused = httpx.post(url + "mcp", content=body.replace('{"experimental":{"x":"a\\ud800"}}', too_many).encode(),
                             headers=headers, timeout=30)
        assert refused.json()["error"]["code"] == -32602, refused.text[:300]
        assert "Mcp-Session-Id" not in refused.headers
