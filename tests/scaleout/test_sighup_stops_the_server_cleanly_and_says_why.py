"""trial44 T44-8: SIGHUP (a terminal or ssh session closing) killed a ``--workers`` server's parent at once, without
a word; a second later each worker said "the parent process ... is gone" and stopped, which read like a crash. A
single process died at once too, its running calls unanswered. SIGHUP now stops the server as SIGTERM does: one line
says why, running calls get the stopping server's answer, the status is 0 and nothing is left running. Under nohup
(SIGHUP ignored) it is ignored still."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import wire
from cluster import Server, calls_running_where, group_members, listeners, took
from redis_server import RedisServer, free_port, listening
from support import wait_until

from nanohubmcp.processes.workers import HANGUP_LINE

pytestmark = pytest.mark.timeout(120)

APP = Path(__file__).with_name("stops_app.py")
LINE = f"nanohubmcp: {HANGUP_LINE}"
GRACE = ["--exit-grace", "3"]
"""A short exit grace: the running call's stopping answer comes 1 s after the signal (the default grace's 8 s of
time for answers is not what these tests are about)."""


def _answer(call: wire.Events) -> dict[str, Any]:
    """The answer a call's SSE response ends with (what comes before it, its progress, passed over)."""
    while True:
        _, message = call.next(30)
        assert message is not None, "the response ended without an answer"
        if "id" in message:
            return dict(message)


@pytest.mark.parametrize(("workers", "to_group"), [(2, False), (2, True), (1, True)],
                         ids=["to-the-workers-parent", "to-the-workers-group", "to-a-single-process"])
def test_sighup_stops_the_server_as_sigterm_does_saying_why(
    redis_server: RedisServer, tmp_path: Path, workers: int, to_group: bool
) -> None:
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    server = Server(tmp_path, port, redis_server.url, workers=workers, env=env, access_log=False, app=APP,
                    extra_args=GRACE)
    release = tmp_path / "release"
    call = None
    try:
        wait_until(lambda: listening(port) and listeners(port) == workers, "the workers listen", 30)
        session = wire.initialize(server.url)
        call, _ = calls_running_where(server.url, session, "hold", {"path": str(release)})

        (os.killpg if to_group else os.kill)(server.proc.pid, signal.SIGHUP)  # a terminal closing: the group
        answer = _answer(call)
        assert answer["error"]["message"].startswith("The server is stopping"), answer
        release.touch()  # (its thread may end: the process exits at once, not at its 3 s bound)
        assert server.proc.wait(30) == 0, server.report()
        text = server.text()
        assert text.count(LINE) == 1, text
        assert "is gone" not in text, text  # (the workers were told, not left to find their parent gone)
        assert "Traceback" not in text, text
        assert not group_members(server.proc.pid), f"processes outlived the server:\n{text}"
        assert listeners(port) == 0, "a worker still listens on the port"
    finally:
        release.touch()
        if call is not None:
            call.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait(10)


def test_sighup_is_still_ignored_under_nohup(redis_server: RedisServer, tmp_path: Path) -> None:
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(  # as `nohup nanohubmcp run ...` starts it: SIGHUP ignored
            [sys.executable, "-m", "nanohubmcp", "run", str(APP), "--port", str(port), "--workers", "2",
             "--state-url", redis_server.url],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # (what nohup does)
        )
    try:
        wait_until(lambda: listening(port) and listeners(port) == 2, "both workers listen", 30)
        members = group_members(proc.pid)
        os.killpg(proc.pid, signal.SIGHUP)
        wait_until(lambda: all(took(pid, signal.SIGHUP) for pid in members), "every process let SIGHUP go", 10)
        session = wire.initialize(f"http://127.0.0.1:{port}/mcp")  # still serving, on both workers
        for _ in range(8):
            assert wire.tool(f"http://127.0.0.1:{port}/mcp", session, "hold", {"path": str(log)})["result"]
        assert proc.poll() is None, log.read_text()
        assert HANGUP_LINE not in log.read_text(), log.read_text()
        assert group_members(proc.pid) == members
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(30) == 0, log.read_text()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
