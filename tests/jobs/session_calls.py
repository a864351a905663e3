"""Plain Streamable HTTP requests for the tests of jobs whose session ended: open a session, call a
tool in it, end it with DELETE, and read a job over REST — with a bearer token when given.

``Caller(base)`` speaks to one server at ``base`` (``http://127.0.0.1:PORT/``, trailing slash);
``Held`` is a job function that runs until the test releases it.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx2 as httpx  # the official client's HTTP library (installed with mcp)

VERSION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


class Caller:
    """Requests to the server at ``base``, as the holder of ``token`` (None: no Authorization)."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base
        self.auth = {"Authorization": f"Bearer {token}"} if token else {}

    def _headers(self, session: str | None = None) -> dict[str, str]:
        sent = {"Accept": ACCEPT, "MCP-Protocol-Version": VERSION, **self.auth}
        if session is not None:
            sent["Mcp-Session-Id"] = session
        return sent

    def open(self) -> str:
        """A new initialized session; its id."""
        opened = httpx.post(self.base + "mcp", headers={"Accept": ACCEPT, **self.auth}, timeout=10, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert opened.status_code == 200, opened.text
        session = opened.headers["Mcp-Session-Id"]
        sent = httpx.post(self.base + "mcp", headers=self._headers(session), timeout=10,
                          json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert sent.status_code == 202, sent.text
        return session

    def call(self, session: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``tools/call`` in ``session`` (a JSON answer); the result's JSON text, decoded."""
        reply = httpx.post(self.base + "mcp", headers={**self._headers(session), "Accept": "application/json"},
                           timeout=10, json={"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                             "params": {"name": name, "arguments": arguments}})
        assert reply.status_code == 200, reply.text
        return dict(json.loads(reply.json()["result"]["content"][0]["text"]))

    def status(self, session: str, job_id: str) -> str:
        """The job's status as ``get_job_result`` in ``session`` answers it."""
        return str(self.call(session, "get_job_result", {"job_id": job_id})["status"])

    def end(self, session: str) -> None:
        """DELETE the session (204)."""
        ended = httpx.delete(self.base + "mcp", headers=self._headers(session), timeout=10)
        assert ended.status_code == 204, ended.text

    def rest(self, name: str, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """``POST /tools/<name>`` (no session); status and body."""
        reply = httpx.post(f"{self.base}tools/{name}", json=arguments, headers=self.auth, timeout=10)
        return reply.status_code, reply.json()


class Held:
    """A job function that runs until the test releases it."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.running = threading.Event()

    def __call__(self, n: int) -> dict:
        self.running.set()
        self.release.wait(30)
        return {"held": n}
