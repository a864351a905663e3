"""The principal a verifier established reaches the function's ``ctx``; without
authorization configured it is None."""

from __future__ import annotations

import pytest
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer, Principal


def test_a_principal_parses_scopes_from_a_string_or_a_list() -> None:
    assert Principal("alice", "read  write").scopes == frozenset({"read", "write"})  # type: ignore[arg-type]
    assert Principal("alice", ["read"]).scopes == frozenset({"read"})  # type: ignore[arg-type]
    principal = Principal("alice", frozenset({"read"}))
    assert principal.has_scopes(["read"])
    assert not principal.has_scopes(["read", "write"])
    assert principal.missing_scopes(["write", "read", "admin"]) == ["write", "admin"]


def test_a_principal_needs_a_subject_and_string_scopes() -> None:
    with pytest.raises(ValueError, match="subject"):
        Principal("")
    with pytest.raises(ValueError, match="scopes"):
        Principal("alice", 5)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_without_authorization_ctx_principal_is_none() -> None:
    server = MCPServer("anon")

    @server.tool()
    def who(ctx: Context) -> str:
        return repr(ctx.principal)

    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            result = await session.call_tool("who", {})
    assert result.content[0].text == "None"
