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


@pytest.mark.parametrize("given", ["http://Bücher.Example/", "http://bücher.EXAMPLE/", "http://BÜCHER.example/",
                                   "http://b%C3%BCcher.example/", "http://B%c3%9cCHER.Example/"])
def test_a_name_in_any_case_or_percent_encoded_is_taken_in_its_ascii_form(given: str) -> None:
    """DNS names are the same in any case, and a URL's host may percent-encode its UTF-8 (review r21 L1: a
    mixed-case name was refused as having no ASCII form; a percent-encoded one kept as written, so every
    request, naming it ``xn--bcher-kva.example``, got 421)."""
    assert checked_public_url(given) == "http://xn--bcher-kva.example/"
    assert checked_public_url(given[:-1] + ":8080/") == "http://xn--bcher-kva.example:8080/"


def test_an_ascii_name_percent_encoded_is_taken_decoded() -> None:
    assert checked_public_url("http://%74ools.example.org/me") == "http://tools.example.org/me/"


@pytest.mark.parametrize("given", ["http://b%FCcher.example/", "http://a%2Fb.example/", "http://a%20b.example/",
                                   "http://a%2541.example/", "http://a%C2%85b.example/", "http://a%3A80.example/"])
def test_a_percent_encoded_host_that_decodes_to_no_name_is_refused_in_one_line(given: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        checked_public_url(given)
    text = str(caught.value)
    assert "percent-encoded" in text
    assert "\n" not in text


def test_a_percent_encoded_name_is_served_by_its_ascii_name() -> None:
    server = MCPServer("idn-escaped")
    with serve(server, public_url="http://b%C3%BCcher.example/") as url, \
            Http(f"http://127.0.0.1:{server.port}/") as http:
        assert url == "http://xn--bcher-kva.example/"
        headers = {"Host": "xn--bcher-kva.example", "Origin": "http://xn--bcher-kva.example",
                   "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        assert http.request("POST", "/mcp", INIT, headers).status == 200


@pytest.mark.parametrize("given", ["http://xn--zz.example/", "http://xn--ss-xxx.de/", "http://a.XN--ZZ.example/"])
def test_an_xn_label_that_spells_no_name_is_refused(given: str) -> None:
    """trial42 T42-10: ``xn--zz`` is no Punycode and ``xn--ss-xxx`` spells a symbol; both were advertised."""
    with pytest.raises(ConfigurationError, match="spells no name"):
        checked_public_url(given)
    assert checked_public_url("http://XN--BCHER-KVA.example/") == "http://XN--BCHER-KVA.example/"


@pytest.mark.parametrize(("public", "host"), [("http://example.com./", "example.com"),
                                              ("http://example.com/", "example.com."),
                                              ("http://bücher.example/", "xn--bcher-kva.example.")])
def test_a_name_with_or_without_its_final_dot_is_one_host(public: str, host: str) -> None:
    """trial42 T42-10: ``http://example.com./`` answered only ``Host: example.com.`` (421 without the dot)."""
    server = MCPServer("dot")
    with serve(server, public_url=public), Http(f"http://127.0.0.1:{server.port}/") as http:
        assert http.get("/.well-known/mcp.json", {"Host": host}).status == 200
        headers = {"Host": host, "Origin": f"http://{host}", "Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream"}
        assert http.request("POST", "/mcp", INIT, headers).status == 200
