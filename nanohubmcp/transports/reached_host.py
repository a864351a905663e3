"""The host and port a request reached, for the URLs a document built on it names.

:class:`~.base.BaseHandler` reads it to tell whether the client reached the server by an IP address.
"""

from __future__ import annotations

from tornado import httputil
from tornado.http1connection import HTTP1Connection

__all__ = ["reached_host"]


def reached_host(request: httputil.HTTPServerRequest) -> str:
    """The host and port ``request`` reached: its ``Host``, or for an HTTP/1.0 request without one
    (HTTP/1.1 requires it: Tornado answers 400), the address and port of the connection's local end.
    Tornado puts ``127.0.0.1`` in its place, which has no port: a URL built on it names port 80."""
    if "Host" in request.headers:
        return request.host
    connection = request.connection
    stream = connection.stream if isinstance(connection, HTTP1Connection) else None
    try:
        address = stream.socket.getsockname() if stream is not None and stream.socket is not None else None
    except OSError:  # the connection closed meanwhile
        address = None
    if not isinstance(address, tuple):
        return request.host
    host, port = address[0], address[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
