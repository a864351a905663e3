"""Authorization for the HTTP transports: token verifiers that turn a bearer token into a
:class:`~nanohubmcp.server.wire.principal.Principal`.

MCP 2025-06-18 onward, Authorization: an MCP server reachable over HTTP is an OAuth 2.1
resource server. It checks the ``Authorization: Bearer <token>`` header of every request with
one verifier; the transports do that at the edge and the core only sees the principal.
"""
