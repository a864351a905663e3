"""A ``JWTVerifier`` without ``audience=`` accepts exactly the audiences a publisher would register: the
public URL as written (``https://tools.example.org/lab/``, with its trailing slash), the RFC 9728 resource
(the same without it) and the MCP endpoints under it; nothing else that merely starts with them. A token
refused for its audience is said in the log at WARNING (Python's default level) once per token ``aud``,
naming the accepted values, never the token; the client hears only the generic 401 text."""

from __future__ import annotations

import logging

import httpx2
import pytest
from issuer import Issuer
from support import serve

from nanohubmcp import JWTVerifier, MCPServer

PUBLIC = "https://tools.example.org/lab/"
CLIENT_TEXT = "Unauthorized: the bearer token is invalid or expired"


def lab(issuer: Issuer) -> MCPServer:
    server = MCPServer("jwt-aud", auth=JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url))

    @server.tool()
    def hello() -> str:
        """Say hello."""
        return "hello"

    return server


def local(server: MCPServer) -> str:
    """The loopback URL of ``server`` (its ``url`` is the public one)."""
    return f"http://127.0.0.1:{server.port}/"


def status(url: str, token: str) -> tuple[int, str]:
    response = httpx2.post(url + "tools/hello", json={}, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return response.status_code, response.text


def test_the_public_url_with_its_slash_the_resource_and_the_endpoints_are_accepted(issuer: Issuer) -> None:
    server = lab(issuer)
    with serve(server, public_url=PUBLIC):
        url = local(server)
        for audience in (PUBLIC, PUBLIC.rstrip("/"), PUBLIC + "mcp", PUBLIC + "sse"):
            assert status(url, issuer.mint(audience))[0] == 200, audience
        for audience in (PUBLIC + "other", "https://tools.example.org/", "https://tools.example.org/labx",
                         PUBLIC + "mcp/x", "https://tools.example.org/lab//"):
            code, text = status(url, issuer.mint(audience))
            assert (code, CLIENT_TEXT in text) == (401, True), audience


def test_the_bound_address_with_its_slash_is_accepted(issuer: Issuer) -> None:
    with serve(lab(issuer)) as url:
        assert url.endswith("/")
        assert status(url, issuer.mint(url))[0] == 200
        assert status(url, issuer.mint(url.rstrip("/")))[0] == 200


def test_a_refused_audience_is_a_warning_once_per_aud_naming_the_accepted_ones(
    issuer: Issuer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp.auth")
    server = lab(issuer)
    with serve(server, public_url=PUBLIC):
        url = local(server)
        token = issuer.mint("https://idp.example.org/api")
        for _ in range(2):
            assert status(url, token)[0] == 401
        other = issuer.mint("https://elsewhere.example")
        assert status(url, other)[0] == 401
    told = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "nanohubmcp.auth"]
    warnings = [text for level, text in told if level == logging.WARNING]
    assert len(warnings) == 2, told  # the same aud again is INFO
    assert "audience check failed" in warnings[0]
    assert '"https://idp.example.org/api"' in warnings[0]
    assert f'"{PUBLIC}"' in warnings[0]
    assert f'"{PUBLIC}mcp"' in warnings[0]
    assert '"https://elsewhere.example"' in warnings[1]
    assert [level for level, text in told if "idp.example.org" in text] == [logging.WARNING, logging.INFO]
    logged = "\n".join(text for _, text in told)
    assert token not in logged
    assert token.split(".")[-1] not in logged
