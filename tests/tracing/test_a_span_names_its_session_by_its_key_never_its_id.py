"""A span's ``mcp.session.id`` is the session's key (the SHA-256 of its id, as provenance and job
records keep it), never the ``Mcp-Session-Id`` itself: without authorization that id is the
session's credential, and whoever reads a (often shared) trace backend could take the session over.

Found by a fresh-user trial (trial28 T15): the docs' traced server exported the raw id the client held.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import httpx2
import otel_sdk
import pytest
from support import serve
from traced_app import server

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def url() -> Iterator[str]:
    with serve(server) as base:
        yield base


def test_spans_carry_the_sessions_key_and_nowhere_its_id(url: str) -> None:
    otel_sdk.clear()
    opened = httpx2.post(url + "mcp", json={
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }, timeout=10)  # fmt: skip
    session_id = opened.headers["Mcp-Session-Id"]
    headers = {"Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-11-25"}
    httpx2.post(url + "mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers,
                timeout=10)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}
    answer = httpx2.post(url + "mcp", json=call, headers=headers, timeout=10).json()
    assert answer["result"]["content"][0]["text"] == "3"

    spans = otel_sdk.finished()
    (traced,) = [s for s in spans if s["name"] == "tools/call add"]
    assert traced["attributes"]["mcp.session.id"] == hashlib.sha256(session_id.encode()).hexdigest()
    for span in spans:
        for name, value in span["attributes"].items():
            assert session_id not in str(value), (span["name"], name)
