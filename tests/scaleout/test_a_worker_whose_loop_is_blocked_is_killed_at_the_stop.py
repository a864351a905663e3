"""review r22 M1: a ``--workers`` worker whose event loop was blocked (an ``async def`` tool calling
``time.sleep``) never took the stop its parent passed on. The parent waited 15 s, or left at once at a
second signal, then exited with status 0, and the worker was left holding the port: the next start
failed "already in use". Now the parent kills such a worker at its deadline, or at once at a second stop
signal. It says which it killed, reaps them and exits with status 1, and nothing is left on the port.

trial47 LOW: such a worker had none of a single process's stop handling: nothing was said until the parent
killed it 15 s after the signal. Now it has the single process's exit watchdog: a second after the signal it says
that its event loop does not answer, and it exits by itself 10 s after it (status 1, and so does the parent); the
parent's kill at 15 s stays the backstop, for a worker whose watchdog never heard the signal (it ignores it)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from pathlib import Path

import pytest
import wire
from cluster import Server, group_members, listeners, took
from redis_server import RedisServer, free_port, listening
from support import wait_until

pytestmark = pytest.mark.timeout(120)

APP = """
import os
import pathlib
import signal
import time

from nanohubmcp import MCPServer

server = MCPServer("blocked")


@server.tool()
async def block(folder: str, deaf: bool = False) -> str:
    \"\"\"Block the worker's event loop (``deaf``: SIGTERM ignored first, so nothing of the worker hears it).\"\"\"
    if deaf:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    pathlib.Path(folder, str(os.getpid())).touch()  # which worker's loop is blocked
    time.sleep(90)  # the mistake: blocking code in a coroutine tool
    return "done"
"""


def _send_block(port: int, session: str, folder: Path, deaf: bool) -> socket.socket:
    """POST a ``block`` call on a new connection, without waiting for an answer (the worker never gives one)."""
    body = ('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "block", '
            f'"arguments": {{"folder": "{folder}", "deaf": {str(deaf).lower()}}}}}}}').encode()
    head = "".join(f"{name}: {value}\r\n" for name, value in wire.headers(session).items())
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                 f"Accept: application/json, text/event-stream\r\n{head}Content-Length: {len(body)}\r\n\r\n"
                 .encode() + body)
    return sock


@pytest.mark.parametrize(("deaf", "second_signal"), [(False, False), (True, False), (False, True)],
                         ids=["by-its-own-watchdog", "killed-at-the-deadline", "at-a-second-signal"])
def test_a_worker_whose_loop_is_blocked_is_ended_and_leaves_the_port_free(
    redis_server: RedisServer, tmp_path: Path, deaf: bool, second_signal: bool
) -> None:
    app = tmp_path / "blocked_app.py"
    app.write_text(APP)
    folder = tmp_path / "blocked"
    folder.mkdir()
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    server = Server(tmp_path, port, redis_server.url, workers=2, env=env, access_log=False, app=app).proc
    log = tmp_path / f"server-{port}.log"
    sockets: list[socket.socket] = []
    try:
        wait_until(lambda: listening(port) and listeners(port) == 2, "both workers listen", 30)
        session = wire.initialize(f"http://127.0.0.1:{port}/mcp")
        while not any(folder.iterdir()) and len(sockets) < 40:  # connections spread by hash: until one blocks
            sockets.append(_send_block(port, session, folder, deaf))
            with contextlib.suppress(AssertionError):
                wait_until(lambda: any(folder.iterdir()), "a worker's loop is blocked", 1)
        blocked = {int(marker.name) for marker in folder.iterdir()}
        assert blocked, "no call reached a worker"

        began = time.monotonic()
        os.kill(server.pid, signal.SIGTERM)  # as a service manager stops it
        if second_signal:
            wait_until(lambda: took(server.pid, signal.SIGTERM), "the parent took the first SIGTERM", 10)
            os.kill(server.pid, signal.SIGTERM)
        code = server.wait(40)
        spent = time.monotonic() - began
        text = log.read_text(errors="replace")

        assert code == 1, f"exit status {code}:\n{text}"
        if deaf or second_signal:  # the parent's kill: the worker never heard the signal, or it came again
            why = "was still stopping at the second SIGTERM" if second_signal else "did not stop within 15 s"
            for pid in blocked:
                assert f"(pid {pid}) {why}; killed" in text, text
            assert spent < (10 if second_signal else 25), f"the parent took {spent:.1f} s"
        else:  # the worker's own watchdog, as a single process's: said at once, and gone within the 10 s
            for pid in blocked:
                notice = next((line for line in text.splitlines() if f"(pid {pid}): stopping at SIGTERM" in line), "")
                assert "but the event loop does not answer (an async tool blocking it?): exiting within" in notice, text
                assert notice.endswith(f"send SIGTERM again to the server (pid {server.pid}) to quit now"), text
                assert (f"(pid {pid}): still running 10 s after SIGTERM: an async tool blocks the event loop"
                        in text), text
            assert "killed" not in text, text
            assert spent < 12, f"the server took {spent:.1f} s"
        assert not group_members(server.pid), f"processes outlived the server:\n{text}"
        assert listeners(port) == 0, "a worker still listens on the port"
        assert "Traceback" not in text, text
    finally:
        for sock in sockets:
            sock.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        if server.poll() is None:
            server.wait(10)
