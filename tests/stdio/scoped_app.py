"""The authorization page's lab-tools server (a token check with per-user scopes, a tool needing
``lab:write``), served over stdio by the authorization tests; ``SCOPED_APP_AUTH=0`` builds it
without ``auth=``. Run as a script it serves over stdio itself (``server.run(transport="stdio")``)."""

from __future__ import annotations

import os

from nanohubmcp import Context, MCPServer, Principal

USERS = {
    "alice-token": Principal("alice", frozenset({"lab:write"})),
    "bob-token": Principal("bob"),
}


def check(token: str) -> Principal | None:
    return USERS.get(token)


server = MCPServer("lab-tools", auth=check) if os.environ.get("SCOPED_APP_AUTH", "1") == "1" else MCPServer("lab")


@server.tool(scopes=["lab:write"])
def reset_instrument(ctx: Context) -> str:
    """Reset the instrument (alice may; bob is refused)."""
    return f"reset by {ctx.principal.subject}"


@server.tool()
def whoami(ctx: Context) -> str:
    """The caller's subject, or "anonymous"."""
    return ctx.principal.subject if ctx.principal is not None else "anonymous"


if __name__ == "__main__":
    server.run(transport="stdio")
