"""A port read from a command line (``--port N``, ``$MCP_PORT``) is an ``int`` itself, not a subclass: the
socket module's address functions refuse any other type (``OSError: Int or String expected``). cab1b372 made
it an ``int`` subclass to word a busy-port message; ``start_mcp --port N`` then never saw its app listening
(``socket.create_connection((host, port))`` raised for every probe) and timed out (ci51: nine export tests)."""

from __future__ import annotations

import socket

from nanohubmcp.transports.port_option import port_number


def test_the_port_read_is_an_int_the_socket_module_takes() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        port = port_number(str(listener.getsockname()[1]))
        assert type(port) is int
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    finally:
        listener.close()
