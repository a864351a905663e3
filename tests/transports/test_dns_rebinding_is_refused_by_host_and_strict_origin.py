"""Issue 13 § 1: DNS rebinding is refused.

A loopback-bound server answered ``Host: evil.example:PORT`` with 200 and then advertised
``servers: [{"url": "http://evil.example:PORT"}]`` in ``/openapi.json``; and
``Origin: http://localhost:8000.evil.example`` passed the Origin check because only the parsed
host name was looked at. Now a loopback-bound server serves only loopback names, the public
URL's host and the hosts of listed origins (421 otherwise), an Origin must be exactly
``scheme://host[:port]``, and the OpenAPI document never names a host the server did not check.

Source: MCP 2025-11-25, Transports § Security Warning; RFC 6454 § 7; RFC 9110 § 7.2, § 15.5.20.
"""

from __future__ import annotations

import pytest
from support import serve
from transports.raw_http import Http

from nanohubmcp import MCPServer
from nanohubmcp.transports.config import TransportConfig
from nanohubmcp.transports.origin import host_allowed, origin_allowed


def build() -> MCPServer:
    server = MCPServer("rebinding")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    return server


INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}


@pytest.mark.parametrize("path", ["/mcp", "/openapi.json", "/tools/add", "/sse", "/.well-known/mcp.json"])
def test_a_foreign_host_gets_421_on_every_route_of_a_loopback_server(path: str) -> None:
    with serve(build()) as url, Http(url) as http:
        port = http.port
        reply = http.request(
            "POST" if path in ("/mcp", "/tools/add") else "GET",
            path,
            {"a": 1, "b": 2} if path == "/tools/add" else None,
            {"Host": f"evil.example:{port}", "Content-Type": "application/json"},
        )
        assert reply.status == 421
        error = reply.json["error"]  # the REST route's {"error": text}, the others' JSON-RPC error
        assert "evil.example" in (error if isinstance(error, str) else error["message"])


@pytest.mark.parametrize("path", ["/mcp", "/tools/add", "/sse"])
def test_an_invalid_origin_is_403_even_when_the_host_is_refused_too(path: str) -> None:
    """The spec's MUST for Origin comes first: a rebinding page sends both a foreign Origin and Host."""
    with serve(build()) as url, Http(url) as http:
        headers = {
            "Host": f"evil.example:{http.port}",
            "Origin": "http://evil.example",
            "Content-Type": "application/json",
        }
        reply = http.request(
            "GET" if path == "/sse" else "POST", path, {"a": 1, "b": 2} if path == "/tools/add" else None, headers
        )
        assert reply.status == 403, reply.body
        error = reply.json["error"]
        assert "origin http://evil.example is not allowed" in (error if isinstance(error, str) else error["message"])
        headers["Origin"] = f"http://127.0.0.1:{http.port}"  # an allowed Origin: the Host check answers
        reply = http.request(
            "GET" if path == "/sse" else "POST", path, {"a": 1, "b": 2} if path == "/tools/add" else None, headers
        )
        assert reply.status == 421, reply.body


def test_loopback_names_and_the_public_host_are_served_and_openapi_names_only_them() -> None:
    server = build()
    with (
        serve(server, public_url="https://hub.example.org/weber/1/abc/"),
        Http(f"http://127.0.0.1:{server.port}/") as http,
    ):
        for host in (f"127.0.0.1:{http.port}", f"localhost:{http.port}", "[::1]", "hub.example.org"):
            reply = http.rpc("initialize", INIT, path="/mcp", headers={"Host": host})
            assert reply.status == 200, (host, reply.body)
        reply = http.get("/openapi.json", {"Host": "hub.example.org"})
        assert reply.json["servers"] == [{"url": "https://hub.example.org/weber/1/abc"}]
        assert http.get("/openapi.json", {"Host": "evil.example"}).status == 421


def test_an_origin_is_parsed_strictly() -> None:
    config = TransportConfig()
    assert origin_allowed("http://localhost:8000", config)
    assert origin_allowed("http://127.0.0.1", config)
    assert origin_allowed("http://[::1]:9", config)
    for hostile in (
        "http://localhost:8000.evil.example",
        "http://localhost.evil.example",
        "http://localhost@evil.example",
        "http://evil.example#@localhost",
        "http://localhost:8000/x",
        "http://127.0.0.1:80:80",
        "null",
        "ftp://localhost",
        "http://localhost:999999",
    ):
        assert not origin_allowed(hostile, config), hostile


def test_the_host_check_applies_only_to_loopback_bound_servers() -> None:
    loopback = TransportConfig(
        loopback_bound=True, public_url="https://hub.example.org/x/", allowed_origins=["https://app.example.net"]
    )
    assert host_allowed("127.0.0.1:8000", loopback)
    assert host_allowed("hub.example.org", loopback)
    assert host_allowed("app.example.net:443", loopback)
    for hostile in ("evil.example:8000", "localhost:8000.evil.example", "127.0.0.1 evil", "", "a@b"):
        assert not host_allowed(hostile, loopback), hostile
    assert host_allowed("evil.example:8000", TransportConfig(loopback_bound=False))
    assert host_allowed("evil.example:8000", TransportConfig(loopback_bound=True, allowed_origins="*"))


def test_a_server_on_all_interfaces_never_advertises_a_host_name_it_was_sent() -> None:
    with serve(build(), host="0.0.0.0") as url, Http(url.replace("0.0.0.0", "127.0.0.1")) as http:
        reply = http.get("/openapi.json", {"Host": f"evil.example:{http.port}"})
        assert reply.status == 200
        assert reply.json["servers"] == [{"url": "/"}]
        reply = http.get("/openapi.json", {"Host": f"127.0.0.1:{http.port}"})
        assert reply.json["servers"] == [{"url": f"http://127.0.0.1:{http.port}"}]


def test_a_keep_alive_connection_is_checked_again_when_its_origin_or_host_changes() -> None:
    """Issue 28: a connection's last (Origin, Host) that passed skips the checks on its next request;
    any other pair on the same connection is checked, and refused, as on a fresh one."""
    with serve(build()) as url, Http(url) as http:
        good = {"Origin": f"http://127.0.0.1:{http.port}", "Content-Type": "application/json"}
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}
        assert http.request("POST", "/mcp", init, good).status == 200
        assert http.request("POST", "/mcp", init, good).status == 200  # same pair: the remembered pass
        assert http.request("POST", "/mcp", init, {**good, "Origin": "http://evil.example"}).status == 403
    with serve(build()) as url, Http(url) as http:
        good = {"Content-Type": "application/json"}
        assert http.request("POST", "/mcp", init, good).status == 200
        assert http.request("POST", "/mcp", init, {**good, "Host": f"evil.example:{http.port}"}).status == 421
