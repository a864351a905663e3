"""The server's log lines about a request write the configured path prefix as ``<prefix>`` (review r40 R40-7).

Behind nanoHUB's weber proxy the prefix is ``/weber/<session>/<cookie>/<n>``, and the cookie is the session's
secret; the access line (DEBUG, a 5xx at WARNING) wrote the request's path whole:
``503 GET /weber/4242/abc123SECRETcookie/18/mcp (127.0.0.1)``. The ready banner still prints the full URL: it
is the address the user needs.
"""

from __future__ import annotations

import http.client
import logging
import time
from urllib.parse import urlsplit

import pytest
from support import serve

from nanohubmcp import MCPServer, Principal
from nanohubmcp.errors import ServerBusy
from nanohubmcp.transports.access_log import logged_uri

COOKIE = "abc123SECRETcookie"
PREFIX = f"/weber/4242/{COOKIE}/18"


class Busy:
    """A verifier that cannot judge a token now: every request with one is a 503 (a 5xx, logged at WARNING)."""

    def verify(self, token: str) -> Principal | None:
        raise ServerBusy("the key set cannot be read now", retry_after=7)


def test_no_log_record_of_a_request_holds_the_prefix(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(MCPServer("weber-logged", auth=Busy()), path_prefix=PREFIX) as url:
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
        caplog.clear()  # (the ready banner prints the URL on purpose)
        sent = [("GET", f"{PREFIX}/healthz", {}), ("POST", f"{PREFIX}/mcp?x=1", {"Authorization": "Bearer t"}),
                ("GET", "/weber/4242/abc123SECRETcookie/%31%38/healthz", {}), ("GET", f"{PREFIX}x/nope", {})]
        for method, path, headers in sent:
            conn.request(method, path, body=b"{}" if method == "POST" else None, headers=headers)
            conn.getresponse().read()
        conn.close()
        deadline = time.monotonic() + 10
        while len([r for r in caplog.records if r.name == "nanohubmcp.access"]) < len(sent):
            assert time.monotonic() < deadline, caplog.text
            time.sleep(0.01)
    access = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "nanohubmcp.access"]
    assert access[0][1].startswith("200 GET <prefix>/healthz (127.0.0.1)")
    assert access[1][0] == logging.WARNING
    assert access[1][1].startswith("503 POST <prefix>/mcp?x=1 (127.0.0.1)")
    assert access[2][1].startswith("200 GET <prefix>/healthz")  # the prefix in another spelling is the prefix
    assert "18x/nope" in access[3][1]  # not the prefix (it ends mid-segment): written as sent
    holding = [r.getMessage() for r in caplog.records if COOKIE in r.getMessage()]
    assert holding == [access[3][1]]


@pytest.mark.parametrize(("uri", "logged"), [
    (f"{PREFIX}", "<prefix>"),
    (f"{PREFIX}/", "<prefix>/"),
    (f"{PREFIX}?token=t", "<prefix>?token=<redacted>"),
    (f"{PREFIX};token=t/mcp", "<prefix>;token=<redacted>/mcp"),
    ("/weber/4242/%61bc123SECRETcookie/18/sse", "<prefix>/sse"),
    (f"/x{PREFIX}/mcp", f"/x{PREFIX}/mcp"),  # only at the start
    (f"/mcp?next={PREFIX}", f"/mcp?next={PREFIX}"),
])
def test_logged_uri_writes_the_prefix_at_the_start_of_the_path(uri: str, logged: str) -> None:
    assert logged_uri(uri, PREFIX) == logged
