"""The official ``mcp`` client and the fastmcp client connect with a static bearer token and
with a JWT from a test issuer whose JWKS is served on loopback; the tool sees the principal."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from issuer import Issuer
from support import serve

from nanohubmcp import Context, JWTVerifier, MCPServer, StaticTokenVerifier

TOKEN = "tok-123"


def whoami_server(**options: Any) -> MCPServer:
    server = MCPServer("whoami", **options)

    @server.tool()
    def whoami(ctx: Context) -> str:
        principal = ctx.principal
        assert principal is not None
        return json.dumps({"subject": principal.subject, "scopes": sorted(principal.scopes)})

    return server


@contextlib.asynccontextmanager
async def official(url: str, token: str | None, transport: str = "http") -> AsyncIterator[Any]:
    """An initialized official ClientSession sending ``Authorization: Bearer <token>``."""
    from mcp import ClientSession
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with contextlib.AsyncExitStack() as stack:
        if transport == "sse":
            from mcp.client.sse import sse_client

            streams = await stack.enter_async_context(sse_client(url + "sse", headers=headers, timeout=10))
        else:
            from mcp.client.streamable_http import streamable_http_client

            client = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            streams = await stack.enter_async_context(streamable_http_client(url + "mcp", http_client=client))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await session.initialize()
        yield session


async def whoami(session: Any) -> dict[str, Any]:
    result = await session.call_tool("whoami", {})
    assert not result.is_error, result
    return json.loads(result.content[0].text)


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_the_official_client_connects_with_a_static_token(transport: str) -> None:
    server = whoami_server(auth=StaticTokenVerifier({TOKEN: "notebook-user"}, scopes="tools"))
    with serve(server) as url:
        async with official(url, TOKEN, transport) as session:
            assert await whoami(session) == {"subject": "notebook-user", "scopes": ["tools"]}


@pytest.mark.anyio
async def test_the_official_client_without_the_token_is_refused_with_401() -> None:
    server = whoami_server()
    with serve(server, token=TOKEN) as url:
        with pytest.raises(Exception) as caught:  # noqa: PT011 (the SDK wraps the HTTP error in a group)
            async with official(url, None):
                pass
        assert "401" in repr(caught.value) or "Unauthorized" in repr(caught.value)


@pytest.mark.anyio
async def test_the_official_client_connects_with_a_jwt(issuer: Issuer) -> None:
    server = whoami_server(auth=JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url))
    with serve(server) as url:
        token = issuer.mint(url.rstrip("/"), subject="alice", scope="read write")
        async with official(url, token) as session:
            assert await whoami(session) == {"subject": "alice", "scopes": ["read", "write"]}
            assert await whoami(session) == {"subject": "alice", "scopes": ["read", "write"]}
    assert issuer.fetches == 1  # the key set is cached


@pytest.mark.anyio
async def test_the_fastmcp_client_connects_with_a_token_and_with_a_jwt(issuer: Issuer) -> None:
    from fastmcp import Client

    server = whoami_server(auth=JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url))
    with serve(server) as url:
        token = issuer.mint(url.rstrip("/"), subject="bob", scope="read")
        async with Client(url + "mcp", auth=token) as client:
            result = await client.call_tool("whoami", {})
            assert json.loads(result.content[0].text) == {"subject": "bob", "scopes": ["read"]}
    server = whoami_server()
    with serve(server, token=TOKEN) as url:
        async with Client(url + "mcp", auth=TOKEN) as client:
            result = await client.call_tool("whoami", {})
            assert json.loads(result.content[0].text)["subject"] == "token"


def post_initialize(url: str, token: str) -> int:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    response = httpx2.post(
        url + "mcp", json=body, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"}, timeout=10
    )
    return response.status_code


def test_a_jwt_for_another_audience_issuer_or_key_or_an_expired_one_is_refused(
    issuer: Issuer, forged_key: rsa.RSAPrivateKey
) -> None:
    server = whoami_server(auth=JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url))
    with serve(server) as url:
        audience = url.rstrip("/")
        # The unknown key id first, so that its request reads the key set (one new since a read is 503).
        assert post_initialize(url, issuer.mint(audience, key=forged_key, kid="unknown")) == 401
        assert post_initialize(url, issuer.mint(audience)) == 200
        assert post_initialize(url, issuer.mint("http://other.example/mcp")) == 401
        assert post_initialize(url, issuer.mint(audience, issuer="http://evil.example")) == 401
        assert post_initialize(url, issuer.mint(audience, lifetime=-3600)) == 401
        assert post_initialize(url, issuer.mint(audience, key=forged_key)) == 401
        assert post_initialize(url, issuer.mint(audience, key=forged_key, kid="unknown")) == 401  # again: still 401
        assert post_initialize(url, "not.a.jwt") == 401
    assert issuer.fetches <= 2  # an unknown kid refetches once, not per request


def test_required_scopes_give_403_insufficient_scope(issuer: Issuer) -> None:
    verifier = JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url, required_scopes="mcp:tools")
    server = whoami_server(auth=verifier)
    with serve(server) as url:
        response = httpx2.post(
            url + "mcp",
            json={},
            headers={"Authorization": f"Bearer {issuer.mint(url.rstrip('/'), scope='read')}"},
            timeout=10,
        )
        assert response.status_code == 403
        challenge = response.headers["WWW-Authenticate"]
        assert 'error="insufficient_scope"' in challenge
        assert 'scope="mcp:tools"' in challenge
        assert "resource_metadata=" in challenge
        assert post_initialize(url, issuer.mint(url.rstrip("/"), scope="mcp:tools")) == 200
        metadata = httpx2.get(url + ".well-known/oauth-protected-resource", timeout=10).json()
        assert metadata["authorization_servers"] == [issuer.url]
        assert metadata["scopes_supported"] == ["mcp:tools"]
        # The 401 names the scope a client should ask for.
        missing = httpx2.post(url + "mcp", json={}, timeout=10)
        assert 'scope="mcp:tools"' in missing.headers["WWW-Authenticate"]


def test_a_jwt_for_the_mcp_endpoint_is_accepted_like_one_for_the_server(issuer: Issuer) -> None:
    server = whoami_server(auth=JWTVerifier(issuer=issuer.url, jwks_url=issuer.jwks_url))
    with serve(server) as url:
        assert post_initialize(url, issuer.mint(url + "mcp")) == 200  # the path-aware metadata's resource
        assert post_initialize(url, issuer.mint(url + "other")) == 401


def test_an_unreachable_key_set_refuses_tokens_with_401_and_is_not_fetched_per_request(issuer: Issuer) -> None:
    token_issuer = issuer
    verifier = JWTVerifier(issuer=token_issuer.url, jwks_url=token_issuer.jwks_url)
    server = whoami_server(auth=verifier)
    with serve(server) as url:
        token = token_issuer.mint(url.rstrip("/"))
        token_issuer.jwks = {"keys": []}  # the issuer's key set is empty (rotated away, misconfigured)
        assert post_initialize(url, token) == 401
        assert post_initialize(url, token) == 401
        assert post_initialize(url, token) == 401
    assert token_issuer.fetches == 1  # refetched at most every 10 s, not per request
