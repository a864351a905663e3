"""Tornado transports: Streamable HTTP, legacy HTTP+SSE, JSON-RPC ``POST /``, REST + OpenAPI,
the info and discovery documents, stdio. The runner that owns the HTTP server is ``nanohubmcp.serving``'s, the
process around a serve (ports, signals, drain, exit, ``--workers``) ``nanohubmcp.processes``'.

Transports frame messages and manage streams; they know nothing of MCP methods beyond what the
HTTP binding itself names (``initialize`` opens a session, headers mirror the body).
"""

from __future__ import annotations
