"""A server under a path prefix answers its RFC 9728 metadata also where RFC 9728 § 3.1 puts it for a
resource with a path: ``/.well-known/oauth-protected-resource/<prefix>`` at the host's root, which a
client may probe before any 401 (trial16 F14: only ``<prefix>/.well-known/oauth-protected-resource``
answered). The document's ``resource`` is the prefixed URL either way; another path stays 404.
"""

from __future__ import annotations

import httpx2
from support import serve

from nanohubmcp import MCPServer


def test_the_path_inserted_location_answers_with_the_prefixed_resource() -> None:
    server = MCPServer("prefixed")
    with serve(server, path_prefix="/calc", token="change-me") as url:
        origin = url.split("/calc/")[0]
        inserted = httpx2.get(f"{origin}/.well-known/oauth-protected-resource/calc", timeout=10)
        under = httpx2.get(f"{origin}/calc/.well-known/oauth-protected-resource", timeout=10)
        endpoint = httpx2.get(f"{origin}/.well-known/oauth-protected-resource/calc/mcp", timeout=10)
        other = httpx2.get(f"{origin}/.well-known/oauth-protected-resource/elsewhere", timeout=10)
    assert inserted.status_code == 200, inserted.text
    assert inserted.json()["resource"] == f"{origin}/calc"
    assert under.json()["resource"] == f"{origin}/calc"
    assert endpoint.json()["resource"] == f"{origin}/calc/mcp"
    assert other.status_code in (401, 404)  # not this server's metadata
