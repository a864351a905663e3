"""The app the stdio JWT tests start (``nanohubmcp run lab_app.py --transport stdio``): a ``JWTVerifier`` for the
test issuer named by ``$LAB_ISSUER`` and ``$LAB_JWKS``, audience ``urn:lab-tools``, no leeway (a token is refused
the second its ``exp`` passes), so the caller is whoever the JWT in ``$MCP_TOKEN`` names."""

from __future__ import annotations

import os

from nanohubmcp import Context, JWTVerifier, MCPServer

server = MCPServer(
    "lab-tools",
    auth=JWTVerifier(
        issuer=os.environ["LAB_ISSUER"], jwks_url=os.environ["LAB_JWKS"], audience="urn:lab-tools", leeway=0
    ),
)


@server.tool()
def whoami(ctx: Context) -> str:
    """The caller's subject."""
    return ctx.principal.subject


@server.tool(scopes=["lab:write"])
def reset_instrument(ctx: Context) -> str:
    """Reset the instrument (needs the lab:write scope)."""
    return f"reset by {ctx.principal.subject}"
