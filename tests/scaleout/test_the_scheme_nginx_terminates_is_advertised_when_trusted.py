"""Behind nginx terminating TLS (the scale-out page's block, ``X-Forwarded-Proto $scheme``), a server told
to trust the proxy's headers (``--proxy-headers`` or ``$MCP_PROXY_HEADERS=1``) advertises ``https://`` URLs
built from the request; without it (the default) a client's ``X-Forwarded-Proto`` changes nothing. A
document built from the request's host is ``Cache-Control: private`` (a proxy's cache must not hand one
client's host name to the next); one built from ``public_url`` may be shared.

Found by trial16 (F2): every advertised URL was ``http://`` behind TLS, and the host-derived documents
were publicly cacheable.
"""

from __future__ import annotations

import http.client
import json
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster import Cluster
from nginx_weber import find_nginx
from redis_server import RedisServer
from support import installed, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

ORIGIN = "https://tools.example.org"  # also names the host these servers answer on loopback


@pytest.fixture
def tls_cluster(redis_server: RedisServer, tmp_path: Path) -> Iterator[Cluster]:
    nodes = Cluster(
        installed(find_nginx(), "nginx"),
        tmp_path,
        redis_server.url,
        each=[
            (["--proxy-headers", "--allowed-origins", ORIGIN], {}),
            ((), {"MCP_PROXY_HEADERS": "1", "MCP_ALLOWED_ORIGINS": ORIGIN}),
        ],
        tls=True,
    )
    try:
        yield nodes
    finally:
        nodes.close()


def get(connection: http.client.HTTPConnection, path: str, headers: dict[str, str]) -> tuple[dict, dict]:
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        assert response.status == 200, response.read()
        return json.loads(response.read()), dict(response.getheaders())
    finally:
        connection.close()


def over_tls(port: int) -> http.client.HTTPSConnection:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # nginx's self-signed certificate
    return http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context)


def test_a_trusted_proxy_reports_https_and_every_document_says_https(tls_cluster: Cluster) -> None:
    host = {"Host": "tools.example.org"}
    for _ in range(2):  # round-robin: each backend once
        card, headers = get(over_tls(tls_cluster.port), "/mcp/server-card", host)
        assert [remote["url"] for remote in card["remotes"]] == [f"{ORIGIN}/mcp", f"{ORIGIN}/sse"]
        assert headers["Cache-Control"] == "private, max-age=300"
        info, _ = get(over_tls(tls_cluster.port), "/", host)
        assert info["endpoints"]["mcp"] == f"{ORIGIN}/mcp"
        discovery, _ = get(over_tls(tls_cluster.port), "/.well-known/mcp.json", host)
        assert discovery["transports"][0]["endpoint"] == f"{ORIGIN}/mcp"
        openapi, _ = get(over_tls(tls_cluster.port), "/openapi.json", host)
        assert openapi["servers"][0]["url"].startswith(f"{ORIGIN}")
    assert len(tls_cluster.pids()) == 2, tls_cluster.logs()


def test_without_the_option_a_clients_forwarded_headers_change_nothing() -> None:
    server = MCPServer("untrusting")
    with serve(server):
        port = server.port
        assert port is not None
        card, headers = get(http.client.HTTPConnection("127.0.0.1", port, timeout=30), "/mcp/server-card",
                            {"X-Forwarded-Proto": "https", "X-Scheme": "https"})  # fmt: skip
    assert card["remotes"][0]["url"] == f"http://127.0.0.1:{port}/mcp"
    assert headers["Cache-Control"] == "private, max-age=300"


def test_a_document_built_from_the_public_url_may_be_shared() -> None:
    server = MCPServer("public")
    with serve(server, public_url="https://tools.example.org/"):
        port = server.port
        assert port is not None
        card, headers = get(http.client.HTTPConnection("127.0.0.1", port, timeout=30), "/mcp/server-card", {})
    assert card["remotes"][0]["url"] == "https://tools.example.org/mcp"
    assert headers["Cache-Control"] == "max-age=300"
