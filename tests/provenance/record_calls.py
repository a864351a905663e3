"""Plain Streamable HTTP requests for the tests of provenance records whose session ended: call a
tool in a session and get its record's URI, read a record in a session (``resources/read``) or
without one (a 2026-07-28 request). Sessions are opened and ended with ``jobs.session_calls.Caller``.
"""

from __future__ import annotations

import itertools
from typing import Any

import httpx2 as httpx  # the official client's HTTP library (installed with mcp)
from jobs.session_calls import Caller

PROVENANCE_META = "io.nanohub/provenance"
MODERN = "2026-07-28"
REQUEST_IDS = itertools.count(100)
"""A new JSON-RPC id for every request (a server sharing Redis answers a repeated id of a session
from its record of the first answer)."""


class RecordCaller(Caller):
    """A :class:`Caller` that also reads provenance records."""

    def _post(self, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        message = {"jsonrpc": "2.0", "id": next(REQUEST_IDS), "method": method, "params": params}
        reply = httpx.post(self.base + "mcp", headers={**self._headers(session), "Accept": "application/json"},
                           timeout=10, json=message)
        assert reply.status_code == 200, reply.text
        return dict(reply.json())

    def recorded(self, session: str, name: str, arguments: dict[str, Any]) -> str:
        """``tools/call`` in ``session``; the URI of the call's provenance record."""
        answer = self._post(session, "tools/call", {"name": name, "arguments": arguments})
        return str(answer["result"]["_meta"][PROVENANCE_META])

    def reads(self, session: str, uri: str) -> bool:
        """Whether ``resources/read`` of ``uri`` in ``session`` answers the record (else: not found)."""
        answer = self._post(session, "resources/read", {"uri": uri})
        if "error" in answer:
            assert "not found" in answer["error"]["message"].lower(), answer
            return False
        return bool(answer["result"]["contents"][0]["text"])

    def reads_without_session(self, uri: str) -> bool:
        """Whether a 2026-07-28 ``resources/read`` (no session) answers the record."""
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}
        headers = {"Accept": "application/json", "MCP-Protocol-Version": MODERN, "Mcp-Method": "resources/read",
                   "Mcp-Name": uri, **self.auth}
        message = {"jsonrpc": "2.0", "id": next(REQUEST_IDS), "method": "resources/read",
                   "params": {"uri": uri, "_meta": meta}}
        reply = httpx.post(self.base + "mcp", headers=headers, timeout=10, json=message)
        assert reply.status_code in (200, 401, 404), reply.text  # 401: a server with authorization
        answer = reply.json()
        return "result" in answer
