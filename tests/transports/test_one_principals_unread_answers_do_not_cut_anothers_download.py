"""One principal's unread answers cost that principal its connections, not another's download.

A fresh-user trial (trial31 S9): the bytes of answers clients have not read are bounded by
``max_unsent_bytes``, and beyond it the oldest connections were closed: whoever started downloading first.
One token holder sending calls for large answers on sockets it never reads cut another principal's
download in progress, repeatedly, at the cost of a few idle sockets. Now each principal has a share,
``max_unsent_bytes_per_principal`` (default an eighth of ``max_unsent_bytes``, at least 1 MiB): beyond the
bound the oldest connection of the principal holding the most beyond its share is closed first; without
authorization only the overall bound applies (the oldest first, as before).
"""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Callable

import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.transports.config import TransportConfig

MiB = 1 << 20
SIZE = 4 * MiB
"""Each answer: a string of this many x's."""
BUDGET = 8 * MiB
TOKENS = {"alice-token": "alice", "bob-token": "bob"}


def build() -> MCPServer:
    server = MCPServer("unsentshare", auth=TOKENS.get, max_inline_bytes=None)

    @server.tool()
    def big(size: int) -> str:
        """A string of size x's."""
        return "x" * size

    return server


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def unread_call(port: int, token: str) -> socket.socket:
    """POST /tools/big from a socket that reads nothing for now."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    body = json.dumps({"size": SIZE}).encode()
    sock.sendall(f"POST /tools/big HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                 f"Authorization: Bearer {token}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    return sock


def received_until_closed(sock: socket.socket) -> int:
    """Read the answer: the bytes received until the server closed, or until the answer was whole."""
    sock.settimeout(30)
    received = bytearray()
    whole: int | None = None
    try:
        while chunk := sock.recv(1 << 20):
            received += chunk
            if whole is None and b"\r\n\r\n" in received:
                head = bytes(received).split(b"\r\n\r\n", 1)[0].decode().lower()
                length = head.split("content-length:", 1)[1].split("\r\n", 1)[0]
                whole = len(head) + 4 + int(length)
            if whole is not None and len(received) >= whole:
                break
    except ConnectionResetError:
        pass
    return len(received)


def test_bobs_unread_answers_close_bobs_connections_not_alices_download(
        opened: list[socket.socket], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="nanohubmcp.http")
    closed = lambda: sum("closing a connection with" in r.getMessage() for r in caplog.records)  # noqa: E731
    server = build()
    with serve(server, max_unsent_bytes=BUDGET, max_unsent_bytes_per_principal=2 * MiB):
        budget = server._serving._runner.config.unsent
        alice = unread_call(server.port, "alice-token")  # alice's download starts first, read slowly
        opened.append(alice)
        wait_for(lambda: len(budget) == 1, "alice's answer to be held")
        for count in range(1, 5):  # bob: calls for large answers he never reads
            opened.append(unread_call(server.port, "bob-token"))
            wait_for(lambda count=count: len(budget) + closed() == count + 1, f"bob's answer {count} to be held")
        assert closed() >= 2  # 20 MiB asked for, 8 MiB held at most
        assert received_until_closed(alice) > SIZE  # was: cut, alice's was the oldest connection
        assert received_until_closed(opened[1]) < SIZE  # bob's oldest went first


def test_the_share_is_set_with_the_other_limits() -> None:
    assert TransportConfig().unsent.share == 32 * MiB  # an eighth of 256 MiB
    assert TransportConfig(max_unsent_bytes=2 * MiB).unsent.share == MiB  # 1 MiB at least
    assert TransportConfig(max_unsent_bytes_per_principal=512 * MiB).unsent.share == 256 * MiB  # no share
    assert TransportConfig(max_unsent_bytes_per_principal=5 * MiB).unsent.share == 5 * MiB
    with pytest.raises(ConfigurationError, match=r"^max_unsent_bytes_per_principal must be at least 1 MiB "
                                                 r"\(1048576\), not 1000$"):
        TransportConfig(max_unsent_bytes_per_principal=1000)
    for wrong in ("big", True):
        with pytest.raises(ConfigurationError, match=r"^max_unsent_bytes_per_principal must be a number of bytes "
                                                     r">= 1 MiB \(1048576\), or None, not "):
            TransportConfig(max_unsent_bytes_per_principal=wrong)  # type: ignore[arg-type]


def test_the_notebook_setting_is_checked_and_exported() -> None:
    import nbformat
    from traitlets import TraitError

    from nanohubmcp.jupyter.config import NanohubMCP
    from nanohubmcp.jupyter.translate import translate

    assert NanohubMCP().max_unsent_bytes_per_principal is None  # derived: run()'s default
    assert NanohubMCP(max_unsent_bytes_per_principal=64 * MiB).max_unsent_bytes_per_principal == 64 * MiB
    with pytest.raises(TraitError, match=r"max_unsent_bytes_per_principal"):
        NanohubMCP().max_unsent_bytes_per_principal = 2048

    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_code_cell("%config NanohubMCP.max_unsent_bytes_per_principal = 67108864"))
    script = translate(notebook, source="work/demo.ipynb", format_code=False)
    assert "server.run(**_command_line_options(), max_unsent_bytes_per_principal=67108864)" in script.text
