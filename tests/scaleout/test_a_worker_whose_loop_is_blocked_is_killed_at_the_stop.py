"""review r22 M1: a ``--workers`` worker whose event loop was blocked (an ``async def`` tool calling
``time.sleep``) never took the stop its parent passed on. The parent waited 15 s, or left at once at a
second signal, then exited with status 0, and the worker was left holding the port: the next start
failed "already in use". Now the parent kills such a worker at its deadline, or at once at a second stop
signal. It says which it killed, reaps them and exits with status 1, and nothing is left on the port.

trial47 LOW: such a worker had none of a single process's stop handling: nothing was said until the parent
killed it 15 s after the signal. Now it has the single process's exit watchdog: a second after the signal it says
that its event loop does not answer, and it exits by itself 10 s after it (status 1, and so does the parent); the
parent's kill at 15 s stays the backstop, for a worker whose watchdog never heard the signal (it ignores it).

trial48 LOW: SIGTERM sent to such a worker alone (not the server): its watchdog ended it at 10 s with status 1 and the
parent, never told (the worker records the signal from a handler on its blocked loop), said "exited with status 1;
restarted"; the worker's line said to signal the server, which would stop every worker. Now the signal is recorded
for the parent at once (the watchdog's Python-level handler): "stopped by SIGTERM (then exited with status 1); not
restarted", and the line names the worker, which takes a repeat itself. trial48 NIT: after a terminal's Ctrl-C the
worker said "send SIGINT again to the server" under the server's "press Ctrl-C again"; now it says "press Ctrl-C
again" too.

The 10 s and 15 s are the defaults of the exit grace and of the kill 5 s past it (``--exit-grace``); the tests that
wait for them serve with ``--exit-grace 2`` (so 2 s and 7 s), those whose second signal must come before the
worker's own watchdog with the default."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import wire
from cluster import Server, group_members, listeners, took
from redis_server import RedisServer, free_port, listening
from support import wait_until

pytestmark = pytest.mark.timeout(120)

GRACE = 2.0
"""The exit grace of the tests that wait for a worker's watchdog or the parent's kill (``--exit-grace``)."""
KILL = GRACE + 5
"""When the parent kills a worker still running (5 s past the exit grace)."""

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


def _block_a_worker(port: int, folder: Path, deaf: bool, sockets: list[socket.socket]) -> set[int]:
    """Send ``block`` calls until one worker's loop is blocked; the blocked workers' process ids."""
    wait_until(lambda: listening(port) and listeners(port) == 2, "both workers listen", 30)
    session = wire.initialize(f"http://127.0.0.1:{port}/mcp")
    while not any(folder.iterdir()) and len(sockets) < 40:  # connections spread by hash: until one blocks
        sockets.append(_send_block(port, session, folder, deaf))
        with contextlib.suppress(AssertionError):
            wait_until(lambda: any(folder.iterdir()), "a worker's loop is blocked", 1)
    blocked = {int(marker.name) for marker in folder.iterdir()}
    assert blocked, "no call reached a worker"
    return blocked


@contextlib.contextmanager
def _served(redis_server: RedisServer, tmp_path: Path,
            grace: float | None) -> Iterator[tuple[Any, int, Path, Path, list[socket.socket]]]:
    """The blocking app served by ``nanohubmcp run --workers 2`` (``--exit-grace grace``; None: the default): its
    process, port, log, marker folder and the test's connections (closed, and the server's group killed, at the
    end)."""
    app = tmp_path / "blocked_app.py"
    app.write_text(APP)
    folder = tmp_path / "blocked"
    folder.mkdir()
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    extra = ["--exit-grace", f"{grace:g}"] if grace is not None else []
    server = Server(tmp_path, port, redis_server.url, workers=2, env=env, access_log=False, app=app,
                    extra_args=extra).proc
    sockets: list[socket.socket] = []
    try:
        yield server, port, tmp_path / f"server-{port}.log", folder, sockets
    finally:
        for sock in sockets:
            sock.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        if server.poll() is None:
            server.wait(10)


@pytest.mark.parametrize(("deaf", "second_signal", "signum"),
                         [(False, False, signal.SIGTERM), (True, False, signal.SIGTERM),
                          (False, True, signal.SIGTERM), (False, False, signal.SIGINT)],
                         ids=["by-its-own-watchdog", "killed-at-the-deadline", "at-a-second-signal", "terminal-ctrl-c"])
def test_a_worker_whose_loop_is_blocked_is_ended_and_leaves_the_port_free(
    redis_server: RedisServer, tmp_path: Path, deaf: bool, second_signal: bool, signum: int
) -> None:
    with _served(redis_server, tmp_path, None if second_signal else GRACE) as (server, port, log, folder, sockets):
        blocked = _block_a_worker(port, folder, deaf, sockets)

        began = time.monotonic()
        if signum == signal.SIGINT:
            os.killpg(server.pid, signal.SIGINT)  # a terminal's Ctrl-C: the server and its workers
        else:
            os.kill(server.pid, signal.SIGTERM)  # as a service manager stops it
        if second_signal:
            wait_until(lambda: took(server.pid, signal.SIGTERM), "the parent took the first SIGTERM", 10)
            os.kill(server.pid, signal.SIGTERM)
        code = server.wait(40)
        spent = time.monotonic() - began
        text = log.read_text(errors="replace")

        assert code == 1, f"exit status {code}:\n{text}"
        if deaf or second_signal:  # the parent's kill: the worker never heard the signal, or it came again
            why = "was still stopping at the second SIGTERM" if second_signal else f"did not stop within {KILL:g} s"
            for pid in blocked:
                assert f"(pid {pid}) {why}; killed" in text, text
            assert spent < (10 if second_signal else KILL + 10), f"the parent took {spent:.1f} s"
        else:  # the worker's own watchdog, as a single process's: said at once, and gone within the 10 s
            name = signal.Signals(signum).name
            again = (f"press Ctrl-C again (SIGINT to the server, pid {server.pid})" if signum == signal.SIGINT
                     else f"send SIGTERM again to the server (pid {server.pid})")
            for pid in blocked:
                notice = next((line for line in text.splitlines() if f"(pid {pid}): stopping at {name}" in line), "")
                assert "but the event loop does not answer (an async tool blocking it?): exiting within" in notice, text
                assert notice.endswith(f"{again} to quit now"), text
                assert (f"(pid {pid}): still running {GRACE:g} s after {name}: an async tool blocks the event loop"
                        in text), text
            assert "; killed" not in text, text
            assert spent < GRACE + 2, f"the server took {spent:.1f} s"
        assert not group_members(server.pid), f"processes outlived the server:\n{text}"
        assert listeners(port) == 0, "a worker still listens on the port"
        assert "Traceback" not in text, text


@pytest.mark.parametrize("second_signal", [False, True], ids=["by-its-own-watchdog", "at-a-second-signal"])
def test_a_blocked_worker_sent_sigterm_alone_is_not_restarted(
    redis_server: RedisServer, tmp_path: Path, second_signal: bool
) -> None:
    with _served(redis_server, tmp_path, None if second_signal else GRACE) as (server, port, log, folder, sockets):
        (worker, *others) = _block_a_worker(port, folder, False, sockets)
        assert not others, others

        os.kill(worker, signal.SIGTERM)  # the operator stops this worker alone
        notice_start = f"(pid {worker}): stopping at SIGTERM, but the event loop does not answer"
        wait_until(lambda: notice_start in log.read_text(errors="replace"), "the worker's notice", 10)
        notice = next(line for line in log.read_text(errors="replace").splitlines() if notice_start in line)
        assert notice.endswith(f"send SIGTERM again to this worker (pid {worker}) to quit now"), notice
        if second_signal:
            began = time.monotonic()
            os.kill(worker, signal.SIGTERM)
            ended = "stopped by SIGTERM (then exited with status 143); not restarted (1 of 2 left)"
        else:
            ended = "stopped by SIGTERM (then exited with status 1); not restarted (1 of 2 left)"
        wait_until(lambda: f"(pid {worker}) {ended}" in log.read_text(errors="replace"), "the parent's line", 20)
        text = log.read_text(errors="replace")
        if second_signal:
            assert time.monotonic() - began < 5, text
            assert f"(pid {worker}): SIGTERM again while stopping; exiting now" in text, text
        else:
            assert f"(pid {worker}): still running {GRACE:g} s after SIGTERM" in text, text
        assert "; restarted" not in text, text
        assert server.poll() is None, text  # the other worker serves on
        assert listeners(port) == 1, text
        assert "Traceback" not in text, text
