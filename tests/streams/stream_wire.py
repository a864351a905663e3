"""Raw HTTP for the stream tests: what the official client hides (ids, sessions, stream frames).

``Wire(base_url)`` speaks Streamable HTTP and legacy SSE through ``http.client``, one connection
per request (so a test can hold a stream open while it posts on another connection, or drop a
stream by closing its socket). ``Events`` reads an SSE response in a daemon thread into a queue;
every wait is bounded.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

SSE_ACCEPT = "application/json, text/event-stream"
LATEST = "2025-11-25"


@dataclass
class Event:
    """One SSE event: ``id``, ``event`` name, ``data`` text, ``retry``; ``json`` decodes ``data``."""

    data: str = ""
    id: str | None = None
    event: str = "message"
    retry: str | None = None

    @property
    def json(self) -> Any:
        return json.loads(self.data)


class Events:
    """The reply to one request, read by a background thread: SSE events as they come, or a
    JSON body as one event per message (so callers need not know which the server chose).

    Attributes:
        status / headers: set once the response head arrived (``head`` is then set).
        ended: set when the body ended (EOF) or the connection was dropped.
    """

    def __init__(self, conn: http.client.HTTPConnection) -> None:
        self.conn = conn
        self.status: int | None = None
        self.headers: Any = None
        self.head = threading.Event()
        self.ended = threading.Event()
        self._queue: queue.Queue[Event | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True, name="test-sse-reader").start()

    def wait_head(self, timeout: float = 10.0) -> int:
        """Wait for the response head; returns the status."""
        assert self.head.wait(timeout), "no response head in time"
        assert self.status is not None, "the connection closed before a response head"
        return self.status

    @property
    def is_sse(self) -> bool:
        return (self.headers.get("Content-Type") or "").startswith("text/event-stream")

    def _read(self) -> None:
        try:
            response = self.conn.getresponse()
            self.status, self.headers = response.status, response.headers
            self.head.set()
            if self.is_sse:
                self._read_events(response)
            else:
                body = response.read()
                if body.strip():
                    value = json.loads(body)
                    for message in value if isinstance(value, list) else [value]:
                        self._queue.put(Event(data=json.dumps(message)))
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            pass  # dropped by close() (AttributeError: http.client raced with the close)
        finally:
            self.head.set()
            self.ended.set()
            self._queue.put(None)

    def _read_events(self, response: http.client.HTTPResponse) -> None:
        event = Event()
        has_field = False
        while True:
            line = response.readline()
            if not line:
                return
            text = line.decode().rstrip("\r\n")
            if not text:
                if has_field:
                    self._queue.put(event)
                event, has_field = Event(), False
                continue
            if text.startswith(":"):
                continue
            key, _, value = text.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "data":
                event.data = f"{event.data}\n{value}" if has_field and event.data else value
            elif key in ("id", "event", "retry"):
                setattr(event, key, value)
            has_field = True

    def next(self, timeout: float = 10.0) -> Event | None:
        """The next event, or None when the stream ended. Raises ``queue.Empty`` after ``timeout``."""
        item = self._queue.get(timeout=timeout)
        if item is None:
            self._queue.put(None)  # keep answering None
        return item

    def next_message(self, timeout: float = 10.0) -> dict[str, Any] | None:
        """The next JSON-RPC message (skipping priming and other data-less events), or None at the end."""
        while True:
            event = self.next(timeout)
            if event is None:
                return None
            if event.event == "message" and event.data:
                return event.json

    def until(self, predicate: Any, timeout: float = 10.0) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Read messages until one satisfies ``predicate``; returns (messages before it, it)."""
        before: list[dict[str, Any]] = []
        while True:
            message = self.next_message(timeout)
            if message is None:
                raise AssertionError(f"the stream ended before the awaited message; got {before}")
            if predicate(message):
                return before, message
            before.append(message)

    def quiet_for(self, seconds: float) -> list[dict[str, Any]]:
        """Messages arriving within ``seconds`` (an empty list when nothing came)."""
        got: list[dict[str, Any]] = []
        try:
            while True:
                event = self.next(seconds)
                if event is None:
                    return got
                if event.data:
                    got.append(event.json)
        except queue.Empty:
            return got

    def collect(self, count: int, timeout: float = 10.0, quiet: float = 0.4) -> list[dict[str, Any]]:
        """Wait (up to ``timeout``) for ``count`` messages, then keep any more arriving within ``quiet``.

        For expected messages: unlike :meth:`quiet_for` alone, a slow arrival on a loaded machine is
        waited for, and a surplus message still shows up in the list. Returns fewer than ``count``
        only when the stream ended or time ran out.
        """
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while len(got) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return got
            try:
                event = self.next(remaining)
            except queue.Empty:
                return got
            if event is None:
                return got
            if event.data:
                got.append(event.json)
        return got + self.quiet_for(quiet)

    def close(self) -> None:
        """Drop the connection (the server sees the client go away)."""
        sock = self.conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.ended.wait(5)
        self.conn.close()


@dataclass
class Reply:
    status: int
    headers: Any
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def messages(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages of the body, whether it is JSON or a finished SSE stream."""
        if (self.headers.get("Content-Type") or "").startswith("text/event-stream"):
            out = []
            for block in self.body.decode().split("\n\n"):
                data = [line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:")]
                if data and data[0]:
                    out.append(json.loads("\n".join(data)))
            return out
        value = self.json
        return value if isinstance(value, list) else [value]


class Wire:
    """Plain HTTP to a server at ``base`` (``http://127.0.0.1:PORT/prefix/``)."""

    def __init__(self, base: str, timeout: float = 10.0) -> None:
        parts = urlsplit(base)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self.timeout = timeout
        self._ids = iter(range(1000, 10**9))

    def next_id(self) -> int:
        return next(self._ids)

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    @staticmethod
    def headers(session: str | None = None, version: str | None = LATEST, accept: str = SSE_ACCEPT,
                **extra: str) -> dict[str, str]:
        out = {"Content-Type": "application/json", "Accept": accept}
        if version:
            out["MCP-Protocol-Version"] = version
        if session:
            out["Mcp-Session-Id"] = session
        out.update(extra)
        return out

    # -- whole replies -------------------------------------------------------------------
    def send(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Reply:
        conn = self.connect()
        try:
            payload = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
            conn.request(method, self.prefix + path, body=payload, headers=headers or {})
            response = conn.getresponse()
            return Reply(response.status, response.headers, response.read())
        finally:
            conn.close()

    def post(self, message: Any, session: str | None = None, *, path: str = "/mcp",
             version: str | None = LATEST, accept: str = SSE_ACCEPT) -> Reply:
        return self.send("POST", path, message, self.headers(session, version, accept))

    def request(self, method: str, params: dict[str, Any] | None = None, session: str | None = None, *,
                id: Any = None, version: str | None = LATEST, accept: str = SSE_ACCEPT) -> dict[str, Any]:
        """One JSON-RPC request; returns its response message (from JSON or a finished SSE body)."""
        rid = self.next_id() if id is None else id
        message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}
        reply = self.post(message, session, version=version, accept=accept)
        found = [m for m in reply.messages() if m.get("id") == rid and ("result" in m or "error" in m)]
        assert found, f"no response to {method} (HTTP {reply.status}): {reply.body[:300]!r}"
        return found[-1]

    def notify(self, method: str, params: dict[str, Any] | None = None, session: str | None = None, *,
               version: str | None = LATEST) -> Reply:
        message = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        return self.post(message, session, version=version)

    def respond(self, request_id: Any, result: dict[str, Any], session: str | None, *,
                version: str | None = LATEST) -> Reply:
        """POST a client's JSON-RPC response (to a server→client request)."""
        return self.post({"jsonrpc": "2.0", "id": request_id, "result": result}, session, version=version)

    def initialize(self, version: str = LATEST, capabilities: dict[str, Any] | None = None,
                   log_level: str | None = None) -> str:
        """Open a session (initialize + initialized); returns its id."""
        params = {"protocolVersion": version, "capabilities": capabilities or {},
                  "clientInfo": {"name": "stream-tests", "version": "0"}}
        message = {"jsonrpc": "2.0", "id": self.next_id(), "method": "initialize", "params": params}
        reply = self.post(message, version=None, accept="application/json, text/event-stream")
        assert reply.status == 200, reply.body
        session = reply.headers.get("Mcp-Session-Id")
        assert session, "initialize gave no Mcp-Session-Id"
        assert reply.messages()[-1]["result"]["protocolVersion"] == version
        assert self.notify("notifications/initialized", session=session, version=version).status == 202
        if log_level:
            answer = self.request("logging/setLevel", {"level": log_level}, session, version=version)
            assert "result" in answer, answer
        return session

    def delete(self, session: str, *, version: str = LATEST) -> Reply:
        return self.send("DELETE", "/mcp", None, {"Mcp-Session-Id": session, "MCP-Protocol-Version": version})

    # -- streams -------------------------------------------------------------------------
    def start(self, method: str, path: str, body: Any = None,
              headers: dict[str, str] | None = None) -> Events:
        """Send a request; its reply is read in the background (``Events``)."""
        conn = self.connect()
        payload = None if body is None else json.dumps(body).encode()
        conn.request(method, self.prefix + path, body=payload, headers=headers or {})
        return Events(conn)

    def stream_call(self, method: str, params: dict[str, Any], session: str | None, *, id: Any = None,
                    version: str | None = LATEST) -> tuple[Any, Events]:
        """POST a request accepting SSE; returns (its id, its reply read in the background)."""
        rid = self.next_id() if id is None else id
        message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        return rid, self.start("POST", "/mcp", message, self.headers(session, version))

    def listen(self, session: str, *, version: str = LATEST, last_event_id: str | None = None) -> Events:
        """Open the session's GET stream (``Last-Event-ID`` resumes); asserts it opened."""
        headers = {"Accept": "text/event-stream", "Mcp-Session-Id": session, "MCP-Protocol-Version": version}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        events = self.start("GET", "/mcp", None, headers)
        assert events.wait_head() == 200, events.status
        return events

    def legacy(self) -> tuple[Events, str]:
        """Open ``GET /sse``; returns the stream and the announced POST path, resolved against the
        stream's URL as a client does (RFC 3986 § 5.2) to a path on this host."""
        events = self.start("GET", "/sse", None, {"Accept": "text/event-stream"})
        assert events.wait_head() == 200, events.status
        first = events.next()
        assert first is not None, "GET /sse ended before the endpoint event"
        assert first.event == "endpoint", first
        return events, urljoin(self.prefix + "/sse", first.data)

    def legacy_post(self, endpoint: str, message: Any) -> Reply:
        """POST to a legacy endpoint path as announced (absolute path on this host)."""
        conn = self.connect()
        try:
            conn.request("POST", endpoint, body=json.dumps(message).encode(),
                         headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            return Reply(response.status, response.headers, response.read())
        finally:
            conn.close()
