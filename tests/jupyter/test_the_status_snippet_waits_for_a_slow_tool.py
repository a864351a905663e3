"""The status's Python snippet (the official SDK over httpx) waits for a tool that answers after more than
5 s without progress: built without ``timeout=``, httpx's 5 s default read timeout cut such a call off with
a bare CancelledError in the client (trial23 F1)."""

from __future__ import annotations

import re

import pytest

from nanohubmcp.jupyter.display import python_snippet

httpx2 = pytest.importorskip("httpx2")


@pytest.mark.parametrize("token", [None, "t"])
def test_the_snippets_http_client_reads_for_minutes(token: str | None) -> None:
    snippet = python_snippet("http://127.0.0.1:8000/mcp", token)
    line = re.search(r"^\s*http = (httpx2\.AsyncClient\(.*\))$", snippet, re.M)
    assert line is not None, snippet
    client = eval(line.group(1), {"httpx2": httpx2, "os": type("env", (), {"environ": {"MCP_TOKEN": "t"}})})
    assert client.timeout.read is not None
    assert client.timeout.read >= 300
