"""Raw Streamable HTTP for the scale-out tests: exact control over which process a request
reaches (a server's own port, or nginx) and over event ids."""

from __future__ import annotations

import itertools
import json
import queue
import threading
from typing import Any

import httpx2 as httpx  # the official client's HTTP library (installed with mcp)

VERSION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


def initialize(
    url: str, *, capabilities: dict[str, Any] | None = None, version: str = VERSION, extra: dict[str, str] | None = None
) -> str:
    """Open a session at ``url`` (…/mcp) and send ``notifications/initialized``; its id.
    ``extra``: headers sent with both (an ``Authorization``)."""
    reply = open_session(url, capabilities=capabilities, version=version, extra=extra)
    assert reply.status_code == 200, reply.text
    session = reply.headers["Mcp-Session-Id"]
    notify(url, session, "notifications/initialized", extra=extra)
    return session


def open_session(
    url: str,
    *,
    capabilities: dict[str, Any] | None = None,
    version: str = VERSION,
    extra: dict[str, str] | None = None,
    timeout: float = 10,
) -> httpx.Response:
    """POST ``initialize`` to ``url``; the HTTP response, whatever its status."""
    return httpx.post(
        url,
        headers={"Accept": ACCEPT, **(extra or {})},
        timeout=timeout,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "clientInfo": {"name": "scaleout-test", "version": "1"},
            },
        },
    )


_IDS = itertools.count(1000)


def headers(session: str, **extra: str) -> dict[str, str]:
    return {"Accept": ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION, **extra}


def notify(
    url: str, session: str, method: str, params: dict[str, Any] | None = None, *, extra: dict[str, str] | None = None
) -> None:
    reply = httpx.post(
        url,
        headers={**headers(session), **(extra or {})},
        timeout=10,
        json={"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})},
    )
    assert reply.status_code == 202, reply.text


def call(
    url: str, session: str, method: str, params: dict[str, Any], rid: int | None = None, timeout: float = 30
) -> httpx.Response:
    """POST one request (JSON answer: no Accept of SSE), with ``rid`` or an id of its own (a session's requests in
    progress may not share one: -32600); the HTTP response."""
    rid = next(_IDS) if rid is None else rid
    return httpx.post(
        url,
        headers={**headers(session), "Accept": "application/json"},
        timeout=timeout,
        json={"jsonrpc": "2.0", "id": rid, "method": method, "params": params},
    )


def result(url: str, session: str, method: str, params: dict[str, Any], rid: int = 7) -> dict[str, Any]:
    """POST one request; its result (the test fails on an HTTP error or a JSON-RPC error)."""
    reply = call(url, session, method, params, rid)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert "result" in body, body
    return dict(body["result"])


def tool(url: str, session: str, name: str, arguments: dict[str, Any], rid: int = 7) -> dict[str, Any]:
    reply = call(url, session, "tools/call", {"name": name, "arguments": arguments}, rid)
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


class Events:
    """Reads an SSE response in a thread: ``next(timeout)`` gives ``(event id, message)``;
    ``None`` as the message marks the end of the stream."""

    def __init__(self, method: str, url: str, hdrs: dict[str, str], body: Any = None) -> None:
        self.queue: queue.Queue[tuple[str | None, Any]] = queue.Queue()
        self.status: int | None = None
        self._client = httpx.Client(timeout=httpx.Timeout(10, read=120))
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(method, url, hdrs, body), daemon=True)
        self._thread.start()
        assert self._ready.wait(15), "no response headers"

    def _read(self, method: str, url: str, hdrs: dict[str, str], body: Any) -> None:
        try:
            with self._client.stream(method, url, headers=hdrs, json=body) as response:
                self.status = response.status_code
                self._ready.set()
                event_id, data = None, []
                for line in response.iter_lines():
                    if line.startswith("id:"):
                        event_id = line[3:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].strip())
                    elif line == "":
                        if data and "".join(data):
                            self.queue.put((event_id, json.loads("".join(data))))
                        event_id, data = None, []
        except httpx.HTTPError:
            pass
        finally:
            self._ready.set()
            self.queue.put((None, None))

    def next(self, timeout: float = 20, step: str = "") -> tuple[str | None, Any]:
        """The next event; fails the test when none comes within ``timeout`` seconds, naming ``step`` (what the
        test waited for) when given."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            waited = f" ({step})" if step else ""
            raise AssertionError(f"no event on the stream within {timeout:g} s{waited} (a message lost?)") from None

    def close(self) -> None:
        self._client.close()


def open_get(url: str, session: str, last_event_id: str | None = None) -> Events:
    extra = {"Last-Event-ID": last_event_id} if last_event_id else {}
    return Events("GET", url, {**headers(session, **extra), "Accept": "text/event-stream"})


class LegacyStream:
    """``GET /sse`` at ``base`` (the server's root URL) read in a thread: :attr:`endpoint` (where to
    POST), each message on :attr:`messages`, :attr:`ended` set when the server ends the stream."""

    def __init__(self, base: str, extra: dict[str, str] | None = None) -> None:
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.ended = threading.Event()
        self.extra = extra or {}
        self._client = httpx.Client(timeout=httpx.Timeout(10, read=120))
        self._endpoint: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(base + "/sse",), daemon=True).start()
        self.endpoint = base + "/" + self._endpoint.get(timeout=15).lstrip("/")

    def _read(self, url: str) -> None:
        try:
            with self._client.stream("GET", url, headers={"Accept": "text/event-stream", **self.extra}) as response:
                event = None
                for line in response.iter_lines():
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:") and event == "endpoint":
                        self._endpoint.put(line[5:].strip())
                    elif line.startswith("data:"):
                        self.messages.put(json.loads(line[5:]))
                    elif not line:
                        event = None
        except httpx.HTTPError:
            pass
        finally:
            self.ended.set()

    def post(self, message: dict[str, Any]) -> httpx.Response:
        return httpx.post(self.endpoint, json=message, headers=self.extra, timeout=30)

    def close(self) -> None:
        self._client.close()
