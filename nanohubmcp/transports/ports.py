"""Where a server listens: the port it is given (:func:`resolve_port`) and its listening sockets (:func:`bind`).

A port that is busy, forbidden or no port number at all is a
:class:`~nanohubmcp.errors.ConfigurationError` naming it, raised before anything is served. Serving
on the sockets is the runner's (:mod:`.runner`); forking workers over them is :mod:`.workers`'.
"""

from __future__ import annotations

import errno
import os
import socket
import sys

import tornado.netutil

from ..errors import ConfigurationError
from ..protocol.message_values import shown_value
from ..protocol.whole_numbers import whole_number, written_whole

BACKLOG = 1024
"""The listen backlog of each socket: connections the kernel holds before the server accepts them."""


def resolve_port(port: int | str | None) -> int:
    """``port``, else ``$MCP_PORT``, else 8000; raises ConfigurationError when not a port number (the message
    names ``$MCP_PORT`` when the value came from there). A number is read as every whole-number setting is
    (:func:`~nanohubmcp.protocol.whole_numbers.whole_number`: ``8000.0`` and numpy's ``int64`` are 8000; a bool, as
    ``port=True`` served on port 1, ``8000.5`` (served on 8000) and inf (an ``OverflowError``) are refused, saying
    what to write); text
    (``$MCP_PORT``, ``port="8000"``) is read as digits."""
    source = "port"
    if port is None:
        port = os.environ.get("MCP_PORT") or 8000
        source = "$MCP_PORT" if isinstance(port, str) else source
    value = _int_text(port) if isinstance(port, str) else whole_number(port)
    if value is None:
        said = "" if isinstance(port, str) else written_whole(port)  # (8000.5: "; write a whole number: 8001")
        raise ConfigurationError(f"{source} must be a whole number between 0 and 65535 (0: any free port), "
                                 f"not {shown_value(port)}{said}")
    if not 0 <= value <= 65535:
        raise ConfigurationError(f"{source} must be between 0 and 65535 (0: any free port), not {shown_value(value)}")
    return value


def _int_text(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


SPREAD_BY_KERNEL = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")
"""Whether each worker listens on a socket of its own (``SO_REUSEPORT``: Linux spreads new
connections over the workers' sockets by a hash of their addresses). One socket shared by
the workers goes to whichever wakes first: a burst of connections (a client pool opening
16 at once) all landed on one worker."""


class PortInUse(ConfigurationError):
    """``port`` on ``host`` is held by another process. The message says how to ask for any free port as
    ``any_port`` (``run()``'s ``port=0``; :meth:`saying` gives it in a command line's words)."""

    def __init__(self, host: str, port: int, any_port: str = "port=0") -> None:
        self.host = host
        self.port = port
        super().__init__(f"port {port} on {host} is already in use: stop the other server, pick another port, "
                         f"or use {any_port} for any free port")

    def saying(self, any_port: str) -> PortInUse:
        """The same error, naming ``any_port`` (e.g. ``--port 0``) as the way to any free port."""
        return PortInUse(self.host, self.port, any_port)


def bind(host: str, port: int, *, reuse_port: bool = False) -> list[socket.socket]:
    """Bind listening sockets; a busy or forbidden port becomes a clear ConfigurationError."""
    try:
        return tornado.netutil.bind_sockets(port, host, backlog=BACKLOG, reuse_port=reuse_port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(host, port) from None
        raise ConfigurationError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
