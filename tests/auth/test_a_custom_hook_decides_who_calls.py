"""``MCPServer(auth=function)``: a hub's own token check (sync or ``async``) decides; it returns a
subject, a Principal, True, or None/False to refuse."""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from support import serve

from nanohubmcp import Context, MCPServer, Principal
from nanohubmcp.errors import ConfigurationError


def who(auth: object) -> MCPServer:
    server = MCPServer("hooked", auth=auth)

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The caller."""
        assert ctx.principal is not None
        return f"{ctx.principal.subject} {sorted(ctx.principal.scopes)}"

    return server


def call(url: str, token: str) -> httpx2.Response:
    return httpx2.post(url + "tools/whoami", json={}, headers={"Authorization": f"Bearer {token}"}, timeout=10)


def sync_check(token: str) -> object:
    return {"hub-alice": "alice", "hub-bob": Principal("bob", frozenset({"admin"})), "hub-any": True}.get(token)


async def async_check(token: str) -> object:
    await asyncio.sleep(0)  # e.g. an HTTP call to the hub's own token endpoint
    return sync_check(token)


@pytest.mark.parametrize("check", [sync_check, async_check])
def test_the_hook_names_the_caller_or_refuses(check: object) -> None:
    with serve(who(check)) as url:
        assert call(url, "hub-alice").json()["result"] == "alice []"
        assert call(url, "hub-bob").json()["result"] == "bob ['admin']"
        assert call(url, "hub-any").json()["result"] == "user []"
        refused = call(url, "nope")
        assert refused.status_code == 401
        assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]


def test_a_hook_returning_something_else_is_a_server_error_not_an_open_door() -> None:
    with serve(who(lambda token: 42)) as url:
        assert call(url, "anything").status_code == 500


def test_auth_must_be_a_verifier_a_function_or_a_token() -> None:
    with pytest.raises(ConfigurationError, match="verify"):
        MCPServer("bad", auth=42)
