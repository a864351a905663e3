"""Tornado's ``HTTPServer`` with answers for oversized headers, and the connection limits.

Tornado closes a connection whose header block passes ``max_header_size`` without a word.
Here Tornado reads up to :data:`READ_HEADER_BYTES`, and a request whose header block is over
:data:`MAX_HEADER_BYTES` is answered ``431 Request Header Fields Too Large`` (RFC 6585 § 5)
with a JSON body saying the limit, before any route sees it. Beyond ``READ_HEADER_BYTES``
the connection is closed unanswered (nobody reads a megabyte of headers to refuse it).

Source: RFC 6585 § 5 (431); RFC 9110 § 15.5 (client errors).
"""

from __future__ import annotations

from typing import Any

import tornado.httpserver
from tornado import httputil

from ..errors import InvalidRequest, error_response
from ..protocol import jsonenc

MAX_HEADER_BYTES = 64 * 1024
"""Largest header block (request line included) a request may have; 431 above it."""
READ_HEADER_BYTES = 1024 * 1024
"""Largest header block read at all; above it the connection is closed unanswered."""
HEADER_TIMEOUT = 30.0
"""Seconds a connection may take to send a request's headers, counted from the end of the
previous request (so it is also how long an idle keep-alive connection stays open): a
client trickling its headers byte by byte cannot hold a connection for minutes."""


class LimitedHTTPServer(tornado.httpserver.HTTPServer):
    """An ``HTTPServer`` that answers oversized header blocks with 431 (see the module text)."""

    def start_request(self, server_conn: object, request_conn: httputil.HTTPConnection) -> httputil.HTTPMessageDelegate:
        return _HeaderLimit(super().start_request(server_conn, request_conn), request_conn)


class _HeaderLimit(httputil.HTTPMessageDelegate):
    def __init__(self, delegate: httputil.HTTPMessageDelegate, connection: httputil.HTTPConnection) -> None:
        self.delegate = delegate
        self.connection = connection
        self.refused = False

    def headers_received(self, start_line: Any, headers: httputil.HTTPHeaders) -> Any:
        size = len(start_line.method) + len(start_line.path) + len(start_line.version) + 4
        size += sum(len(name) + len(value) + 4 for name, value in headers.get_all())
        if size <= MAX_HEADER_BYTES:
            return self.delegate.headers_received(start_line, headers)
        self.refused = True
        body = jsonenc.dumpb(error_response(InvalidRequest(
            f"Request Header Fields Too Large: the headers take {size} bytes, the limit is {MAX_HEADER_BYTES}")))
        reply = httputil.HTTPHeaders({"Content-Type": "application/json", "Content-Length": str(len(body)),
                                      "Connection": "close"})
        self.connection.write_headers(httputil.ResponseStartLine("HTTP/1.1", 431, "Request Header Fields Too Large"),
                                      reply, body)
        self.connection.finish()
        return None

    def data_received(self, chunk: bytes) -> Any:
        return None if self.refused else self.delegate.data_received(chunk)

    def finish(self) -> None:
        if not self.refused:
            self.delegate.finish()

    def on_connection_close(self) -> None:
        if not self.refused:
            self.delegate.on_connection_close()
