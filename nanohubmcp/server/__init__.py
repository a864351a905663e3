"""The MCP core behind the ``MCPServer`` facade: components, registry, handlers, sessions, jobs.

Nothing here imports Tornado or IPython: a transport hands the connection seam a message's bytes (or an
HTTP body and its headers' values) and gets messages back (:mod:`nanohubmcp.server.connection` is that contract).
"""

from __future__ import annotations
