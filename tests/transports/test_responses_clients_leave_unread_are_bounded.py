"""Response bytes held for clients that do not read them are bounded (trial6 F8).

Forty tiny REST calls for a large result, never read, held 1.3 GB of the server's memory until
the clients closed (only unread SSE streams were bounded). Every response the socket does not
take at once now counts in the server's ``max_unsent_bytes``: connections beyond it are closed,
oldest first, and a response not read within its deadline closes its connection.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support import ROOT, serve

from nanohubmcp import MCPServer
from nanohubmcp.transports import unsent

MIB = 1024 * 1024
SIZE = 4 * MIB
"""Each response: a string of this many x's (one allocation, freed when the bytes go)."""
CLIENTS = 24
BUDGET = 16 * MIB

SERVER = f"""
import logging, sys, threading
from nanohubmcp import MCPServer
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
logging.getLogger("nanohubmcp.access").setLevel(logging.DEBUG)
server = MCPServer("unread", max_inline_bytes=None)

@server.tool()
def big(size: int) -> str:
    '''A string of size x's.'''
    return "x" * size

server.start(port=0, max_unsent_bytes={BUDGET})
print(server.port, flush=True)
threading.Event().wait()
"""


def wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def unread_call(port: int, size: int) -> socket.socket:
    """POST /tools/big from a socket that will read nothing."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    body = json.dumps({"size": size}).encode()
    sock.sendall(f"POST /tools/big HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    return sock


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int, Path]]:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    log = tmp_path / "server.log"
    # Blocks of 64 KiB and more straight from mmap, so that a freed answer leaves RSS at once
    # (glibc otherwise raises the threshold and keeps freed blocks in its thread arenas).
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MALLOC_MMAP_THRESHOLD_": "65536"}
    with log.open("w") as err:
        process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=err,
                                   text=True, env=env)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield process, port, log
    finally:
        process.kill()
        process.wait()


def test_unread_rest_answers_hold_at_most_the_budget_in_a_real_server(server_process) -> None:
    process, port, log = server_process
    warm = http.client.HTTPConnection("127.0.0.1", port, timeout=30)  # a call read whole: the baseline
    warm.request("POST", "/tools/big", body=json.dumps({"size": SIZE}), headers={"Content-Type": "application/json"})
    assert len(warm.getresponse().read()) > SIZE
    warm.close()
    before = rss(process.pid)
    socks = [unread_call(port, SIZE) for _ in range(CLIENTS)]
    try:
        answered = lambda: log.read_text().count("200 POST /tools/big") >= CLIENTS  # noqa: E731
        assert wait_for(answered), log.read_text()[-2000:]
        # 96 MiB of answers, none read: what the server still holds is its budget, one more
        # answer, and the allocator's slack (it held all of them before).
        bound = BUDGET + SIZE + 40 * MIB
        held = lambda: rss(process.pid) - before < bound  # noqa: E731
        assert wait_for(held, 20), f"the server grew by {(rss(process.pid) - before) / MIB:.0f} MiB"
        assert log.read_text().count("closing a connection with") >= CLIENTS - BUDGET // SIZE - 1
    finally:
        for sock in socks:
            sock.close()


def test_an_answer_not_read_by_its_deadline_closes_its_connection(monkeypatch) -> None:
    monkeypatch.setattr(unsent, "DRAIN_GRACE", 0.5)
    monkeypatch.setattr(unsent, "SWEEP_SECONDS", 0.1)
    monkeypatch.setattr(unsent, "DRAIN_RATE", MIB)  # the answer's share: 4 s (64 s at the real 64 KiB/s)
    server = MCPServer("unread", max_inline_bytes=None)

    @server.tool()
    def big(size: int) -> str:
        """A string of ``size`` x's."""
        return "x" * size

    with serve(server):
        sock = unread_call(server.port, SIZE)
        budget = server._serving._runner.config.unsent
        assert wait_for(lambda: len(budget) == 1, 20)
        assert wait_for(lambda: len(budget) == 0 and budget.total == 0, 20 + SIZE / unsent.DRAIN_RATE)
        assert received_until_closed(sock) < SIZE  # the server closed it before the answer was whole
        sock.close()


def received_until_closed(sock: socket.socket) -> int:
    sock.settimeout(10)
    received = 0
    try:
        while chunk := sock.recv(1 << 20):
            received += len(chunk)
    except ConnectionResetError:
        pass
    return received
