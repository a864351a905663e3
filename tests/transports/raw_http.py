"""Plain HTTP for transport tests: what curl would send, through ``http.client``.

``Http(url)`` keeps one connection (HTTP/1.1 keep-alive) to the server at ``url`` and returns
:class:`Reply` objects with the status, headers and body (decoded JSON when it is JSON).
"""

from __future__ import annotations

import http.client
import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

JSON_HEADERS = {"Content-Type": "application/json"}
CURL_HEADERS = {"Accept": "*/*", "User-Agent": "curl/8.5.0"}
"""What curl adds to every request unless told otherwise."""


@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw)

    def header(self, name: str) -> str | None:
        return self.headers.get(name)


class Http:
    """One keep-alive connection to ``url`` (a base URL like ``http://127.0.0.1:1234/``).

    ``headers`` are sent with every request (``CURL_HEADERS`` to look like curl).
    """

    def __init__(self, url: str, timeout: float = 10.0, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.base = parts.path.rstrip("/")
        self.timeout = timeout
        self.default_headers = dict(headers or {})
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> Reply:
        """Send one request; ``body`` may be bytes, str, or a JSON value (sent as JSON)."""
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        sent = {**self.default_headers, **(headers or {})}
        self.conn.request(method, self.base + path, body=body, headers=sent)
        response = self.conn.getresponse()
        return Reply(response.status, response.headers, response.read())

    def post(self, path: str, body: Any, headers: dict[str, str] | None = None) -> Reply:
        return self.request("POST", path, body, {**JSON_HEADERS, **(headers or {})})

    def get(self, path: str, headers: dict[str, str] | None = None) -> Reply:
        return self.request("GET", path, None, headers)

    def rpc(self, method: str, params: dict[str, Any] | None = None, *, id: Any = 1,
            path: str = "/", headers: dict[str, str] | None = None) -> Reply:
        """POST one JSON-RPC request (``{"jsonrpc": "2.0", "id", "method", "params"}``)."""
        message = {"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}
        return self.post(path, message, headers)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Http:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_reply(sock: socket.socket, timeout: float = 10.0) -> tuple[int, dict[str, str], bytes]:
    """Read one HTTP/1.1 response with a Content-Length body from a raw socket: status, headers
    (lower-case names), body; ``ConnectionError`` when the server closes before its end."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a response: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    while len(body) < int(headers.get("content-length", "0")):
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed inside a response body")
        body += chunk
    return int(lines[0].split()[1]), headers, body


def port_of(url: str) -> int:
    """The port of a server's base URL (``http://127.0.0.1:1234/`` gives 1234), for a raw socket to it."""
    return int(url.rsplit(":", 1)[1].strip("/"))


def closes(sock: socket.socket, timeout: float = 10.0) -> bool:
    """Whether the server closes ``sock`` (an end of stream or a reset) within ``timeout`` seconds; False when it
    sends more bytes instead, or nothing at all by then. What is read is dropped."""
    sock.settimeout(timeout)
    try:
        return sock.recv(100) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
