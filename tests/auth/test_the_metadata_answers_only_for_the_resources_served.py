"""The path-aware RFC 9728 metadata answers only for the resources this server serves (review r40 R40-8).

``/.well-known/oauth-protected-resource<any path>`` answered 200 for every path, without a token, echoing it
in ``resource``: control characters (``/%0d%0aX:1`` → ``"http://…/\\r\\nX:1"``), ``//evil.example/x``,
20,000 characters, each claimed as a protected resource. It now answers for the root (or path prefix),
``/mcp`` and ``/sse``, each with one trailing slash or none, named after the well-known name as RFC 9728 § 3.1
forms it (the resource's own path) or, under the prefix, relative to it; any other path is a 404 that echoes
nothing.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from support import serve

from nanohubmcp import MCPServer

TOKEN = "metadata-paths-token"
WELL_KNOWN = "/.well-known/oauth-protected-resource"


def get(base: str, path: str) -> tuple[int, bytes]:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve(MCPServer("metadata-paths"), token=TOKEN, path_prefix="/calc") as url:
        yield url


@pytest.mark.parametrize(("path", "resource"), [
    (f"{WELL_KNOWN}/calc", ""),
    (f"{WELL_KNOWN}/calc/", ""),
    (f"{WELL_KNOWN}/calc/mcp", "/mcp"),
    (f"{WELL_KNOWN}/calc/mcp/", "/mcp"),
    (f"{WELL_KNOWN}/calc/sse", "/sse"),
    (f"{WELL_KNOWN}/%63alc/sse", "/sse"),  # the prefix in another spelling is the prefix
    (f"/calc{WELL_KNOWN}", ""),
    (f"/calc{WELL_KNOWN}/mcp", "/mcp"),
    (f"/calc{WELL_KNOWN}/sse/", "/sse"),
    (f"/calc{WELL_KNOWN}/calc/mcp", "/mcp"),
])
def test_a_served_resource_has_its_metadata(base: str, path: str, resource: str) -> None:
    status, body = get(base, path)
    assert status == 200, body
    assert json.loads(body)["resource"] == base.rstrip("/") + resource


@pytest.mark.parametrize("path", [
    f"{WELL_KNOWN}/calc/%0d%0aX:1",
    f"{WELL_KNOWN}/calc/%00",
    f"{WELL_KNOWN}/calc//evil.example/x",
    f"{WELL_KNOWN}/calc/anything/else",
    f"{WELL_KNOWN}/calc/mcp//",
    f"{WELL_KNOWN}/calc/mcpx",
    f"{WELL_KNOWN}/calc/tools/add",
    f"{WELL_KNOWN}/calc/" + "a" * 20_000,
    f"/calc{WELL_KNOWN}/%0d%0aX:1",
    f"/calc{WELL_KNOWN}//evil.example/x",
    f"/calc{WELL_KNOWN}/elsewhere",
    f"/calc{WELL_KNOWN}/" + "b" * 20_000,
])
def test_any_other_path_is_a_404_that_echoes_nothing(base: str, path: str) -> None:
    status, body = get(base, path)
    assert status == 404, body[:300]
    message = json.loads(body)["error"]
    for echoed in ("evil", "X:1", "aaaa", "bbbb", "elsewhere"):
        assert echoed not in message
    assert "this server's metadata is at " in message
