"""An allowed origin (``run(allowed_origins=[...])``, ``--allowed-origins``) is checked by one rule and kept
as browsers send it in ``Origin``: ``scheme://host[:port]``, http or https, a name in another script in its
ASCII (IDNA) form, lower case, no default port; anything else is a ``ConfigurationError`` (a usage error on
the command line). ``"*"``, alone or in the list, still admits any origin.

Found by a fresh-user trial (trial42 T42-16): ``--allowed-origins http://bücher.example`` was accepted, then
every browser request from it (``Origin: http://xn--bcher-kva.example``) got 403 and every request by that
host 421; the Python option checked nothing (``ftp://x.org``, ``http://x.org/path``, ``*.example``).
Also (T42-10) a name is one host with or without its final dot.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import refused_run, serve
from transports.raw_http import Http

from nanohubmcp import ConfigurationError, MCPServer
from nanohubmcp.transports.public_url import checked_origin

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("given", ["http://bücher.example", "http://BÜCHER.example/", "http://b%C3%BCcher.example"])
def test_an_idn_origin_admits_the_browser_that_sends_its_ascii_form(given: str) -> None:
    server = MCPServer("idn")
    with serve(server, allowed_origins=[given]), Http(f"http://127.0.0.1:{server.port}/") as http:
        for origin in ("http://xn--bcher-kva.example", "http://xn--bcher-kva.example."):
            answer = http.request("POST", "/mcp", INIT, {**HEADERS, "Host": "xn--bcher-kva.example",
                                                         "Origin": origin})
            assert answer.status == 200, answer.raw
        assert http.get("/.well-known/mcp.json", {"Host": "xn--bcher-kva.example."}).status == 200
        foreign = http.request("POST", "/mcp", INIT, {**HEADERS, "Origin": "http://other.example"})
        assert foreign.status == 403


@pytest.mark.parametrize(("given", "kept"), [
    ("https://App.Example.org:443/", "https://app.example.org"),
    ("http://x.org:80", "http://x.org"),
    ("http://x.org:8080", "http://x.org:8080"),
    ("http://[::1]:8000", "http://[::1]:8000"),
])
def test_an_origin_is_kept_as_browsers_send_it(given: str, kept: str) -> None:
    assert checked_origin(given) == kept


@pytest.mark.parametrize("given", ["ftp://x.org", "http://x.org/path", "*.example", "http://*.example",
                                   "http://straße.de", "http://u@x.org", "x.org", "http://x.org?q",
                                   "http://xn--zz.example", "http://x.org:0"])
def test_run_refuses_what_is_no_origin(given: str) -> None:
    server = MCPServer("bad")
    try:
        with pytest.raises(ConfigurationError, match=r"^allowed_origins '") as caught:
            server.start(port=0, allowed_origins=["https://fine.example", given])
    finally:
        server.stop()  # (before the fix it started)
    assert "\n" not in str(caught.value)


def test_a_star_in_the_list_still_admits_any_origin() -> None:
    server = MCPServer("any")
    with serve(server, allowed_origins=["*"]), Http(f"http://127.0.0.1:{server.port}/") as http:
        answer = http.request("POST", "/mcp", INIT, {**HEADERS, "Origin": "http://anything.example"})
        assert answer.status == 200, answer.raw


def test_the_command_refuses_a_wildcard_origin_as_a_usage_error(tmp_path: Path) -> None:
    stderr = refused_run(tmp_path, "--allowed-origins", "*.example")
    assert "argument --allowed-origins: '*.example' is not an origin" in stderr
