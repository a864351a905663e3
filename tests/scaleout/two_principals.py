"""A Redis-backed server with two principals (alice, bob) and a tool that reports progress, for the tests of what
Redis holds of them: :func:`counting_server`, :func:`bearer`."""

from __future__ import annotations

from nanohubmcp import Context, MCPServer, StaticTokenVerifier

TOKENS = {"alice-token": "alice", "bob-token": "bob"}


def bearer(token: str) -> dict[str, str]:
    """The ``Authorization`` header of ``token``."""
    return {"Authorization": f"Bearer {token}"}


def counting_server(url: str, name: str) -> MCPServer:
    """The server ``name`` on the state store ``url``; its tool ``count(n)`` reports n steps of progress."""
    server = MCPServer(name, state_url=url, auth=StaticTokenVerifier(TOKENS))

    @server.tool()
    def count(n: int, ctx: Context) -> str:
        """Report n steps of progress."""
        for i in range(n):
            ctx.report_progress(i + 1, n)
        return "counted"

    return server
