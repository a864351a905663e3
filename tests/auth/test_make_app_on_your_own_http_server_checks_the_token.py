"""``make_app(token=...)`` (and ``MCPServer(auth=...)``) guard an application served by the user's
own Tornado ``HTTPServer`` exactly like ``run()``'s."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx2
import tornado.httpserver
import tornado.netutil

from nanohubmcp import MCPServer, StaticTokenVerifier


@contextmanager
def own_server(app_factory: object) -> Iterator[str]:
    sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
    port = sockets[0].getsockname()[1]
    loop = asyncio.new_event_loop()
    ready, stop = threading.Event(), asyncio.Event()

    async def main() -> None:
        http = tornado.httpserver.HTTPServer(app_factory())  # type: ignore[operator]
        http.add_sockets(sockets)
        ready.set()
        await stop.wait()
        http.stop()

    thread = threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)


def test_make_app_with_a_token() -> None:
    server = MCPServer("own")
    with own_server(lambda: server.make_app(token="own-token")) as url:
        assert httpx2.get(url, timeout=10).status_code == 401
        assert httpx2.get(url, headers={"Authorization": "Bearer own-token"}, timeout=10).status_code == 200


def test_make_app_uses_the_servers_verifier() -> None:
    server = MCPServer("own", auth=StaticTokenVerifier("verifier-token"))
    with own_server(server.make_app) as url:
        refused = httpx2.post(url + "mcp", json={}, timeout=10)
        assert refused.status_code == 401
        assert refused.headers["WWW-Authenticate"].startswith("Bearer resource_metadata=")
        ok = httpx2.get(url, headers={"Authorization": "Bearer verifier-token"}, timeout=10)
        assert ok.status_code == 200
