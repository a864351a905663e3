"""A public URL whose host is a name in another script (an IDN) is taken in its ASCII (IDNA, ``xn--``) form:
that is the name clients send in ``Host`` and ``Origin``, and the one the server advertises. A name whose
IDNA 2003 form does not spell it back (``straße``, which browsers write otherwise) is refused in one line
saying to write the ``xn--`` form.

Found by a fresh-user trial (trial41 Q1): ``public_url="http://bücher.example/"`` was accepted and advertised
as written, and every request with ``Host: xn--bcher-kva.example`` (what httpx, curl and browsers send) got 421.
"""

from __future__ import annotations

import pytest
from support import serve
from transports.raw_http import Http

from nanohubmcp import ConfigurationError, MCPServer
from nanohubmcp.transports.public_url import checked_public_url

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def test_the_ascii_name_clients_send_is_served_and_advertised() -> None:
    server = MCPServer("idn")
    with serve(server, public_url="http://bücher.example/") as url, \
            Http(f"http://127.0.0.1:{server.port}/") as http:
        assert url == "http://xn--bcher-kva.example/"
        assert server.public_url == url
        card = http.get("/.well-known/mcp.json", {"Host": "xn--bcher-kva.example"})
        assert card.status == 200, card.raw
        assert b"http://xn--bcher-kva.example/mcp" in card.raw
        headers = {"Host": "xn--bcher-kva.example", "Origin": "http://xn--bcher-kva.example",
                   "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        assert http.request("POST", "/mcp", INIT, headers).status == 200


def test_a_name_without_one_ascii_form_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigurationError) as caught:
        checked_public_url("http://straße.example/")
    text = str(caught.value)
    assert "xn--" in text
    assert "\n" not in text
