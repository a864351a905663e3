"""Where a server listens: the port it is given (:func:`resolve_port`) and its listening sockets (:func:`bind`).

A port that is busy, forbidden or no port number at all is a
:class:`~nanohubmcp.errors.ConfigurationError` naming it, raised before anything is served. Serving
on the sockets is the runner's (:mod:`..serving.runner`); forking workers over them is :mod:`.workers`'.
"""

from __future__ import annotations

import errno
import os
import socket
import sys

import tornado.netutil

from ..errors import ConfigurationError
from ..protocol.port_numbers import port_of

BACKLOG = 1024
"""The listen backlog of each socket: connections the kernel holds before the server accepts them."""


def resolve_port(port: int | str | None) -> int:
    """``port``, else ``$MCP_PORT``, else 8000; raises ConfigurationError when not a port number (the message
    names ``$MCP_PORT`` when the value came from there). A number is read as every whole-number setting is, and
    text (``$MCP_PORT``, ``port="8000"``, as 0.4.x scripts pass it) as every option's text is
    (:func:`~nanohubmcp.protocol.port_numbers.port_of`: ``8000.0``, ``"8000.0"`` and numpy's ``int64`` are 8000; a
    bool, as ``port=True`` served on port 1, ``8000.5`` (served on 8000), inf and full-width digits are refused,
    saying what to write)."""
    source = "port"
    if port is None:
        port = os.environ.get("MCP_PORT") or 8000
        source = "$MCP_PORT" if isinstance(port, str) else source
    return port_of(port, source)


SPREAD_BY_KERNEL = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")
"""Whether each worker listens on a socket of its own (``SO_REUSEPORT``: Linux spreads new
connections over the workers' sockets by a hash of their addresses). One socket shared by
the workers goes to whichever wakes first: a burst of connections (a client pool opening
16 at once) all landed on one worker."""


class PortInUse(ConfigurationError):
    """``port`` on ``host`` is held by another process. The message says how to ask for any free port as
    ``any_port`` (``run()``'s ``port=0``; :meth:`saying` gives it in a command line's words), and, when no server
    listens there (``by_connection``: a client connection's own end holds it, :mod:`.port_holders`), that, and to
    pick a port outside the range the system gives client connections."""

    def __init__(self, host: str, port: int, any_port: str = "port=0", *, by_connection: bool = False) -> None:
        self.host = host
        self.port = port
        self.by_connection = by_connection
        from .port_holders import connection_note  # (a busy port's note: not imported by a start that binds)

        super().__init__(f"port {port} on {host} is already in use" + (
            f", {connection_note(port, any_port)}" if by_connection
            else f": stop the other server, pick another port, or use {any_port} for any free port"))

    def saying(self, any_port: str) -> PortInUse:
        """The same error, naming ``any_port`` (e.g. ``--port 0``) as the way to any free port."""
        return PortInUse(self.host, self.port, any_port, by_connection=self.by_connection)


def bind(host: str, port: int, *, reuse_port: bool = False) -> list[socket.socket]:
    """Bind listening sockets; a busy or forbidden port becomes a clear ConfigurationError."""
    try:
        return tornado.netutil.bind_sockets(port, host, backlog=BACKLOG, reuse_port=reuse_port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            from .port_holders import held_by_connection

            raise PortInUse(host, port, by_connection=held_by_connection(port)) from None
        raise ConfigurationError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
