"""Fixtures of the transport tests that hold raw connections open."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest


@pytest.fixture
def opened() -> Iterator[list[socket.socket]]:
    """A list for the raw sockets a test opens; each is closed when the test ends."""
    socks: list[socket.socket] = []
    yield socks
    for sock in socks:
        sock.close()
