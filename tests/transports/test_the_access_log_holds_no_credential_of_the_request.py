"""The access log never writes a credential a request carried in its URL (trial6 F11).

A Jupyter ``?token=`` reaching the server through a proxy route (``proxy/<port>/mcp?token=…``),
an ``access_token`` query parameter, and a legacy SSE ``session_id`` (the capability to post into
that session's stream) were written verbatim into the ``nanohubmcp.access`` line; the line now
names the token parameters with ``<redacted>`` and the session by the digest its ``session=``
field already used.
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import time
from urllib.parse import urlsplit

import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.transports.access_log import redacted_uri

JUPYTER_TOKEN = "JUPYTOKEN777secret"
ACCESS_TOKEN = "ACCESS999secret"
SESSION_ID = "PVpUOlI4y4X5NVbvhQ2lYPb40wWms2RNWsmAm-Je_9o"


def access_lines(caplog: pytest.LogCaptureFixture, count: int) -> list[str]:
    deadline = time.monotonic() + 10
    while True:
        lines = [r.getMessage() for r in caplog.records if r.name == "nanohubmcp.access"]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.01)


def test_query_credentials_and_the_legacy_session_id_stay_out_of_the_access_log(caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="nanohubmcp.access")
    server = MCPServer("logged")
    with serve(server) as url:
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
        ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        for path in (f"/mcp?token={JUPYTER_TOKEN}&x=1", f"/?access_token={ACCESS_TOKEN}",
                     f"/messages/?session_id={SESSION_ID}"):
            conn.request("POST", path, body=ping, headers=headers)
            conn.getresponse().read()
        conn.close()
        lines = access_lines(caplog, 3)
    assert len(lines) == 3, lines
    text = "\n".join(lines)
    for secret in (JUPYTER_TOKEN, ACCESS_TOKEN, SESSION_ID):
        assert secret not in text
    digest = hashlib.sha256(SESSION_ID.encode()).hexdigest()[:12]
    assert "POST /mcp?token=<redacted>&x=1 (127.0.0.1)" in lines[0]
    assert "POST /?access_token=<redacted>" in lines[1]
    assert f"POST /messages/?session_id=#{digest} (127.0.0.1)" in lines[2]
    assert lines[2].endswith(f"session={digest}")


@pytest.mark.parametrize(("uri", "logged"), [
    ("/mcp", "/mcp"),
    ("/mcp?a=1&b", "/mcp?a=1&b"),
    ("/x?Jupyter_Token=abc&id_token=d", "/x?Jupyter_Token=<redacted>&id_token=<redacted>"),
    ("/x?client_secret=s&api_key=k&page=2", "/x?client_secret=<redacted>&api_key=<redacted>&page=2"),
    ("/x?%74oken=abc", "/x?%74oken=<redacted>"),
    # A path parameter (a fresh-user trial: written to the log verbatim).
    ("/tools/echo;token=SECRET", "/tools/echo;token=<redacted>"),
    ("/a;v=1;api_key=K/b;x?token=t", "/a;v=1;api_key=<redacted>/b;x?token=<redacted>"),
])
def test_redacted_uri_keeps_what_is_not_a_credential(uri: str, logged: str) -> None:
    assert redacted_uri(uri) == logged
