"""One HTTP request from the bridge to the server, and its streamed response (SSE event by event)."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from urllib.parse import urlsplit

from tornado import httputil
from tornado.http1connection import HTTP1Connection, HTTP1ConnectionParameters
from tornado.iostream import IOStream, StreamClosedError
from tornado.netutil import Resolver
from tornado.tcpclient import TCPClient

from ..redaction import authority, redact, secrets_of
from .refusal import MAX_SAID_CHARS

CONNECT_TIMEOUT = 15.0
"""Seconds to open a connection to the server."""


class HTTPFailure(Exception):
    """The server could not be reached, or answered outside the protocol."""


class Exchange(httputil.HTTPMessageDelegate):
    """One HTTP request and its streamed response (Tornado's HTTP/1.1 client connection); the server's name is
    looked up with ``resolver`` (Tornado's default when None)."""

    def __init__(self, on_event: Callable[[dict[str, str]], None] | None = None, resolver: Resolver | None = None
                 ) -> None:
        self.resolver = resolver
        self.status = 0
        self.reason = ""
        self.headers = httputil.HTTPHeaders()
        self.body = bytearray()
        self.on_event = on_event
        self.stream: IOStream | None = None
        self._pending = ""
        self._event: dict[str, str] = {}

    @property
    def is_sse(self) -> bool:
        return self.headers.get("Content-Type", "").split(";")[0].strip().lower() == "text/event-stream"

    def headers_received(self, start_line: httputil.RequestStartLine | httputil.ResponseStartLine,
                         headers: httputil.HTTPHeaders) -> None:
        assert isinstance(start_line, httputil.ResponseStartLine)  # (a client's connection reads responses)
        self.status = start_line.code
        # The server's reason phrase, repeated in the bridge's messages: no longer than what it repeats of a body.
        reason = start_line.reason
        self.reason = reason if len(reason) <= MAX_SAID_CHARS else reason[: MAX_SAID_CHARS - 1] + "…"
        self.headers = headers

    def data_received(self, chunk: bytes) -> None:
        if not (self.is_sse and self.status == 200 and self.on_event is not None):
            self.body += chunk
            return
        self._pending += chunk.decode("utf-8", errors="replace")
        *complete, self._pending = self._pending.replace("\r\n", "\n").split("\n")
        for line in complete:  # HTML Living Standard § Server-sent events, parsing an event stream
            if not line:
                if self._event:
                    self.on_event(self._event)
                self._event = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "data" and "data" in self._event:
                    self._event["data"] += "\n" + value
                else:
                    self._event[name] = value

    def close(self) -> None:
        """Abandon the exchange (the connection closes)."""
        if self.stream is not None:
            self.stream.close()

    async def run(self, method: str, url: str, headers: dict[str, str], body: bytes | None = None) -> Exchange:
        """Send the request and read the whole response (an SSE body event by event).

        Raises:
            HTTPFailure: no connection, or it broke before a response began (its message shows no
                credential of ``url`` or ``headers``).
        """
        parts = urlsplit(url)
        secure = parts.scheme == "https"
        port = parts.port or (443 if secure else 80)
        host = parts.hostname or ""
        try:
            self.stream = await TCPClient(resolver=self.resolver).connect(
                host,
                port,
                ssl_options=ssl.create_default_context() if secure else None,
                timeout=CONNECT_TIMEOUT,
            )
        except (OSError, StreamClosedError, asyncio.TimeoutError, ssl.SSLError) as exc:
            reason = getattr(exc, "real_error", None) or exc  # Tornado wraps the OS error in "Stream is closed"
            text = f"cannot connect to {authority(url)}: {reason} (is the server running?)"
            raise HTTPFailure(redact(text, secrets_of(url, headers))) from None
        sent = httputil.HTTPHeaders(headers)
        sent["Host"] = authority(url)  # host[:port]: a user:password@ is no part of it (RFC 9110 § 7.2)
        sent["Connection"] = "close"
        if body is not None:
            sent["Content-Length"] = str(len(body))
        connection = HTTP1Connection(
            self.stream, True, HTTP1ConnectionParameters(no_keep_alive=True, decompress=False, max_body_size=1 << 50)
        )
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            await connection.write_headers(httputil.RequestStartLine(method, path, "HTTP/1.1"), sent)
            if body:
                await connection.write(body)
            connection.finish()
            await connection.read_response(self)
        except (StreamClosedError, httputil.HTTPInputError, OSError) as exc:
            if self.status == 0:
                text = f"{method} {url} failed: {exc or type(exc).__name__}"
                raise HTTPFailure(redact(text, secrets_of(url, headers))) from None
        finally:
            connection.close()
        return self
