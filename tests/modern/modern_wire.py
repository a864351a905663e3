"""2026-07-28 requests on the wire, as a stateless client sends them, through ``http.client``.

``Wire(url)`` builds each request the way the spec asks: ``_meta`` with the protocol version and
client capabilities, and the ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers.
Every part can be overridden or dropped to test the server's checks. ``call`` returns a
:class:`Reply` (status, headers, every SSE message, the response); ``listen`` opens a stream
read one event at a time, with a timeout.
"""

from __future__ import annotations

import http.client
import itertools
import json
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

VERSION = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_INFO = "io.modelcontextprotocol/clientInfo"
TASKS = "io.modelcontextprotocol/tasks"
ALL_CAPS: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
TASK_CAPS: dict[str, Any] = {**ALL_CAPS, "extensions": {TASKS: {}}}
_NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
          "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
_DROP = object()
_ids = itertools.count(1000)


@dataclass
class Reply:
    """What the server answered: HTTP status, headers, SSE messages (if any) and the response."""

    status: int
    headers: http.client.HTTPMessage
    messages: list[dict[str, Any]] = field(default_factory=list)
    response: dict[str, Any] | None = None

    @property
    def result(self) -> dict[str, Any]:
        assert self.response is not None, "no response"
        assert "result" in self.response, f"no result: {self.response}"
        return self.response["result"]

    @property
    def error(self) -> dict[str, Any]:
        assert self.response is not None, "no response"
        assert "error" in self.response, f"no error: {self.response}"
        return self.response["error"]

    @property
    def notifications(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if "method" in m and "id" not in m]


def sse_messages(raw: bytes) -> list[dict[str, Any]]:
    """The JSON messages of an SSE body (``data:`` lines of each event)."""
    out = []
    for block in raw.decode().replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")]
        if data and "".join(data).strip():
            out.append(json.loads("\n".join(data)))
    return out


class Wire:
    """2026-07-28 requests to ``url`` (the MCP endpoint, e.g. ``http://127.0.0.1:1234/mcp``)."""

    def __init__(self, url: str, *, caps: dict[str, Any] | None = None, timeout: float = 10.0) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = parts.path or "/mcp"
        self.caps = ALL_CAPS if caps is None else caps
        self.timeout = timeout

    def build(self, method: str, params: dict[str, Any] | None = None, *, caps: Any = None,
              meta: Any = None, version: str = VERSION, headers: dict[str, Any] | None = None,
              request_id: Any = None, accept: str = "application/json, text/event-stream",
              notification: bool = False) -> tuple[bytes, dict[str, str]]:
        """The body and headers of one request; ``headers`` values of None drop that header."""
        params = dict(params or {})
        if meta is None:
            meta = {META_VERSION: version, META_CAPS: self.caps if caps is None else caps,
                    META_INFO: {"name": "nanohubmcp-tests", "version": "1.0"}}
        if meta is not _DROP:
            params["_meta"] = {**meta, **params.get("_meta", {})}
        sent = {"Content-Type": "application/json", "Accept": accept, "MCP-Protocol-Version": version,
                "Mcp-Method": method}
        field_name = _NAMED.get(method)
        if field_name and isinstance(params.get(field_name), str):
            sent["Mcp-Name"] = params[field_name]
        for name, value in (headers or {}).items():
            for existing in [k for k in sent if k.lower() == name.lower()]:
                del sent[existing]
            if value is not None:
                sent[name] = value
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notification:
            message["id"] = next(_ids) if request_id is None else request_id
        return json.dumps(message).encode(), sent

    def post(self, body: bytes, headers: dict[str, str], http_method: str = "POST") -> Reply:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            payload = body if http_method == "POST" else None
            conn.request(http_method, self.path, body=payload, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        reply = Reply(response.status, response.headers)
        kind = response.headers.get("Content-Type", "")
        if kind.startswith("text/event-stream"):
            reply.messages = sse_messages(raw)
            finals = [m for m in reply.messages if "result" in m or "error" in m]
            reply.response = finals[-1] if finals else None
        elif raw:
            reply.response = json.loads(raw)
        return reply

    def call(self, method: str, params: dict[str, Any] | None = None, **options: Any) -> Reply:
        """Send one request (see :meth:`build` for the options) and read the whole answer."""
        body, headers = self.build(method, params, **options)
        return self.post(body, headers)

    def listen(self, method: str, params: dict[str, Any] | None = None, **options: Any) -> Stream:
        """Send a request and return its response stream, to read event by event."""
        body, headers = self.build(method, params, **options)
        return Stream(self.host, self.port, self.path, body, headers, self.timeout)


class Stream:
    """An SSE response read one message at a time (``next(timeout)``); ``close()`` hangs up."""

    def __init__(self, host: str, port: int, path: str, body: bytes, headers: dict[str, str],
                 timeout: float) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=timeout)
        self.conn.request("POST", path, body=body, headers=headers)
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.headers = self.response.headers

    def next(self, timeout: float = 5.0) -> dict[str, Any] | None:
        """The next message, or None when none came within ``timeout`` seconds or the stream ended."""
        sock = self.conn.sock
        if sock is not None:
            sock.settimeout(timeout)
        data: list[str] = []
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return None
                text = line.decode().rstrip("\r\n")
                if text.startswith("data:"):
                    data.append(text[5:].lstrip())
                elif not text and data:
                    return json.loads("\n".join(data))
        except TimeoutError:
            return None

    def close(self) -> None:
        """Close the connection (the server sees the stream end)."""
        if self.conn.sock is not None:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


DROP = _DROP
"""Pass as ``meta=`` to send no ``_meta`` at all."""
