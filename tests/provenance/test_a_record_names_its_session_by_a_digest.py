"""A provenance record, and the RO-Crate exported from it, name the caller's session by a digest
of its id (the first 12 hex digits of its SHA-256, as the access log does), never the id itself:
without authorization the ``Mcp-Session-Id`` is the credential that tells callers apart. Through a
real server and the official ``mcp`` client.

Found by a security trial (trial14 F2): ``provenance.json`` of an exported crate — meant for
publication — carried the raw session id, so its reader could act as that live session.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from support import serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.anyio


async def test_the_record_and_the_crate_hold_a_digest_of_the_session_id(tmp_path: Path) -> None:
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    seen: set[str] = set()

    async def note_session(response: httpx.Response) -> None:
        if "mcp-session-id" in response.headers:
            seen.add(response.headers["mcp-session-id"])

    server = MCPServer("session-digest", state_dir=str(tmp_path / "state"))

    @server.tool()
    def double(x: float) -> float:
        """Twice x."""
        return 2 * x

    with serve(server) as url:
        async with (
            httpx.AsyncClient(event_hooks={"response": [note_session]}) as http,
            streamable_http_client(url + "mcp", http_client=http) as streams,
            ClientSession(streams[0], streams[1]) as client,
        ):
            await client.initialize()
            result = await client.call_tool("double", {"x": 2})
        uri = result.meta["io.nanohub/provenance"]
        record = server.core.provenance.find(uri.rsplit("/", 1)[1])
        crate = server.export_provenance(uri, tmp_path / "crate")
    (session_id,) = seen
    assert record is not None
    assert record["session"] == hashlib.sha256(session_id.encode()).hexdigest()[:12]
    for path in crate.rglob("*"):
        if path.is_file():
            assert session_id.encode() not in path.read_bytes(), path
